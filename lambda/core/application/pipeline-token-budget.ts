import { PIPELINE_BUDGET_DEFAULTS } from '../../../lib/contract';
import { budgetTokens, type TokenUsage } from '../domain/customer-budget';
import { utcDay } from '../domain/timestamps';
import type { Clock } from '../ports/clock';
import type { PipelineBudgetRepository } from '../ports/repositories';

export interface PipelineBudgetSettings {
  /** Model tokens (input plus output, cached input at its weight) every customer's turns together may use per UTC day. */
  readonly agentTokensPerDay: number;
  /** Sent instead of the agent's reply once the day's budget is spent, once a day per customer. */
  readonly reply: string;
}

/** How often an instance reads the day's total; in between it adds its own turns to what it read. */
export const PIPELINE_BUDGET_REFRESH_MS = PIPELINE_BUDGET_DEFAULTS.totalRefreshSeconds * 1000;

/**
 * The pipeline-wide daily token budget, as one orchestrator instance sees it: the day's total read
 * from the table at most once per {@link PIPELINE_BUDGET_REFRESH_MS} (one batched read of the
 * shards), plus the tokens this instance counted since. Approximate by design: the other instances'
 * turns of the last window are not seen yet, so the day may overrun the budget by what they spend
 * in one window — the price of keeping the count off the turn's path (one write per turn, no read).
 */
export class PipelineTokenBudget {
  private known?: { readonly day: string; readonly total: number; readonly readAtMs: number };
  /** Tokens this instance counted that the known total may not hold yet. */
  private counted = 0;
  private reading?: Promise<void>;

  constructor(
    private readonly counts: Pick<PipelineBudgetRepository, 'addTokens' | 'tokensOfDay'>,
    private readonly clock: Clock,
    readonly settings: PipelineBudgetSettings,
    private readonly refreshMs = PIPELINE_BUDGET_REFRESH_MS,
  ) {}

  /** The day's tokens so far, as far as this instance knows: re-read when older than the window or of another day. */
  async usedToday(): Promise<number> {
    const now = this.clock.now();
    const day = utcDay(now);
    if (this.known === undefined || this.known.day !== day || now.getTime() - this.known.readAtMs >= this.refreshMs) {
      this.reading ??= this.read(now).finally(() => (this.reading = undefined));
      await this.reading;
    }
    return this.known!.total + this.counted;
  }

  /** The last total this instance knew, without reading (`undefined` before the first read). */
  get lastKnownUse(): number | undefined {
    return this.known && this.known.total + this.counted;
  }

  async isSpent(): Promise<boolean> {
    return (await this.usedToday()) >= this.settings.agentTokensPerDay;
  }

  async count(customerId: string, usage: TokenUsage): Promise<void> {
    await this.counts.addTokens(customerId, this.clock.now(), usage);
    this.counted += budgetTokens(usage);
  }

  private async read(now: Date): Promise<void> {
    // What this instance counted before the read is in it; what it counts while the read is out
    // may or may not be, and is kept: the total errs towards spent.
    const countedBefore = this.counted;
    const total = await this.counts.tokensOfDay(now);
    this.counted -= countedBefore;
    this.known = { day: utcDay(now), total, readAtMs: now.getTime() };
  }
}
