import type { CrmSyncRequest } from '../domain/crm-sync';

/**
 * How one send to the CRM ended:
 * - `accepted`: the CRM holds this revision under these ids;
 * - `retryable`: the CRM (or the way to it) asked to try again, or the request never left;
 * - `refused`: the CRM rejected the content for good (a person must look at it);
 * - `unknown`: the request left and no usable answer came back (timeout, cut connection, a crash
 *   of the consumer's function): the CRM may or may not have acted on it.
 */
export type CrmSendOutcome =
  | { readonly kind: 'accepted'; readonly contactId: string; readonly dealId: string }
  | { readonly kind: 'retryable'; readonly reason: string }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'unknown'; readonly reason: string };

/** The consumer's CRM, behind a function or a signed webhook. Never throws: every failure is an outcome. */
export interface CrmClient {
  send(request: CrmSyncRequest, options: { readonly timeoutMs: number }): Promise<CrmSendOutcome>;
}
