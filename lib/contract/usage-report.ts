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
