import type { InboundTurn } from '../domain/inbound-turn';
import { customerMessage } from '../domain/message';
import { openSession, SessionState } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import type { Clock, IdGenerator } from '../ports/clock';
import type { MessageRepository, SessionRepository } from '../ports/repositories';

export interface RecordStandbyMessagesDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * Customer messages Meta delivers on the `standby` field: another app holds the thread through
 * thread control (Meta's Business Agent, say) and answers them. They are recorded in the customer's
 * history — the conversation stays whole for the agent and for people — and never answered: no
 * receipt, no turn, no reply. Each is put-if-absent under Meta's id and timestamp, so a redelivery
 * changes nothing; `true` for each written now.
 */
export class RecordStandbyMessages {
  constructor(private readonly deps: RecordStandbyMessagesDependencies) {}

  async execute(messages: readonly InboundTurn[]): Promise<number> {
    let recorded = 0;
    // One after another: the first may open the session the next ones are recorded in.
    for (const message of messages) {
      const active = await this.deps.sessions.getActive(message.customerId);
      let session = active;
      if (session === undefined || session.state === SessionState.CLOSED) {
        session = openSession(message, this.deps.ids.newId(), isoMicros(this.deps.clock.now()), { previous: active });
        await this.deps.sessions.put(session);
      }
      // The text only: no turn downloads an attachment of a message the pipeline does not answer.
      const entry = customerMessage({ ...message, media: undefined }, session.sessionId, isoMicros(message.providerTimestamp));
      if (await this.deps.messages.append(entry)) recorded++;
    }
    return recorded;
  }
}
