/**
 * How people answer the conversations handed to them, day by day: the handoffs, their claims and
 * the customer's wait for the claim and for a person's first reply. The days are UTC days, the
 * days handoffs are recorded under (docs/DESIGN.md#data-model), as those of the usage report. The
 * report's shape is the operator API's (lib/contract/usage-report.ts); the rules that fill it are here.
 */
import type { DailyHandoffs, HandoffFigures, HandoffReport, UtcDay } from '../../../lib/contract/usage-report';
import { type IsoTimestamp, toEpochMicros } from './timestamps';

export type { DailyHandoffs, HandoffFigures, HandoffReport };

/** One handoff as it went: when the conversation went to people, and when a person claimed and first answered it. */
export interface HandoffTimeline {
  readonly requestedAt: IsoTimestamp;
  readonly claimedAt?: IsoTimestamp;
  readonly firstReplyAt?: IsoTimestamp;
}

/** A day's handoffs as they were read; `complete` is false when the read stopped before the day's end. */
export interface DailyHandoffTimelines {
  readonly day: UtcDay;
  readonly timelines: readonly HandoffTimeline[];
  readonly complete: boolean;
}

/** The middle value of `values` (the mean of the two middle ones for an even count); undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The figures of some handoffs; a median is left out where no handoff reached that step. */
export function handoffFiguresOf(timelines: readonly HandoffTimeline[], complete: boolean): HandoffFigures {
  const toClaim = secondsFromHandoff(timelines, (timeline) => timeline.claimedAt);
  const toFirstReply = secondsFromHandoff(timelines, (timeline) => timeline.firstReplyAt);
  const medianSecondsToClaim = median(toClaim);
  const medianSecondsToFirstReply = median(toFirstReply);
  return {
    handoffs: timelines.length,
    claimed: toClaim.length,
    waiting: timelines.length - toClaim.length,
    replied: toFirstReply.length,
    ...(medianSecondsToClaim === undefined ? {} : { medianSecondsToClaim }),
    ...(medianSecondsToFirstReply === undefined ? {} : { medianSecondsToFirstReply }),
    complete,
  };
}

/** The report of `days` (as `reportDays` gives them); the period's medians are over all of its handoffs, not the days' medians. */
export function handoffReportOf(days: readonly DailyHandoffTimelines[]): HandoffReport {
  return {
    from: days[0].day,
    to: days[days.length - 1].day,
    days: days.map(({ day, timelines, complete }): DailyHandoffs => ({ day, ...handoffFiguresOf(timelines, complete) })),
    total: handoffFiguresOf(
      days.flatMap((day) => day.timelines),
      days.every((day) => day.complete),
    ),
  };
}

// A clock that stepped back between the handoff and the claim must not give a negative wait.
function secondsFromHandoff(timelines: readonly HandoffTimeline[], step: (timeline: HandoffTimeline) => IsoTimestamp | undefined): number[] {
  return timelines.flatMap((timeline) => {
    const at = step(timeline);
    return at === undefined ? [] : [Math.max(0, (toEpochMicros(at) - toEpochMicros(timeline.requestedAt)) / 1_000_000)];
  });
}
