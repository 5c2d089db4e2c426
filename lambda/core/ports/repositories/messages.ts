import type { DailyAgentUsage, UtcDay } from '../../domain/agent-usage';
import type { MetaRateTable } from '../../../../lib/contract/meta-message-rates';
import type { DeliveryReceipt } from '../../domain/delivery-receipt';
import type { InboundReaction } from '../../domain/inbound-turn';
import type { OutOfPortfolioDemand } from '../../domain/demand';
import type { Message, OutboundRef } from '../../domain/message';
import type { Session } from '../../domain/session';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { SentTextMessage } from '../whatsapp-sender';
import type { Page, PageRequest } from './paging';

/** The conversation history of a customer: their messages and the replies. */
export interface MessageRepository {
  /**
   * Writes the message under its deterministic key (id + timestamp). Inbound messages are
   * put-if-absent: `false` when already in the history (a redelivery). Others overwrite.
   */
  append(message: Message): Promise<boolean>;
  /**
   * Whether one of the customer's latest 200 messages carries `messageId`: how a message of Meta's
   * placed at its reception time (so after a reply sent within the same second as Meta's
   * second-resolution timestamp) is known again when Meta redelivers it at another time. Two
   * deliveries of one message at the same instant may both find it absent.
   */
  isRecent(customerId: string, messageId: string): Promise<boolean>;
  /**
   * The human inbox: appends the inbound message only while the customer's active session is still
   * `session` in the state it was read in. `true` if appended now or earlier; `false` if the state
   * or pointer moved. The same write makes it the session's last customer message (and `profileName`,
   * when the message came with one, the session's profile name), which the inbox rows show.
   */
  appendInboundIfSessionState(message: Message, session: HumanInboxSession, profileName?: string): Promise<boolean>;
  /** A customer's messages across sessions, newest first. */
  history(customerId: string, page?: PageRequest): Promise<Page<Message>>;
  /** The last `limit` messages of one session, in chronological order. */
  historyForSession(customerId: string, sessionId: string, limit: number): Promise<Message[]>;
  /**
   * What the agent did on each of `days`, added up from the day index of its replies (never a
   * Scan): every partition of a day read to its end, at most `bound.pagesPerPartition` pages of
   * `bound.pageSize` replies each; a day cut at the bound is `complete: false`.
   */
  agentUsageByDay(days: readonly UtcDay[], bound: UsageReadBound, rates?: MetaRateTable): Promise<DailyAgentUsage[]>;
  /** Where a message is stored (for the outbox operations). */
  refFor(message: Pick<Message, 'customerId' | 'timestamp' | 'messageId'>): OutboundRef;
  /** The message stored there (a reply of the outbox; a customer's voice note a retried turn appended already), read consistently. */
  getOutbound(ref: OutboundRef): Promise<Message | undefined>;
  /**
   * Records a status Meta reported for the outbound message `ref` names, in ONE conditional write:
   * only a later status than the one recorded (duplicates and reordered statuses change nothing),
   * and only on a message that may have been sent — which also settles a reply whose send outcome
   * is unknown (`pending_send`, `maybe_sent`) as `sent` — and only when the status's wamid is one
   * the message was sent as, or none is recorded yet. `notOurs` when `ref` names no message the
   * table could hold (callback data the pipeline never wrote): nothing is written.
   */
  recordReceipt(ref: OutboundRef, receipt: DeliveryReceipt): Promise<ReceiptRecording>;
  /** Notes on a `pending_send` reply that an attempt ended without sending it; `false` if it is no longer pending (or not stored). */
  markUnsent(ref: OutboundRef, at: IsoTimestamp): Promise<boolean>;
  /** `pending_send → sent` (also when a receipt of this send recorded it first); `false` if it was settled otherwise. */
  markOutboundSent(ref: OutboundRef, sent: SentTextMessage, sentAt: IsoTimestamp): Promise<boolean>;
  /**
   * Records a customer's reaction on the message of their recent history it names (a customer
   * message by its wamid, a reply by the wamid Meta gave it); a removed reaction clears it. Only a
   * later reaction than the recorded one changes it. `false` when no such message is found or a
   * later reaction is recorded.
   */
  recordReaction(customerId: string, reaction: InboundReaction, at: IsoTimestamp): Promise<boolean>;
  /** A customer's edit of one of their recent messages: its new text and when; `false` when it is not in the history. */
  recordEdit(customerId: string, messageId: string, text: string, at: IsoTimestamp): Promise<boolean>;
  /**
   * A customer deleted one of their recent messages: it is marked deleted, and its text and
   * attachment reference are dropped (the first revoke's instant stays). `false` when it is not in
   * the history.
   */
  recordRevoke(customerId: string, messageId: string, at: IsoTimestamp): Promise<boolean>;
  /** Hides a customer message from the agent (`null`: shows it again); `false` if it is not stored. */
  setQuarantined(ref: OutboundRef, quarantinedAt: IsoTimestamp | null): Promise<boolean>;
}

/**
 * What a receipt did: `recorded` on a message recorded sent; `settled` a message whose send outcome
 * was unknown as sent; `unchanged`: not a message the pipeline may have sent, sent as another wamid,
 * or not a later status; `notOurs`: the reference names no message of the table, nothing was written.
 */
export type ReceiptOutcome = 'recorded' | 'settled' | 'unchanged' | 'notOurs';

/** What one receipt's write did, as the write's own answer tells it. */
export interface ReceiptRecording {
  readonly outcome: ReceiptOutcome;
  /** The write kept Meta's pricing of the message for the first time (later statuses repeat it and change nothing). */
  readonly pricingRecorded: boolean;
}

/** How much of the day index one usage report may read. */
export interface UsageReadBound {
  readonly pagesPerPartition: number;
  readonly pageSize: number;
}

/** Services customers asked for that the business does not offer. */
export interface DemandRepository {
  /** `false` when a demand from the same source message was already recorded. */
  record(demand: OutOfPortfolioDemand): Promise<boolean>;
  /** Newest first. */
  listRecent(page?: PageRequest): Promise<Page<OutOfPortfolioDemand>>;
}

/** What the human inbox's append reads of the session: which one, its state, and the names it is searched by. */
export type HumanInboxSession = Pick<Session, 'sessionId' | 'state' | 'cadastralData' | 'qualificationData'>;
