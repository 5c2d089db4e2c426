import { ANSWERED_FROM_PHONE, businessAppMessage, type BusinessEcho } from '../domain/business-echo';
import { isAgentOwned, isHumanOwned, openSession, SessionState, type Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import type { Clock, IdGenerator } from '../ports/clock';
import { ConditionFailedError, type MessageRepository, type SessionRepository } from '../ports/repositories';

export interface RecordBusinessEchoesDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** What became of a notification's echoes. */
export interface RecordedEchoes {
  /** Echoes written to a history now (a redelivery's are already there). */
  readonly recorded: number;
  /** Conversations the agent answered that the echoes handed to people. */
  readonly paused: number;
}

/** A session write that lost to a concurrent one is tried again on what is stored, this many times. */
const MAX_ATTEMPTS = 3;

/**
 * A person of the business answered from the WhatsApp Business app (docs/DESIGN.md#coexistence):
 * the conversation goes to people — `AWAITING_HUMAN`, owned by nobody, with the reason
 * {@link ANSWERED_FROM_PHONE} — so the customer's next message reaches no agent, and the echo is
 * recorded in its history as the business's own message. No handoff time is set: the person is
 * answering already, so nobody is notified and the customer is never told that nobody is available.
 * An echo already in the history is Meta's redelivery and changes nothing; otherwise the pause comes
 * before the record, so a failure between the two is retried whole by Meta.
 */
export class RecordBusinessEchoes {
  constructor(private readonly deps: RecordBusinessEchoesDependencies) {}

  /** One customer's echoes one after another in payload order; different customers concurrently. Rejects if a write fails. */
  async execute(echoes: readonly BusinessEcho[]): Promise<RecordedEchoes> {
    const byCustomer = new Map<string, BusinessEcho[]>();
    for (const echo of echoes) byCustomer.set(echo.customerId, [...(byCustomer.get(echo.customerId) ?? []), echo]);
    let recorded = 0;
    let paused = 0;
    await Promise.all(
      [...byCustomer.values()].map(async (customerEchoes) => {
        for (const echo of customerEchoes) {
          // A redelivery changes nothing, not even a conversation given back to the agent since.
          if (await this.deps.messages.isRecent(echo.customerId, echo.messageId)) continue;
          const { session, pausedNow } = await this.pause(echo);
          if (pausedNow) paused++;
          await this.deps.messages.append(businessAppMessage(echo, session.sessionId));
          recorded++;
        }
      }),
    );
    return { recorded, paused };
  }

  /** The conversation, with people: as it is when people own it already, handed over when the agent does, opened with them when there is none. */
  private async pause(echo: BusinessEcho, attempt = 1): Promise<{ readonly session: Session; readonly pausedNow: boolean }> {
    const active = await this.deps.sessions.getActive(echo.customerId);
    if (active !== undefined && isHumanOwned(active.state)) return { session: active, pausedNow: false };
    try {
      if (active !== undefined && isAgentOwned(active.state)) {
        const handedOver = await this.deps.sessions.transitionState(active, active.state, SessionState.AWAITING_HUMAN, {
          changes: { handoffReason: ANSWERED_FROM_PHONE, handoffRequestedAt: null },
          expectedAssignedTo: null,
        });
        return { session: handedOver, pausedNow: true };
      }
      const opened = openSession(echo, this.deps.ids.newId(), isoMicros(this.deps.clock.now()), { previous: active, state: SessionState.AWAITING_HUMAN, handoffReason: ANSWERED_FROM_PHONE });
      await this.deps.sessions.put(opened);
      return { session: opened, pausedNow: true };
    } catch (error) {
      if (!(error instanceof ConditionFailedError) || attempt >= MAX_ATTEMPTS) throw error;
      return this.pause(echo, attempt + 1);
    }
  }
}
