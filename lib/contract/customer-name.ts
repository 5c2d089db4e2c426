/**
 * What people call a customer, everywhere they read it — an inbox row, the conversation's heading
 * and history, the close dialog, a quick reply's `{name}`: the customer's WhatsApp profile name (their
 * own), else the name the agent learned, else their phone (their WhatsApp id).
 * Internal: not part of the jsii API.
 */

/** What the pipeline knows of a customer's names (the fields of an inbox row and a conversation). */
export interface CustomerNames {
  readonly customerId: string;
  /** The name the agent learned. */
  readonly displayName?: string;
  /** The WhatsApp profile name, as their last message carried it. */
  readonly profileName?: string;
}

/** The customer's name, when one is known: what a quick reply's `{name}` becomes (a phone greets nobody). */
export function knownCustomerNameOf(customer: CustomerNames): string | undefined {
  return [customer.profileName, customer.displayName].map((name) => name?.trim()).find((name) => name !== undefined && name !== '');
}

/** The customer's name, else their phone. */
export function customerNameOf(customer: CustomerNames): string {
  return knownCustomerNameOf(customer) ?? customer.customerId;
}
