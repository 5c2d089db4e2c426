/**
 * The admins' usage report of the operator API (`GET /api/admin/reports/usage`,
 * docs/OPERATOR-API.md): the agent's replies and model tokens, and Meta's fees of the messages
 * sent, per UTC day, the days they are indexed by. Types only, re-exported by operator-api.ts; the runtime's domain
 * (lambda/core/domain/agent-usage.ts) computes exactly these. Internal: not part of the jsii API.
 */

/** A UTC calendar day, `YYYY-MM-DD`. */
export type UtcDay = string;

/** The usage of one model. */
export interface ModelUsage {
  /** Absent: replies whose model was not recorded (an agent that reports none). */
  readonly model?: string;
  readonly replies: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache; present once a reply of the model read or wrote the cache. */
  readonly cacheReadInputTokens?: number;
  /** Input tokens written to the prompt cache; present once a reply of the model read or wrote the cache. */
  readonly cacheWriteInputTokens?: number;
}

export interface AgentUsage {
  /** Every reply the agent wrote, sent or not: a reply a newer message superseded cost its tokens too. */
  readonly replies: number;
  /** Input tokens billed at the input price (not read from or written to the prompt cache). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Present once a reply of the period read or wrote the prompt cache, as in {@link ModelUsage}. */
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  /** By model name; replies without a recorded model last. */
  readonly models: readonly ModelUsage[];
  /** Meta's fees of the period's sent messages, agent replies and the others alike. */
  readonly metaFees: MetaFees;
  /** The pipeline's own AWS resources for the period's replies: an estimate. */
  readonly aws: AwsEstimate;
  /** `false` when there were more replies than one report reads: the figures count those it read. */
  readonly complete: boolean;
}

/**
 * Meta's fees of the messages Meta priced (each once, from the first status that carried its
 * pricing), in US dollars at the packaged rate table (lib/contract/meta-message-rates.ts): an
 * estimate, never a bill. A message counts on the day of its index: an agent reply on the day it
 * was written, any other on the day of its pricing status.
 */
export interface MetaFees {
  /** Messages Meta priced, free ones included. */
  readonly messages: number;
  /** Of those, the ones Meta billed. */
  readonly billable: number;
  /** The billed ones' fees at the rate table. */
  readonly usd: number;
  /** Billed in a category the rate table has no rate for: counted here, not in `usd`. */
  readonly unpriced: number;
}

/**
 * What the pipeline's AWS resources cost for the replies, in US dollars: each reply's measured
 * usage (its receipt, statuses, queue requests and turn) at list prices, and the orchestrator's
 * wait on the model from the replies' recorded latency (lib/contract/aws-cost-estimate.ts). An
 * estimate, never a bill: storage, media, the console and CloudWatch are not in it.
 */
export interface AwsEstimate {
  readonly usd: number;
  /** The replies' model calls, summed: the part of the orchestrator's time that grows with the model. */
  readonly modelWaitSeconds: number;
}

export interface DailyAgentUsage extends AgentUsage {
  readonly day: UtcDay;
}

/** The agent's usage over a period of UTC days: each day, oldest first, and the period's total. */
export interface UsageReport {
  readonly from: UtcDay;
  readonly to: UtcDay;
  /** The day of the rate table Meta's fees were priced at: the admin's `meta_rates`, else the packaged table's. */
  readonly metaRatesCheckedOn: string;
  readonly days: readonly DailyAgentUsage[];
  readonly total: AgentUsage;
  /**
   * The model tokens of the prompt gate's evaluation runs (the pipeline budget's evaluation line,
   * docs/EVALUATION.md): a line of its own, in none of the days' replies or tokens above.
   */
  readonly evaluation?: { readonly tokens: number; readonly days: readonly { readonly day: UtcDay; readonly tokens: number }[] };
}

/**
 * The handoffs of a UTC day (`GET /api/admin/reports/handoffs`): how many conversations went to
 * people, how many a person claimed, and how long the customer waited. Times count from the
 * handoff; a median is absent where nothing was measured.
 */
export interface HandoffFigures {
  readonly handoffs: number;
  readonly claimed: number;
  /** Handoffs no one has claimed (still waiting, or released or closed before a claim). */
  readonly waiting: number;
  /** Handoffs a person answered. */
  readonly replied: number;
  /** Seconds from the handoff to the claim, the median over the claimed handoffs. */
  readonly medianSecondsToClaim?: number;
  /** Seconds from the handoff to the first person's reply, the median over the answered handoffs. */
  readonly medianSecondsToFirstReply?: number;
  /** `false` when there were more handoffs than one report reads: the figures count those it read. */
  readonly complete: boolean;
}

export interface DailyHandoffs extends HandoffFigures {
  readonly day: UtcDay;
}

/** The handoffs of a period of UTC days: each day, oldest first, and the period's figures (medians over all its handoffs). */
export interface HandoffReport {
  readonly from: UtcDay;
  readonly to: UtcDay;
  readonly days: readonly DailyHandoffs[];
  readonly total: HandoffFigures;
}
