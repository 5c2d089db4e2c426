import { type CancellationReason, ConditionFailedError } from '../../domain/errors';

/*
 * How the kit reads DynamoDB's errors: by their names and cancellation reasons, so that a failed
 * condition becomes ConditionFailedError and everything else passes through unchanged.
 */

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
