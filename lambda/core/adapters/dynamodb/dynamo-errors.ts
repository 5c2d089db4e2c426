import { PipelineError } from '../../domain/errors';
import { type CancellationReason, ConditionFailedError } from '../../ports/repositories';

/*
 * The data layer's own errors, which no use case handles, and how the kit reads DynamoDB's: by
 * their names and cancellation reasons, so that a failed condition becomes ConditionFailedError and
 * everything else passes through unchanged.
 */

/** A pagination cursor that this table and query did not issue, or that was altered. */
export class InvalidCursorError extends PipelineError {
  override readonly name = 'InvalidCursorError';
  override readonly code = 'invalid_cursor';
  override readonly retryable = false;

  constructor(reason: string) {
    super(`Invalid pagination cursor: ${reason}`);
  }
}

/** A batch operation still had unprocessed keys or items after its bounded retries. */
export class UnprocessedItemsError extends PipelineError {
  override readonly name = 'UnprocessedItemsError';
  override readonly code = 'unprocessed_items';
  override readonly retryable = true;

  constructor(
    readonly operation: 'batchGet' | 'batchWrite',
    /** The keys (batchGet) or write requests (batchWrite) DynamoDB never processed. */
    readonly remaining: readonly Readonly<Record<string, unknown>>[],
    readonly attempts: number,
  ) {
    super(`${operation} left ${remaining.length} unprocessed request(s) after ${attempts} attempt(s)`);
  }
}

/** A stored row lacks an attribute its entity requires, or holds one of the wrong type. */
export class MalformedItemError extends PipelineError {
  override readonly name = 'MalformedItemError';
  override readonly code = 'malformed_item';
  override readonly retryable = false;

  constructor(
    readonly entityType: string,
    readonly attribute: string,
    problem: string,
  ) {
    super(`Malformed ${entityType} item: attribute ${attribute} ${problem}`);
  }
}

/** A value that cannot be part of a key: empty, or containing the `#` separator. */
export class InvalidKeySegmentError extends PipelineError {
  override readonly name = 'InvalidKeySegmentError';
  override readonly code = 'invalid_key_segment';
  override readonly retryable = false;

  constructor(
    readonly segment: string,
    readonly value: string,
  ) {
    super(`Invalid ${segment} for a table key: ${JSON.stringify(value)} (must be non-empty and contain no '#')`);
  }
}

/** A transaction was cancelled because another transaction touched the same item (retryable). */
export function isTransactionConflict(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TransactionConflictException') return true;
  if (name !== 'TransactionCanceledException') return false;
  return cancellationReasons(error).some((reason) => reason.code === 'TransactionConflict');
}

function cancellationReasons(error: unknown): CancellationReason[] {
  const raw = (error as { CancellationReasons?: { Code?: string; Message?: string }[] }).CancellationReasons ?? [];
  return raw
    .map((reason, index) => ({ index, code: reason.Code ?? 'None', ...(reason.Message ? { message: reason.Message } : {}) }))
    .filter((reason) => reason.code !== 'None');
}

/** Maps a failed condition to ConditionFailedError; everything else passes through unchanged. */
export function translateError(error: unknown): unknown {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'ConditionalCheckFailedException') {
    return new ConditionFailedError('The condition of the write did not hold', [], { cause: error });
  }
  if (name === 'TransactionCanceledException') {
    const reasons = cancellationReasons(error);
    if (reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) {
      return new ConditionFailedError(`Transaction cancelled: ${reasons.map((reason) => `#${reason.index} ${reason.code}`).join(', ')}`, reasons, { cause: error });
    }
  }
  return error;
}
