import { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoSessionRepository } from '../../lambda/core/adapters/dynamodb/session-repository';
import { SessionState, type Session } from '../../lambda/core/domain/session';
import { createTestTable, type TestTable } from '../support/dynamo-table';
import { inboundTurn, newPhone, newSession } from './support/fixtures';
import { ManualClock } from './support/manual-clock';

/** Routing in the registering transaction, decided by the state the ACTIVE pointer records. */
let table: TestTable;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let receipts: DynamoInboundReceiptRepository;
let sessions: DynamoSessionRepository;

beforeAll(async () => {
  table = await createTestTable('routing');
  const kit = new DynamoKit({ tableName: table.name });
  receipts = new DynamoInboundReceiptRepository(kit, clock);
  sessions = new DynamoSessionRepository(kit, clock);
});
afterAll(() => table.drop());

function session(phone: string, state: SessionState): Session {
  return newSession(phone, { sessionId: `s-${phone}`, state });
}

const routed = { routeToAgentUnlessHumanOwned: true } as const;

test('a customer without a session is routed to the agent in the same transaction', async () => {
  const turn = inboundTurn(newPhone());
  expect(await receipts.registerInbound(turn, routed)).toMatchObject({ isDuplicate: false, agentRouted: true });
  expect((await receipts.getReceipt(turn))?.agentRoutedAt).toBe('2026-03-10T12:00:00.000000Z');
  expect((await receipts.pendingInbounds(turn.phoneNumber)).map((pending) => pending.messageId)).toEqual([turn.messageId]);
});

test.each([SessionState.NEW, SessionState.QUALIFYING, SessionState.CLOSED])('a session in %s is routed to the agent', async (state) => {
  const phone = newPhone();
  await sessions.put(session(phone, state));
  expect(await receipts.registerInbound(inboundTurn(phone), routed)).toMatchObject({ agentRouted: true });
});

test.each([SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE])('a session in %s is registered but left for the caller to route', async (state) => {
  const phone = newPhone();
  await sessions.put(session(phone, state));
  const turn = inboundTurn(phone);
  expect(await receipts.registerInbound(turn, routed)).toEqual({ isDuplicate: false, alreadyDispatched: false, alreadyCompleted: false, agentRouted: false });
  const receipt = await receipts.getReceipt(turn);
  expect(receipt?.agentRoutedAt).toBeUndefined();
  expect((await receipts.getLatest(phone))?.latestMessageId).toBe(turn.messageId);
});

test('a pointer without a recorded state (a bare pointer switch) is left for the caller to route', async () => {
  const phone = newPhone();
  await sessions.put(session(phone, SessionState.QUALIFYING));
  await sessions.setActivePointer(phone, `s-${phone}`);
  expect(await receipts.registerInbound(inboundTurn(phone), routed)).toMatchObject({ agentRouted: false });
});

test('a state transition is copied onto the pointer, so routing follows a human takeover and its end', async () => {
  const phone = newPhone();
  const start = session(phone, SessionState.QUALIFYING);
  await sessions.put(start);
  const waiting = await sessions.transitionState(start, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN);
  expect(await receipts.registerInbound(inboundTurn(phone), routed)).toMatchObject({ agentRouted: false });
  await sessions.transitionState(waiting, SessionState.AWAITING_HUMAN, SessionState.QUALIFYING);
  expect(await receipts.registerInbound(inboundTurn(phone), routed)).toMatchObject({ agentRouted: true });
});

test('transitioning a session that is no longer the active one leaves the pointer alone', async () => {
  const phone = newPhone();
  const old = session(phone, SessionState.QUALIFYING);
  await sessions.put(old);
  await sessions.put({ ...session(phone, SessionState.QUALIFYING), sessionId: `s2-${phone}` });
  await sessions.transitionState(old, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN);
  expect(await receipts.registerInbound(inboundTurn(phone), routed)).toMatchObject({ agentRouted: true });
});

test('a duplicate reports how the first delivery was routed', async () => {
  const turn = inboundTurn(newPhone());
  await receipts.registerInbound(turn, routed);
  expect(await receipts.registerInbound(turn, routed)).toEqual({ isDuplicate: true, alreadyDispatched: false, alreadyCompleted: false, agentRouted: true });
});
