import type { Locale } from '../../../../lib/contract';
import { draftScenario, SCENARIO_MAX_TURNS } from '../../domain/evaluation/conversation-draft';
import type { Scenario } from '../../domain/evaluation/scenario';
import type { Message } from '../../domain/message';
import type { Operator } from '../../domain/operator';
import type { Session } from '../../domain/session';
import type { MessageRepository, SessionRepository } from '../../ports/repositories';
import type { OperatorAuditTrail } from '../operator/operator-audit';
import { OperatorActionError } from '../operator/operator-errors';

/**
 * How much of a customer's history one draft reads, newest first: pages of 100 messages, at most 5
 * (the agent's replies and the operators' come between the customer's messages). A session whose
 * earlier customer messages lie further back gives the ones found, and its draft says so.
 */
const HISTORY_READ = { pages: 5, pageSize: 100 } as const;

export interface ConversationScenariosDependencies {
  readonly sessions: Pick<SessionRepository, 'getActive'>;
  readonly messages: Pick<MessageRepository, 'history'>;
  /** Audits the draft under the customer's pseudonym, which also names the scenario. */
  readonly trail: OperatorAuditTrail;
  /** The pipeline's locale: the scenario's customer language. */
  readonly locale: Locale;
}

/**
 * An admin turns a customer's latest conversation into a scenario of the suite, pseudonymised
 * (docs/EVALUATION.md, "From a real conversation"). Nothing is stored but the audit of it: the
 * admin saves the draft to the suite once they wrote what each turn must do.
 */
export class ConversationScenarios {
  constructor(private readonly deps: ConversationScenariosDependencies) {}

  async draft(admin: Operator, customerId: string): Promise<{ readonly id: string; readonly scenario: Scenario }> {
    const session = await this.deps.sessions.getActive(customerId);
    if (session === undefined) throw new OperatorActionError('not_found', 'No conversation with this customer');
    const [{ messages, partial }, pseudonym] = await Promise.all([this.latestMessages(session), this.deps.trail.pseudonyms.of(customerId)]);
    const scenario = draftScenario({ session, messages, partial }, { locale: this.deps.locale, pseudonym });
    if (scenario === undefined) throw new OperatorActionError('conflict', 'The conversation has no message of the customer to make a turn of');
    await this.deps.trail.record({ author: admin.phone, action: 'conversation.scenario', resourceType: 'conversation', resourceId: customerId, details: { turns: scenario.turns.length } });
    return { id: scenario.name, scenario };
  }

  /**
   * The session's messages, oldest first, from its latest customer message back to one more
   * customer message than a scenario holds (the draft says it was cut), its first, or the read's
   * bound (`partial`: the draft says earlier ones were left out). The history is the customer's
   * across sessions: an earlier session's message before this one opened ends it.
   */
  private async latestMessages(session: Session): Promise<{ readonly messages: Message[]; readonly partial: boolean }> {
    const collected: Message[] = [];
    const done = (partial: boolean) => ({ messages: collected.reverse(), partial });
    let customerMessages = 0;
    let cursor: string | undefined;
    for (let page = 0; page < HISTORY_READ.pages; page++) {
      const read = await this.deps.messages.history(session.customerId, { limit: HISTORY_READ.pageSize, cursor });
      for (const message of read.items) {
        if (message.sessionId !== session.sessionId) {
          if (message.timestamp < session.createdAt) return done(false);
          continue;
        }
        collected.push(message);
        if (message.role === 'user' && message.revokedAt === undefined && ++customerMessages > SCENARIO_MAX_TURNS) return done(false);
      }
      cursor = read.cursor;
      if (cursor === undefined) return done(false);
    }
    return done(true);
  }
}
