// The turn's cross-entity writes: the result with its reply in the outbox, and the completion
// that settles the reply with the messages it answered.
import { randomUUID } from 'node:crypto';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { sessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { DynamoTurnLedger } from '../../../../lambda/core/adapters/dynamodb/turn-ledger';
import type { Session } from '../../../../lambda/core/domain/session';
import { isoMicros } from '../../../../lambda/core/domain/timestamps';
import type { TurnResult } from '../../../../lambda/core/ports/repositories';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { CallRecorder } from '../../../support/dynamo-call-recorder';
import { inboundTurn, newSession } from '../../../support/domain-records';
import { invalidateAsSeedDid } from '../../../support/pending-inbound';
import { newCustomer } from '../../../support/ids';
import { ManualClock } from '../../../support/manual-clock';

const sentAs = (providerMessageId: string) => ({ providerMessageId, providerMessageIds: [providerMessageId] });

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let sessions: DynamoSessionRepository;
let receipts: DynamoInboundReceiptRepository;
let messages: DynamoMessageRepository;
let ledger: DynamoTurnLedger;

beforeAll(async () => {
  table = await createTestTable('ledger');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
  sessions = new DynamoSessionRepository(kit, clock);
  receipts = new DynamoInboundReceiptRepository(kit, clock);
  messages = new DynamoMessageRepository(kit, clock);
  ledger = new DynamoTurnLedger(kit, clock, { sessions, messages });
});
afterAll(() => table.drop());

async function storedSession(customerId: string, sessionId: string) {
  return kit.get({ key: sessionKey(customerId, sessionId), consistentRead: true });
}

describe('persistResult (reply outbox) and complete', () => {
  async function registeredTurn(customerId: string) {
    const turn = inboundTurn(customerId);
    await receipts.registerInbound(turn);
    return turn;
  }

  function resultFor(session: Session, latest: string, overrides: Partial<TurnResult> = {}): TurnResult {
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
    const customerId = newCustomer();
    const turn = await registeredTurn(customerId);
    const session = newSession(customerId, { state: 'NEW' });
    const write = resultFor(session, turn.messageId);

    calls.reset();
    expect(await ledger.persistResult(write)).toBe(true);
    // Then the raise of the agent's activity, which an admin's open lists of the agent's conversations compare.
    expect(calls.operations()).toEqual(['transact', 'update']);

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
    expect(await messages.markOutboundSent(outbox!.ref, sentAs('wamid.sent-1'), '2026-03-10T12:00:03Z')).toBe(true);
    expect(await messages.markOutboundSent(outbox!.ref, sentAs('wamid.sent-2'), '2026-03-10T12:00:04Z')).toBe(false);
    await ledger.complete({ customerId, answered: [turn], outbox: outbox!.ref });
    expect((await receipts.getLatest(customerId))?.outbox).toBeUndefined();
    expect(await messages.getOutbound(outbox!.ref)).toMatchObject({ deliveryStatus: 'sent', providerMessageId: 'wamid.sent-1', sentAt: '2026-03-10T12:00:03.000000Z' });
  });

  test('complete settles the reply and its messages in ONE transaction, on the marker the turn holds', async () => {
    const customerId = newCustomer();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId, { state: 'NEW' }), turn.messageId);
    expect(await ledger.persistResult(write)).toBe(true);
    const latest = (await receipts.getLatest(customerId))!;
    const answered = [{ customerId, messageId: turn.messageId }];

    calls.reset();
    await ledger.complete({ customerId, answered, latest, outbox: latest.outbox!.ref, delivery: { status: 'sent', ...sentAs('wamid.sent-1'), sentAt: '2026-03-10T12:00:03Z' } });
    expect(calls.operations()).toEqual(['transact']);

    const after = await receipts.getLatest(customerId);
    expect(after?.outbox).toBeUndefined();
    expect(after?.pendingMessageIds).toEqual([]);
    expect((await receipts.getReceipt(turn))?.completedAt).toBeDefined();
    expect(await messages.getOutbound(latest.outbox!.ref)).toMatchObject({ deliveryStatus: 'sent', providerMessageId: 'wamid.sent-1' });
  });

  test('complete on a stale marker: re-reads the list, leaves a reply another record settled as it is', async () => {
    const customerId = newCustomer();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId, { state: 'NEW' }), turn.messageId);
    expect(await ledger.persistResult(write)).toBe(true);
    const stale = (await receipts.getLatest(customerId))!;
    const answered = [{ customerId, messageId: turn.messageId }];
    // Meanwhile another record settled the reply (superseded it) and a newer message arrived.
    await ledger.complete({ customerId, answered, outbox: stale.outbox!.ref, delivery: { status: 'superseded', at: '2026-03-10T12:00:04Z' } });
    const newer = await registeredTurn(customerId);

    await ledger.complete({ customerId, answered, latest: stale, outbox: stale.outbox!.ref, delivery: { status: 'sent', ...sentAs('wamid.late'), sentAt: '2026-03-10T12:00:05Z' } });

    expect((await receipts.getLatest(customerId))?.pendingMessageIds).toEqual([newer.messageId]);
    expect(await messages.getOutbound(stale.outbox!.ref)).toMatchObject({ deliveryStatus: 'superseded' });
  });

  test('a superseded turn writes nothing and answers false', async () => {
    const customerId = newCustomer();
    const first = await registeredTurn(customerId);
    await registeredTurn(customerId); // a newer message arrived while the agent was thinking
    const session = newSession(customerId);

    expect(await ledger.persistResult(resultFor(session, first.messageId))).toBe(false);

    expect(await sessions.getActive(customerId)).toBeUndefined();
    expect(await storedSession(customerId, session.sessionId)).toBeUndefined();
    expect((await receipts.getLatest(customerId))?.outbox).toBeUndefined();
    expect((await messages.history(customerId)).items).toEqual([]);
  });

  test('refused when the state, the pointer, an invalidation or a pending reply changed the picture', async () => {
    const customerId = newCustomer();
    const turn = await registeredTurn(customerId);
    const session = newSession(customerId);
    await sessions.put(session);

    // The state moved on (a human took over).
    await sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN');
    expect(await ledger.persistResult(resultFor(session, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: session.sessionId }))).toBe(false);

    // The pointer moved to another session.
    const other = newSession(customerId);
    await sessions.put(other);
    expect(await ledger.persistResult(resultFor(newSession(customerId), turn.messageId))).toBe(false);
    expect(await ledger.persistResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: session.sessionId }))).toBe(false);

    // A reply already pending must be resolved first.
    expect(await ledger.persistResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId }))).toBe(true);
    expect(await ledger.persistResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId }))).toBe(false);

    // Invalidated: even without a reply the result is refused.
    await invalidateAsSeedDid(kit, customerId, '2026-03-10T12:00:00.000000Z');
    expect(await ledger.persistResult(resultFor(other, turn.messageId, { expectedState: 'QUALIFYING', expectedActiveSessionId: other.sessionId, reply: undefined }))).toBe(false);
  });

  test('a completion settles the outbox reply as superseded or permanently failed, once', async () => {
    const customerId = newCustomer();
    const turn = await registeredTurn(customerId);
    const write = resultFor(newSession(customerId), turn.messageId);
    await ledger.persistResult(write);
    const ref = (await receipts.getLatest(customerId))!.outbox!.ref;
    const answered = [{ customerId, messageId: turn.messageId }];

    await ledger.complete({ customerId, answered, outbox: ref, delivery: { status: 'superseded', at: isoMicros(clock.now()) } });
    await ledger.complete({ customerId, answered, outbox: ref, delivery: { status: 'failed_permanent', reason: 'window closed' } });

    expect(await messages.getOutbound(ref)).toMatchObject({ deliveryStatus: 'superseded', supersededAt: isoMicros(clock.now()) });
    expect((await messages.getOutbound(ref))?.failureReason).toBeUndefined();
  });
});
