import type { DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { SessionAttribute } from '../../lambda/core/adapters/dynamodb/codecs/session-codec';
import { messageKey, sessionKey } from '../../lambda/core/adapters/dynamodb/keys';
import { addMilliseconds } from '../../lambda/core/domain/timestamps';

/** Enough to close the customer's 24-hour window. */
export const PAST_THE_WINDOW_MS = 25 * 3_600_000;

/**
 * Moves the customer's own messages in the stored history `ms` into the past, as if they had
 * written then: a conversation handed to people inside the customer's 24-hour window whose window
 * closed since. The pipeline never moves a message; a test reaches that state without waiting a day
 * (the agent no longer answers a message that is already a day old). The session's record of the
 * customer's last message, which the conversation view reads its window from, moves with them.
 */
export async function backdateCustomerMessages(repositories: Pick<DynamoRepositories, 'messages' | 'sessions' | 'kit'>, customerId: string, ms = PAST_THE_WINDOW_MS): Promise<void> {
  const { items } = await repositories.messages.history(customerId, { limit: 100 });
  for (const message of items.filter((stored) => stored.direction === 'inbound')) {
    await repositories.messages.append({ ...message, timestamp: addMilliseconds(message.timestamp, -ms) });
    await repositories.kit.delete({ key: messageKey(customerId, message.timestamp, message.messageId) });
  }
  const session = await repositories.sessions.getActive(customerId);
  const lastAt = session?.lastCustomerMessage?.at;
  if (session === undefined || lastAt === undefined) return;
  await repositories.kit.update({
    key: sessionKey(customerId, session.sessionId),
    update: 'SET #at = :at',
    names: { '#at': SessionAttribute.lastCustomerMessageAt },
    values: { ':at': addMilliseconds(lastAt, -ms) },
  });
}
