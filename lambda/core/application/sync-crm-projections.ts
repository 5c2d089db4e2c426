import { type CrmRetryPolicy, type CrmSyncRequest, type CrmSyncRow, CrmSyncStatus, crmRetryDelayMs, crmSyncRequest, DEFAULT_CRM_RETRY_POLICY } from '../domain/crm-sync';
import { CrmSyncConcurrentUpdateError, type CrmSyncRepository } from '../ports/repositories';
import { isoMicros } from '../domain/timestamps';
import type { Clock } from '../ports/clock';
import type { CrmClient, CrmSendOutcome } from '../ports/crm-client';

export interface CrmSyncWorkerLimits {
  /** Rows examined per run at most: a run must end well inside the function's timeout. */
  readonly maxRowsPerRun: number;
  /** Due rows read per query page. */
  readonly pageSize: number;
  /** One send's timeout; past it the outcome is unknown. */
  readonly sendTimeoutMs: number;
  /** How long a claim keeps other workers away; longer than a send plus recording its outcome. */
  readonly claimMs: number;
  /** No new row is started with less time than this left in the invocation. */
  readonly reserveMs: number;
}

export const DEFAULT_CRM_SYNC_LIMITS: CrmSyncWorkerLimits = { maxRowsPerRun: 100, pageSize: 25, sendTimeoutMs: 10_000, claimMs: 60_000, reserveMs: 15_000 };

export interface SyncCrmProjectionsDeps {
  readonly crmSync: CrmSyncRepository;
  readonly crm: CrmClient;
  readonly clock: Clock;
  /** In [0, 1): the retry jitter. */
  readonly random?: () => number;
  readonly retry?: CrmRetryPolicy;
  readonly limits?: Partial<CrmSyncWorkerLimits>;
}

/** What one run did; the handler turns it into metrics and one log line. */
export interface CrmSyncRunReport {
  /** Due rows looked at. */
  examined: number;
  /** Rows another worker held, or that were no longer due when claimed. */
  skipped: number;
  /** Rows whose content the CRM already had (no send). */
  alreadySynced: number;
  sent: number;
  retrying: number;
  blocked: number;
  uncertain: number;
  /** Why the run stopped before the backlog was empty, if it did. */
  stoppedBy?: 'row_limit' | 'time';
}

type Claim = { readonly kind: 'send'; readonly row: CrmSyncRow } | { readonly kind: 'settled' | 'in_doubt' | 'skip' };

/**
 * The CRM sync worker's run: publishes due PENDING projections, earliest first. Each row is claimed
 * by an etag compare-and-set before anything is sent, so two workers never send the same row at
 * once; the send carries the idempotency key `{sessionId}:{revision}`; the outcome is recorded by
 * another compare-and-set that keeps whatever a session write changed meanwhile. A create whose
 * outcome is unknown is never repeated: the row becomes UNCERTAIN until an operator resolves it.
 */
export class SyncCrmProjections {
  private readonly limits: CrmSyncWorkerLimits;
  private readonly retry: CrmRetryPolicy;
  private readonly random: () => number;

  constructor(private readonly deps: SyncCrmProjectionsDeps) {
    this.limits = { ...DEFAULT_CRM_SYNC_LIMITS, ...deps.limits };
    this.retry = deps.retry ?? DEFAULT_CRM_RETRY_POLICY;
    this.random = deps.random ?? Math.random;
  }

  /** `remainingMs` is the invocation's time left (Lambda's `getRemainingTimeInMillis`). */
  async run(remainingMs: () => number = () => Number.POSITIVE_INFINITY): Promise<CrmSyncRunReport> {
    const report: CrmSyncRunReport = { examined: 0, skipped: 0, alreadySynced: 0, sent: 0, retrying: 0, blocked: 0, uncertain: 0 };
    // The due bound is fixed per run: rows this run retries later are not picked up again by it.
    const now = isoMicros(this.deps.clock.now());
    let cursor: string | undefined;
    do {
      const page = await this.deps.crmSync.listDue(now, { limit: this.limits.pageSize, cursor });
      for (const listed of page.items) {
        if (report.examined >= this.limits.maxRowsPerRun) return { ...report, stoppedBy: 'row_limit' };
        if (remainingMs() < this.limits.reserveMs) return { ...report, stoppedBy: 'time' };
        report.examined++;
        await this.syncRow(listed.sessionId, report);
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
    return report;
  }

  private async syncRow(sessionId: string, report: CrmSyncRunReport): Promise<void> {
    const claim = await this.claim(sessionId);
    if (claim.kind !== 'send') {
      const counter = ({ skip: 'skipped', settled: 'alreadySynced', in_doubt: 'uncertain' } as const)[claim.kind];
      report[counter]++;
      return;
    }
    const request = crmSyncRequest(claim.row);
    const outcome = await this.deps.crm.send(request, { timeoutMs: this.limits.sendTimeoutMs });
    const recorded = await this.deps.crmSync.change(sessionId, (row) => this.afterSend(row, request, outcome));
    if (outcome.kind === 'accepted') report.sent++;
    else if (recorded?.status === CrmSyncStatus.BLOCKED) report.blocked++;
    else if (recorded?.status === CrmSyncStatus.UNCERTAIN) report.uncertain++;
    else report.retrying++;
  }

  /** Takes the row for this worker, or says why not. A lost race is a skip, never an error. */
  private async claim(sessionId: string): Promise<Claim> {
    let claim = { kind: 'skip' } as Claim;
    const now = this.deps.clock.now();
    const at = isoMicros(now);
    try {
      await this.deps.crmSync.change(sessionId, (row) => {
        claim = { kind: 'skip' };
        const due = row.status === CrmSyncStatus.PENDING && row.nextAttemptAt <= at && (row.claimedUntil === undefined || row.claimedUntil <= at);
        if (!due) return undefined;
        if (row.revision === row.syncedRevision) {
          claim = { kind: 'settled' };
          return { ...row, status: CrmSyncStatus.SYNCED, attempts: 0, lastError: undefined, claimedUntil: undefined };
        }
        if (creationInDoubt(row)) {
          // A claim that lapsed while a create was on its way: the CRM may hold the deal already.
          claim = { kind: 'in_doubt' };
          return { ...row, status: CrmSyncStatus.UNCERTAIN, claimedUntil: undefined, lastError: 'an earlier create did not finish; check the CRM' };
        }
        const claimed: CrmSyncRow = {
          ...row,
          attempts: row.attempts + 1,
          claimedUntil: isoMicros(new Date(now.getTime() + this.limits.claimMs)),
          contactCreationStartedAt: row.contactId === undefined ? at : undefined,
          dealCreationStartedAt: row.dealId === undefined ? at : undefined,
        };
        claim = { kind: 'send', row: claimed };
        return claimed;
      });
    } catch (error) {
      if (error instanceof CrmSyncConcurrentUpdateError) return { kind: 'skip' };
      throw error;
    }
    return claim;
  }

  /** The row after the CRM's answer to `request`; content a session wrote meanwhile is kept. */
  private afterSend(row: CrmSyncRow, request: CrmSyncRequest, outcome: CrmSendOutcome): CrmSyncRow {
    const now = this.deps.clock.now();
    const unchanged = row.revision === request.revision;
    const released = { ...row, claimedUntil: undefined };
    switch (outcome.kind) {
      case 'accepted':
        return {
          ...released,
          contactId: outcome.contactId,
          dealId: outcome.dealId,
          contactCreationStartedAt: undefined,
          dealCreationStartedAt: undefined,
          syncedRevision: request.revision,
          // A newer revision written during the send stays PENDING and goes out on a later claim.
          status: unchanged ? CrmSyncStatus.SYNCED : row.status,
          attempts: unchanged ? 0 : row.attempts,
          lastError: undefined,
        };
      case 'unknown':
        if (request.dealId === undefined || request.contactId === undefined) {
          return { ...released, status: CrmSyncStatus.UNCERTAIN, lastError: outcome.reason };
        }
        // Updating known ids under the same idempotency key cannot create anything: retry it.
        return this.retryLater(released, outcome.reason, now);
      case 'refused':
        // The CRM answered: nothing was created, so the creation markers go.
        return unchanged
          ? { ...withoutCreationMarkers(released), status: CrmSyncStatus.BLOCKED, lastError: outcome.reason }
          : withoutCreationMarkers(released);
      case 'retryable':
        return this.retryLater(withoutCreationMarkers(released), outcome.reason, now);
    }
  }

  private retryLater(row: CrmSyncRow, reason: string, now: Date): CrmSyncRow {
    if (row.status !== CrmSyncStatus.PENDING) return { ...row, lastError: reason };
    if (row.attempts >= this.retry.maxAttempts) return { ...row, status: CrmSyncStatus.BLOCKED, lastError: `${reason} (gave up after ${row.attempts} attempts)` };
    const delay = crmRetryDelayMs(row.attempts, this.random(), this.retry);
    return { ...row, nextAttemptAt: isoMicros(new Date(now.getTime() + delay)), lastError: reason };
  }
}

/** A create was started and its answer never recorded. */
function creationInDoubt(row: CrmSyncRow): boolean {
  return (row.dealId === undefined && row.dealCreationStartedAt !== undefined) || (row.contactId === undefined && row.contactCreationStartedAt !== undefined);
}

function withoutCreationMarkers(row: CrmSyncRow): CrmSyncRow {
  return { ...row, contactCreationStartedAt: undefined, dealCreationStartedAt: undefined };
}
