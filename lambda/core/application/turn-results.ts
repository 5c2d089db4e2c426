import type { AgentAction } from '../domain/agent-action';
import type { LatestInbound, PendingInbound } from '../domain/inbound-receipt';
import { withCustomerMessage } from '../domain/inbox-summary';
import { type LlmUsage, type OutboundRef, pendingSendMessage } from '../domain/message';
import type { ConversationMemory } from '../domain/conversation-memory';
import type { InteractiveReply } from '../domain/interactive-reply';
import type { Session } from '../domain/session';
import { isoMicros, type IsoTimestamp } from '../domain/timestamps';
import { answerTimestamp, applyActions, completion, demandsOfTurn } from '../domain/turn';
import type { Clock, IdGenerator } from '../ports/clock';
import type { DemandRepository, MessageRepository, OutboundReply, TurnLedger } from '../ports/repositories';
import type { OutboxSettlement } from './outbox-settlement';
import type { TurnOutcome } from './turn-settings';

export interface TurnResultsDependencies {
  readonly ledger: TurnLedger;
  readonly messages: MessageRepository;
  readonly demands: DemandRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** What answers a turn's messages: the agent's response, or the pipeline's own (a gate's, the fallback). */
export interface TurnAnswer {
  /** Absent: the result is the session's change alone. */
  readonly reply?: string;
  readonly actions: readonly AgentAction[];
  /** Applied to the session after the actions. */
  readonly change?: (session: Session, at: IsoTimestamp) => Session;
  /** With stages: the stage that answered, which has the conversation unless it handed it on. */
  readonly stage?: string;
  /** The model call that wrote the reply; absent: the reply is the pipeline's own (`system`). */
  readonly llm?: LlmUsage;
  /** The documents the agent's knowledge searches drew on. */
  readonly knowledgeSources?: readonly string[];
  /** Buttons, a list or a link button under the reply, within WhatsApp's limits (`shownReply`). */
  readonly interactive?: InteractiveReply;
  /** The agent's memory as the turn leaves it (a new fold), stored on the session with the result. */
  readonly memory?: ConversationMemory;
}

/** A turn's result as it is written: the session as the turn leaves it, and its reply. */
export interface ComposedResult {
  readonly session: Session;
  readonly reply?: OutboundReply;
}

/**
 * The end of a turn that has an answer (docs/DESIGN.md#a-normal-turn-step-by-step, steps 7 to 10):
 * the result written under the latest-message guard, the guard before sending, and the reply
 * settled through the outbox; and the completion of messages that get no reply.
 */
export class TurnResults {
  constructor(
    private readonly deps: TurnResultsDependencies,
    private readonly outbox: OutboxSettlement,
  ) {}

  /** The session as `answer` leaves it, and its reply, timestamped after the message it answers so it sorts after it. */
  compose(last: PendingInbound, session: Session, answer: TurnAnswer): ComposedResult {
    const at = answerTimestamp(this.deps.clock.now(), last);
    const addressed = { ...session, businessPhoneNumberId: last.businessPhoneNumberId, customerIdKind: last.customerIdKind, ...(answer.stage === undefined ? {} : { currentAgent: answer.stage }) };
    const applied = applyActions(withCustomerMessage(addressed, last, last.historyTimestamp), answer.actions, at);
    const remembered = answer.memory === undefined ? applied : { ...applied, memory: answer.memory };
    const updated = answer.change === undefined ? remembered : answer.change(remembered, at);
    if (answer.reply === undefined) return { session: updated };
    const reply: OutboundReply = {
      messageId: this.deps.ids.newId(),
      text: answer.reply,
      replyToMessageId: last.messageId,
      createdAt: at,
      ...(answer.llm === undefined ? { role: 'system' } : { llm: answer.llm }),
      ...(answer.knowledgeSources === undefined ? {} : { knowledgeSources: answer.knowledgeSources }),
      ...(answer.interactive === undefined ? {} : { interactive: answer.interactive }),
    };
    return { session: updated, reply };
  }

  /** Where `result`'s reply is stored once written. */
  replyRef(result: ComposedResult): OutboundRef | undefined {
    const { reply, session } = result;
    return reply && this.deps.messages.refFor({ customerId: session.customerId, timestamp: reply.createdAt, messageId: reply.messageId });
  }

  /**
   * Step 7, the latest-message guard: one transaction writes the session, the pointer and the reply
   * (with its outbox reference) only while `last` is still the latest message, and pointer and
   * state are as the turn found them (`found`). `false` when a condition failed: superseded.
   */
  persist(result: ComposedResult, found: Session, last: PendingInbound): Promise<boolean> {
    return this.deps.ledger.persistResult({ session: result.session, expectedState: found.state, expectedLatestMessageId: last.messageId, expectedActiveSessionId: undefined, reply: result.reply });
  }

  /**
   * After the persist of `reply`, with `alongside` work that does not depend on it: the guard
   * before sending reads what can have changed since — the marker (a newer message, an
   * invalidation, the outbox settled by another record), the session (a takeover or a close) and
   * the customer's consent (an opt-out while the agent was thinking) — and the outbox is settled
   * with the `answered` messages. The pointer cannot move meanwhile: only a turn of this customer
   * opens sessions. `undefined` when another record settled this outbox meanwhile.
   */
  async settle(session: Session, reply: OutboundReply, answered: readonly PendingInbound[], alongside: readonly (Promise<unknown> | undefined)[] = []): Promise<TurnOutcome | undefined> {
    const [guard] = await Promise.all([this.deps.ledger.readSendGuard(session.customerId, session.sessionId), ...alongside]);
    const { latest: current } = guard;
    const outbox = current?.outbox;
    if (current === undefined || outbox === undefined || outbox.replyToMessageId !== reply.replyToMessageId) return undefined;
    return this.outbox.settle(current, outbox, answered, 'answered', { ...guard, reply: pendingSendMessage(session, reply) });
  }

  /** Completes drained messages that get no reply, on the marker the turn read. */
  complete(latest: LatestInbound, pending: readonly PendingInbound[]): Promise<void> {
    return this.deps.ledger.complete({ customerId: latest.customerId, answered: pending.map(completion), latest });
  }

  /** After the persist, so a superseded turn leaves no demand behind; keyed by source message for retries. */
  async recordDemands(actions: readonly AgentAction[], session: Session, last: PendingInbound): Promise<void> {
    const demands = demandsOfTurn(actions);
    await Promise.all(
      demands.map((demand, index) =>
        this.deps.demands.record({
          demandId: this.deps.ids.newId(),
          sourceMessageId: index === 0 ? last.messageId : `${last.messageId}#${index}`,
          customerId: session.customerId,
          sessionId: session.sessionId,
          requestedService: demand.requestedService,
          originalMessage: last.text,
          estimatedSegment: demand.estimatedSegment,
          businessPhoneNumberId: last.businessPhoneNumberId,
          recordedAt: isoMicros(this.deps.clock.now()),
        }),
      ),
    );
  }
}
