import { PipelineError } from '../lambda/core/domain/errors';

/** One command of the package's command-line tool. */
export interface CliCommand {
  /** One line for the command list. */
  readonly summary: string;
  /** Runs with the arguments after the command name; resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A mistake in the command line: printed with the command's usage, exit code 1. */
export class UsageError extends PipelineError {
  override readonly code = 'invalid_usage';
  override readonly retryable = false;
}

/** node:util's parseArgs refusing an unknown or malformed option. */
export function isArgumentError(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS');
}
