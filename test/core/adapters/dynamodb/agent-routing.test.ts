import { activePointerToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/session-codec';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { SessionState, type Session } from '../../../../lambda/core/domain/session';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { drainablePending } from '../../../support/pending-inbound';
import { inboundTurn, newSession } from '../../../support/domain-records';
import { newCustomer } from '../../../support/ids';
import { ManualClock } from '../../../support/manual-clock';

/** Routing in the registering transaction, decided by the state the ACTIVE pointer records. */
let table: TestTable;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let receipts: DynamoInboundReceiptRepository;
let sessions: DynamoSessionRepository;
let kit: DynamoKit;

beforeAll(async () => {
  table = await createTestTable('routing');
  kit = new DynamoKit({ tableName: table.name });
  receipts = new DynamoInboundReceiptRepository(kit, clock);
  sessions = new DynamoSessionRepository(kit, clock);
});
afterAll(() => table.drop());

function session(customerId: string, state: SessionState): Session {
  return newSession(customerId, { sessionId: `s-${customerId}`, state });
}

const routed = { routeToAgentUnlessHumanOwned: true } as const;

test('a customer without a session is routed to the agent in the same transaction', async () => {
  const turn = inboundTurn(newCustomer());
  expect(await receipts.registerInbound(turn, routed)).toMatchObject({ isDuplicate: false, agentRouted: true });
  expect((await receipts.getReceipt(turn))?.agentRoutedAt).toBe('2026-03-10T12:00:00.000000Z');
  expect((await drainablePending(kit, turn.customerId)).map((pending) => pending.messageId)).toEqual([turn.messageId]);
});

test.each([SessionState.NEW, SessionState.QUALIFYING, SessionState.CLOSED])('a session in %s is routed to the agent', async (state) => {
  const customerId = newCustomer();
  await sessions.put(session(customerId, state));
  expect(await receipts.registerInbound(inboundTurn(customerId), routed)).toMatchObject({ agentRouted: true });
});

test.each([SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE])('a session in %s is registered but left for the caller to route', async (state) => {
  const customerId = newCustomer();
  await sessions.put(session(customerId, state));
  const turn = inboundTurn(customerId);
  expect(await receipts.registerInbound(turn, routed)).toEqual({ isDuplicate: false, alreadyDispatched: false, alreadyCompleted: false, agentRouted: false });
  const receipt = await receipts.getReceipt(turn);
  expect(receipt?.agentRoutedAt).toBeUndefined();
  expect((await receipts.getLatest(customerId))?.latestMessageId).toBe(turn.messageId);
});

test('a pointer without a recorded state (a bare pointer switch) is left for the caller to route', async () => {
  const customerId = newCustomer();
  await sessions.put(session(customerId, SessionState.QUALIFYING));
  await kit.put({ item: activePointerToItem(customerId, `s-${customerId}`, '2026-03-10T12:00:00.000000Z') });
  expect(await receipts.registerInbound(inboundTurn(customerId), routed)).toMatchObject({ agentRouted: false });
});

test('a state transition is copied onto the pointer, so routing follows a human takeover and its end', async () => {
  const customerId = newCustomer();
  const start = session(customerId, SessionState.QUALIFYING);
  await sessions.put(start);
  const waiting = await sessions.transitionState(start, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN);
  expect(await receipts.registerInbound(inboundTurn(customerId), routed)).toMatchObject({ agentRouted: false });
  await sessions.transitionState(waiting, SessionState.AWAITING_HUMAN, SessionState.QUALIFYING);
  expect(await receipts.registerInbound(inboundTurn(customerId), routed)).toMatchObject({ agentRouted: true });
});

test('transitioning a session that is no longer the active one leaves the pointer alone', async () => {
  const customerId = newCustomer();
  const old = session(customerId, SessionState.QUALIFYING);
  await sessions.put(old);
  await sessions.put({ ...session(customerId, SessionState.QUALIFYING), sessionId: `s2-${customerId}` });
  await sessions.transitionState(old, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN);
  expect(await receipts.registerInbound(inboundTurn(customerId), routed)).toMatchObject({ agentRouted: true });
});

test('a duplicate reports how the first delivery was routed', async () => {
  const turn = inboundTurn(newCustomer());
  await receipts.registerInbound(turn, routed);
  expect(await receipts.registerInbound(turn, routed)).toEqual({ isDuplicate: true, alreadyDispatched: false, alreadyCompleted: false, agentRouted: true });
});
