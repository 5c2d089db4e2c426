import { MODEL_PRICE_DEFAULTS } from '../../../lib/contract/model-price-defaults';
import { turnModelCost } from '../../../lib/contract/model-prices';
import type { AgentCallReport } from './turn-settings';

/**
 * What a turn's model calls cost at the packaged prices (`AgentCostUsd`): the agent's, and the
 * memory's fold at its own model's price. `undefined` when no call reported tokens of a priced model.
 */
export function agentCostUsd(agent: AgentCallReport): number | undefined {
  const answer = agent.usage && { model: agent.model, ...agent.usage };
  const fold = agent.memoryFold?.outcome === 'folded' ? { model: agent.memoryFold.model, ...agent.memoryFold.usage } : undefined;
  return turnModelCost(answer, fold, MODEL_PRICE_DEFAULTS);
}
