import type { CrmSyncRow, CrmSyncStatus } from '../../domain/crm-sync';
import type { Session } from '../../domain/session';
import type { Page, PageRequest } from './paging';

/** A projection row to write together with a session, if the row still has `previousEtag`. */
export interface CrmSyncIntent {
  readonly row: CrmSyncRow;
  /** `undefined`: the row must not exist yet. */
  readonly previousEtag: string | undefined;
}

export interface CrmProblemSummary {
  readonly status: CrmSyncStatus;
  readonly count: number;
  /** The row waiting longest (smallest next attempt). */
  readonly oldest?: CrmSyncRow;
}

/** The CRM projection of each session (docs/CRM.md). */
export interface CrmSyncRepository {
  get(sessionId: string): Promise<CrmSyncRow | undefined>;
  /** The row the session should project to, without writing; `undefined` when nothing changes. */
  prepare(session: Session): Promise<CrmSyncIntent | undefined>;
  /**
   * Read-modify-write with etag compare-and-set, up to 8 attempts, then
   * CrmSyncConcurrentUpdateError (`crm_sync_concurrent_update`). `mutate` returning `undefined`
   * leaves the row as is. `undefined` when the row does not exist.
   */
  change(sessionId: string, mutate: (row: CrmSyncRow) => CrmSyncRow | undefined): Promise<CrmSyncRow | undefined>;
  /** Rows in a status by next attempt, earliest first (GSI1). */
  listStatus(status: CrmSyncStatus, page?: PageRequest): Promise<Page<CrmSyncRow>>;
  /** PENDING rows whose next attempt is at or before `now`, earliest first (GSI1). */
  listDue(now: string, page?: PageRequest): Promise<Page<CrmSyncRow>>;
  /** Counts of the rows that need a person: BLOCKED and UNCERTAIN. */
  problems(): Promise<CrmProblemSummary[]>;
}
