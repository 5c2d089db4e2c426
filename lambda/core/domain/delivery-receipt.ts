import type { DeliveryFailureClass } from '../../../lib/contract';
import type { MetaPricing } from './meta-fee';
import type { IsoTimestamp } from './timestamps';

/**
 * What Meta last reported of a message the pipeline sent (docs/DESIGN.md#delivery-receipts). The
 * order is the order a receipt may move in: a status never goes back to an earlier one, and
 * `failed` is final (a late `sent` or `delivered` after it changes nothing).
 */
export const RECEIPT_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

export function isReceiptStatus(status: string): status is ReceiptStatus {
  return (RECEIPT_STATUSES as readonly string[]).includes(status);
}

/** The statuses a receipt may still move from to `status`: the earlier ones. */
export function receiptStatusesBefore(status: ReceiptStatus): readonly ReceiptStatus[] {
  return RECEIPT_STATUSES.slice(0, RECEIPT_STATUSES.indexOf(status));
}

/**
 * Why Meta could not deliver a message, as far as what to do next goes (the classes are the
 * contract's: each counts its own metric):
 * - `window-closed` (131047): the 24-hour customer service window closed; only a template reaches the customer now;
 * - `undeliverable` (131026): the number cannot receive it (not on WhatsApp, old app, blocked the business);
 * - `marketing-limit` (131049): Meta's per-user limit of marketing messages; try later;
 * - `unsupported-type` (131051): the message type is not supported;
 * - `other`: any other code, or none.
 */
export type DeliveryFailureReason = DeliveryFailureClass;

const REASON_OF_CODE: ReadonlyMap<number, DeliveryFailureReason> = new Map([
  [131047, 'window-closed'],
  [131026, 'undeliverable'],
  [131049, 'marketing-limit'],
  [131051, 'unsupported-type'],
]);

export function deliveryFailureReason(code: number | undefined): DeliveryFailureReason {
  return (code !== undefined && REASON_OF_CODE.get(code)) || 'other';
}

/** A status Meta reported for one of the pipeline's messages, addressed to the message it names. */
export interface DeliveryReceipt {
  readonly status: ReceiptStatus;
  /** When Meta says the status happened. */
  readonly at: IsoTimestamp;
  /** Meta's id of the message (`wamid…`): recorded when the send's own answer never was. */
  readonly providerMessageId: string;
  /** Meta's error code of a `failed` status. */
  readonly failureCode?: number;
  /** How Meta bills the message, when the status says. */
  readonly pricing?: MetaPricing;
}
