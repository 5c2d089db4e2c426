import { COST_GUARD_DEFAULTS } from '../../../lib/contract';
import { budgetTokens, type BudgetLimit, type CustomerBudgetLimits, type TokenUsage } from '../domain/customer-budget';
import type { Clock } from '../ports/clock';
import type { CustomerBudgetRepository } from '../ports/repositories';
import type { PipelineTokenBudget } from './pipeline-token-budget';

export interface CustomerBudgetSettings extends CustomerBudgetLimits {
  /** Sent instead of the agent's reply when a turn is over budget. */
  readonly reply: string;
}

export const DEFAULT_CUSTOMER_BUDGET: CustomerBudgetSettings = {
  turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute,
  turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour,
  agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay,
  reply: COST_GUARD_DEFAULTS.overBudgetReply,
};

/**
 * A turn the budget refused at `refusedAt`: the agent is not called. The customer gets `reply`
 * until they have received it once in the limit's window; then `reply` is `undefined` and their
 * further messages of that window are kept unanswered.
 */
export interface OverBudget {
  readonly limit: BudgetLimit;
  readonly reply: string | undefined;
  readonly refusedAt: Date;
}

/**
 * The turn's cost gate (docs/RELIABILITY.md#security): asked before the agent call, it refuses the
 * turn when the pipeline's daily token budget is spent (with `pipeline`), else counts it against
 * the customer's budget or refuses it; after the call it adds the tokens the backend reported to
 * both, prompt cache reads and writes at their weights ({@link budgetTokens}). A backend that reports no usage is bounded by the turn counts alone.
 */
export class CustomerBudgetGate {
  private readonly settings: CustomerBudgetSettings;

  constructor(
    private readonly budgets: CustomerBudgetRepository,
    private readonly clock: Clock,
    settings: Partial<CustomerBudgetSettings> = {},
    /** The pipeline-wide daily token budget, when the deployment sets one. */
    private readonly pipeline?: PipelineTokenBudget,
  ) {
    this.settings = { ...DEFAULT_CUSTOMER_BUDGET, ...settings };
  }

  /**
   * `undefined` when the turn (named by its last message, so a retry counts once) was counted and
   * may call the agent. A turn the pipeline's budget refuses counts nothing against the customer's.
   */
  async admit(customerId: string, turnId: string): Promise<OverBudget | undefined> {
    const at = this.clock.now();
    if (await this.pipeline?.isSpent()) {
      const limit = 'pipeline_tokens_per_day';
      return { limit, reply: (await this.budgets.toldInWindow(customerId, at, limit)) ? undefined : this.pipeline!.settings.reply, refusedAt: at };
    }
    const verdict = await this.budgets.admitTurn(customerId, turnId, at, this.settings);
    return verdict.admitted ? undefined : { limit: verdict.limit, reply: verdict.toldInWindow ? undefined : this.settings.reply, refusedAt: at };
  }

  /** The pipeline's tokens of the day as this instance last knew them; `undefined` without a pipeline budget. */
  get pipelineTokensToday(): number | undefined {
    return this.pipeline?.lastKnownUse;
  }

  /**
   * After the budget reply went out. Only a reply the customer received counts: one superseded by a
   * newer message, or never sent, leaves the next refused turn to tell them.
   */
  async recordTold(customerId: string, overBudget: OverBudget): Promise<void> {
    await this.budgets.markTold(customerId, overBudget.refusedAt, overBudget.limit);
  }

  /** Two writes side by side: the customer's day item and the pipeline's shard of the customer. */
  async recordUsage(customerId: string, usage: TokenUsage | undefined): Promise<void> {
    if (usage === undefined || budgetTokens(usage) === 0) return;
    await Promise.all([this.budgets.addTokens(customerId, this.clock.now(), usage), this.pipeline?.count(customerId, usage)]);
  }
}
