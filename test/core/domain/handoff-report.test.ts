// The handoff report's arithmetic: medians of odd, even and empty sets, a day's figures with the
// handoffs still waiting, and the period's medians over all of its handoffs (not the days' medians).
import { handoffFiguresOf, handoffReportOf, median } from '../../../lambda/core/domain/handoff-report';

test('the median is the middle value, the mean of the two middle ones for an even count, absent for none', () => {
  expect(median([300, 60, 120])).toBe(120);
  expect(median([60, 240, 120, 180])).toBe(150);
  expect(median([42])).toBe(42);
  expect(median([])).toBeUndefined();
});

test("a day's figures: claimed and answered handoffs measured from the handoff, the others counted as waiting", () => {
  const figures = handoffFiguresOf(
    [
      { requestedAt: '2026-03-10T12:00:00.000000Z', claimedAt: '2026-03-10T12:03:00.000000Z', firstReplyAt: '2026-03-10T12:05:00.000000Z' },
      { requestedAt: '2026-03-10T13:00:00.000000Z', claimedAt: '2026-03-10T13:01:00.000000Z' },
      { requestedAt: '2026-03-10T14:00:00.000000Z' },
    ],
    true,
  );
  expect(figures).toEqual({ handoffs: 3, claimed: 2, waiting: 1, replied: 1, medianSecondsToClaim: 120, medianSecondsToFirstReply: 300, complete: true });
});

test('a day without handoffs has counts of zero and no medians; one whose claims are all missing has no claim median', () => {
  expect(handoffFiguresOf([], true)).toEqual({ handoffs: 0, claimed: 0, waiting: 0, replied: 0, complete: true });
  expect(handoffFiguresOf([{ requestedAt: '2026-03-10T12:00:00Z' }], false)).toEqual({ handoffs: 1, claimed: 0, waiting: 1, replied: 0, complete: false });
});

test('a claim stamped before its handoff (a clock stepped back) counts as no wait, never a negative one', () => {
  expect(handoffFiguresOf([{ requestedAt: '2026-03-10T12:00:01Z', claimedAt: '2026-03-10T12:00:00Z' }], true).medianSecondsToClaim).toBe(0);
});

test("the period's medians pool every handoff of its days; an incomplete day makes the period incomplete", () => {
  const report = handoffReportOf([
    { day: '2026-03-09', timelines: [{ requestedAt: '2026-03-09T23:59:00Z', claimedAt: '2026-03-10T00:00:00Z' }], complete: true },
    { day: '2026-03-10', timelines: [], complete: true },
    {
      day: '2026-03-11',
      timelines: [
        { requestedAt: '2026-03-11T10:00:00Z', claimedAt: '2026-03-11T10:10:00Z' },
        { requestedAt: '2026-03-11T11:00:00Z', claimedAt: '2026-03-11T11:20:00Z' },
      ],
      complete: false,
    },
  ]);
  expect(report.from).toBe('2026-03-09');
  expect(report.to).toBe('2026-03-11');
  expect(report.days.map((day) => [day.day, day.handoffs, day.medianSecondsToClaim])).toEqual([
    ['2026-03-09', 1, 60],
    ['2026-03-10', 0, undefined],
    ['2026-03-11', 2, 900],
  ]);
  // The days' medians would give 480; the handoffs' is 600 (60, 600, 1200).
  expect(report.total).toEqual({ handoffs: 3, claimed: 3, waiting: 0, replied: 0, medianSecondsToClaim: 600, complete: false });
});
