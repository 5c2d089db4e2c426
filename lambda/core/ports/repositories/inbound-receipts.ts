import type { InboundReceipt, InboundRef, InboundRegistration, LatestInbound, RegisterInboundOptions } from '../../domain/inbound-receipt';
import type { InboundTurn } from '../../domain/inbound-turn';
import type { IsoTimestamp } from '../../domain/timestamps';

export type { CompletedInbound, InboundRef } from '../../domain/inbound-receipt';

/**
 * Inbound receipts and the customer's latest-inbound marker (latest-message-wins): durable
 * deduplication and the ordered pending list. A turn completes and parks its messages through the
 * TurnLedger.
 */
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
   * A customer's edit of a message still waiting for the agent: its receipt takes the new text, so
   * the turn that drains it answers what the customer now says. `false` when the message is not
   * waiting (answered, in the human inbox, or never received).
   */
  reviseWaitingText(ref: InboundRef, text: string): Promise<boolean>;
  /**
   * A customer deleted a message still waiting for the agent: its receipt loses its text and
   * attachment, and it leaves the pending list, so no turn reads it; when it was the latest, the
   * newest message still waiting becomes the latest again. `false` when the message is not waiting
   * (answered, in the human inbox, parked or never received).
   */
  withdrawWaiting(ref: InboundRef): Promise<boolean>;
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
