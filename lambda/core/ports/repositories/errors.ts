import { PipelineError } from '../../domain/errors';

/*
 * What the persistence ports raise that a use case may have to handle. Throttling, unavailability
 * and authorization failures are NOT here: they surface as the SDK's own errors and are never
 * turned into a result.
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
export class ConditionFailedError extends PipelineError {
  override readonly name: string = 'ConditionFailedError';
  override readonly code: string = 'condition_failed';
  override readonly retryable = false;
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
  override readonly code: string = 'version_conflict';
}

/** The CRM projection kept changing under every compare-and-set attempt. */
export class CrmSyncConcurrentUpdateError extends PipelineError {
  override readonly name = 'CrmSyncConcurrentUpdateError';
  override readonly code = 'crm_sync_concurrent_update';
  override readonly retryable = true;

  constructor(readonly sessionId: string) {
    super('crm_sync_concurrent_update');
  }
}

/** A rollback or read named a version of an admin resource that does not exist. */
export class AdminResourceVersionNotFoundError extends PipelineError {
  override readonly name = 'AdminResourceVersionNotFoundError';
  override readonly code = 'admin_resource_version_not_found';
  override readonly retryable = false;

  constructor(
    readonly resourceType: string,
    readonly resourceId: string,
    readonly version: number,
  ) {
    super(`Admin resource ${resourceType}/${resourceId} has no version ${version}`);
  }
}
