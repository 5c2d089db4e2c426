import { type ConversationAction, type ConversationRefusal, type ConversationRefusalCode, conversationRefusal } from '../../../../lib/contract/conversation-access';
import type { Operator } from '../../domain/operator';
import type { Session } from '../../domain/session';
import type { OperatorDirectory } from './operator-directory';
import { OperatorActionError } from './operator-errors';

/** Where the name of the person who has a conversation comes from (the cached operators list). */
export type OperatorNames = Pick<OperatorDirectory, 'find'>;

/** In English, for logs and scripts: the console words the refusal's code in the operator's language. */
const MESSAGES: Readonly<Record<ConversationRefusalCode, (who: string) => string>> = {
  conversation_taken: (who) => `${who} has this conversation: only they act on it (an admin may also give it back or close it)`,
  conversation_yours: () => 'You have this conversation already',
  conversation_unclaimed: () => 'Nobody has claimed this conversation: claim it first (only an admin gives back or closes a conversation nobody has)',
  conversation_with_agent: () => 'The agent is serving this conversation: only an admin reads it, takes it over or closes it',
  conversation_waiting: () => 'The conversation waits for a person: claim it instead',
  conversation_closed: () => 'The conversation is closed',
};

/**
 * The rule (lib/contract/conversation-access.ts) applied to `session` as read: nothing when
 * `operator` may do `action`, else its refusal as the use cases throw it — `forbidden` or
 * `conflict`, with a `problem` whose code says why and, when another person has the conversation,
 * who (`who`: their name as the operators list gives it, else their phone).
 */
export async function requirePermitted(operator: Operator, session: Session, action: ConversationAction, names?: OperatorNames): Promise<void> {
  const refusal = conversationRefusal(operator, session, action);
  if (refusal !== undefined) throw await refusalError(refusal, names);
}

async function refusalError(refusal: ConversationRefusal, names: OperatorNames | undefined): Promise<OperatorActionError> {
  const { code, status, assignedTo } = refusal;
  if (assignedTo === undefined) return new OperatorActionError(status, MESSAGES[code](''), { code });
  const who = (await names?.find(assignedTo))?.name ?? assignedTo;
  return new OperatorActionError(status, MESSAGES[code](who), { code, who, assignedTo });
}
