import type { CrmSendOutcome } from '../../ports/crm-client';

const MAX_ID_LENGTH = 256;

/**
 * An acceptance must name the contact and deal ids the CRM holds; anything else after the CRM acted
 * on the request leaves the outcome unknown (the deal may exist without our knowing its id).
 */
export function parseAcceptedIds(answer: unknown, source: string): CrmSendOutcome {
  const ids = answer as { contactId?: unknown; dealId?: unknown } | undefined;
  const valid = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= MAX_ID_LENGTH;
  if (typeof answer === 'object' && answer !== null && valid(ids?.contactId) && valid(ids?.dealId)) {
    return { kind: 'accepted', contactId: ids.contactId, dealId: ids.dealId };
  }
  return { kind: 'unknown', reason: `crm_answer_without_ids (${source})` };
}
