import { BURST_SETTLE_MAX_PERIODS, settleUntil, supersededDuringSettle } from '../../../lambda/core/domain/burst-settle';
import type { LatestInbound, PendingInbound } from '../../../lambda/core/domain/inbound-receipt';

const NOW = Date.parse('2026-03-10T12:00:10.000Z');
const SETTLE = 2_000;
const FAR = NOW + 60_000;

function received(msAgo: number, messageId = `wamid.${msAgo}`): PendingInbound {
  const at = new Date(NOW - msAgo).toISOString();
  return { customerId: '5511999990000', customerIdKind: 'phone', messageId, providerTimestamp: at, receivedAt: at, messageType: 'text', text: 'oi', businessPhoneNumberId: '1', historyTimestamp: at };
}

describe('how long a turn waits for a burst to settle', () => {
  test('until the customer has been quiet for the settle period since their newest message', () => {
    const last = received(300);
    expect(settleUntil([received(900), last], last, { settleMs: SETTLE, agentDeadline: FAR, now: NOW })).toBe(NOW - 300 + SETTLE);
  });

  test('not at all when the newest message is already older than the settle period, or the wait is off', () => {
    const quiet = received(SETTLE + 1);
    expect(settleUntil([quiet], quiet, { settleMs: SETTLE, agentDeadline: FAR, now: NOW })).toBeLessThan(NOW);
    const fresh = received(0);
    expect(settleUntil([fresh], fresh, { settleMs: 0, agentDeadline: FAR, now: NOW })).toBe(NOW);
  });

  test('a burst that keeps going is answered within three settle periods of its oldest pending message', () => {
    const last = received(100);
    const oldest = received(BURST_SETTLE_MAX_PERIODS * SETTLE - 500);
    expect(settleUntil([oldest, last], last, { settleMs: SETTLE, agentDeadline: FAR, now: NOW })).toBe(NOW + 500);
    const older = received(BURST_SETTLE_MAX_PERIODS * SETTLE + 1);
    expect(settleUntil([older, last], last, { settleMs: SETTLE, agentDeadline: FAR, now: NOW })).toBeLessThan(NOW);
  });

  test('never more than half the time the agent has left, and not at all past its deadline', () => {
    const last = received(0);
    expect(settleUntil([last], last, { settleMs: SETTLE, agentDeadline: NOW + 1_000, now: NOW })).toBe(NOW + 500);
    expect(settleUntil([last], last, { settleMs: SETTLE, agentDeadline: NOW - 1, now: NOW })).toBe(NOW);
  });
});

describe('what a newer message found during the wait means for the waiting messages', () => {
  const marker = (changes: Partial<LatestInbound>): LatestInbound => ({ customerId: '5511999990000', latestMessageId: 'wamid.A', pendingMessageIds: ['wamid.A'], ...changes });

  test('none: the turn goes on', () => {
    expect(supersededDuringSettle(marker({}), 'wamid.A')).toBeUndefined();
  });

  test("a newer message on the pending list: they stay pending for its turn, which answers them all", () => {
    expect(supersededDuringSettle(marker({ latestMessageId: 'wamid.B', pendingMessageIds: ['wamid.A', 'wamid.B'] }), 'wamid.A')).toBe('pending');
  });

  test('a newer message off the list (the human inbox), or an invalidated marker: completed, as any superseded turn', () => {
    expect(supersededDuringSettle(marker({ latestMessageId: 'wamid.B' }), 'wamid.A')).toBe('completed');
    expect(supersededDuringSettle(marker({ invalidatedAt: '2026-03-10T12:00:09.000000Z' }), 'wamid.A')).toBe('completed');
    expect(supersededDuringSettle(marker({ latestMessageId: 'wamid.B', pendingMessageIds: ['wamid.A', 'wamid.B'], invalidatedAt: '2026-03-10T12:00:09.000000Z' }), 'wamid.A')).toBe('completed');
  });
});
