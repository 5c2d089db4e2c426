import type { CustomerBudgetGate } from '../customer-budget-gate';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/**
 * The turn's cost (docs/RELIABILITY.md#security): the budget's admission counts the turn, named by
 * its newest message so a retried turn counts once, alongside the session and history writes,
 * which it does not depend on. Over budget, the budget's reply answers in place of the agent —
 * once per window of the limit reached; after that the messages stay in the history, unanswered.
 */
export class BudgetGate implements TurnGate {
  readonly name = 'budget';
  readonly step = 'with_history';

  constructor(private readonly budget: CustomerBudgetGate) {}

  async check({ latest, last }: GateTurn): Promise<GateVerdict | undefined> {
    const { customerId } = latest;
    const overBudget = await this.budget.admit(customerId, last.messageId);
    if (overBudget === undefined) return undefined;
    const report = { overBudget: overBudget.limit, pipelineTokensToday: this.budget.pipelineTokensToday };
    const { reply } = overBudget;
    if (reply === undefined) return { kind: 'unanswered', outcome: 'over_budget_told_already', report };
    // Only a reply the customer received counts as told: one superseded by a newer message does not.
    return { kind: 'answer', reply, report, onAnswered: () => this.budget.recordTold(customerId, overBudget) };
  }
}
