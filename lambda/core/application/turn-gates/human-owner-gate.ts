import { isHumanOwned } from '../../domain/session';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/**
 * A person took the conversation after these messages were routed to the agent: they join the
 * conversation's history, where the person reads them, and the agent is not asked.
 */
export class HumanOwnerGate implements TurnGate {
  readonly name = 'human_owner';
  readonly step = 'before_history';

  check({ session }: GateTurn): GateVerdict | undefined {
    return session !== undefined && isHumanOwned(session.state) ? { kind: 'unanswered', outcome: 'human_owned', appendTo: session } : undefined;
  }
}
