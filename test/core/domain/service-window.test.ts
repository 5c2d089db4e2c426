import { CUSTOMER_SERVICE_WINDOW_MS, isInsideServiceWindow, lastCustomerMessageOf } from '../../../lambda/core/domain/service-window';
import { addMilliseconds, isoMicros } from '../../../lambda/core/domain/timestamps';

const NOW = new Date('2026-03-10T12:00:00.000Z');

describe("the customer's 24-hour service window", () => {
  test('is open while the last customer message is less than 24 hours old, to the microsecond', () => {
    expect(isInsideServiceWindow(addMilliseconds(NOW, -1), NOW)).toBe(true);
    expect(isInsideServiceWindow(addMilliseconds(NOW, -CUSTOMER_SERVICE_WINDOW_MS + 0.001), NOW)).toBe(true);
    expect(isInsideServiceWindow(addMilliseconds(NOW, -CUSTOMER_SERVICE_WINDOW_MS), NOW)).toBe(false);
    expect(isInsideServiceWindow(addMilliseconds(NOW, -25 * 3_600_000), NOW)).toBe(false);
  });

  test('is closed for a customer who never wrote', () => {
    expect(isInsideServiceWindow(undefined, NOW)).toBe(false);
  });

  test("a turn's last customer message is the newest of the history watermark and its pending messages", () => {
    const [older, newer, newest] = ['2026-03-09T10:00:00.000000Z', '2026-03-09T11:00:00.000000Z', '2026-03-10T11:00:00.000000Z'].map(isoMicros);
    expect(lastCustomerMessageOf(undefined, [])).toBeUndefined();
    expect(lastCustomerMessageOf(newer, [])).toBe(newer);
    expect(lastCustomerMessageOf(undefined, [{ historyTimestamp: older }, { historyTimestamp: newest }])).toBe(newest);
    // A parked message redriven after newer ones were answered keeps its older place in the history.
    expect(lastCustomerMessageOf(newest, [{ historyTimestamp: older }])).toBe(newest);
  });
});
