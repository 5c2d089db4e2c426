import type { InboundRef } from '../domain/inbound-receipt';
import { answersLatest } from '../domain/turn';
import type { InboundReceiptRepository } from '../ports/repositories';

/**
 * Whether `last` is still the message the turn answers, as the persist guard will check it: one
 * strongly consistent read of the marker. A failed read lets the turn go on; the guard decides.
 */
export async function isStillLatest(receipts: Pick<InboundReceiptRepository, 'getLatest'>, last: InboundRef): Promise<boolean> {
  const latest = await receipts.getLatest(last.customerId).catch(() => undefined);
  return latest === undefined || answersLatest(latest, last.messageId);
}

/**
 * The same check before a side effect, where a failed read must not let the call run: it throws
 * (the turn is retried), and a marker that cannot be read as naming `last` stops the call.
 */
export async function isStillLatestForSideEffect(receipts: Pick<InboundReceiptRepository, 'getLatest'>, last: InboundRef): Promise<boolean> {
  const latest = await receipts.getLatest(last.customerId);
  return latest !== undefined && answersLatest(latest, last.messageId);
}
