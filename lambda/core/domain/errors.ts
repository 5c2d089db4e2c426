/**
 * The base of every error the pipeline raises itself, so callers branch on a stable `code` instead
 * of parsing messages. Third-party failures (the AWS SDK's throttling, unavailability, access
 * denied) are not wrapped: they surface as the SDK's own errors and are never turned into a result.
 */
export abstract class PipelineError extends Error {
  /** What failed, for machines: one snake_case string per class, stable across releases (API answers use it). */
  abstract readonly code: string;
  /** Doing the same again later can succeed (the failure is not in the request itself). */
  abstract readonly retryable: boolean;
  /** What exactly to change, for a reader who words it in another language than the message's. */
  readonly problem?: Problem;
}

/**
 * A refused value in parts: a stable snake_case `code` (`out_of_range`, `too_long`…), the field it
 * concerns, and the facts the words need (`min`, `max`…). The operator API answers it beside the
 * English message, and the console words it in its language.
 */
export interface Problem {
  readonly code: string;
  readonly field?: string;
  readonly [fact: string]: string | number | undefined;
}

/**
 * A failure no retry can fix: one of the pipeline's own errors that says so. Anything else (the
 * SDK's errors, a crash) may pass with time and is retried.
 */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof PipelineError && !error.retryable;
}

/** A session transition that the state machine forbids; raised before anything is written. */
export class IllegalStateTransitionError extends PipelineError {
  override readonly name = 'IllegalStateTransitionError';
  override readonly code = 'illegal_state_transition';
  override readonly retryable = false;

  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(`Illegal session state transition ${from} -> ${to}`);
  }
}
