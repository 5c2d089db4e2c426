import type { ConsentWords, InboundOutcome as ContractInboundOutcome } from '../../../lib/contract';
import { asTurnOfItsOwn, startsTurn, type InboundTurn } from '../domain/inbound-turn';
import { customerMessage } from '../domain/message';
import { routesToAgent } from '../domain/inbound-routing';
import type { InboundReceiptRepository, MessageRepository, SessionRepository } from '../ports/repositories';
import type { TurnDispatcher } from '../ports/turn-dispatcher';

/**
 * What became of one message (the list and the metric each counts live in the contract):
 * - `dispatched`: registered and queued for the agent;
 * - `redispatched`: a provider retry found the receipt undispatched (an earlier attempt failed
 *   half-way) and finished the job;
 * - `duplicate`: already registered and dispatched (or consumed) — nothing changed;
 * - `human_inbox`: the customer's session is owned by a human, the message went to their inbox;
 * - `reaction`: a reaction, recorded on the message it reacts to; never a turn;
 * - `edited`: an edit of a message still waiting for the agent, which now reads the new text; no
 *   turn of its own (an edit of a message already answered is a message of its own: `dispatched`);
 * - `revoked`: the customer deleted a message of their recent history or one still waiting for the
 *   agent, which no longer reads it; never a turn, never a notice;
 * - `revoke_unmatched`: the customer deleted a message the pipeline does not hold (too old, or
 *   never received); nothing changed.
 */
export type InboundOutcome = ContractInboundOutcome;

export interface InboundResult {
  readonly messageId: string;
  readonly outcome: InboundOutcome;
}

export interface RegisterInboundDependencies {
  readonly receipts: InboundReceiptRepository;
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly dispatcher: TurnDispatcher;
  /** The pipeline locale's opt-out and opt-in words, which reach the turn whoever owns the conversation. Default: the default locale's. */
  readonly consentWords?: ConsentWords;
}

/**
 * Registers customer messages durably, routes each to the agent or the human inbox, and dispatches
 * agent turns (docs/DESIGN.md#inbound-protocol). Every step is idempotent, because Meta redelivers for up to 7 days: a
 * duplicate changes nothing, and a receipt left undispatched by a failure is dispatched by the retry.
 */
export class RegisterInboundTurns {
  constructor(private readonly deps: RegisterInboundDependencies) {}

  /**
   * Registers the turns of one notification. A customer's turns are registered one after another in
   * payload order (that order becomes the drain order); different customers proceed concurrently.
   * Rejects if any registration fails, so the webhook answers 5xx and Meta retries the whole body.
   */
  async execute(turns: readonly InboundTurn[]): Promise<InboundResult[]> {
    const byCustomer = new Map<string, InboundTurn[]>();
    for (const turn of turns) byCustomer.set(turn.customerId, [...(byCustomer.get(turn.customerId) ?? []), turn]);
    const results = new Map<InboundTurn, InboundResult>();
    await Promise.all(
      [...byCustomer.values()].map(async (customerTurns) => {
        for (const turn of customerTurns) results.set(turn, await this.registerOne(turn));
      }),
    );
    return turns.map((turn) => results.get(turn)!);
  }

  /**
   * The common case costs three sequential calls: the registering transaction (which also routes to
   * the agent when the session lets it), the SQS send, and the dispatched mark. Reading the session
   * is only needed when a human may own it.
   */
  private async registerOne(received: InboundTurn): Promise<InboundResult> {
    if (received.revokes !== undefined) return { messageId: received.messageId, outcome: await this.applyRevoke(received, received.revokes) };
    if (!startsTurn(received)) {
      // Nothing to answer: the reaction is recorded where the operator sees it, and that is all.
      await this.deps.messages.recordReaction(received.customerId, received.reaction!, received.providerTimestamp);
      return { messageId: received.messageId, outcome: 'reaction' };
    }
    if (received.editOf !== undefined && (await this.applyEdit(received, received.editOf))) return { messageId: received.messageId, outcome: 'edited' };
    const turn = asTurnOfItsOwn(received);
    const registration = await this.deps.receipts.registerInbound(turn, { routeToAgentUnlessHumanOwned: true });
    if (registration.alreadyCompleted || registration.alreadyDispatched) return { messageId: turn.messageId, outcome: 'duplicate' };
    if (!registration.agentRouted && (await this.route(turn, registration.isDuplicate)) === 'human') return { messageId: turn.messageId, outcome: 'human_inbox' };
    await this.deps.dispatcher.dispatch(turn);
    await this.deps.receipts.markDispatched(turn);
    return { messageId: turn.messageId, outcome: registration.isDuplicate ? 'redispatched' : 'dispatched' };
  }

  /**
   * The edited message's history entry takes the new text; a message still waiting for the agent
   * takes it too, and then the edit needs no turn. `true` in that case.
   */
  private async applyEdit(edit: InboundTurn, original: string): Promise<boolean> {
    await this.deps.messages.recordEdit(edit.customerId, original, edit.text, edit.providerTimestamp);
    return this.deps.receipts.reviseWaitingText({ customerId: edit.customerId, messageId: original }, edit.text);
  }

  /**
   * The deleted message's history entry is marked so, and a message still waiting for the agent
   * leaves the pending list: the agent never reads what the customer withdrew. Both steps are
   * idempotent, so Meta's redelivery ends the same way.
   */
  private async applyRevoke(revoke: InboundTurn, original: string): Promise<'revoked' | 'revoke_unmatched'> {
    const inHistory = await this.deps.messages.recordRevoke(revoke.customerId, original, revoke.providerTimestamp);
    const wasWaiting = await this.deps.receipts.withdrawWaiting({ customerId: revoke.customerId, messageId: original });
    return inHistory || wasWaiting ? 'revoked' : 'revoke_unmatched';
  }

  private async route(turn: InboundTurn, redelivered: boolean): Promise<'agent' | 'human'> {
    const session = await this.deps.sessions.getActive(turn.customerId);
    if (session !== undefined && !routesToAgent(session.state, turn.text, this.deps.consentWords)) {
      // Positioned by reception time, not Meta's second-resolution timestamp: after a reply sent
      // within the same second, in the order the operator sees messages arrive. A redelivery keeps
      // the first reception time (the receipt's), so it lands on the same history item, once.
      const received = redelivered ? ((await this.deps.receipts.getReceipt(turn))?.turn.receivedAt ?? turn.receivedAt) : turn.receivedAt;
      const message = customerMessage(turn, session.sessionId, received);
      const appended = await this.deps.messages.appendInboundIfSessionState(message, session, turn.profileName);
      if (appended) {
        await this.deps.receipts.markHumanRouted(turn);
        return 'human';
      }
      // The session left human ownership between the read and the append: the agent takes it.
    }
    // `false` means an earlier delivery already routed it elsewhere (human inbox or a sync claim).
    return (await this.deps.receipts.markAgentRouted(turn)) ? 'agent' : 'human';
  }
}

