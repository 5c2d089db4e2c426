/**
 * The usage report's default prices, which the construct documents and the console's cost estimate
 * starts from. Imports nothing: the console bundles this module. Internal: not part of the jsii API.
 */

/** A model's price, in US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * The prices the usage report's cost estimate starts from (Amazon Bedrock on-demand list prices
 * in us-east-1, USD per million tokens, when this table was written). A key prices every model id
 * that contains it (`us.anthropic.claude-3-5-haiku-20241022-v1:0`), the longest key winning; the
 * admin's `model_prices` setting adds to and overrides it. An estimate, never a bill.
 */
export const MODEL_PRICE_DEFAULTS: Readonly<Record<string, ModelPrice>> = {
  'anthropic.claude-3-haiku': { input: 0.25, output: 1.25 },
  'anthropic.claude-3-5-haiku': { input: 0.8, output: 4 },
  'anthropic.claude-3-5-sonnet': { input: 3, output: 15 },
  'anthropic.claude-3-7-sonnet': { input: 3, output: 15 },
  'anthropic.claude-sonnet-4': { input: 3, output: 15 },
  'amazon.nova-micro': { input: 0.035, output: 0.14 },
  'amazon.nova-lite': { input: 0.06, output: 0.24 },
  'amazon.nova-pro': { input: 0.8, output: 3.2 },
};

/** Prompt-cache tokens in the estimate, as a share of the input price (Bedrock's Claude pricing). */
export const PROMPT_CACHE_PRICE_FACTORS = { read: 0.1, write: 1.25 } as const;

/** Bounds of the admin's `model_prices` setting. */
export const MODEL_PRICE_LIMITS = { maxModels: 50, maxKeyLength: 200, maxPrice: 1000 } as const;
