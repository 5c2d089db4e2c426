import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { activePointerKey, sessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { DynamoTurnLedger } from '../../../../lambda/core/adapters/dynamodb/turn-ledger';
import { ConditionFailedError } from '../../../../lambda/core/ports/repositories';
import { IllegalStateTransitionError } from '../../../../lambda/core/domain/errors';
import { InvalidCursorError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { LEGAL_TRANSITIONS, type Session, SESSION_STATES, SessionState } from '../../../../lambda/core/domain/session';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { CallRecorder } from '../../../support/dynamo-call-recorder';
import { newCustomer } from '../../../support/ids';
import { newSession } from '../../../support/domain-records';
import { ManualClock } from '../../../support/manual-clock';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from '../../../../lambda/core/adapters/dynamodb/key-layout';

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let sessions: DynamoSessionRepository;
let messages: DynamoMessageRepository;
let ledger: DynamoTurnLedger;

beforeAll(async () => {
  table = await createTestTable('sessions');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
  sessions = new DynamoSessionRepository(kit, clock);
  messages = new DynamoMessageRepository(kit, clock);
  ledger = new DynamoTurnLedger(kit, clock);
});
afterAll(() => table.drop());

async function storedSession(customerId: string, sessionId: string) {
  return kit.get({ key: sessionKey(customerId, sessionId), consistentRead: true });
}

describe('put / get / getActive', () => {
  test('session and ACTIVE pointer are written together and read back consistently', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { segment: 'PESQUISA', intent: 'servico', cadastralData: { name: 'Maria' } });

    await sessions.put(session);

    expect(await sessions.getActive(customerId)).toEqual(session);
    expect(await sessions.get(customerId, session.sessionId)).toEqual(session);
    const stored = await storedSession(customerId, session.sessionId);
    expect(stored).toMatchObject({ GSI1PK: 'STATE#QUALIFYING', GSI1SK: '2026-03-10T12:00:00.000000Z', entity_type: 'session' });
    expect(await kit.get({ key: activePointerKey(customerId) })).toMatchObject({ session_id: session.sessionId, updated_at: '2026-03-10T12:00:00.000000Z' });
  });

  test('a customer without a pointer has no active session; the last session put is the active one', async () => {
    const customerId = newCustomer();
    expect(await sessions.getActive(customerId)).toBeUndefined();
    const first = newSession(customerId);
    const second = newSession(customerId);
    await sessions.put(first);
    expect((await sessions.getActive(customerId))?.sessionId).toBe(first.sessionId);
    await sessions.put(second);
    expect((await sessions.getActive(customerId))?.sessionId).toBe(second.sessionId);
  });

  test('attributes this version does not know survive a read-modify-write', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId);
    await sessions.put(session);
    await kit.update({
      key: sessionKey(customerId, session.sessionId),
      update: 'SET future_field = :f, nested_future = :n',
      values: { ':f': 'kept', ':n': { a: 1 } },
    });

    const read = (await sessions.get(customerId, session.sessionId))!;
    expect(read.unknownAttributes).toEqual({ future_field: 'kept', nested_future: { a: 1 } });
    await sessions.put({ ...read, segment: 'CLINICO' });

    expect(await storedSession(customerId, session.sessionId)).toMatchObject({ segment: 'CLINICO', future_field: 'kept', nested_future: { a: 1 } });
  });
});

describe('transitionState', () => {
  test('a legal transition moves the state, the GSI1 partition and the listed changes', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId);
    await sessions.put(session);
    clock.advance(1000);

    const updated = await sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN', { changes: { handoffRequestedAt: '2026-03-10T12:00:01Z' } });

    expect(updated).toMatchObject({ state: 'AWAITING_HUMAN', handoffRequestedAt: '2026-03-10T12:00:01.000000Z', updatedAt: '2026-03-10T12:00:01.000000Z' });
    // An attribute of the seed system's rows is carried, never set (docs/DESIGN.md#attributes-kept-for-the-seed-systems-data).
    expect(updated.currentAgent).toBe('qualification');
    expect(await sessions.get(customerId, session.sessionId)).toEqual(updated);
    expect((await storedSession(customerId, session.sessionId))?.GSI1PK).toBe('STATE#AWAITING_HUMAN');
  });

  test('every illegal transition is refused before any write', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId);
    await sessions.put(session);
    const before = await storedSession(customerId, session.sessionId);
    let refused = 0;
    for (const from of SESSION_STATES) {
      for (const to of SESSION_STATES) {
        if (LEGAL_TRANSITIONS[from].includes(to)) continue;
        calls.reset();
        await expect(sessions.transitionState({ ...session, state: from }, from, to)).rejects.toBeInstanceOf(IllegalStateTransitionError);
        // A turn result that keeps the state is not a transition; any other illegal pair is refused.
        if (from !== to) {
          await expect(
            ledger.persistResult({ session: { ...session, state: to }, expectedState: from, expectedLatestMessageId: 'x', expectedActiveSessionId: session.sessionId }),
          ).rejects.toBeInstanceOf(IllegalStateTransitionError);
        }
        expect(calls.calls).toEqual([]);
        refused++;
      }
    }
    expect(refused).toBe(SESSION_STATES.length ** 2 - Object.values(LEGAL_TRANSITIONS).flat().length);
    expect(await storedSession(customerId, session.sessionId)).toEqual(before);
  });

  test('the database condition refuses a stale expected state, owner or a live send lock', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { state: 'AWAITING_HUMAN' });
    await sessions.put(session);
    await expect(sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN')).rejects.toBeInstanceOf(ConditionFailedError);

    const taken = await sessions.transitionState(session, 'AWAITING_HUMAN', 'HUMAN_ACTIVE', { changes: { assignedTo: 'operator-a' }, expectedAssignedTo: null });
    expect(taken.assignedTo).toBe('operator-a');
    await expect(sessions.transitionState(taken, 'HUMAN_ACTIVE', 'QUALIFYING', { expectedAssignedTo: 'operator-b' })).rejects.toBeInstanceOf(ConditionFailedError);

    expect(await sessions.acquireHumanSendLock(taken, 'lock-1', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(true);
    await expect(
      sessions.transitionState(taken, 'HUMAN_ACTIVE', 'CLOSED', { requireNoLiveHumanSendLockAt: '2026-03-10T12:00:10Z' }),
    ).rejects.toBeInstanceOf(ConditionFailedError);
    const closed = await sessions.transitionState(taken, 'HUMAN_ACTIVE', 'CLOSED', { requireNoLiveHumanSendLockAt: '2026-03-10T12:00:31Z', expectedAssignedTo: 'operator-a' });
    expect(closed).toMatchObject({ state: 'CLOSED', closedAt: closed.updatedAt });
    await expect(sessions.transitionState(session, 'AWAITING_HUMAN', 'HUMAN_ACTIVE')).rejects.toBeInstanceOf(ConditionFailedError);
  });

  test('a transition of a session that does not exist fails instead of creating it', async () => {
    const customerId = newCustomer();
    const ghost = newSession(customerId);
    await expect(sessions.transitionState(ghost, 'QUALIFYING', 'CLOSED')).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await storedSession(customerId, ghost.sessionId)).toBeUndefined();
  });
});

describe('listByState', () => {
  test('pages through GSI1 oldest first with a cursor that cannot be tampered with', async () => {
    const state = SessionState.AWAITING_HUMAN;
    const mine: Session[] = [];
    for (let index = 0; index < 7; index++) {
      const session = newSession(newCustomer(), { state, createdAt: `2030-01-01T00:00:0${index}.000000Z` });
      mine.push(session);
      await sessions.put(session);
    }

    const seen: Session[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await sessions.listByState(state, { limit: 3, cursor });
      seen.push(...page.items);
      cursor = page.cursor;
      pages++;
      if (pages === 1) {
        expect(page.cursor).toBeDefined();
        const tampered = `${page.cursor!.slice(0, -2)}${page.cursor!.endsWith('AA') ? 'BB' : 'AA'}`;
        await expect(sessions.listByState(state, { limit: 3, cursor: tampered })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(sessions.listByState(SessionState.QUALIFYING, { limit: 3, cursor: page.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
      }
    } while (cursor);

    expect(pages).toBeGreaterThan(2);
    const mineInOrder = seen.filter((session) => mine.some((candidate) => candidate.sessionId === session.sessionId));
    expect(mineInOrder.map((session) => session.sessionId)).toEqual(mine.map((session) => session.sessionId));
    expect(seen.every((session) => session.state === state)).toBe(true);
  });

  test('with assignedTo, lists only the sessions that operator owns, in every key layout', async () => {
    const ana = '5511900001111';
    const state = SessionState.HUMAN_ACTIVE;
    for (const layout of [KeyLayout.SEED, KeyLayout.SHARDED]) {
      const repository = new DynamoSessionRepository(kit, clock, undefined, new KeyLayoutPolicy(layout, kit, clock));
      const hers = [newSession(newCustomer(), { state, assignedTo: ana }), newSession(newCustomer(), { state, assignedTo: ana })];
      for (const session of [...hers, newSession(newCustomer(), { state, assignedTo: '5511900002222' }), newSession(newCustomer(), { state })]) await repository.put(session);

      const seen: Session[] = [];
      let cursor: string | undefined;
      do {
        const page = await repository.listByState(state, { limit: 1, cursor }, { assignedTo: ana });
        seen.push(...page.items);
        cursor = page.cursor;
      } while (cursor);
      expect(seen.every((session) => session.assignedTo === ana)).toBe(true);
      expect(seen.map((session) => session.sessionId)).toEqual(expect.arrayContaining(hers.map((session) => session.sessionId)));
    }
  });
});

describe('human send lock', () => {
  test('of many parallel operator sends exactly one holds the lock; only its holder releases it', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { state: 'HUMAN_ACTIVE', assignedTo: 'operator-a' });
    await sessions.put(session);
    const now = '2026-03-10T12:00:00Z';
    const expiresAt = '2026-03-10T12:00:30Z';

    const sends = Array.from({ length: 10 }, async (_, index) => {
      const lockId = `lock-${index}`;
      if (!(await sessions.acquireHumanSendLock(session, lockId, now, expiresAt))) return undefined;
      await messages.append({
        customerId,
        sessionId: session.sessionId,
        messageId: `operator-${index}`,
        direction: 'outbound',
        role: 'operator',
        text: `reply ${index}`,
        timestamp: '2026-03-10T12:00:01Z',
        deliveryStatus: 'sent',
      });
      return lockId;
    });
    const holders = (await Promise.all(sends)).filter((lockId): lockId is string => lockId !== undefined);

    expect(holders).toHaveLength(1);
    expect((await messages.history(customerId)).items).toHaveLength(1);
    expect((await sessions.get(customerId, session.sessionId))?.humanSendLock).toEqual({ lockId: holders[0], acquiredAt: '2026-03-10T12:00:00.000000Z', expiresAt: '2026-03-10T12:00:30.000000Z' });
    expect(await sessions.acquireHumanSendLock(session, holders[0], now, expiresAt)).toBe(true); // re-entrant
    expect(await sessions.releaseHumanSendLock(session, 'someone-else')).toBe(false);
    expect(await sessions.releaseHumanSendLock(session, holders[0])).toBe(true);
    expect((await sessions.get(customerId, session.sessionId))?.humanSendLock).toBeUndefined();
  });

  test('a dead lock can be taken over; the agent-owned states cannot be locked', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { state: 'AWAITING_HUMAN' });
    await sessions.put(session);
    expect(await sessions.acquireHumanSendLock(session, 'crashed', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(true);
    expect(await sessions.acquireHumanSendLock(session, 'next', '2026-03-10T12:00:29Z', '2026-03-10T12:00:59Z')).toBe(false);
    expect(await sessions.acquireHumanSendLock(session, 'next', '2026-03-10T12:00:30Z', '2026-03-10T12:01:00Z')).toBe(true);

    const botOwned = newSession(newCustomer());
    await sessions.put(botOwned);
    expect(await sessions.acquireHumanSendLock(botOwned, 'x', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(false);
  });
});

describe('handoff renotification marks', () => {
  test('count operator renotifications and record the customer renotification while the state holds', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { state: 'AWAITING_HUMAN' });
    await sessions.put(session);

    expect(await sessions.markHandoffRenotified(session, '2026-03-10T12:10:00Z')).toBe(true);
    expect(await sessions.markHandoffRenotified(session, '2026-03-10T12:20:00Z')).toBe(true);
    expect(await sessions.markHandoffCustomerRenotified(session, '2026-03-10T12:21:00Z')).toBe(true);
    expect(await sessions.get(customerId, session.sessionId)).toMatchObject({
      handoffRenotifyCount: 2,
      handoffRenotifiedAt: '2026-03-10T12:20:00.000000Z',
      handoffCustomerRenotifiedAt: '2026-03-10T12:21:00.000000Z',
    });

    await sessions.transitionState(session, 'AWAITING_HUMAN', 'HUMAN_ACTIVE');
    expect(await sessions.markHandoffRenotified(session, '2026-03-10T12:30:00Z')).toBe(false);
    expect(await sessions.markHandoffCustomerRenotified(session, '2026-03-10T12:30:00Z')).toBe(false);
    expect(await sessions.markHandoffRenotified(newSession(newCustomer()), '2026-03-10T12:30:00Z')).toBe(false);
  });
});

