import fc from 'fast-check';
import { IllegalStateTransitionError } from '../../../lambda/core/domain/errors';
import { nextLocalMidnight } from '../../../lambda/core/domain/local-time';
import { loginGrantExpiryCeiling } from '../../../lambda/core/domain/operator-auth';
import {
  ACTIVITY_INDEX_STEP_MS,
  AGENT_OWNED_STATES,
  assertLegalTransition,
  indexedActivityOf,
  isHumanOwned,
  isLegalTransition,
  LEGAL_TRANSITIONS,
  SESSION_STATES,
  transitionSession,
} from '../../../lambda/core/domain/session';
import { stableStringify } from '../../../lambda/core/domain/stable-json';
import { epochSeconds, fromEpochMicros, isoMicros, nextMicrosecond, toEpochMicros } from '../../../lambda/core/domain/timestamps';
import { newSession } from '../../support/domain-records';

describe('timestamps', () => {
  test('normalise every zoned ISO spelling to UTC with microseconds', () => {
    expect(isoMicros('2026-09-14T12:00:00+00:00')).toBe('2026-09-14T12:00:00.000000Z');
    expect(isoMicros('2026-09-14T09:00:00.123-03:00')).toBe('2026-09-14T12:00:00.123000Z');
    expect(isoMicros('2026-09-14T12:00:00.1234567Z')).toBe('2026-09-14T12:00:00.123456Z');
    expect(isoMicros(new Date('2026-09-14T12:00:00.007Z'))).toBe('2026-09-14T12:00:00.007000Z');
    expect(() => isoMicros('2026-09-14T12:00:00')).toThrow(RangeError);
    expect(() => isoMicros('2026-02-30T12:00:00Z')).toThrow(RangeError);
  });

  test('the 1 µs bump and TTL seconds', () => {
    expect(nextMicrosecond('2026-09-14T12:00:00Z')).toBe('2026-09-14T12:00:00.000001Z');
    expect(nextMicrosecond('2026-12-31T23:59:59.999999Z')).toBe('2027-01-01T00:00:00.000000Z');
    expect(epochSeconds('2026-09-14T12:00:00.000001Z')).toBe(Date.parse('2026-09-14T12:00:01Z') / 1000);
  });

  test('lexicographic order of the persisted format is chronological order', () => {
    const instant = fc.integer({ min: 0, max: 4_102_444_800_000_000 }); // 1970 … 2100 in µs
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        const [left, right] = [fromEpochMicros(a), fromEpochMicros(b)];
        expect(toEpochMicros(left)).toBe(a);
        expect(left.length).toBe(27);
        expect(Math.sign(left.localeCompare(right, 'en'))).toBe(Math.sign(a - b));
        expect(left < right).toBe(a < b);
      }),
    );
  });
});

describe('session state machine', () => {
  test('human-owned states are exactly AWAITING_HUMAN and HUMAN_ACTIVE', () => {
    expect(SESSION_STATES.filter(isHumanOwned)).toEqual(['AWAITING_HUMAN', 'HUMAN_ACTIVE']);
  });

  test('every pair outside LEGAL_TRANSITIONS is refused; CLOSED is terminal', () => {
    for (const from of SESSION_STATES) {
      for (const to of SESSION_STATES) {
        const legal = LEGAL_TRANSITIONS[from].includes(to);
        expect(isLegalTransition(from, to)).toBe(legal);
        if (legal) expect(() => assertLegalTransition(from, to)).not.toThrow();
        else expect(() => assertLegalTransition(from, to)).toThrow(IllegalStateTransitionError);
      }
    }
    expect(LEGAL_TRANSITIONS.CLOSED).toEqual([]);
    expect(isLegalTransition('QUALIFYING', 'QUALIFYING')).toBe(false);
  });

  test('transitionSession validates and stamps the close', () => {
    const session = newSession('5511', { state: 'HUMAN_ACTIVE' });
    expect(transitionSession(session, 'CLOSED', '2026-03-10T13:00:00.000000Z')).toMatchObject({ state: 'CLOSED', closedAt: '2026-03-10T13:00:00.000000Z' });
    expect(() => transitionSession(session, 'NEW', '2026-03-10T13:00:00.000000Z')).toThrow(new IllegalStateTransitionError('HUMAN_ACTIVE', 'NEW'));
  });
});

describe('the idle index', () => {
  test('the idle sweep closes the agent’s states only', () => {
    expect(AGENT_OWNED_STATES).toEqual(['NEW', 'QUALIFYING']);
  });

  test('a session’s place moves at most once a step, never past its last activity, never a step behind it', () => {
    const created = '2026-03-10T12:00:00.000000Z';
    const at = (minutes: number) => isoMicros(new Date(Date.parse(created) + minutes * 60_000));
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(3) })).toBe(created);
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(14.99) })).toBe(created);
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(15) })).toBe(at(15));
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(20), activityIndexedAt: at(15) })).toBe(at(15));
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(31), activityIndexedAt: at(15) })).toBe(at(31));
    // An index entry after the activity (a clock that went back) is not kept.
    expect(indexedActivityOf({ createdAt: created, updatedAt: at(1), activityIndexedAt: at(2) })).toBe(at(1));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -60_000, max: 10_000_000 }), (updatedAfterMs, indexedAfterMs) => {
        const updatedAt = isoMicros(new Date(Date.parse(created) + updatedAfterMs));
        const indexed = indexedActivityOf({ createdAt: created, updatedAt, activityIndexedAt: isoMicros(new Date(Date.parse(created) + indexedAfterMs)) });
        const lag = toEpochMicros(updatedAt) - toEpochMicros(indexed);
        return lag >= 0 && lag < ACTIVITY_INDEX_STEP_MS * 1000;
      }),
    );
  });
});

describe('stable JSON', () => {
  test('is independent of key order at every depth and drops undefined', () => {
    expect(stableStringify({ b: 1, a: { d: [{ y: 1, x: 2 }], c: undefined } })).toBe('{"a":{"d":[{"x":2,"y":1}]},"b":1}');
  });
});

describe('local midnight', () => {
  test('São Paulo (UTC-3, no DST) by default', () => {
    expect(nextLocalMidnight(new Date('2026-03-10T15:00:00Z')).toISOString()).toBe('2026-03-11T03:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-03-11T02:59:59Z')).toISOString()).toBe('2026-03-11T03:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-03-11T03:00:00Z')).toISOString()).toBe('2026-03-12T03:00:00.000Z');
  });

  test('across DST changes and in zones ahead of UTC', () => {
    // New York springs forward on 2026-03-08 at 02:00 and falls back on 2026-11-01.
    expect(nextLocalMidnight(new Date('2026-03-08T03:00:00Z'), 'America/New_York').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    // 01:00 EST, before the switch; the next midnight is already on daylight time.
    expect(nextLocalMidnight(new Date('2026-03-08T06:00:00Z'), 'America/New_York').toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-10-31T12:00:00Z'), 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-11-01T12:00:00Z'), 'America/New_York').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(nextLocalMidnight(new Date('2026-03-10T14:58:00Z'), 'Asia/Tokyo').toISOString()).toBe('2026-03-10T15:00:00.000Z');
  });

  test('a login grant lasts 10 minutes or until midnight, whichever is first', () => {
    expect(loginGrantExpiryCeiling(new Date('2026-03-10T15:00:00Z'), 'America/Sao_Paulo').toISOString()).toBe('2026-03-10T15:10:00.000Z');
    expect(loginGrantExpiryCeiling(new Date('2026-03-11T02:55:00Z'), 'America/Sao_Paulo').toISOString()).toBe('2026-03-11T03:00:00.000Z');
  });
});
