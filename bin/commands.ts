// The operator commands of `npx cdk-whatsapp-agent-pipeline <command>` (bin/cli.ts). Adding a
// command is one module exporting a `CliCommand` and one line in COMMANDS.
import { backfillShardsCommand } from './backfill-shards';
import type { CliCommand } from './cli-command';
import { eraseCustomerCommand } from './erase-customer';
import { evaluateCommand } from './evaluate';
import { exportCustomerCommand } from './export-customer';
import { metaSetupCommand } from './meta-setup';
import { redriveCommand } from './redrive';

export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  'meta-setup': metaSetupCommand,
  'redrive': redriveCommand,
  'erase-customer': eraseCustomerCommand,
  'export-customer': exportCustomerCommand,
  'backfill-shards': backfillShardsCommand,
  'eval': evaluateCommand,
};
