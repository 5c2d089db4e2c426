import { PipelineError } from '../lambda/core/domain/errors';
import { InvalidCustomerIdError } from '../lambda/core/application/privacy/customer-data-rights';
import { EXIT_CODES, explainFailure, type ExitCode } from './cli-failure';

/** Where a command writes: stdout for results, stderr for messages. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
  /** `--debug`: a failure's stack follows its one-line explanation. */
  readonly debug?: boolean;
}

export const processOutput: CommandOutput = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** One command of the package's command-line tool. */
export interface CliCommand {
  /** One line for the command list. */
  readonly summary: string;
  /** Runs with the arguments after the command name; resolves to the process exit code (`EXIT_CODES`). */
  run(argv: string[], output: CommandOutput): Promise<number>;
}

/** A mistake in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends PipelineError {
  override readonly code = 'invalid_usage';
  override readonly retryable = false;
}

/** A failure the command recognised and worded itself, with the exit code of its kind. */
export class CliFailure extends PipelineError {
  override readonly name = 'CliFailure';
  override readonly code = 'cli_failure';
  override readonly retryable = false;

  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

/** node:util's parseArgs refusing an unknown or malformed option. */
export function isArgumentError(error: unknown): boolean {
  return String((error as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS');
}

/**
 * Runs a command body: a mistake in the command line is printed with `usage` (exit code 2); any
 * other failure as one line that says what happened and what to do, with the exit code of its kind
 * (`explainFailure`), and its stack only with `--debug`.
 */
export async function runCommand(usage: string, argv: readonly string[], output: CommandOutput, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError || error instanceof InvalidCustomerIdError || isArgumentError(error)) {
      output.err(`${(error as Error).message}\n\n${usage}`);
      return EXIT_CODES.usage;
    }
    const failure = error instanceof CliFailure ? { exitCode: error.exitCode, message: error.message } : explainFailure(error, argv);
    output.err(failure.message);
    if (output.debug) output.err(stackWithCauses(error));
    return failure.exitCode;
  }
}

/** The error's stack and those of what it wraps (fetch's TypeError carries the network error as its cause). */
function stackWithCauses(error: unknown, depth = 0): string {
  const own = error instanceof Error ? (error.stack ?? String(error)) : String(error);
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause === undefined || depth >= 5 ? own : `${own}\ncaused by: ${stackWithCauses(cause, depth + 1)}`;
}
