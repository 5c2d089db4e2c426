/**
 * What the agent works and costs, day by day: its replies and the model tokens they took, in all
 * and per model. The days are UTC days, the days the index of agent replies is keyed by
 * (`LLM#{yyyy-mm-dd}`, docs/DESIGN.md#data-model). The report's shape is the operator API's
 * (lib/contract/usage-report.ts); the rules that fill it are here.
 */
import { awsEstimateUsd } from '../../../lib/contract/aws-cost-estimate';
import { META_MESSAGE_RATES, type MetaRateTable } from '../../../lib/contract/meta-message-rates';
import type { AgentUsage, AwsEstimate, DailyAgentUsage, MetaFees, ModelUsage, UsageReport, UtcDay } from '../../../lib/contract/usage-report';
import { PipelineError } from './errors';
import type { LlmUsage } from './message';
import { isFreeMessage, metaFeeOf, type MetaPricing } from './meta-fee';
import { isCalendarDay, utcDay } from './timestamps';

export type { AgentUsage, AwsEstimate, DailyAgentUsage, MetaFees, ModelUsage, UsageReport, UtcDay };

type Counted = 'replies' | 'inputTokens' | 'outputTokens' | 'cacheReadInputTokens' | 'cacheWriteInputTokens';
type ModelSum = Omit<ModelUsage, 'model'>;

/** The prompt cache's counts: shown only where some reply used the cache, so a deployment without caching reports as before. */
const CACHE_COUNTS = ['cacheReadInputTokens', 'cacheWriteInputTokens'] as const;

const NO_FEES: MetaFees = { messages: 0, billable: 0, usd: 0, unpriced: 0 };

/** Adds up replies and Meta's pricing of sent messages as a read hands them over, and days into a period. */
export class AgentUsageTally {
  /** `rates`: the table Meta's fees are priced at (default: the packaged one). */
  constructor(private readonly rates: MetaRateTable = META_MESSAGE_RATES) {}

  private readonly models = new Map<string | undefined, ModelSum>();
  private fees: MetaFees = NO_FEES;
  /** The replies added one by one, and their models' wait; a day added whole brings its estimate priced. */
  private repliesAdded = 0;
  private modelWaitMs = 0;
  private addedAws: AwsEstimate = { usd: 0, modelWaitSeconds: 0 };
  private complete = true;

  /** One agent reply, with what its model call reported (a reply without figures counts no tokens). */
  addReply(llm: LlmUsage | undefined): void {
    this.repliesAdded += 1;
    this.modelWaitMs += llm?.latencyMs ?? 0;
    this.add({
      model: llm?.model,
      replies: 1,
      inputTokens: llm?.inputTokens ?? 0,
      outputTokens: llm?.outputTokens ?? 0,
      cacheReadInputTokens: llm?.cacheReadInputTokens,
      cacheWriteInputTokens: llm?.cacheWriteInputTokens,
    });
    // A fold answers no customer: its tokens count under its own model, with no reply.
    if (llm?.memoryFold !== undefined) this.add({ ...llm.memoryFold, replies: 0 });
  }

  /** Meta's pricing of one message sent to `customerId`, priced at the tally's rate table. */
  addMetaPricing(pricing: MetaPricing, customerId: string): void {
    const free = isFreeMessage(pricing);
    const { usd } = metaFeeOf(pricing, customerId, this.rates);
    this.addFees({ messages: 1, billable: free ? 0 : 1, usd: usd ?? 0, unpriced: usd === undefined ? 1 : 0 });
  }

  /** Everything of another tally's usage (a day, into a period's total). */
  addUsage(usage: AgentUsage): void {
    usage.models.forEach((model) => this.add(model));
    this.addFees(usage.metaFees);
    this.addedAws = { usd: this.addedAws.usd + usage.aws.usd, modelWaitSeconds: this.addedAws.modelWaitSeconds + usage.aws.modelWaitSeconds };
    if (!usage.complete) this.markIncomplete();
  }

  private addFees(fees: MetaFees): void {
    this.fees = { messages: this.fees.messages + fees.messages, billable: this.fees.billable + fees.billable, usd: this.fees.usd + fees.usd, unpriced: this.fees.unpriced + fees.unpriced };
  }

  /** Some replies were left unread. */
  markIncomplete(): void {
    this.complete = false;
  }

  usage(): AgentUsage {
    const models = [...this.models]
      .sort(([a], [b]) => (a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a < b ? -1 : 1))
      .map(([model, sum]): ModelUsage => (model === undefined ? { ...sum } : { model, ...sum }));
    const aws = { usd: this.addedAws.usd + awsEstimateUsd(this.repliesAdded, this.modelWaitMs), modelWaitSeconds: this.addedAws.modelWaitSeconds + this.modelWaitMs / 1000 };
    return { ...sumOf(models), models, metaFees: this.fees, aws, complete: this.complete };
  }

  private add({ model, ...usage }: ModelUsage): void {
    this.models.set(model, sumOf([this.models.get(model) ?? { replies: 0, inputTokens: 0, outputTokens: 0 }, usage]));
  }
}

/** The counts of `usages` added up; the cache's only where one of them has them. */
function sumOf(usages: readonly ModelSum[]): ModelSum {
  const total = (field: Counted) => usages.reduce((sum, usage) => sum + (usage[field] ?? 0), 0);
  const cached = usages.some((usage) => CACHE_COUNTS.some((field) => usage[field] !== undefined));
  return {
    replies: total('replies'),
    inputTokens: total('inputTokens'),
    outputTokens: total('outputTokens'),
    ...(cached ? { cacheReadInputTokens: total('cacheReadInputTokens'), cacheWriteInputTokens: total('cacheWriteInputTokens') } : {}),
  };
}

/** The report of `days` (as `reportDays` gives them), with their total; their fees priced at the rates of `metaRatesCheckedOn`. */
export function usageReportOf(days: readonly DailyAgentUsage[], metaRatesCheckedOn: string): UsageReport {
  const total = new AgentUsageTally();
  days.forEach((day) => total.addUsage(day));
  return { from: days[0].day, to: days[days.length - 1].day, metaRatesCheckedOn, days, total: total.usage() };
}

/** The longest period a report covers. */
export const MAX_REPORT_DAYS = 31;
/** The period without `from`: a week up to `to`. */
const DEFAULT_REPORT_DAYS = 7;
const DAY_MS = 86_400_000;

/** A report period the API refuses: a day that is not `YYYY-MM-DD`, `from` after `to`, more than 31 days, or days that have not begun. */
export class InvalidReportRangeError extends PipelineError {
  override readonly name = 'InvalidReportRangeError';
  override readonly code = 'invalid_report_range';
  override readonly retryable = false;
}

/**
 * The UTC days from `from` to `to`, both included, oldest first: `to` defaults to today, `from` to
 * six days before `to` (a week); at most {@link MAX_REPORT_DAYS}, and none after tomorrow (a
 * browser ahead of UTC asks for its own today): a later day holds nothing, and the calendar's last
 * days leave no room for the day after, which the reads bound each day with.
 */
export function reportDays(period: { readonly from?: string; readonly to?: string }, now: Date): UtcDay[] {
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  const to = period.to === undefined ? today : midnightOf('to', period.to);
  if (to > today + DAY_MS) throw new InvalidReportRangeError(`to (${period.to}) must not be after tomorrow (${utcDay(new Date(today + DAY_MS))}, UTC): a report covers days that have begun`);
  const from = period.from === undefined ? to - (DEFAULT_REPORT_DAYS - 1) * DAY_MS : midnightOf('from', period.from);
  if (from > to) throw new InvalidReportRangeError(`from (${utcDay(new Date(from))}) must not be after to (${utcDay(new Date(to))})`);
  const days = (to - from) / DAY_MS + 1;
  if (days > MAX_REPORT_DAYS) throw new InvalidReportRangeError(`A report covers at most ${MAX_REPORT_DAYS} days; this one asks for ${days}`);
  return Array.from({ length: days }, (_, index) => utcDay(new Date(from + index * DAY_MS)));
}

function midnightOf(name: string, day: string): number {
  if (!isCalendarDay(day)) throw new InvalidReportRangeError(`${name} must be a calendar day as YYYY-MM-DD (UTC), got "${day.slice(0, 32)}"`);
  return Date.parse(`${day}T00:00:00Z`);
}
