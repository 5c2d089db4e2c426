import type { Session, SessionState } from '../../domain/session';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { Page, PageRequest } from './paging';
import type { InboxSearch, SeenMark } from '../../domain/inbox-summary';

/** Field changes applied with a state transition; `null` removes the field. */
export interface SessionChanges {
  readonly assignedTo?: string | null;
  readonly handoffRequestedAt?: IsoTimestamp | null;
  readonly handoffReason?: string | null;
}

export interface TransitionOptions {
  readonly changes?: SessionChanges;
  /** Also require this operator to own the session (`null`: nobody may own it). */
  readonly expectedAssignedTo?: string | null;
  /** Also require that no human send lock is live at this instant (an operator is mid-send). */
  readonly requireNoLiveHumanSendLockAt?: IsoTimestamp;
  /**
   * Also require that the conversation is still idle since this instant: the session unchanged
   * since it was read, and no customer message registered after it nor waiting for an answer. The
   * idle sweep's close: a message that arrives first makes it fail (the conversation goes on); one
   * that arrives after it finds the session closed and opens a new one.
   */
  readonly idleSince?: IsoTimestamp;
}

/** A customer's sessions and the ACTIVE pointer naming the current one. The turn's result is written by the TurnLedger. */
export interface SessionRepository {
  /** The active session (pointer and session read consistently), with its CRM view when enabled. */
  getActive(customerId: string): Promise<Session | undefined>;
  get(customerId: string, sessionId: string): Promise<Session | undefined>;
  /** Session + ACTIVE pointer in one transaction (with the CRM intent when enabled). Not a CAS. */
  put(session: Session): Promise<void>;
  /**
   * Validates `expectedState → newState` against LEGAL_TRANSITIONS (IllegalStateTransitionError,
   * nothing written), then writes conditioned on the stored state (ConditionFailedError).
   */
  transitionState(session: Session, expectedState: SessionState, newState: SessionState, options?: TransitionOptions): Promise<Session>;
  /**
   * Sessions in a state, oldest first (GSI1): by creation, or in the agent's states by last
   * activity; with `assignedTo`, only those that operator owns.
   */
  listByState(state: SessionState, page?: PageRequest, options?: { readonly assignedTo?: string; readonly search?: InboxSearch }): Promise<Page<Session>>;
  /** Sessions in an agent-owned state whose last activity is at or before `idleSince`, longest idle first (a bounded GSI1 Query). */
  listIdle(state: SessionState, idleSince: IsoTimestamp, page?: PageRequest): Promise<Page<Session>>;
  /**
   * `false` while another live lock is held, the session is not human-owned, or it is no longer
   * owned by `session.assignedTo` (nobody, when that is absent). Re-entrant per lock id.
   */
  acquireHumanSendLock(session: Session, lockId: string, now: IsoTimestamp, expiresAt: IsoTimestamp): Promise<boolean>;
  /**
   * Releases only the lock with this id. With `repliedAt` (a person's reply went out under the
   * lock), the same write records it as the first human reply of the session's handoff, unless an
   * earlier one is recorded.
   */
  releaseHumanSendLock(session: Session, lockId: string, repliedAt?: IsoTimestamp): Promise<boolean>;
  /**
   * Claims the first notification of the session's current handoff (AWAITING_HUMAN, same
   * `handoffRequestedAt`, not yet notified for it); `false` when another writer claimed it or the
   * session moved on. Claimed before sending, so retries and concurrent sweeps never send twice.
   */
  markHandoffNotified(session: Session, notifiedAt: IsoTimestamp): Promise<boolean>;
  /**
   * Writes an operator's last open of the conversation (and drops the mark it pushes out), leaving
   * the session's last activity as it is; `false` when another write to the marks came first (the
   * row stays unread until the next open).
   */
  markSeen(session: Session, mark: SeenMark): Promise<boolean>;
  /**
   * Counts an operator re-notification; `false` if the session left its state meanwhile. With
   * `expectedCount`, also only if the count is still the one the caller read (a claim).
   */
  markHandoffRenotified(session: Session, notifiedAt: IsoTimestamp, options?: { readonly expectedCount?: number }): Promise<boolean>;
  /** With `oncePerHandoff`, only if the customer was not yet told during the current handoff (a claim). */
  markHandoffCustomerRenotified(session: Session, notifiedAt: IsoTimestamp, options?: { readonly oncePerHandoff?: boolean }): Promise<boolean>;
  /**
   * Claims the conversation's one re-engagement: only while it is in the state and at the last
   * activity read, and never re-engaged; `false` otherwise. Claimed before sending, so retries and
   * concurrent sweeps never send twice. The last activity is left as it is, so the idle close
   * still comes after the idle timeout.
   */
  claimReengagement(session: Session, reengagedAt: IsoTimestamp): Promise<boolean>;
}
