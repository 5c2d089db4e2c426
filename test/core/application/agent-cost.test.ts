import { agentCostUsd } from '../../../lambda/core/application/agent-cost';
import type { AgentCallReport } from '../../../lambda/core/application/turn-settings';
import { defaultModelCost } from '../../../lib/contract/model-prices';

const AGENT_MODEL = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const MEMORY_MODEL = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
const call: AgentCallReport = { iterations: 1, latencyMs: 900, stopReason: 'completed', readReceiptSent: true, model: AGENT_MODEL, usage: { inputTokens: 1_200, outputTokens: 300, cacheReadInputTokens: 4_000 } };
const foldUsage = { inputTokens: 2_000, outputTokens: 250 };

describe('agentCostUsd', () => {
  it('prices a turn that folded with both models: the agent’s calls at its price, the fold at the summarizer’s', () => {
    const cost = agentCostUsd({ ...call, memoryFold: { outcome: 'folded', model: MEMORY_MODEL, usage: foldUsage } });
    const answer = defaultModelCost(AGENT_MODEL, call.usage!)!;
    const fold = defaultModelCost(MEMORY_MODEL, foldUsage)!;
    expect(fold).toBeGreaterThan(0);
    // The cheaper model's tokens are not priced as the agent's.
    expect(fold).toBeLessThan(defaultModelCost(AGENT_MODEL, foldUsage)!);
    expect(cost).toBeCloseTo(answer + fold, 12);
  });

  it('a fold that failed or did not happen adds nothing; no priced tokens at all is no cost', () => {
    expect(agentCostUsd({ ...call, memoryFold: { outcome: 'failed' } })).toBeCloseTo(defaultModelCost(AGENT_MODEL, call.usage!)!, 12);
    expect(agentCostUsd(call)).toBeCloseTo(defaultModelCost(AGENT_MODEL, call.usage!)!, 12);
    expect(agentCostUsd({ ...call, usage: undefined, model: undefined })).toBeUndefined();
  });

  it('a turn whose agent reported no tokens still counts its fold', () => {
    expect(agentCostUsd({ ...call, usage: undefined, memoryFold: { outcome: 'folded', model: MEMORY_MODEL, usage: foldUsage } })).toBeCloseTo(defaultModelCost(MEMORY_MODEL, foldUsage)!, 12);
  });
});
