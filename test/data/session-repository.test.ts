import { randomUUID } from 'node:crypto';
import { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { activePointerKey, sessionKey } from '../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../lambda/core/adapters/dynamodb/session-repository';
import { ConditionFailedError, IllegalStateTransitionError, InvalidCursorError } from '../../lambda/core/domain/errors';
import { LEGAL_TRANSITIONS, type Session, SESSION_STATES, SessionState } from '../../lambda/core/domain/session';
import { isoMicros } from '../../lambda/core/domain/timestamps';
import type { AgentResultWrite } from '../../lambda/core/ports/repositories';
import { createTestTable, type TestTable } from '../support/dynamo-table';
import { CallRecorder } from './support/call-recorder';
import { inboundTurn, invalidateAsSeedDid, newPhone, newSession } from './support/fixtures';
import { ManualClock } from './support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let sessions: DynamoSessionRepository;
let receipts: DynamoInboundReceiptRepository;
let messages: DynamoMessageRepository;

beforeAll(async () => {
  table = await createTestTable('sessions');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
  sessions = new DynamoSessionRepository(kit, clock);
  receipts = new DynamoInboundReceiptRepository(kit, clock);
  messages = new DynamoMessageRepository(kit, clock);
});
afterAll(() => table.drop());

async function storedSession(customerId: string, sessionId: string) {
  return kit.get({ key: sessionKey(customerId, sessionId), consistentRead: true });
}

describe('put / get / getActive', () => {
  test('session and ACTIVE pointer are written together and read back consistently', async () => {
    const customerId = newPhone();
    const session = newSession(customerId, { segment: 'PESQUISA', intent: 'servico', cadastralData: { name: 'Maria' } });

    await sessions.put(session);

    expect(await sessions.getActive(customerId)).toEqual(session);
    expect(await sessions.get(customerId, session.sessionId)).toEqual(session);
    const stored = await storedSession(customerId, session.sessionId);
    expect(stored).toMatchObject({ GSI1PK: 'STATE#QUALIFYING', GSI1SK: '2026-03-10T12:00:00.000000Z', entity_type: 'session' });
    expect(await kit.get({ key: activePointerKey(customerId) })).toMatchObject({ session_id: session.sessionId, updated_at: '2026-03-10T12:00:00.000000Z' });
  });

  test('a customer without a pointer has no active session; the last session put is the active one', async () => {
    const customerId = newPhone();
    expect(await sessions.getActive(customerId)).toBeUndefined();
    const first = newSession(customerId);
    const second = newSession(customerId);
    await sessions.put(first);
    expect((await sessions.getActive(customerId))?.sessionId).toBe(first.sessionId);
    await sessions.put(second);
    expect((await sessions.getActive(customerId))?.sessionId).toBe(second.sessionId);
  });

  test('attributes this version does not know survive a read-modify-write', async () => {
    const customerId = newPhone();
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
    const customerId = newPhone();
    const session = newSession(customerId);
    await sessions.put(session);
    clock.advance(1000);

    const updated = await sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN', { changes: { handoffRequestedAt: '2026-03-10T12:00:01Z', currentAgent: null } });

    expect(updated).toMatchObject({ state: 'AWAITING_HUMAN', handoffRequestedAt: '2026-03-10T12:00:01.000000Z', updatedAt: '2026-03-10T12:00:01.000000Z' });
    expect(updated.currentAgent).toBeUndefined();
    expect(await sessions.get(customerId, session.sessionId)).toEqual(updated);
    expect((await storedSession(customerId, session.sessionId))?.GSI1PK).toBe('STATE#AWAITING_HUMAN');
  });

  test('every illegal transition is refused before any write', async () => {
    const customerId = newPhone();
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
            sessions.tryPutAgentResult({ session: { ...session, state: to }, expectedState: from, expectedLatestMessageId: 'x', expectedActiveSessionId: session.sessionId }),
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
    const customerId = newPhone();
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
    const customerId = newPhone();
    const ghost = newSession(customerId);
    await expect(sessions.transitionState(ghost, 'QUALIFYING', 'CLOSED')).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await storedSession(customerId, ghost.sessionId)).toBeUndefined();
  });
});

describe('tryPutAgentResult (reply outbox)', () => {
  async function registeredTurn(customerId: string) {
    const turn = inboundTurn(customerId);
    await receipts.registerInbound(turn);
    return turn;
  }

  function resultFor(session: Session, latest: string, overrides: Partial<AgentResultWrite> = {}): AgentResultWrite {
    return {
      session,
      expectedState: undefined,
      expectedLatestMessageId: latest,
      expectedActiveSessionId: undefined,
      reply: { messageId: randomUUID(), text: 'Olá! Como posso ajudar?', replyToMessageId: latest, createdAt: '2026-03-10T12:00:02Z', llm: { model: 'scripted', inputTokens: 12 } },
      ...overrides,
    };
  }

  test('persists session, pointer, the pending reply and the outbox reference in one transaction', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const session = newSession(customerId, { state: 'NEW' });
    const write = resultFor(session, turn.messageId);

    calls.reset();
    expect(await sessions.tryPutAgentResult(write)).toBe(true);
    expect(calls.operations()).toEqual(['transact']);

    expect(await sessions.getActive(customerId)).toEqual(session);
    const outbox = (await receipts.getLatest(customerId))?.outbox;
    expect(outbox).toEqual({ ref: messages.refFor({ customerId, timestamp: write.reply!.createdAt, messageId: write.reply!.messageId }), replyToMessageId: turn.messageId });
    expect(await messages.getOutbound(outbox!.ref)).toMatchObject({
      direction: 'outbound',
      role: 'assistant',
      deliveryStatus: 'pending_send',
      text: write.reply!.text,
      sessionId: session.sessionId,
      replyToMessageId: turn.messageId,
    });

    // The send confirms the reply (once), then the turn's completion clears the outbox.
    expect(await messages.markOutboundSent(outbox!.ref, 'wamid.sent-1', '2026-03-10T12:00:03Z')).toBe(true);
    expect(await messages.markOutboundSent(outbox!.ref, 'wamid.sent-2', '2026-03-10T12:00:04Z')).toBe(false);
    await receipts.completeTurn({ customerId, answered: [turn], outbox: outbox!.ref });
    expect((await receipts.getLatest(customerId))?.outbox).toBeUndefined();
    expect(await messages.getOutbound(outbox!.ref)).toMatchObject({ deliveryStatus: 'sent', providerMessageId: 'wamid.sent-1', sentAt: '2026-03-10T12:00:03.000000Z' });
  });

  test('completeTurn settles the reply and its messages in ONE transaction, on the marker the turn holds', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId, { state: 'NEW' }), turn.messageId);
    expect(await sessions.tryPutAgentResult(write)).toBe(true);
    const latest = (await receipts.getLatest(customerId))!;
    const answered = [{ customerId, messageId: turn.messageId }];

    calls.reset();
    await receipts.completeTurn({ customerId, answered, latest, outbox: latest.outbox!.ref, delivery: { status: 'sent', providerMessageId: 'wamid.sent-1', sentAt: '2026-03-10T12:00:03Z' } });
    expect(calls.operations()).toEqual(['transact']);

    const after = await receipts.getLatest(customerId);
    expect(after?.outbox).toBeUndefined();
    expect(after?.pendingMessageIds).toEqual([]);
    expect((await receipts.getReceipt(turn))?.completedAt).toBeDefined();
    expect(await messages.getOutbound(latest.outbox!.ref)).toMatchObject({ deliveryStatus: 'sent', providerMessageId: 'wamid.sent-1' });
  });

  test('completeTurn on a stale marker: re-reads the list, leaves a reply another record settled as it is', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId, { state: 'NEW' }), turn.messageId);
    expect(await sessions.tryPutAgentResult(write)).toBe(true);
    const stale = (await receipts.getLatest(customerId))!;
    const answered = [{ customerId, messageId: turn.messageId }];
    // Meanwhile another record settled the reply (superseded it) and a newer message arrived.
    await receipts.completeTurn({ customerId, answered, outbox: stale.outbox!.ref, delivery: { status: 'superseded', at: '2026-03-10T12:00:04Z' } });
    const newer = await registeredTurn(customerId);

    await receipts.completeTurn({ customerId, answered, latest: stale, outbox: stale.outbox!.ref, delivery: { status: 'sent', providerMessageId: 'wamid.late', sentAt: '2026-03-10T12:00:05Z' } });

    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([newer.messageId]);
    expect(await messages.getOutbound(stale.outbox!.ref)).toMatchObject({ deliveryStatus: 'superseded' });
  });

  test('a superseded turn writes nothing and answers false', async () => {
    const customerId = newPhone();
    const first = await registeredTurn(customerId);
    await registeredTurn(customerId); // a newer message arrived while the agent was thinking
    const session = newSession(customerId);

    expect(await sessions.tryPutAgentResult(resultFor(session, first.messageId))).toBe(false);

    expect(await sessions.getActive(customerId)).toBeUndefined();
    expect(await storedSession(customerId, session.sessionId)).toBeUndefined();
    expect((await receipts.getLatest(customerId))?.outbox).toBeUndefined();
    expect((await messages.history(customerId)).items).toEqual([]);
  });

  test('refused when the state, the pointer, an invalidation or a pending reply changed the picture', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const session = newSession(customerId);
    await sessions.put(session);

    // The state moved on (a human took over).
    await sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN');
    expect(await sessions.tryPutAgentResult(resultFor(session, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: session.sessionId }))).toBe(false);

    // The pointer moved to another session.
    const other = newSession(customerId);
    await sessions.put(other);
    expect(await sessions.tryPutAgentResult(resultFor(newSession(customerId), turn.messageId))).toBe(false);
    expect(await sessions.tryPutAgentResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: session.sessionId }))).toBe(false);

    // A reply already pending must be resolved first.
    expect(await sessions.tryPutAgentResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId }))).toBe(true);
    expect(await sessions.tryPutAgentResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId }))).toBe(false);

    // Invalidated: even without a reply the result is refused.
    await invalidateAsSeedDid(kit, customerId, '2026-03-10T12:00:00.000000Z');
    expect(await sessions.tryPutAgentResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId, reply: undefined }))).toBe(false);
  });

  test('replaced sessions are written in the same transaction, only from their expected state', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const old = newSession(customerId);
    await sessions.put(old);
    const fresh = newSession(customerId, { state: 'NEW' });
    const closedOld = { ...old, state: SessionState.CLOSED, closedAt: '2026-03-10T12:00:02.000000Z' };

    expect(
      await sessions.tryPutAgentResult(resultFor(fresh, turn.messageId, { expectedActiveSessionId: old.sessionId, replacedSessions: [{ session: closedOld, expectedState: 'QUALIFYING' }] })),
    ).toBe(true);

    expect((await sessions.getActive(customerId))?.sessionId).toBe(fresh.sessionId);
    expect((await sessions.get(customerId, old.sessionId))?.state).toBe('CLOSED');
  });

  test('a completion settles the outbox reply as superseded or permanently failed, once', async () => {
    const customerId = newPhone();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId), turn.messageId);
    await sessions.tryPutAgentResult(write);
    const ref = (await receipts.getLatest(customerId))!.outbox!.ref;
    const answered = [{ customerId, messageId: turn.messageId }];

    await receipts.completeTurn({ customerId, answered, outbox: ref, delivery: { status: 'superseded', at: isoMicros(clock.now()) } });
    await receipts.completeTurn({ customerId, answered, outbox: ref, delivery: { status: 'failed_permanent', reason: 'window closed' } });

    expect(await messages.getOutbound(ref)).toMatchObject({ deliveryStatus: 'superseded', supersededAt: isoMicros(clock.now()) });
    expect((await messages.getOutbound(ref))?.failureReason).toBeUndefined();
  });
});

describe('listByState', () => {
  test('pages through GSI1 oldest first with a cursor that cannot be tampered with', async () => {
    const state = SessionState.AWAITING_HUMAN;
    const mine: Session[] = [];
    for (let index = 0; index < 7; index++) {
      const session = newSession(newPhone(), { state, createdAt: `2030-01-01T00:00:0${index}.000000Z` });
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
});

describe('human send lock', () => {
  test('of many parallel operator sends exactly one holds the lock; only its holder releases it', async () => {
    const customerId = newPhone();
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
    const customerId = newPhone();
    const session = newSession(customerId, { state: 'AWAITING_HUMAN' });
    await sessions.put(session);
    expect(await sessions.acquireHumanSendLock(session, 'crashed', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(true);
    expect(await sessions.acquireHumanSendLock(session, 'next', '2026-03-10T12:00:29Z', '2026-03-10T12:00:59Z')).toBe(false);
    expect(await sessions.acquireHumanSendLock(session, 'next', '2026-03-10T12:00:30Z', '2026-03-10T12:01:00Z')).toBe(true);

    const botOwned = newSession(newPhone());
    await sessions.put(botOwned);
    expect(await sessions.acquireHumanSendLock(botOwned, 'x', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(false);
  });
});

describe('handoff renotification marks', () => {
  test('count operator renotifications and record the customer renotification while the state holds', async () => {
    const customerId = newPhone();
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
    expect(await sessions.markHandoffRenotified(newSession(newPhone()), '2026-03-10T12:30:00Z')).toBe(false);
  });
});

