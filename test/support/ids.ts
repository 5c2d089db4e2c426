import { randomUUID } from 'node:crypto';

// The same numbers in every run that writes the README's screenshots, so only what changed shows in them.
let customers = process.env.UPDATE_SCREENSHOTS === '1' ? 48_213_576 : Math.floor(Math.random() * 1e8);

/**
 * A customer id in WhatsApp's shape (digits only), unique in the process: tests and runs sharing a
 * table never see each other's rows.
 */
export function newCustomer(): string {
  return `5511${String(++customers).padStart(9, '0')}`;
}

/** An operator phone: operators are WhatsApp users, numbered as customers are. */
export const newOperatorPhone = newCustomer;

/** A WhatsApp message id, distinct per call. */
export function newMessageId(): string {
  return `wamid.${randomUUID().replace(/-/g, '')}`;
}
