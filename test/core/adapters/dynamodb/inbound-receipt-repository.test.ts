import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { legacyBufferToItem, legacyPendingReplyToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import { DynamoInboundReceiptRepository } from '../../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoLegacyDebounceRepository } from '../../../../lambda/core/adapters/dynamodb/legacy-debounce-repository';
import { DynamoTurnLedger } from '../../../../lambda/core/adapters/dynamodb/turn-ledger';
import { inboundReceiptKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { ConditionFailedError } from '../../../../lambda/core/ports/repositories';
import { RECEIPT_RETENTION_SECONDS, type InboundRef } from '../../../../lambda/core/domain/inbound-receipt';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { isCompleted } from '../../../support/inspect';
import { drainablePending, invalidateAsSeedDid } from '../../../support/pending-inbound';
import { inboundTurn } from '../../../support/domain-records';
import { newCustomer } from '../../../support/ids';
import { ManualClock } from '../../../support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let receipts: DynamoInboundReceiptRepository;
let legacy: DynamoLegacyDebounceRepository;
let ledger: DynamoTurnLedger;

/** The synchronous claim as the seed system wrote it (this runtime never claims, it only honours one). */
async function claimAsSeedDid(ref: InboundRef): Promise<void> {
  await kit.update({ key: inboundReceiptKey(ref.customerId, ref.messageId), update: 'SET #claim = :at', names: { '#claim': 'sync_claimed_at' }, values: { ':at': '2026-03-10T12:00:00.000000Z' } });
}

beforeAll(async () => {
  table = await createTestTable('receipts');
  kit = new DynamoKit({ tableName: table.name });
  receipts = new DynamoInboundReceiptRepository(kit, clock);
  legacy = new DynamoLegacyDebounceRepository(kit);
  ledger = new DynamoTurnLedger(kit, clock);
});
afterAll(() => table.drop());

describe('registerInbound', () => {
  test('stores the normalised receipt with a 7-day TTL and makes the message latest and pending', async () => {
    const customerId = newCustomer();
    const turn = inboundTurn(customerId, { providerTimestamp: '2026-03-10T11:59:00+00:00', displayPhoneNumber: '+55 11 4000-0000' });

    expect(await receipts.registerInbound(turn)).toEqual({ isDuplicate: false, alreadyDispatched: false, alreadyCompleted: false, agentRouted: false });

    const receipt = await receipts.getReceipt(turn);
    expect(receipt?.turn).toEqual({ ...turn, providerTimestamp: '2026-03-10T11:59:00.000000Z', receivedAt: '2026-03-10T11:59:01.000000Z' });
    expect(receipt?.registeredAt).toBe('2026-03-10T12:00:00.000000Z');
    expect(receipt?.expiresAtEpochSeconds).toBe(Date.parse('2026-03-10T12:00:00Z') / 1000 + RECEIPT_RETENTION_SECONDS);
    const latest = await receipts.getLatest(customerId);
    expect(latest).toMatchObject({ customerId, latestMessageId: turn.messageId, pendingMessageIds: [turn.messageId] });
  });

  test('a redelivered old message changes nothing: it never becomes latest again', async () => {
    const customerId = newCustomer();
    const first = inboundTurn(customerId);
    const second = inboundTurn(customerId);
    await receipts.registerInbound(first);
    await receipts.registerInbound(second);

    const again = await receipts.registerInbound(first);

    expect(again).toEqual({ isDuplicate: true, alreadyDispatched: false, alreadyCompleted: false, agentRouted: false });
    expect(await receipts.getLatest(customerId)).toMatchObject({ latestMessageId: second.messageId, pendingMessageIds: [first.messageId, second.messageId] });
  });

  test('a duplicate reports whether the original was already dispatched and completed', async () => {
    const customerId = newCustomer();
    const turn = inboundTurn(customerId);
    await receipts.registerInbound(turn);
    await receipts.markDispatched(turn);
    expect(await receipts.registerInbound(turn)).toEqual({ isDuplicate: true, alreadyDispatched: true, alreadyCompleted: false, agentRouted: false });
    await ledger.complete({ customerId, answered: [turn] });
    expect(await receipts.registerInbound(turn)).toEqual({ isDuplicate: true, alreadyDispatched: true, alreadyCompleted: true, agentRouted: false });
  });

  test('parallel registrations of one message leave exactly one receipt and one pending entry', async () => {
    const customerId = newCustomer();
    const turn = inboundTurn(customerId);

    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => receipts.registerInbound(turn)));

    const registered = outcomes.filter((outcome) => outcome.status === 'fulfilled' && !outcome.value.isDuplicate);
    expect(registered).toHaveLength(1);
    // Any call that did not register saw the duplicate (or surfaced a retryable error; never a second write).
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).not.toBeInstanceOf(ConditionFailedError);
    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([turn.messageId]);
    expect(await kit.get({ key: inboundReceiptKey(customerId, turn.messageId), consistentRead: true })).toBeDefined();
  });
});

describe('routing markers', () => {
  test('agent routing is idempotent and refused for a message the seed system claimed synchronously', async () => {
    const customerId = newCustomer();
    const routed = inboundTurn(customerId);
    const claimed = inboundTurn(customerId);
    await receipts.registerInbound(routed);
    await receipts.registerInbound(claimed);

    expect(await receipts.markAgentRouted(routed)).toBe(true);
    expect(await receipts.markAgentRouted(routed)).toBe(true);

    await claimAsSeedDid(claimed);
    expect(await receipts.markAgentRouted(claimed)).toBe(false);
    expect((await receipts.getReceipt(claimed))?.agentRoutedAt).toBeUndefined();
  });

  test('markers never create a receipt that was not registered', async () => {
    const customerId = newCustomer();
    const ghost = inboundTurn(customerId);
    expect(await receipts.markAgentRouted(ghost)).toBe(false);
    await expect(receipts.markDispatched(ghost)).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await receipts.getReceipt(ghost)).toBeUndefined();
  });

  test('a human-routed message leaves the pending list and is never drained by the agent', async () => {
    const customerId = newCustomer();
    const forAgent = inboundTurn(customerId);
    const forHuman = inboundTurn(customerId);
    await receipts.registerInbound(forAgent);
    await receipts.registerInbound(forHuman);
    await receipts.markAgentRouted(forAgent);

    expect(await receipts.markHumanRouted(forHuman)).toBe(true);
    expect(await receipts.markHumanRouted(forAgent)).toBe(false);

    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([forAgent.messageId]);
    expect((await drainablePending(kit, customerId)).map((turn) => turn.messageId)).toEqual([forAgent.messageId]);
  });
});

describe('what a turn drains', () => {
  test('drains in registration order with tied and regressing timestamps bumped by 1 µs', async () => {
    const customerId = newCustomer();
    const turns = [
      inboundTurn(customerId, { providerTimestamp: '2026-03-10T11:00:00Z' }),
      inboundTurn(customerId, { providerTimestamp: '2026-03-10T11:00:00Z' }), // tied
      inboundTurn(customerId, { providerTimestamp: '2026-03-10T10:59:59.999999Z' }), // regressing
      inboundTurn(customerId, { providerTimestamp: '2026-03-10T11:00:05Z' }), // later: kept as is
    ];
    for (const turn of turns) {
      await receipts.registerInbound(turn);
      await receipts.markAgentRouted(turn);
    }

    const pending = await drainablePending(kit, customerId);

    expect(pending.map((turn) => turn.messageId)).toEqual(turns.map((turn) => turn.messageId));
    expect(pending.map((turn) => turn.historyTimestamp)).toEqual([
      '2026-03-10T11:00:00.000000Z',
      '2026-03-10T11:00:00.000001Z',
      '2026-03-10T11:00:00.000002Z',
      '2026-03-10T11:00:05.000000Z',
    ]);
    expect(pending[1].providerTimestamp).toBe('2026-03-10T11:00:00.000000Z');
  });

  test('only agent-routed (or dispatched) and uncompleted receipts are drained', async () => {
    const customerId = newCustomer();
    const unrouted = inboundTurn(customerId);
    const dispatchedByOlderRelease = inboundTurn(customerId);
    const claimed = inboundTurn(customerId);
    const routed = inboundTurn(customerId);
    for (const turn of [unrouted, dispatchedByOlderRelease, claimed, routed]) await receipts.registerInbound(turn);
    await receipts.markDispatched(dispatchedByOlderRelease);
    await claimAsSeedDid(claimed);
    await receipts.markAgentRouted(routed);

    const pending = await drainablePending(kit, customerId);

    expect(pending.map((turn) => turn.messageId)).toEqual([dispatchedByOlderRelease.messageId, routed.messageId]);
  });

  test('a customer with nothing registered has nothing pending', async () => {
    expect(await drainablePending(kit, newCustomer())).toEqual([]);
  });
});

describe('completion', () => {
  test('marks receipts completed, removes them from the pending list and places later messages after them', async () => {
    const customerId = newCustomer();
    const [a, b, c] = [0, 1, 2].map(() => inboundTurn(customerId, { providerTimestamp: '2026-03-10T11:00:00Z' }));
    for (const turn of [a, b]) {
      await receipts.registerInbound(turn);
      await receipts.markAgentRouted(turn);
    }
    const drained = await drainablePending(kit, customerId);
    await receipts.registerInbound(c);
    await receipts.markAgentRouted(c);

    await ledger.complete({ customerId, answered: drained });

    expect(await isCompleted(receipts, a)).toBe(true);
    expect(await isCompleted(receipts, b)).toBe(true);
    expect(await isCompleted(receipts, c)).toBe(false);
    const latest = await receipts.getLatest(customerId);
    expect(latest?.pendingMessageIds).toEqual([c.messageId]);
    expect(latest?.historyWatermark).toBe('2026-03-10T11:00:00.000001Z');
    // c has the same provider timestamp as a and b: history still places it after them.
    expect((await drainablePending(kit, customerId)).map((turn) => turn.historyTimestamp)).toEqual(['2026-03-10T11:00:00.000002Z']);
    // Completing again is harmless.
    await ledger.complete({ customerId, answered: drained });
    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([c.messageId]);
  });

  test('removal by index stays correct while new messages are registered concurrently', async () => {
    const customerId = newCustomer();
    const early = Array.from({ length: 6 }, () => inboundTurn(customerId));
    for (const turn of early) await receipts.registerInbound(turn);
    const late = Array.from({ length: 6 }, () => inboundTurn(customerId));

    await Promise.all([
      ...early.filter((_, index) => index % 2 === 0).map((turn) => ledger.complete({ customerId, answered: [turn] })),
      ...late.map((turn) => receipts.registerInbound(turn)),
    ]);

    const pending = (await receipts.getLatest(customerId))?.pendingMessageIds ?? [];
    const expected = [...early.filter((_, index) => index % 2 === 1), ...late].map((turn) => turn.messageId);
    expect([...pending].sort()).toEqual([...expected].sort());
    expect(pending.filter((id) => early.some((turn) => turn.messageId === id))).toEqual(early.filter((_, index) => index % 2 === 1).map((turn) => turn.messageId));
  });
});

describe('latest-message-wins markers', () => {
  test('an invalidation barrier the seed system left drains nothing until a new message lifts it', async () => {
    const customerId = newCustomer();
    const old = inboundTurn(customerId);
    await receipts.registerInbound(old);
    await receipts.markAgentRouted(old);

    await invalidateAsSeedDid(kit, customerId, '2026-03-10T12:00:00.000000Z');
    expect((await receipts.getLatest(customerId))?.invalidatedAt).toBe('2026-03-10T12:00:00.000000Z');
    expect(await drainablePending(kit, customerId)).toEqual([]);

    const next = inboundTurn(customerId);
    await receipts.registerInbound(next);
    expect((await receipts.getLatest(customerId))?.invalidatedAt).toBeUndefined();
    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([next.messageId]);
  });
});

describe('legacy debounce items', () => {
  test('buffer round trip with a 30 s TTL, deleted only when it is still the expected buffer', async () => {
    const customerId = newCustomer();
    const buffer = {
      customerId,
      messageIds: ['wamid.1', 'wamid.2'],
      texts: ['oi', 'tudo bem?'],
      firstMessageAt: '2026-03-10T11:00:00Z',
      lastMessageAt: '2026-03-10T11:00:10Z',
    };
    await kit.put({ item: legacyBufferToItem(buffer) });
    expect((await legacy.getLegacyItems(customerId)).buffer).toEqual({ ...buffer, firstMessageAt: '2026-03-10T11:00:00.000000Z', lastMessageAt: '2026-03-10T11:00:10.000000Z' });
    const stored = await kit.get({ key: { PK: `DEBOUNCE#${customerId}`, SK: 'BUFFER' } });
    expect(stored?.ttl).toBe(Date.parse('2026-03-10T11:00:30Z') / 1000);

    expect(await legacy.deleteLegacyBufferIfFirstMessageAt(customerId, '2026-03-10T11:00:01Z')).toBe(false);
    expect((await legacy.getLegacyItems(customerId)).buffer).toBeDefined();
    expect(await legacy.deleteLegacyBufferIfFirstMessageAt(customerId, '2026-03-10T11:00:00.000+00:00')).toBe(true);
    expect((await legacy.getLegacyItems(customerId)).buffer).toBeUndefined();
  });

  test('pending reply round trip', async () => {
    const customerId = newCustomer();
    const reply = { customerId, text: 'Resposta anterior', sessionId: 'session-1', state: 'QUALIFYING' as const, firstMessageId: 'wamid.1', createdAt: '2026-03-10T11:00:00.000000Z' };
    await kit.put({ item: legacyPendingReplyToItem(reply) });
    expect((await legacy.getLegacyItems(customerId)).pendingReply).toEqual(reply);
    await legacy.deleteLegacyPendingReply(customerId);
    expect((await legacy.getLegacyItems(customerId)).pendingReply).toBeUndefined();
  });
});
