import { defaultModelCost } from '../../../lib/contract/model-prices';
import type { AgentCallReport } from './turn-settings';

/**
 * What a turn's model calls cost at the packaged prices (`AgentCostUsd`): the agent's, and the
 * memory's fold at its own model's price, since a cheaper model may write the summaries.
 * `undefined` when no call reported tokens of a priced model.
 */
export function agentCostUsd(agent: AgentCallReport): number | undefined {
  const answer = agent.usage === undefined ? undefined : defaultModelCost(agent.model, agent.usage);
  const fold = agent.memoryFold?.outcome === 'folded' ? defaultModelCost(agent.memoryFold.model, agent.memoryFold.usage) : undefined;
  return answer === undefined && fold === undefined ? undefined : (answer ?? 0) + (fold ?? 0);
}
