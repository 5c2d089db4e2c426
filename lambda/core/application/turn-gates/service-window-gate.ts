import type { RequestHumanHandoffAction } from '../../domain/agent-action';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/** The move to people when the customer's 24-hour window closed before the turn could answer: only a template reaches them now. */
const WINDOW_CLOSED_HANDOFF: RequestHumanHandoffAction = { type: 'request_human_handoff', reason: "The customer's 24-hour window closed before the agent answered: only an approved template reaches them" };

/**
 * The turn of a customer whose last message is 24 hours old or more (a backlog, a late redrive):
 * nothing free-form reaches them, so the agent is not asked (no model tokens, no budget) and the
 * conversation goes to people, whose console offers the approved templates of a closed window. The
 * handoff is the turn's result, written under the latest-message guard with no reply, so a retry
 * finds the conversation human-owned; a newer message (inside a window it reopened) supersedes it
 * and is answered.
 */
export class ServiceWindowGate implements TurnGate {
  readonly name = 'window';
  readonly step = 'with_history';

  check({ windowOpen }: GateTurn): GateVerdict | undefined {
    return windowOpen ? undefined : { kind: 'answer', actions: [WINDOW_CLOSED_HANDOFF], outcome: 'outside_window' };
  }
}
