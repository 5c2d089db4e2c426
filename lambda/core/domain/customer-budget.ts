import { utcDay } from './timestamps';

/**
 * What one customer may cost: agent turns per minute and per hour, and model tokens (input plus
 * output) per UTC day. Windows are fixed (the UTC minute, hour and day a turn starts in), so a
 * count is one atomic increment of one item, never a scan of past turns.
 */
export interface CustomerBudgetLimits {
  readonly turnsPerMinute: number;
  readonly turnsPerHour: number;
  readonly agentTokensPerDay: number;
}

/**
 * Which limit refused a turn: one of the customer's, or the pipeline-wide daily token budget
 * (`pipeline_tokens_per_day`), which every customer's turns count against together.
 */
export type BudgetLimit = 'turns_per_minute' | 'turns_per_hour' | 'agent_tokens_per_day' | 'pipeline_tokens_per_day';

/** A day's budget item expires a day after its day ends: no count is ever read past its day. */
const EXPIRES_AFTER_DAY_START_MS = 2 * 24 * 60 * 60 * 1000;

/** When the budget item of the UTC day of `at` may be deleted. */
export function budgetDayExpiry(at: Date): Date {
  return new Date(Date.parse(`${utcDay(at)}T00:00:00Z`) + EXPIRES_AFTER_DAY_START_MS);
}

/** Model tokens one turn used, as the agent backend reported them. */
export interface TokenUsage {
  /** Input tokens billed at the model's input price: those neither read from nor written to the prompt cache. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache (Converse `usage.cacheReadInputTokens`); absent: none. */
  readonly cacheReadInputTokens?: number;
  /** Input tokens written to the prompt cache (Converse `usage.cacheWriteInputTokens`); absent: none. */
  readonly cacheWriteInputTokens?: number;
}

/**
 * What a prompt cache token costs against a budget, as a share of an uncached input token: Bedrock
 * bills a cache read at a tenth of the input price and a cache write (5-minute cache) at 1.25 times
 * it, for the Anthropic Claude models (Amazon Nova models bill reads at a quarter and writes at the
 * input price; the budget errs towards Claude's dearer writes). Output tokens count as one, as
 * before caching: the budgets are token budgets, not price lists.
 * @see https://aws.amazon.com/bedrock/pricing/
 */
export const CACHE_READ_BUDGET_WEIGHT = 0.1;
export const CACHE_WRITE_BUDGET_WEIGHT = 1.25;

/**
 * The tokens a turn counts against the customer's and the pipeline's daily budgets: input plus
 * output, and cache reads and writes at their weights, rounded up to a whole token.
 */
export function budgetTokens(usage: TokenUsage): number {
  const cached = (usage.cacheReadInputTokens ?? 0) * CACHE_READ_BUDGET_WEIGHT + (usage.cacheWriteInputTokens ?? 0) * CACHE_WRITE_BUDGET_WEIGHT;
  return usage.inputTokens + usage.outputTokens + Math.ceil(cached);
}

/** A customer's counts in the windows of one instant. */
export interface BudgetCounts {
  readonly turnsThisMinute: number;
  readonly turnsThisHour: number;
  readonly agentTokensToday: number;
}

/** The windows an instant falls in: the UTC day, and the hour and minute within it (`HH`, `HHmm`). */
export interface BudgetWindows {
  readonly day: string;
  readonly hour: string;
  readonly minute: string;
}

export function budgetWindows(at: Date): BudgetWindows {
  const iso = at.toISOString();
  return { day: utcDay(at), hour: iso.slice(11, 13), minute: `${iso.slice(11, 13)}${iso.slice(14, 16)}` };
}

/**
 * The window a limit counts in, named within the day's item (`turns_per_minute@1015`): a refused
 * customer is told once per window, not once per message.
 */
export function limitWindow(limit: BudgetLimit, windows: BudgetWindows): string {
  const window = limit === 'turns_per_minute' ? windows.minute : limit === 'turns_per_hour' ? windows.hour : windows.day;
  // The pipeline's budget is daily too: a customer refused by it is told once a day.
  return `${limit}@${window}`;
}

/** The first limit the counts reach (a turn is admitted only while every count is below its limit). */
export function reachedLimit(counts: BudgetCounts, limits: CustomerBudgetLimits): BudgetLimit | undefined {
  if (counts.agentTokensToday >= limits.agentTokensPerDay) return 'agent_tokens_per_day';
  if (counts.turnsThisHour >= limits.turnsPerHour) return 'turns_per_hour';
  if (counts.turnsThisMinute >= limits.turnsPerMinute) return 'turns_per_minute';
  return undefined;
}

/** Usage with every count a whole number of 0 or more (what a backend reports is not trusted blindly). */
export function isTokenUsage(value: unknown): value is TokenUsage {
  if (typeof value !== 'object' || value === null) return false;
  const { inputTokens, outputTokens } = value as Record<string, unknown>;
  return [inputTokens, outputTokens].every((count) => Number.isSafeInteger(count) && (count as number) >= 0);
}

/** The sum; a cache count is present when either side has it. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const cacheCount = (field: 'cacheReadInputTokens' | 'cacheWriteInputTokens') => (a[field] === undefined && b[field] === undefined ? {} : { [field]: (a[field] ?? 0) + (b[field] ?? 0) });
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, ...cacheCount('cacheReadInputTokens'), ...cacheCount('cacheWriteInputTokens') };
}
