import { MODEL_PRICE_DEFAULTS, MODEL_PRICE_LIMITS, PROMPT_CACHE_PRICE_FACTORS, type ModelPrice } from './model-price-defaults';
import type { AgentUsage, ModelUsage } from './usage-report';

/**
 * The usage report's cost estimate, made where the report is shown: each model's tokens at its
 * price per million (the documented defaults, then the admin's `model_prices` setting over them).
 * Internal: not part of the jsii API.
 */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

export const MODEL_PRICES_CONFIG_KEY = 'model_prices';

/** The prices in force: the stored setting (already validated when it was written) over the defaults. */
export function modelPricesFrom(stored: unknown): ModelPrices {
  return { ...MODEL_PRICE_DEFAULTS, ...(isPriceTable(stored) ? stored : {}) };
}

/** The price of a model id: the longest key it contains; undefined when none does. */
export function priceOf(model: string | undefined, prices: ModelPrices): ModelPrice | undefined {
  if (model === undefined) return undefined;
  const key = Object.keys(prices)
    .filter((name) => model.includes(name))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? undefined : prices[key];
}

/** The estimate of a day or a period: the priced models' costs added up, and the replies of models without a price. */
export interface CostEstimate {
  readonly usd: number;
  readonly unpricedReplies: number;
}

export function estimatedCost(usage: AgentUsage, prices: ModelPrices): CostEstimate {
  let usd = 0;
  let unpricedReplies = 0;
  for (const model of usage.models) {
    const cost = modelCost(model, prices);
    if (cost === undefined) unpricedReplies += model.replies;
    else usd += cost;
  }
  return { usd, unpricedReplies };
}

/** One model's estimate; undefined without a price for it. */
export function modelCost(usage: ModelUsage, prices: ModelPrices): number | undefined {
  const price = priceOf(usage.model, prices);
  return price === undefined ? undefined : costOf(usage, price);
}

/**
 * One turn's cost at the packaged prices (the `AgentCostUsd` metric): the functions do not read the
 * admin's `model_prices`, so a metric never waits on a setting; undefined for a model they do not name.
 */
export function defaultModelCost(model: string | undefined, tokens: Omit<ModelUsage, 'model' | 'replies'>): number | undefined {
  return modelCost({ model, replies: 1, ...tokens }, MODEL_PRICE_DEFAULTS);
}

/** The tokens of one model call, or of a turn's calls to one model. */
export type ModelCallTokens = Omit<ModelUsage, 'replies'>;

/**
 * A turn's model calls at `prices`: the agent's, and the memory's fold at its own model's price,
 * since a cheaper model may write the summaries. Undefined when neither model has a price.
 */
export function turnModelCost(answer: ModelCallTokens | undefined, fold: ModelCallTokens | undefined, prices: ModelPrices): number | undefined {
  const costs = [answer, fold].flatMap((call) => (call === undefined ? [] : [modelCost({ ...call, replies: 1 }, prices)]));
  const priced = costs.filter((cost): cost is number => cost !== undefined);
  return priced.length === 0 ? undefined : priced.reduce((sum, cost) => sum + cost, 0);
}

function costOf(usage: ModelUsage, price: ModelPrice): number {
  const { read, write } = PROMPT_CACHE_PRICE_FACTORS;
  const inputTokens = usage.inputTokens + read * (usage.cacheReadInputTokens ?? 0) + write * (usage.cacheWriteInputTokens ?? 0);
  return (inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

function isPriceTable(value: unknown): value is ModelPrices {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length <= MODEL_PRICE_LIMITS.maxModels;
}
