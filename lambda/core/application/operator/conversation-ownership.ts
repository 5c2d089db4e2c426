import type { Operator } from '../../domain/operator';
import { isAgentOwned, isHumanOwned, isLegalTransition, type Session, SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import { ConditionFailedError, type TransitionOptions } from '../../ports/repositories';
import { CloseConversation, type CloseConversationDependencies } from '../close-conversation';
import { ActiveConversations, type ActiveConversationsDependencies, type ConversationView } from './conversation-views';
import { OperatorActionError } from './operator-errors';

export type ConversationOwnershipDependencies = ActiveConversationsDependencies & CloseConversationDependencies;

/** A transition's conditions: the state it was read in, and the owner the rule relied on. */
type OwnedTransition = TransitionOptions & { readonly expectedAssignedTo: string | null };

/**
 * Who has a conversation (docs/OPERATOR-API.md#who-may-do-what): any operator claims one waiting
 * for a person; an admin takes over one the agent serves; the operator it is assigned to, or an
 * admin, releases it back to the agent or closes it — a conversation nobody owns (waiting for a
 * person, or served by the agent), only an admin. Every change goes through the state machine and
 * a conditional write on the state and the owner the rule relied on — the operator themself,
 * unless an admin acts: two operators racing for the same conversation get one success and one
 * `conflict`, even when it changed hands and came back to the same state between a read and a
 * write. Each change is audited.
 */
export class ConversationOwnership {
  private readonly conversations: ActiveConversations;
  private readonly closer: CloseConversation;

  constructor(private readonly deps: ConversationOwnershipDependencies) {
    this.conversations = new ActiveConversations(deps);
    this.closer = new CloseConversation(deps);
  }

  async claim(operator: Operator, customerId: string): Promise<ConversationView> {
    const session = await this.conversations.of(customerId);
    if (session.state !== SessionState.AWAITING_HUMAN) throw new OperatorActionError('conflict', `The conversation is ${session.state}, not waiting for a person`);
    const claimed = await this.transition(session, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: session.assignedTo ?? null });
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.claim', resourceType: 'conversation', resourceId: customerId });
    return this.conversations.view(claimed);
  }

  /**
   * A person takes a conversation the agent is serving (`NEW`, `QUALIFYING`): the admin hands it to
   * people and claims it, two writes each conditioned on the state it read and on nobody owning it
   * (a customer message or another person first: `conflict`). A reply the agent is still writing
   * loses the latest-wins guard: a persist after the handoff fails on the state, and one before it
   * is found taken over by the guard before sending, and marked superseded (never sent). Only an
   * admin: an operator reads no conversation the agent is serving.
   */
  async takeOver(operator: Operator, customerId: string): Promise<ConversationView> {
    if (operator.role !== 'admin') throw new OperatorActionError('forbidden', 'Only an admin takes over a conversation the agent is serving');
    const session = await this.conversations.of(customerId);
    if (!isAgentOwned(session.state)) throw new OperatorActionError('conflict', `The agent is not serving the conversation (it is ${session.state}); claim it if it waits for a person`);
    const handedOff = await this.transition(session, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: isoMicros(this.deps.clock.now()) }, expectedAssignedTo: null });
    const taken = await this.transition(handedOff, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: null });
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.take_over', resourceType: 'conversation', resourceId: customerId, details: { from: session.state } });
    return this.conversations.view(taken);
  }

  /** Back to the agent: it answers the customer's next message, with the human part in its history. */
  async release(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, SessionState.QUALIFYING);
    const released = await this.transition(session, SessionState.QUALIFYING, options);
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.release', resourceType: 'conversation', resourceId: customerId, details: { from: session.state, to: SessionState.QUALIFYING } });
    return this.conversations.view(released);
  }

  /** Closed the way every close from outside a turn is (close-conversation.ts), audited under the operator's phone. */
  async close(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, SessionState.CLOSED);
    return this.conversations.view(await conflictOnLostRace(() => this.closer.close(session, operator.phone, options)));
  }

  /** The session an operator gives back (or closes) and the conditions the write must find: the rule's checks still hold then. */
  private async handBack(operator: Operator, customerId: string, to: SessionState): Promise<{ readonly session: Session; readonly options: OwnedTransition }> {
    const session = await this.conversations.of(customerId);
    if (!isLegalTransition(session.state, to)) throw new OperatorActionError('conflict', `A ${session.state} conversation cannot become ${to}`);
    const options = {
      changes: isHumanOwned(session.state) ? { assignedTo: null, handoffRequestedAt: null } : undefined,
      expectedAssignedTo: handBackOwner(operator, session),
      // Never while an operator's reply is on its way.
      requireNoLiveHumanSendLockAt: isoMicros(this.deps.clock.now()),
    };
    return { session, options };
  }

  /** Conditioned on the state as read and on the owner the rule relied on: the checks made on `session` still hold when it is written. */
  private transition(session: Session, to: SessionState, options: OwnedTransition): Promise<Session> {
    return conflictOnLostRace(() => this.deps.sessions.transitionState(session, session.state, to, options));
  }
}

/** A write whose condition failed: the conversation changed between the read and the write. */
async function conflictOnLostRace(write: () => Promise<Session>): Promise<Session> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new OperatorActionError('conflict', 'The conversation changed meanwhile (another operator, or the customer); reload it');
    throw error;
  }
}

/**
 * The owner a release or close by `operator` must still find in the write: the operator themself,
 * for their own conversation; for an admin, whoever she read (nobody included). Anything else is
 * refused before a write.
 */
function handBackOwner(operator: Operator, session: Session): string | null {
  if (operator.role === 'admin') return session.assignedTo ?? null;
  if (session.state === SessionState.HUMAN_ACTIVE && session.assignedTo === operator.phone) return operator.phone;
  if (session.state === SessionState.HUMAN_ACTIVE) throw new OperatorActionError('forbidden', 'The conversation is assigned to another operator');
  if (session.state === SessionState.AWAITING_HUMAN) throw new OperatorActionError('forbidden', 'Claim the conversation first: only its operator or an admin gives it back or closes it');
  throw new OperatorActionError('forbidden', 'The agent is serving this conversation: only an admin closes it');
}
