import type { PendingInbound } from './inbound-receipt';
import { latestOf, toEpochMicros, type IsoTimestamp } from './timestamps';

/**
 * WhatsApp's customer service window: a business answers free-form only within 24 hours of the
 * customer's last message; after that only an approved template reaches them (Meta refuses free
 * text with 131047). The agent's turn, its outbox, an operator's reply and the handoff's notices
 * to the customer ask this one rule.
 */
export const CUSTOMER_SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Whether free text still reaches a customer whose last message is `lastCustomerMessageAt` (the time it takes in the history); closed when they never wrote. */
export function isInsideServiceWindow(lastCustomerMessageAt: IsoTimestamp | undefined, now: Date): boolean {
  if (lastCustomerMessageAt === undefined) return false;
  return toEpochMicros(now) - toEpochMicros(lastCustomerMessageAt) < CUSTOMER_SERVICE_WINDOW_MS * 1000;
}

/**
 * When the customer last wrote, as a turn knows it without another read: the newest of the history
 * watermark (the newest message already consumed) and the places its pending messages take in the
 * history — the provider's timestamps, kept in registration order.
 */
export function lastCustomerMessageOf(historyWatermark: IsoTimestamp | undefined, pending: readonly Pick<PendingInbound, 'historyTimestamp'>[]): IsoTimestamp | undefined {
  return pending.reduce<IsoTimestamp | undefined>((newest, turn) => (newest === undefined ? turn.historyTimestamp : latestOf(newest, turn.historyTimestamp)), historyWatermark);
}
