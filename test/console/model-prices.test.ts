// The usage report's cost estimate: the price of a model id (the longest key it contains), the
// admin's prices over the defaults, the prompt cache's share, and replies of unpriced models.
import { MODEL_PRICE_DEFAULTS } from '../../lib/contract/defaults';
import { estimatedCost, modelPricesFrom, priceOf, turnModelCost } from '../../lib/contract/model-prices';
import type { AgentUsage } from '../../lib/contract/usage-report';

const usage = (models: AgentUsage['models']): AgentUsage => ({ replies: 0, inputTokens: 0, outputTokens: 0, models, metaFees: { messages: 0, billable: 0, usd: 0, unpriced: 0 }, aws: { usd: 0, modelWaitSeconds: 0 }, complete: true });

it('prices a Bedrock model id by the longest default key it contains', () => {
  expect(priceOf('us.anthropic.claude-3-5-haiku-20241022-v1:0', MODEL_PRICE_DEFAULTS)).toEqual({ input: 0.8, output: 4 });
  expect(priceOf('anthropic.claude-3-haiku-20240307-v1:0', MODEL_PRICE_DEFAULTS)).toEqual({ input: 0.25, output: 1.25 });
  expect(priceOf('my-own-model', MODEL_PRICE_DEFAULTS)).toBeUndefined();
  expect(priceOf(undefined, MODEL_PRICE_DEFAULTS)).toBeUndefined();
});

it("adds the admin's prices to the defaults and lets them win", () => {
  const prices = modelPricesFrom({ 'anthropic.claude-3-haiku': { input: 1, output: 2 }, 'model-a': { input: 3, output: 15 } });
  expect(priceOf('anthropic.claude-3-haiku-v1', prices)).toEqual({ input: 1, output: 2 });
  expect(priceOf('model-a', prices)).toEqual({ input: 3, output: 15 });
  expect(modelPricesFrom(null)).toEqual(MODEL_PRICE_DEFAULTS);
});

it('estimates tokens at the price per million, the cache at its share of the input price, and counts unpriced replies apart', () => {
  const prices = modelPricesFrom({ 'model-a': { input: 3, output: 15 } });
  const estimate = estimatedCost(
    usage([
      { model: 'model-a', replies: 2, inputTokens: 2000, outputTokens: 400 },
      { model: 'model-a-cached', replies: 1, inputTokens: 1000, outputTokens: 0, cacheReadInputTokens: 10_000, cacheWriteInputTokens: 800 },
      { model: 'unknown', replies: 4, inputTokens: 5000, outputTokens: 500 },
      { replies: 1, inputTokens: 0, outputTokens: 0 },
    ]),
    prices,
  );
  // 0.012 for model-a; (1,000 + 0.1 × 10,000 + 1.25 × 800) × 3 / 1e6 = 0.009 for the cached one.
  expect(estimate.usd).toBeCloseTo(0.021, 10);
  expect(estimate.unpricedReplies).toBe(5);
});

it("a turn's model calls: the agent's and the memory's fold, each at its own model's price; none priced, no figure", () => {
  const prices = modelPricesFrom({ 'model-a': { input: 3, output: 15 }, 'model-b': { input: 1, output: 5 } });
  const answer = { model: 'model-a', inputTokens: 1_000, outputTokens: 100, cacheReadInputTokens: 10_000 };
  const fold = { model: 'model-b', inputTokens: 2_000, outputTokens: 200 };
  expect(turnModelCost(answer, undefined, prices)).toBeCloseTo((1_000 + 0.1 * 10_000) * 3e-6 + 100 * 15e-6, 12);
  expect(turnModelCost(answer, fold, prices)).toBeCloseTo((1_000 + 0.1 * 10_000) * 3e-6 + 100 * 15e-6 + 2_000 * 1e-6 + 200 * 5e-6, 12);
  expect(turnModelCost({ ...answer, model: 'unpriced' }, fold, prices)).toBeCloseTo(2_000 * 1e-6 + 200 * 5e-6, 12);
  expect(turnModelCost({ ...answer, model: 'unpriced' }, undefined, prices)).toBeUndefined();
});
