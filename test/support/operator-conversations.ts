import type { DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { ConversationOwnership } from '../../lambda/core/application/operator/conversation-ownership';
import { OperatorAuditTrail } from '../../lambda/core/application/operator/operator-audit';
import { OperatorInbox } from '../../lambda/core/application/operator/operator-inbox';
import { OperatorReplies } from '../../lambda/core/application/operator/operator-replies';
import { CustomerPseudonyms } from '../../lambda/core/application/privacy/customer-pseudonyms';
import type { Clock, IdGenerator } from '../../lambda/core/ports/clock';
import type { SessionRepository } from '../../lambda/core/ports/repositories';
import type { WhatsAppSender } from '../../lambda/core/ports/whatsapp-sender';

/** The operators' use cases on conversations (the inbox's reads, the changes of owner, the sends) as one object a test drives. */
export type OperatorConversations = Pick<OperatorInbox, 'list' | 'get' | 'readable'> & Pick<ConversationOwnership, 'claim' | 'takeOver' | 'release' | 'close'> & Pick<OperatorReplies, 'reply' | 'sendTemplate'>;

/**
 * The operators' use cases on a test table's repositories (no one opted out, the inbox version
 * left at 0), with `sessions` in place of the table's when a test plays a race on them.
 */
export function operatorConversationsOn(
  repos: DynamoRepositories,
  options: { readonly clock: Clock; readonly ids: IdGenerator; readonly whatsapp: WhatsAppSender; readonly sessions?: SessionRepository },
): OperatorConversations {
  const { clock, ids, whatsapp, sessions = repos.sessions } = options;
  const { messages } = repos;
  const audit = new OperatorAuditTrail(repos.audit, clock, ids, new CustomerPseudonyms(repos.customerData));
  const inbox = new OperatorInbox({ sessions, messages, clock, inboxVersion: { current: async () => ({ version: 0, seenMarks: 0 }), raiseSeenMarks: async () => undefined } });
  const ownership = new ConversationOwnership({ sessions, messages, clock, audit });
  const replies = new OperatorReplies({ sessions, messages, receipts: repos.receipts, templates: repos.templates, whatsapp, audit, clock, ids, consent: { isOptedOut: async () => false } });
  return {
    list: (...args) => inbox.list(...args),
    get: (...args) => inbox.get(...args),
    readable: (...args) => inbox.readable(...args),
    claim: (...args) => ownership.claim(...args),
    takeOver: (...args) => ownership.takeOver(...args),
    release: (...args) => ownership.release(...args),
    close: (...args) => ownership.close(...args),
    reply: (...args) => replies.reply(...args),
    sendTemplate: (...args) => replies.sendTemplate(...args),
  };
}
