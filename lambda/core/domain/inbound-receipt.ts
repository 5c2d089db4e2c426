import type { InboundTurn } from './inbound-turn';
import type { OutboundRef } from './message';
import { isoMicros, latestOf, nextMicrosecond, toEpochMicros, type IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/** Meta retries a webhook for up to 7 days, so a receipt must outlive that. */
export const RECEIPT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/**
 * The durable record that a customer message was received, kept 7 days (Meta retries for up to 7
 * days). Its markers say how far the pipeline got with it.
 */
export interface InboundReceipt extends CarriesUnknownAttributes {
  readonly turn: InboundTurn;
  readonly registeredAt: IsoTimestamp;
  /** Epoch seconds when DynamoDB may delete the receipt. */
  readonly expiresAtEpochSeconds: number;
  /** The message was routed to the AI agent (the orchestrator may drain it). */
  readonly agentRoutedAt?: IsoTimestamp;
  /** The message went to the human inbox (the agent never sees it as a turn). */
  readonly humanRoutedAt?: IsoTimestamp;
  /** A synchronous route claimed the message (exclusive with agent routing). */
  readonly syncClaimedAt?: IsoTimestamp;
  /** The message was handed to the queue. */
  readonly dispatchedAt?: IsoTimestamp;
  /** The turn that consumed the message finished (durably). */
  readonly completedAt?: IsoTimestamp;
  /**
   * Every delivery attempt of the turn that drained it failed: its record went to the dead-letter
   * queue and the message left the pending list, so it cannot block the customer's later turns.
   * An operator's redrive restores it.
   */
  readonly deadLetteredAt?: IsoTimestamp;
  /** Where the message stands in the conversation history (kept when it is dead-lettered). */
  readonly historyTimestamp?: IsoTimestamp;
}

/** What `registerInbound` found. A duplicate changed nothing. */
export interface InboundRegistration {
  readonly isDuplicate: boolean;
  readonly alreadyDispatched: boolean;
  readonly alreadyCompleted: boolean;
  /** The receipt is routed to the agent (by this registration or, for a duplicate, an earlier one). */
  readonly agentRouted: boolean;
}

export interface RegisterInboundOptions {
  /**
   * Also route the message to the agent in the same transaction, unless the customer's active
   * session is (or may be) owned by a human; then `agentRouted` is false and the caller routes it.
   */
  readonly routeToAgentUnlessHumanOwned?: boolean;
}

/** A persisted reply waiting to be sent, recorded on the latest-inbound marker. */
export interface OutboxEntry {
  readonly ref: OutboundRef;
  /** The customer message the reply answers; the reply is only valid while it is still the latest. */
  readonly replyToMessageId: string;
}

/**
 * The per-customer marker that decides latest-message-wins: which message is the latest, the
 * messages not yet consumed in registration order, and the commit/invalidation/outbox markers.
 */
export interface LatestInbound extends CarriesUnknownAttributes {
  readonly customerId: string;
  readonly latestMessageId?: string;
  /** Registration order, which is the order turns are drained in (never provider timestamps). */
  readonly pendingMessageIds: readonly string[];
  /** Set by the invalidation barrier; lifted by the next registered message. */
  readonly invalidatedAt?: IsoTimestamp;
  readonly committedMessageId?: string;
  readonly committedAt?: IsoTimestamp;
  readonly outbox?: OutboxEntry;
  /** History timestamp of the newest completed inbound message; later ones are placed after it. */
  readonly historyWatermark?: IsoTimestamp;
  readonly updatedAt?: IsoTimestamp;
}

/** A pending turn with the timestamp it takes in the conversation history. */
export interface PendingInbound extends InboundTurn {
  /**
   * The provider timestamp, raised to 1 µs after the previous message's when it ties or regresses,
   * so history sorted by time is registration order.
   */
  readonly historyTimestamp: IsoTimestamp;
}

/** The identity of an inbound message. */
export type InboundRef = Pick<InboundTurn, 'customerId' | 'messageId'>;

/** A consumed message; with its history timestamp (from the pending list) it advances the watermark. */
export type CompletedInbound = InboundRef & { readonly historyTimestamp?: IsoTimestamp };

/**
 * The orchestrator may drain it: routed to the agent (or dispatched by an older deployment) and not
 * consumed elsewhere (human inbox, a synchronous claim of the seed system, completed or parked).
 */
export function isDrainable(receipt: InboundReceipt): boolean {
  const routedToAgent = receipt.agentRoutedAt !== undefined || receipt.dispatchedAt !== undefined;
  return routedToAgent && receipt.humanRoutedAt === undefined && receipt.syncClaimedAt === undefined && receipt.completedAt === undefined && receipt.deadLetteredAt === undefined;
}

/**
 * The watermark rule of the pending list: the drainable receipts, in list order, each with the
 * place it takes in the history. A message takes its provider timestamp, raised to 1 µs after the
 * previous one (starting from the history watermark) when it ties or regresses, so history sorted
 * by time is registration order. A message parked and redriven is in the history already and keeps
 * its place there (it is listed after the messages registered meanwhile, but older than they are).
 */
export function placeInHistory(receiptsInListOrder: readonly InboundReceipt[], historyWatermark: IsoTimestamp | undefined): PendingInbound[] {
  const pending: PendingInbound[] = [];
  let previous = historyWatermark;
  for (const receipt of receiptsInListOrder) {
    if (!isDrainable(receipt)) continue;
    if (receipt.historyTimestamp !== undefined) {
      const kept = isoMicros(receipt.historyTimestamp);
      previous = previous === undefined ? kept : latestOf(previous, kept);
      pending.push({ ...receipt.turn, historyTimestamp: kept });
      continue;
    }
    let historyTimestamp = isoMicros(receipt.turn.providerTimestamp);
    if (previous !== undefined && toEpochMicros(historyTimestamp) <= toEpochMicros(previous)) historyTimestamp = nextMicrosecond(previous);
    previous = historyTimestamp;
    pending.push({ ...receipt.turn, historyTimestamp });
  }
  return pending;
}

/** The history watermark once `completed` are consumed: the newest of it and their history timestamps. */
export function advancedWatermark(historyWatermark: IsoTimestamp | undefined, completed: readonly CompletedInbound[]): IsoTimestamp | undefined {
  const timestamps = completed.flatMap((turn) => (turn.historyTimestamp ? [isoMicros(turn.historyTimestamp)] : []));
  return [historyWatermark, ...timestamps]
    .filter((value): value is IsoTimestamp => value !== undefined)
    .reduce<IsoTimestamp | undefined>((max, value) => (max === undefined || toEpochMicros(value) > toEpochMicros(max) ? value : max), undefined);
}
