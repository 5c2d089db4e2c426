import type { TokenUsage } from '../../domain/customer-budget';
import type { PipelineBudgetRepository } from '../../ports/repositories';
import { addTokensUpdate, AGENT_TOKENS } from './customer-budget-repository';
import type { DynamoKit } from './dynamo-kit';
import { EntityType, pipelineBudgetEvaluationKey, pipelineBudgetKey, pipelineBudgetKeys, SK } from './keys';

/**
 * The pipeline's day count of model tokens, one item per write shard and UTC day (see keys.ts): a
 * turn's tokens are one unconditional `ADD` on its customer's shard — no condition, so turns of
 * every customer add at once without conflicts — and the day's total is the shards' sum, with the
 * line evaluation runs add to (prompt-gate.ts).
 */
export class DynamoPipelineBudgetRepository implements PipelineBudgetRepository {
  constructor(private readonly kit: DynamoKit) {}

  async addTokens(customerId: string, at: Date, usage: TokenUsage): Promise<void> {
    await this.kit.update(addTokensUpdate(pipelineBudgetKey(customerId, at), EntityType.pipelineBudget, at, usage));
  }

  async addEvaluationTokens(at: Date, usage: TokenUsage): Promise<void> {
    await this.kit.update(addTokensUpdate(pipelineBudgetEvaluationKey(at), EntityType.pipelineBudget, at, usage));
  }

  /** The evaluation line of each day (0 for a day without one), in one batched read. */
  async evaluationTokensOfDays(days: readonly string[]): Promise<number[]> {
    const lines = await this.kit.batchGet(days.map((day) => pipelineBudgetEvaluationKey(`${day}T00:00:00Z`)));
    const tokensOf = new Map(lines.map((line) => [String(line[SK]), typeof line[AGENT_TOKENS] === 'number' ? (line[AGENT_TOKENS] as number) : 0]));
    return days.map((day) => tokensOf.get(pipelineBudgetEvaluationKey(`${day}T00:00:00Z`)[SK]) ?? 0);
  }

  async tokensOfDay(at: Date): Promise<number> {
    const shards = await this.kit.batchGet(pipelineBudgetKeys(at));
    return shards.reduce((total, shard) => total + (typeof shard[AGENT_TOKENS] === 'number' ? (shard[AGENT_TOKENS] as number) : 0), 0);
  }
}
