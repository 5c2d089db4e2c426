import type { AwsCallOptions } from '../../lambda/core/adapters/aws/signed-aws-post';
import { createDocumentClient, DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoMessageRepository } from '../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../lambda/core/adapters/dynamodb/session-repository';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import type { Message } from '../../lambda/core/domain/message';
import type { Session } from '../../lambda/core/domain/session';

export interface ConversationSnapshot {
  /** The customer's active session (the latest one, closed or not), if any. */
  readonly session?: Session;
  /** The active session's messages as the agent sees them, oldest first. */
  readonly history: readonly Message[];
}

/**
 * Reads a customer's conversation through the pipeline's own repositories — the same keys and
 * decoding the functions use — with a client bound to the given DynamoDB endpoint.
 */
export class ConversationInspector {
  private readonly sessions: DynamoSessionRepository;
  private readonly messages: DynamoMessageRepository;

  constructor(tableName: string, access: AwsCallOptions) {
    const kit = new DynamoKit({ tableName, client: createDocumentClient(access) });
    this.sessions = new DynamoSessionRepository(kit, systemClock);
    this.messages = new DynamoMessageRepository(kit, systemClock);
  }

  async snapshot(customerId: string, historyLimit = 50): Promise<ConversationSnapshot> {
    const session = await this.sessions.getActive(customerId);
    if (!session) return { history: [] };
    return { session, history: await this.messages.historyForSession(customerId, session.sessionId, historyLimit) };
  }
}
