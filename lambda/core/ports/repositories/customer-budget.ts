import type { BudgetLimit, CustomerBudgetLimits, TokenUsage } from '../../domain/customer-budget';

/** Whether a turn may ask the agent; a refusal names the limit reached. */
export type BudgetVerdict = { readonly admitted: true } | { readonly admitted: false; readonly limit: BudgetLimit; readonly toldInWindow: boolean };

/**
 * A customer's turn and token counts. Counting is atomic in the store, so two turns of one
 * customer running at once (a redrive beside a live turn) cannot both slip under a limit.
 */
export interface CustomerBudgetRepository {
  /**
   * Counts one turn at `at` if every count of its windows is below its limit; otherwise counts
   * nothing and names the limit reached. `turnId` names the turn (its last message): asked again
   * for the turn it admitted last, it admits without counting again, so a retried turn is counted once.
   * A refusal says whether the customer was already told, in the window of the limit reached.
   */
  admitTurn(customerId: string, turnId: string, at: Date, limits: CustomerBudgetLimits): Promise<BudgetVerdict>;
  /** Whether the customer already received the budget reply in the window of `limit` that holds `at`. */
  toldInWindow(customerId: string, at: Date, limit: BudgetLimit): Promise<boolean>;
  /** Records that the customer received the budget reply for a turn refused at `at` by `limit`. */
  markTold(customerId: string, at: Date, limit: BudgetLimit): Promise<void>;
  /** Adds a turn's model tokens to the customer's count of the day of `at`. */
  addTokens(customerId: string, at: Date, usage: TokenUsage): Promise<void>;
}

/**
 * The whole pipeline's model tokens per UTC day, counted on write shards so that no partition runs
 * hot however many turns a second the pipeline serves.
 */
export interface PipelineBudgetRepository {
  /** Adds a turn's tokens to the day of `at`, on the customer's shard. */
  addTokens(customerId: string, at: Date, usage: TokenUsage): Promise<void>;
  /** Adds an evaluation run's tokens to the day of `at`, on the evaluation line. */
  addEvaluationTokens(at: Date, usage: TokenUsage): Promise<void>;
  /** The evaluation line of each UTC day (`YYYY-MM-DD`), 0 for a day without one. */
  evaluationTokensOfDays(days: readonly string[]): Promise<number[]>;
  /** The day's tokens over every shard and the evaluation line (one batched read, not strongly consistent). */
  tokensOfDay(at: Date): Promise<number>;
}
