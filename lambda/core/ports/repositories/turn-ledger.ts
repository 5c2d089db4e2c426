import type { CompletedInbound, LatestInbound, PendingInbound } from '../../domain/inbound-receipt';
import type { InteractiveReply } from '../../domain/interactive-reply';
import type { LlmUsage, Message, MessageRole, OutboundRef } from '../../domain/message';
import type { Session, SessionState } from '../../domain/session';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { SentTextMessage } from '../whatsapp-sender';

/**
 * The turn's persistence where it spans the customer's entities — the latest-inbound marker and the
 * receipts, the session and its ACTIVE pointer, the reply, the consent — one method per step of
 * docs/DESIGN.md#a-normal-turn-step-by-step. Every read is consistent, and reads that do not depend
 * on each other go out as one request. What a turn writes to one entity alone (opening a session,
 * appending its messages) goes through that entity's repository.
 */
export interface TurnLedger {
  /** Step 1: the latest-inbound marker and the ACTIVE pointer, together. */
  readMarker(customerId: string): Promise<TurnStart>;
  /**
   * Steps 1–2, together: the drainable pending messages `latest` lists, the session `sessionId`
   * names, the reply in the marker's outbox and the customer's messaging consent. Drainable:
   * agent-routed and uncompleted, in registration order, with history timestamps strictly
   * increasing (ties and regressions bumped by 1 µs, after the last completed message); a message
   * parked and redriven keeps the timestamp it already has in the history (it is listed after the
   * messages registered meanwhile, but older than they are).
   */
  readPending(latest: LatestInbound, sessionId: string | undefined): Promise<PendingWork>;
  /**
   * Step 7, the latest-message guard, in ONE transaction: the session, the ACTIVE pointer, the
   * reply as an outbound message `pending_send`, and the outbox reference on the latest-inbound
   * marker — only if the turn is still the latest, not invalidated, no other reply is pending, and
   * pointer and state are as the turn found them. `false` when the turn was superseded (nothing
   * written).
   */
  persistResult(result: TurnResult): Promise<boolean>;
  /** Step 8, the guard before sending: the marker, the reply's session and the customer's messaging consent. */
  readSendGuard(customerId: string, sessionId: string): Promise<SendGuard>;
  /**
   * Step 10, the end of a turn in ONE conditional transaction (per 49 messages): the answered
   * receipts completed (`completed_at`) and taken off the pending list, the history watermark
   * moved, and — when the turn settled a reply — that reply's delivery status recorded (only out of
   * `pending_send`) and its outbox reference cleared (only while it still names that reply). Built
   * on `latest` when given, so nothing is read first; the marker is re-read only when the list
   * changed meanwhile. Complete every message a turn drained in ONE call, so their history
   * timestamps stay stable across retries.
   */
  complete(completion: TurnCompletion): Promise<void>;
  /**
   * Parks messages whose turn failed on its last delivery attempt: receipts get `dead_lettered_at`
   * (and their history timestamp), their history entries are hidden from the agent, and they leave
   * the pending list — all in one transaction — so later turns are not blocked.
   */
  park(turns: readonly CompletedInbound[]): Promise<void>;
  /**
   * Claims the failure notice of a parked set in ONE transaction: the claim on the receipt of
   * `newest` (the set's newest message, still parked) and `notice` in the history, `pending_send`.
   * `false` when that set's notice was claimed before (nothing written): it is never sent twice.
   */
  claimFailureNotice(newest: CompletedInbound, notice: Message): Promise<boolean>;
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
  /** Where the knowledge-base passages the agent was given came from. */
  readonly knowledgeSources?: readonly string[];
  /** Buttons, a list or a link button under the text, within WhatsApp's limits. */
  readonly interactive?: InteractiveReply;
}

/** What a turn persists: the session as it leaves it and its reply, with the conditions of the latest-message guard. */
export interface TurnResult {
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
}

/** The guard before sending: what can change after a persist. */
export interface SendGuard {
  readonly latest?: LatestInbound;
  readonly session?: Session;
  readonly optedOut: boolean;
}

/** How a persisted reply leaves `pending_send` (once). */
export type ReplyDelivery =
  | ({ readonly status: 'sent'; readonly sentAt: IsoTimestamp } & SentTextMessage)
  | { readonly status: 'superseded'; readonly at: IsoTimestamp }
  | { readonly status: 'maybe_sent'; readonly at: IsoTimestamp }
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
