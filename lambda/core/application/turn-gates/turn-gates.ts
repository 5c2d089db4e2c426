import type { CustomerBudgetGate } from '../customer-budget-gate';
import type { MessagingConsent } from '../privacy/messaging-consent';
import { BudgetGate } from './budget-gate';
import { BurstSettleGate, type BurstSettleDependencies, type BurstSettleSettings } from './burst-settle-gate';
import { HumanOwnerGate } from './human-owner-gate';
import { LatestMessageGate } from './latest-message-gate';
import { MessagingConsentGate } from './messaging-consent-gate';
import { OperatorCommandGate, type OperatorCommands } from './operator-command-gate';
import { ServiceWindowGate } from './service-window-gate';
import type { GateTrace } from '../../ports/agent-tools';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';
import { UnreadableMessagesGate } from './unreadable-messages-gate';

export interface TurnGateDependencies extends BurstSettleDependencies {
  /** Asked before anything else whether the turn is an operator's command (the operator plane). */
  readonly operatorCommands?: OperatorCommands;
  /** Opt-out and back: confirms the words, and nothing else is sent while the customer is opted out. */
  readonly consent?: Pick<MessagingConsent, 'gate'>;
  /** Counts each turn and its tokens against the customer's budget; a refused turn gets a short reply and no agent call. */
  readonly budget?: CustomerBudgetGate;
}

/**
 * The turn's gates in the order it asks them (docs/DESIGN.md#the-turns-gates): before the history,
 * what leaves the messages out of it or hands them to a person; with the history, what answers
 * them without the agent. Each gate's place is the protocol's: the early latest check before
 * anything that costs (the window's handoff, a notice, the budget's count), then the wait for a
 * burst to settle, which may find a newer message before any of those.
 */
export class TurnGates {
  private readonly gates: readonly TurnGate[];

  constructor(deps: TurnGateDependencies, unsupportedMessageText: string, settle: BurstSettleSettings) {
    const gates: (TurnGate | undefined)[] = [
      deps.operatorCommands && new OperatorCommandGate(deps.operatorCommands),
      deps.consent && new MessagingConsentGate(deps.consent),
      new HumanOwnerGate(),
      new LatestMessageGate(),
      settle.settleMs > 0 ? new BurstSettleGate(settle, deps) : undefined,
      new ServiceWindowGate(),
      new UnreadableMessagesGate(unsupportedMessageText),
      deps.budget && new BudgetGate(deps.budget),
    ];
    this.gates = gates.filter((gate) => gate !== undefined);
  }

  /**
   * The first verdict of `step`'s gates, asked one after another; `undefined` when every one lets
   * the turn through. Each gate asked is added to `trail`, the turn's trace, with what it did.
   */
  async verdict(step: TurnGate['step'], turn: GateTurn, trail: GateTrace[] = []): Promise<GateVerdict | undefined> {
    for (const gate of this.gates) {
      if (gate.step !== step) continue;
      const verdict = await gate.check(turn);
      trail.push({ gate: gate.name, verdict: verdict === undefined ? 'passed' : 'decided' });
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  }
}
