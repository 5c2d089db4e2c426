import type { DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { OperatorAuditTrail } from '../../lambda/core/application/operator/operator-audit';
import { OperatorConversations } from '../../lambda/core/application/operator/operator-conversations';
import { CustomerPseudonyms } from '../../lambda/core/application/privacy/customer-pseudonyms';
import type { Clock, IdGenerator } from '../../lambda/core/ports/clock';
import type { SessionRepository } from '../../lambda/core/ports/repositories';
import type { WhatsAppSender } from '../../lambda/core/ports/whatsapp-sender';

/**
 * The operators' use cases on a test table's repositories (no one opted out, the inbox version
 * left at 0), with `sessions` in place of the table's when a test plays a race on them.
 */
export function operatorConversationsOn(
  repos: DynamoRepositories,
  options: { readonly clock: Clock; readonly ids: IdGenerator; readonly whatsapp: WhatsAppSender; readonly sessions?: SessionRepository },
): OperatorConversations {
  const { clock, ids, whatsapp, sessions = repos.sessions } = options;
  return new OperatorConversations({
    sessions,
    messages: repos.messages,
    receipts: repos.receipts,
    config: repos.config,
    templates: repos.templates,
    whatsapp,
    audit: new OperatorAuditTrail(repos.audit, clock, ids, new CustomerPseudonyms(repos.customerData)),
    clock,
    ids,
    timeZone: 'America/Sao_Paulo',
    consent: { isOptedOut: async () => false },
    inboxVersion: { current: async () => ({ version: 0, seenMarks: 0 }), raiseSeenMarks: async () => undefined },
  });
}
