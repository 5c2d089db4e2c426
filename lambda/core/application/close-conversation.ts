import type { SessionRepository, TransitionOptions } from '../ports/repositories';
import { type Session, SessionState } from '../domain/session';
import type { OperatorAuditTrail } from './operator/operator-audit';

/** Who the audit names for a close by the idle sweep (an operator's close names the operator's phone). */
export const IDLE_SWEEP_AUTHOR = 'idle-sweep';

export interface CloseConversationDependencies {
  readonly sessions: SessionRepository;
  readonly audit: OperatorAuditTrail;
}

/**
 * How a conversation is ended from outside a turn — by an operator or an admin, or by the idle
 * sweep: the state machine's transition to CLOSED, written by the session repository (which gives
 * the session and its history the retention TTL, carries the CRM projection's close in the same
 * transaction and moves the ACTIVE pointer's hint), then the admin audit's record of who closed it.
 *
 * The agent's `close_session` ends the conversation inside its turn instead, in the transaction
 * that persists its reply (domain/turn.ts `applyActions`, the turn ledger's `persistResult`): the
 * same repository write sets the retention and the projection, and the turn's reply is its record.
 */
export class CloseConversation {
  constructor(private readonly deps: CloseConversationDependencies) {}

  /**
   * Closes `session` from the state it was read in, on the conditions of `options`
   * (ConditionFailedError when they no longer hold: nothing is written or audited).
   */
  async close(session: Session, author: string, options: TransitionOptions = {}): Promise<Session> {
    const closed = await this.deps.sessions.transitionState(session, session.state, SessionState.CLOSED, options);
    await this.deps.audit.record({ author, action: 'conversation.close', resourceType: 'conversation', resourceId: session.customerId, details: { from: session.state, to: SessionState.CLOSED } });
    return closed;
  }
}
