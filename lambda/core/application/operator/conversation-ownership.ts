import type { ConversationAction } from '../../../../lib/contract/conversation-access';
import type { Operator } from '../../domain/operator';
import { isHumanOwned, type Session, SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import { ConditionFailedError, type TransitionOptions } from '../../ports/repositories';
import { CloseConversation, type CloseConversationDependencies } from '../close-conversation';
import { ActiveConversations, type ActiveConversationsDependencies, type ConversationView } from './conversation-views';

export type ConversationOwnershipDependencies = ActiveConversationsDependencies & CloseConversationDependencies;

/** A transition's conditions: the state it was read in, and the owner the rule relied on. */
type OwnedTransition = TransitionOptions & { readonly expectedAssignedTo: string | null };

/**
 * Who has a conversation, by the rule of lib/contract/conversation-access.ts
 * (docs/OPERATOR-API.md#who-may-do-what): any operator claims one waiting for a person; an admin
 * takes over one the agent serves; the operator it is assigned to, or an admin, releases it back to
 * the agent or closes it — a conversation nobody owns (waiting for a person, or served by the
 * agent), only an admin. Every change goes through the state machine and a conditional write on the
 * state and the owner the rule relied on: two operators racing for the same conversation get one
 * success and one refusal that says who won, even when it changed hands and came back to the same
 * state between a read and a write. Each change is audited.
 */
export class ConversationOwnership {
  private readonly conversations: ActiveConversations;
  private readonly closer: CloseConversation;

  constructor(private readonly deps: ConversationOwnershipDependencies) {
    this.conversations = new ActiveConversations(deps);
    this.closer = new CloseConversation(deps);
  }

  async claim(operator: Operator, customerId: string): Promise<ConversationView> {
    const session = await this.conversations.permitted(operator, customerId, 'claim');
    const claimed = await this.written(operator, customerId, 'claim', () => this.transition(session, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: session.assignedTo ?? null }));
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.claim', resourceType: 'conversation', resourceId: customerId });
    return this.conversations.view(claimed);
  }

  /**
   * A person takes a conversation the agent is serving (`NEW`, `QUALIFYING`): the admin hands it to
   * people and claims it, two writes each conditioned on the state it read and on nobody owning it
   * (a customer message or another person first: refused, saying who). A reply the agent is still
   * writing loses the latest-wins guard: a persist after the handoff fails on the state, and one
   * before it is found taken over by the guard before sending, and marked superseded (never sent).
   * Only an admin: an operator reads no conversation the agent is serving.
   */
  async takeOver(operator: Operator, customerId: string): Promise<ConversationView> {
    const session = await this.conversations.permitted(operator, customerId, 'takeOver');
    const handedOff = await this.written(operator, customerId, 'takeOver', () => this.transition(session, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: isoMicros(this.deps.clock.now()) }, expectedAssignedTo: null }));
    // It waits for a person now: if someone claimed it in between, the claim is what the rule says of it.
    const taken = await this.written(operator, customerId, 'claim', () => this.transition(handedOff, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: null }));
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.take_over', resourceType: 'conversation', resourceId: customerId, details: { from: session.state } });
    return this.conversations.view(taken);
  }

  /** Back to the agent: it answers the customer's next message, with the human part in its history. */
  async release(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, 'release');
    const released = await this.written(operator, customerId, 'release', () => this.transition(session, SessionState.QUALIFYING, options));
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.release', resourceType: 'conversation', resourceId: customerId, details: { from: session.state, to: SessionState.QUALIFYING } });
    return this.conversations.view(released);
  }

  /** Closed the way every close from outside a turn is (close-conversation.ts), audited under the operator's phone. */
  async close(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, 'close');
    return this.conversations.view(await this.written(operator, customerId, 'close', () => this.closer.close(session, operator.phone, options)));
  }

  /**
   * The session an operator gives back (or closes) and the conditions the write must find: the
   * owner the rule relied on — the operator themself for their own conversation, whoever an admin
   * read (nobody included) — and no reply of a person on its way.
   */
  private async handBack(operator: Operator, customerId: string, action: 'release' | 'close'): Promise<{ readonly session: Session; readonly options: OwnedTransition }> {
    const session = await this.conversations.permitted(operator, customerId, action);
    const options = {
      changes: isHumanOwned(session.state) ? { assignedTo: null, handoffRequestedAt: null } : undefined,
      expectedAssignedTo: session.assignedTo ?? null,
      requireNoLiveHumanSendLockAt: isoMicros(this.deps.clock.now()),
    };
    return { session, options };
  }

  /** Conditioned on the state as read and on the owner the rule relied on: the checks made on `session` still hold when it is written. */
  private transition(session: Session, to: SessionState, options: OwnedTransition): Promise<Session> {
    return this.deps.sessions.transitionState(session, session.state, to, options);
  }

  /** A write whose condition failed lost a race: refused with what the rule says of the conversation now (who has it, say). */
  private async written(operator: Operator, customerId: string, action: ConversationAction, write: () => Promise<Session>): Promise<Session> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof ConditionFailedError) return this.conversations.lostRace(operator, customerId, action, 'The conversation changed meanwhile (another person, the customer, or a reply being sent); reload it');
      throw error;
    }
  }
}
