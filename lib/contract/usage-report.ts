/**
 * The admins' usage report of the operator API (`GET /api/admin/reports/usage`,
 * docs/OPERATOR-API.md): the agent's replies and model tokens per UTC day, the days its replies are
 * indexed by. Types only, re-exported by operator-api.ts; the runtime's domain
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
  /** `false` when there were more replies than one report reads: the figures count those it read. */
  readonly complete: boolean;
}

export interface DailyAgentUsage extends AgentUsage {
  readonly day: UtcDay;
}

/** The agent's usage over a period of UTC days: each day, oldest first, and the period's total. */
export interface UsageReport {
  readonly from: UtcDay;
  readonly to: UtcDay;
  readonly days: readonly DailyAgentUsage[];
  readonly total: AgentUsage;
}
