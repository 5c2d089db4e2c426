/**
 * Errors the data layer raises, typed so callers branch on the class instead of parsing SDK
 * messages. Throttling, unavailability and authorization failures are NOT here: they surface as the
 * SDK's own errors and are never turned into a result.
 */

/** One action of a cancelled transaction that did not pass, by its position in the request. */
export interface CancellationReason {
  /** Index of the action in the transaction's request (0-based). */
  readonly index: number;
  /** DynamoDB's reason code, e.g. `ConditionalCheckFailed`, `TransactionConflict`. */
  readonly code: string;
  readonly message?: string;
}

/**
 * A conditional write (or one condition of a transaction) did not hold: the expected state was no
 * longer there. `reasons` lists every action of a cancelled transaction that failed, so callers can
 * tell which condition lost (empty for single-item writes).
 */
export class ConditionFailedError extends Error {
  override readonly name: string = 'ConditionFailedError';
  readonly reasons: readonly CancellationReason[];

  constructor(message: string, reasons: readonly CancellationReason[] = [], options?: { readonly cause?: unknown }) {
    super(message, options);
    this.reasons = reasons;
  }

  /** Whether the action at `index` of the transaction is one of the conditions that failed. */
  failedAt(index: number): boolean {
    return this.reasons.some((reason) => reason.index === index && reason.code === 'ConditionalCheckFailed');
  }
}

/** An admin resource changed since the caller read it: another editor won that version. */
export class VersionConflictError extends ConditionFailedError {
  override readonly name: string = 'VersionConflictError';
}

/** A session transition that the state machine forbids; raised before anything is written. */
export class IllegalStateTransitionError extends Error {
  override readonly name = 'IllegalStateTransitionError';
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(`Illegal session state transition ${from} -> ${to}`);
  }
}

/** A pagination cursor that this table and query did not issue, or that was altered. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  constructor(reason: string) {
    super(`Invalid pagination cursor: ${reason}`);
  }
}

/** A batch operation still had unprocessed keys or items after its bounded retries. */
export class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItemsError';
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
export class MalformedItemError extends Error {
  override readonly name = 'MalformedItemError';
  constructor(
    readonly entityType: string,
    readonly attribute: string,
    problem: string,
  ) {
    super(`Malformed ${entityType} item: attribute ${attribute} ${problem}`);
  }
}

/** A value that cannot be part of a key: empty, or containing the `#` separator. */
export class InvalidKeySegmentError extends Error {
  override readonly name = 'InvalidKeySegmentError';
  constructor(
    readonly segment: string,
    readonly value: string,
  ) {
    super(`Invalid ${segment} for a table key: ${JSON.stringify(value)} (must be non-empty and contain no '#')`);
  }
}

/** The CRM projection kept changing under every compare-and-set attempt. */
export class CrmSyncConcurrentUpdateError extends Error {
  override readonly name = 'CrmSyncConcurrentUpdateError';
  constructor(readonly sessionId: string) {
    super('crm_sync_concurrent_update');
  }
}

/** A rollback or read named a version of an admin resource that does not exist. */
export class AdminResourceVersionNotFoundError extends Error {
  override readonly name = 'AdminResourceVersionNotFoundError';
  constructor(
    readonly resourceType: string,
    readonly resourceId: string,
    readonly version: number,
  ) {
    super(`Admin resource ${resourceType}/${resourceId} has no version ${version}`);
  }
}

/** An admin resource that does not exist (e.g. deactivating one never created). */
export class AdminResourceNotFoundError extends Error {
  override readonly name = 'AdminResourceNotFoundError';
  constructor(
    readonly resourceType: string,
    readonly resourceId: string,
  ) {
    super(`Admin resource ${resourceType}/${resourceId} does not exist`);
  }
}
