import { isValidCustomerId } from './inbound-turn';
import type { OutboundRef } from './message';

/**
 * Every send of a stored message carries `biz_opaque_callback_data` naming it, and Meta echoes it
 * in each status of that message: the status finds its message by key, without an index of wamids.
 * Versioned, so a later format can tell the ones already in flight.
 */
const CALLBACK_DATA_VERSION = 'r1';
/** Neither a customer id nor a key segment holds a space (inbound-turn.ts). */
const SEPARATOR = ' ';
/** Meta's limit for `biz_opaque_callback_data`. */
export const MAX_CALLBACK_DATA_LENGTH = 512;

export function callbackDataOf(ref: OutboundRef): string {
  return [CALLBACK_DATA_VERSION, ref.customerId, ref.sortKey].join(SEPARATOR);
}

/**
 * The message a status's callback data names; undefined for anything that is not of the pipeline's
 * form. Whoever sends on the account chooses callback data, so the form is no proof: the message
 * store still checks that the reference names a message, and the receipts that the status went to
 * that customer.
 */
export function outboundRefOfCallbackData(callbackData: string | undefined): OutboundRef | undefined {
  if (callbackData === undefined || callbackData.length > MAX_CALLBACK_DATA_LENGTH) return undefined;
  const [version, customerId, sortKey, ...rest] = callbackData.split(SEPARATOR);
  // A sort key of the pipeline's is printable ASCII; the message store checks it names a message.
  if (version !== CALLBACK_DATA_VERSION || rest.length > 0 || !isValidCustomerId(customerId ?? '') || !/^[!-~]+$/.test(sortKey ?? '')) return undefined;
  return { customerId, sortKey };
}
