// The operator commands of `npx cdk-whatsapp-agent-pipeline <command>` (bin/cli.ts). Adding a
// command is one module exporting a `CliCommand` and one line in COMMANDS.
import { backfillShardsCommand } from './backfill-shards';
import { eraseCustomerCommand } from './erase-customer';
import { exportCustomerCommand } from './export-customer';
import { redriveCommand } from './redrive';

/** One command of the package's command-line tool. */
export interface CliCommand {
  /** One line for the command list. */
  readonly summary: string;
  /** Runs with the arguments after the command name; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A mistake in the command line: printed with the command's usage, exit code 1. */
export class UsageError extends Error {}

/** node:util's parseArgs refusing an unknown or malformed option. */
export function isArgumentError(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS');
}

export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  'redrive': redriveCommand,
  'erase-customer': eraseCustomerCommand,
  'export-customer': exportCustomerCommand,
  'backfill-shards': backfillShardsCommand,
};
