import type { DailyHandoffTimelines } from '../../domain/handoff-report';
import type { UtcDay } from '../../domain/agent-usage';
import type { UsageReadBound } from './messages';

/**
 * The handoffs of each day as they went. The items are written by the session writes that hand a
 * conversation over, claim it and send its first human reply (no write of its own); this port reads them.
 */
export interface HandoffReportRepository {
  /** Each of `days`, in order: its handoffs, at most `bound.pagesPerPartition` pages of `bound.pageSize`; a day cut at the bound is `complete: false`. */
  timelinesByDay(days: readonly UtcDay[], bound: UsageReadBound): Promise<DailyHandoffTimelines[]>;
}
