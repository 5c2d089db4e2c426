/**
 * The persistence ports the use cases depend on. Every list is paginated with an opaque cursor
 * (pass back `Page.cursor` unchanged; a tampered or foreign cursor throws InvalidCursorError).
 * Writes that can lose a race say so in their result (`boolean`) or throw ConditionFailedError;
 * infrastructure failures (throttling, unavailability, access denied) always throw.
 */
import type { AdminAuditEvent, ConsentRecord, OperationalConfig, VersionedResource } from '../domain/admin';
import type { CrmSyncRow, CrmSyncStatus } from '../domain/crm-sync';
import type { BudgetLimit, CustomerBudgetLimits, TokenUsage } from '../domain/customer-budget';
import type { OutOfPortfolioDemand } from '../domain/demand';
import type { CompletedInbound, InboundReceipt, InboundRef, InboundRegistration, LatestInbound, PendingInbound, RegisterInboundOptions } from '../domain/inbound-receipt';
import type { InboundTurn } from '../domain/inbound-turn';
import type { LegacyDebounceBuffer, LegacyPendingReply } from '../domain/legacy-debounce';
import type { LlmUsage, Message, MessageRole, OutboundRef } from '../domain/message';
import type { LoginGrant, OperatorSession } from '../domain/operator-auth';
import type { Session, SessionState } from '../domain/session';
import type { IsoTimestamp } from '../domain/timestamps';

export interface PageRequest {
  /** Items to evaluate per page (a filtered page may hold fewer). */
  readonly limit?: number;
  /** `Page.cursor` of the previous page of the same list. */
  readonly cursor?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Present while more items may follow. */
  readonly cursor?: string;
}

// ---- Sessions ---------------------------------------------------------------------------------------

/** Field changes applied with a state transition; `null` removes the field. */
export interface SessionChanges {
  readonly assignedTo?: string | null;
  readonly currentAgent?: string | null;
  readonly handoffRequestedAt?: IsoTimestamp | null;
}

export interface TransitionOptions {
  readonly changes?: SessionChanges;
  /** Also require this operator to own the session (`null`: nobody may own it). */
  readonly expectedAssignedTo?: string | null;
  /** Also require that no human send lock is live at this instant (an operator is mid-send). */
  readonly requireNoLiveHumanSendLockAt?: IsoTimestamp;
}

/** The reply a turn persisted in the outbox (written as an outbound message `pending_send`). */
export interface OutboundReply {
  /** A generated id (the outbound message's id). */
  readonly messageId: string;
  readonly text: string;
  /** The customer message it answers: the latest when the turn persisted. */
  readonly replyToMessageId: string;
  readonly createdAt: IsoTimestamp;
  /** Defaults to `assistant`; fallback/handoff notices use `system`. */
  readonly role?: MessageRole;
  readonly llm?: LlmUsage;
}

export interface AgentResultWrite {
  /** The session as the turn leaves it. */
  readonly session: Session;
  /** The state the turn started from, or `undefined` when the turn opened this session. */
  readonly expectedState: SessionState | undefined;
  /** The message that was latest when the turn started; the write is refused once another is. */
  readonly expectedLatestMessageId: string;
  /** The active session when the turn started; `undefined`: no pointer, or already this session. */
  readonly expectedActiveSessionId: string | undefined;
  /** Omitted when the turn produced no reply (the same conditions still apply). */
  readonly reply?: OutboundReply;
  /** Sessions the turn closed or replaced, each written only if still in its expected state. */
  readonly replacedSessions?: readonly { readonly session: Session; readonly expectedState: SessionState }[];
}

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
   * ONE transaction: session, ACTIVE pointer, the reply as an outbound message `pending_send`, and
   * the outbox reference on the latest-inbound marker — only if the turn is still the latest, not
   * invalidated, no other reply is pending, and pointer and state are as the turn found them.
   * `false` when the turn was superseded (nothing written).
   */
  tryPutAgentResult(write: AgentResultWrite): Promise<boolean>;
  /** Sessions in a state, oldest first (GSI1). */
  listByState(state: SessionState, page?: PageRequest): Promise<Page<Session>>;
  /** `false` while another live lock is held or the session is not human-owned. Re-entrant per lock id. */
  acquireHumanSendLock(session: Session, lockId: string, now: IsoTimestamp, expiresAt: IsoTimestamp): Promise<boolean>;
  /** Releases only the lock with this id. */
  releaseHumanSendLock(session: Session, lockId: string): Promise<boolean>;
  /**
   * Claims the first notification of the session's current handoff (AWAITING_HUMAN, same
   * `handoffRequestedAt`, not yet notified for it); `false` when another writer claimed it or the
   * session moved on. Claimed before sending, so retries and concurrent sweeps never send twice.
   */
  markHandoffNotified(session: Session, notifiedAt: IsoTimestamp): Promise<boolean>;
  /**
   * Counts an operator re-notification; `false` if the session left its state meanwhile. With
   * `expectedCount`, also only if the count is still the one the caller read (a claim).
   */
  markHandoffRenotified(session: Session, notifiedAt: IsoTimestamp, options?: { readonly expectedCount?: number }): Promise<boolean>;
  /** With `oncePerHandoff`, only if the customer was not yet told during the current handoff (a claim). */
  markHandoffCustomerRenotified(session: Session, notifiedAt: IsoTimestamp, options?: { readonly oncePerHandoff?: boolean }): Promise<boolean>;
}

// ---- Messages and demands ---------------------------------------------------------------------------

export interface MessageRepository {
  /**
   * Writes the message under its deterministic key (id + timestamp). Inbound messages are
   * put-if-absent: `false` when already in the history (a redelivery). Others overwrite.
   */
  append(message: Message): Promise<boolean>;
  /**
   * The human inbox: appends the inbound message only while the customer's active session is
   * `expectedSessionId` in `expectedState`. `true` if appended now or earlier; `false` if the state
   * or pointer moved.
   */
  appendInboundIfSessionState(message: Message, expectedState: SessionState, expectedSessionId: string): Promise<boolean>;
  /** A customer's messages across sessions, newest first. */
  history(customerId: string, page?: PageRequest): Promise<Page<Message>>;
  /** The last `limit` messages of one session, in chronological order. */
  historyForSession(customerId: string, sessionId: string, limit: number): Promise<Message[]>;
  /** The most recent agent-written messages, newest first, from the last `maxDays` UTC days (default 7). */
  listRecentLlm(limit: number, options?: { readonly maxDays?: number }): Promise<Message[]>;
  /** Where a message is stored (for the outbox operations). */
  refFor(message: Pick<Message, 'customerId' | 'timestamp' | 'messageId'>): OutboundRef;
  getOutbound(ref: OutboundRef): Promise<Message | undefined>;
  /** `pending_send → sent`; `false` if it was no longer pending. */
  markOutboundSent(ref: OutboundRef, providerMessageId: string, sentAt: IsoTimestamp): Promise<boolean>;
  /** Hides a customer message from the agent (`null`: shows it again); `false` if it is not stored. */
  setQuarantined(ref: OutboundRef, quarantinedAt: IsoTimestamp | null): Promise<boolean>;
}

export interface DemandRepository {
  /** `false` when a demand from the same source message was already recorded. */
  record(demand: OutOfPortfolioDemand): Promise<boolean>;
  /** Newest first. */
  listRecent(page?: PageRequest): Promise<Page<OutOfPortfolioDemand>>;
}

// ---- Inbound receipts (latest-message-wins) ---------------------------------------------------------

export type { CompletedInbound, InboundRef } from '../domain/inbound-receipt';

export interface InboundReceiptRepository {
  /**
   * ONE transaction: the receipt (exclusive, 7-day TTL) and the latest marker (latest = this id,
   * appended to the pending list). A duplicate changes nothing and reports the receipt's markers.
   * With `routeToAgentUnlessHumanOwned`, the same transaction marks the receipt agent-routed when
   * the active session's state (as recorded on the ACTIVE pointer) lets the agent answer.
   */
  registerInbound(turn: InboundTurn, options?: RegisterInboundOptions): Promise<InboundRegistration>;
  getReceipt(ref: InboundRef): Promise<InboundReceipt | undefined>;
  /** `false` if the receipt was claimed by a synchronous route, human-routed or completed. */
  markAgentRouted(ref: InboundRef): Promise<boolean>;
  /** Sends the message to the human inbox and takes it off the pending list; `false` if agent-routed or claimed. */
  markHumanRouted(ref: InboundRef): Promise<boolean>;
  /** Requires the receipt (ConditionFailedError otherwise). */
  markDispatched(ref: InboundRef): Promise<void>;
  getLatest(customerId: string): Promise<LatestInbound | undefined>;
  /**
   * The end of a turn in ONE conditional transaction (per 49 messages): the answered receipts
   * completed (`completed_at`) and taken off the pending list, the history watermark moved, and —
   * when the turn settled a reply — that reply's delivery status recorded (only out of
   * `pending_send`) and its outbox reference cleared (only while it still names that reply). Built
   * on `latest` when given, so nothing is read first; the marker is re-read only when the list
   * changed meanwhile. Complete every message a turn drained in ONE call, so their history
   * timestamps stay stable across retries.
   */
  completeTurn(completion: TurnCompletion): Promise<void>;
  /**
   * Parks messages whose turn failed on its last delivery attempt: receipts get `dead_lettered_at`
   * (and their history timestamp), their history entries are hidden from the agent, and they leave
   * the pending list — all in one transaction — so later turns are not blocked.
   */
  markDeadLettered(...turns: CompletedInbound[]): Promise<void>;
  /**
   * Puts a dead-lettered message back at the end of the pending list (an operator's redrive).
   * Returns the restored receipt; `undefined` when it was not dead-lettered (or completed since).
   */
  restoreDeadLettered(ref: InboundRef): Promise<InboundReceipt | undefined>;
  /**
   * The customer's parked messages, oldest registration first: what a redrive restores. Parking
   * may happen before a message reached the history, so the receipts are the place to look.
   */
  listDeadLettered(customerId: string): Promise<InboundReceipt[]>;
  /**
   * Moves the history watermark forward to `timestamp` (never back), so the customer's next
   * messages are placed after a message written outside a turn (an operator's reply, a notice),
   * however the provider's clock rounds their timestamps. No-op for a customer who never wrote.
   */
  advanceHistoryWatermark(customerId: string, timestamp: IsoTimestamp): Promise<void>;
}

/**
 * The BUFFER and PENDING_REPLY items of the former debounce design, which an older deployment may
 * have left: the orchestrator drains them once, then deletes them. Nothing writes new ones.
 */
export interface LegacyDebounceRepository {
  /** Both items, in one consistent read. */
  getLegacyItems(customerId: string): Promise<LegacyItems>;
  /** Deletes the buffer only if it is still the one that started at `firstMessageAt`. */
  deleteLegacyBufferIfFirstMessageAt(customerId: string, firstMessageAt: IsoTimestamp): Promise<boolean>;
  deleteLegacyPendingReply(customerId: string): Promise<void>;
}

/** What an older deployment left for one customer. */
export interface LegacyItems {
  readonly buffer?: LegacyDebounceBuffer;
  readonly pendingReply?: LegacyPendingReply;
}

// ---- CRM projection ---------------------------------------------------------------------------------

/** A projection row to write together with a session, if the row still has `previousEtag`. */
/**
 * A customer's turn and token counts. Counting is atomic in the store, so two turns of one
 * customer running at once (a redrive beside a live turn) cannot both slip under a limit.
 */
export type BudgetVerdict = { readonly admitted: true } | { readonly admitted: false; readonly limit: BudgetLimit; readonly toldInWindow: boolean };

export interface CustomerBudgetRepository {
  /**
   * Counts one turn at `at` if every count of its windows is below its limit; otherwise counts
   * nothing and names the limit reached. `turnId` names the turn (its last message): asked again
   * for the turn it admitted last, it admits without counting again, so a retried turn is counted once.
   * A refusal says whether the customer was already told, in the window of the limit reached.
   */
  admitTurn(customerId: string, turnId: string, at: Date, limits: CustomerBudgetLimits): Promise<BudgetVerdict>;
  /** Records that the customer received the budget reply for a turn refused at `at` by `limit`. */
  markTold(customerId: string, at: Date, limit: BudgetLimit): Promise<void>;
  /** Adds a turn's model tokens to the customer's count of the day of `at`. */
  addTokens(customerId: string, at: Date, usage: TokenUsage): Promise<void>;
}

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

// ---- Administration ---------------------------------------------------------------------------------

export interface NextVersionInput {
  readonly resourceType: string;
  readonly resourceId: string;
  readonly content: string;
  readonly description?: string;
  readonly author: string;
  readonly active?: boolean;
  /** The version the editor started from (0: creating). Omitted: the current version, read now. */
  readonly expectedVersion?: number;
}

export interface VersionedResourceRepository {
  listCurrent(resourceType: string, page?: PageRequest): Promise<Page<VersionedResource>>;
  getCurrent(resourceType: string, resourceId: string): Promise<VersionedResource | undefined>;
  getVersion(resourceType: string, resourceId: string, version: number): Promise<VersionedResource | undefined>;
  /** Newest first. */
  listVersions(resourceType: string, resourceId: string, page?: PageRequest): Promise<Page<VersionedResource>>;
  /** Current + new version in ONE conditional transaction; VersionConflictError for the loser. */
  putNextVersion(input: NextVersionInput): Promise<VersionedResource>;
  /** A new version with the same content and `active: false`. */
  deactivate(resourceType: string, resourceId: string, author: string, expectedVersion?: number): Promise<VersionedResource>;
  /** A new version carrying the target's content; AdminResourceVersionNotFoundError if it does not exist. */
  rollback(resourceType: string, resourceId: string, targetVersion: number, author: string): Promise<VersionedResource>;
}

export interface OperationalConfigInput {
  readonly key: string;
  readonly value: unknown;
  readonly author: string;
}

export interface OperationalConfigRepository {
  listAll(page?: PageRequest): Promise<Page<OperationalConfig>>;
  get(key: string): Promise<OperationalConfig | undefined>;
  /** With `expectedVersion` (0: must not exist) a compare-and-set: VersionConflictError when stale. */
  set(config: OperationalConfigInput, options?: { readonly expectedVersion?: number }): Promise<OperationalConfig>;
  /**
   * Sets (or with `null` removes) one operator's entry in the `operator_availability` map in place,
   * atomically; returns the whole map afterwards.
   */
  setOperatorAvailability(operatorPhone: string, availableSince: IsoTimestamp | null, author: string): Promise<Readonly<Record<string, IsoTimestamp>>>;
}

export interface AdminAuditRepository {
  record(event: AdminAuditEvent): Promise<void>;
  /** Newest first. */
  listRecent(page?: PageRequest): Promise<Page<AdminAuditEvent>>;
}

export interface ConsentRepository {
  /** Put-if-absent: a retried record never replaces the first. */
  record(consent: ConsentRecord): Promise<void>;
  /** Every customer's events, newest first. */
  listRecent(page?: PageRequest): Promise<Page<ConsentRecord>>;
  /** One customer's events, newest first (also those stored in the seed's layout). */
  listForCustomer(customerId: string, page?: PageRequest): Promise<Page<ConsentRecord>>;
  /** The customer's newest event for `purpose`, read consistently. */
  latestFor(customerId: string, purpose: string): Promise<ConsentRecord | undefined>;
}

export interface OperatorSessionInput {
  readonly tokenHash: string;
  readonly operatorPhone: string;
  readonly csrfToken: string;
}

export interface OperatorAuthRepository {
  /**
   * Exclusive create. The expiry is capped at 10 minutes and at the next local midnight;
   * `expiresAt` may only shorten it. Returns the stored grant.
   */
  putLoginGrant(tokenHash: string, operatorPhone: string, expiresAt?: Date): Promise<LoginGrant>;
  /** Deletes the grant if it exists and is unexpired at `now`, returning it; otherwise `undefined`. */
  consumeLoginGrant(tokenHash: string, now: Date): Promise<LoginGrant | undefined>;
  /** Exclusive create; the session expires at the next local midnight. */
  putSession(session: OperatorSessionInput): Promise<OperatorSession>;
  /** `undefined` when missing or expired at `now` (even if DynamoDB has not deleted it yet). */
  getSession(tokenHash: string, now: Date): Promise<OperatorSession | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
}

/** How a persisted reply leaves `pending_send` (once). */
export type ReplyDelivery =
  | { readonly status: 'sent'; readonly providerMessageId: string; readonly sentAt: IsoTimestamp }
  | { readonly status: 'superseded'; readonly at: IsoTimestamp }
  | { readonly status: 'failed_permanent'; readonly reason: string };

export interface TurnCompletion {
  readonly customerId: string;
  /** The messages the turn consumed (may be empty when only a reply is settled). */
  readonly answered: readonly CompletedInbound[];
  /** The latest-inbound marker as the turn last read it (consistently). */
  readonly latest?: LatestInbound;
  /** The reply settled with these messages: its outbox reference is cleared. */
  readonly outbox?: OutboundRef;
  /** The settled reply's delivery status, recorded in the same transaction. */
  readonly delivery?: ReplyDelivery;
}

/** What a turn finds first: the latest-inbound marker and the ACTIVE pointer. */
export interface TurnStart {
  readonly latest?: LatestInbound;
  readonly activeSessionId?: string;
  /** The session state the pointer records, a hint that may lag behind the session. */
  readonly activeSessionState?: SessionState;
}

/** What a turn reads once it knows there is work: the messages, the session, and what may stop a reply. */
export interface PendingWork {
  readonly pending: PendingInbound[];
  /** The session the turn was asked to read (the one the ACTIVE pointer names), when it exists. */
  readonly session?: Session;
  /** The reply the marker's outbox names, when there is one. */
  readonly outboxReply?: Message;
  /** The customer's current messaging consent is withdrawn (docs/PRIVACY.md): nothing but the confirmation is sent. */
  readonly optedOut: boolean;
}

/** The guard before sending: what can change after a persist. */
export interface SendGuard {
  readonly latest?: LatestInbound;
  readonly session?: Session;
  readonly optedOut: boolean;
}

/**
 * The reads of a turn grouped so that reads which do not depend on each other go out as one
 * request (docs/DESIGN.md#a-normal-turn-step-by-step). Every read is consistent.
 */
export interface TurnStateReader {
  /** The latest-inbound marker and the ACTIVE pointer, together. */
  readStart(customerId: string): Promise<TurnStart>;
  /**
   * Together: the drainable pending messages `latest` lists, the session `sessionId` names, the
   * reply in the marker's outbox and the customer's messaging consent. Drainable: agent-routed and
   * uncompleted, in registration order, with history timestamps strictly increasing (ties and
   * regressions bumped by 1 µs, after the last completed message); a message parked and redriven
   * keeps the timestamp it already has in the history (it is listed after the messages registered
   * meanwhile, but older than they are).
   */
  readPendingAndSession(latest: LatestInbound, sessionId: string | undefined): Promise<PendingWork>;
  /** The guard before sending: the marker, the reply's session and the customer's messaging consent. */
  readMarkerAndSession(customerId: string, sessionId: string): Promise<SendGuard>;
}
