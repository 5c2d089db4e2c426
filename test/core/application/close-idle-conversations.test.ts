// The idle sweep against DynamoDB Local, with the real webhook and turn use case: an idle
// conversation the agent serves is closed through the same close as an operator's (retention,
// audit), the next message opens a new session shown the closed one's last messages, and a
// message that arrives around the close is never lost, whichever comes first.
import { DynamoAdminAuditRepository } from '../../../lambda/core/adapters/dynamodb/admin-audit-repository';
import { DynamoCustomerDataRepository } from '../../../lambda/core/adapters/dynamodb/customer-data-repository';
import { DynamoEvaluationCleanup } from '../../../lambda/core/adapters/dynamodb/evaluation-cleanup';
import { DynamoHandoffReport } from '../../../lambda/core/adapters/dynamodb/handoff-report-repository';
import { activePointerKey, GSI1SK, messageHistoryPrefix, PK, sessionKey, SK, TTL } from '../../../lambda/core/adapters/dynamodb/keys';
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import { randomIdGenerator } from '../../../lambda/core/adapters/system/random-id-generator';
import { CloseConversation, IDLE_SWEEP_AUTHOR } from '../../../lambda/core/application/close-conversation';
import { CloseIdleConversations } from '../../../lambda/core/application/close-idle-conversations';
import { OperatorAuditTrail } from '../../../lambda/core/application/operator/operator-audit';
import { CustomerPseudonyms } from '../../../lambda/core/application/privacy/customer-pseudonyms';
import { DEFAULT_RETENTION, expiresAt } from '../../../lambda/core/domain/privacy';
import { type Session, SessionState } from '../../../lambda/core/domain/session';
import { isoMicros } from '../../../lambda/core/domain/timestamps';
import { newCustomer } from '../../support/ids';
import { newSession } from '../../support/domain-records';
import { ManualClock } from '../../support/manual-clock';
import { TurnHarness } from '../../support/turn-harness';

const HOUR = 3_600_000;
const IDLE_TIMEOUT_MS = 24 * HOUR;

let harness: TurnHarness;
afterEach(() => harness?.close());

/** A sweeper on the harness's table whose clock reads `hoursLater` from now. */
function sweeperAt(hoursLater: number) {
  const clock = new ManualClock(new Date(Date.now() + hoursLater * HOUR));
  const sessions = new DynamoSessionRepository(harness.kit, clock);
  const customerData = new DynamoCustomerDataRepository(harness.kit, clock);
  const audit = new OperatorAuditTrail(new DynamoAdminAuditRepository(harness.kit), clock, randomIdGenerator, new CustomerPseudonyms(customerData));
  const leftovers = new DynamoEvaluationCleanup(customerData, new DynamoHandoffReport(harness.kit, clock, DEFAULT_RETENTION));
  return { clock, customerData, sweeper: new CloseIdleConversations({ sessions, closer: new CloseConversation({ sessions, audit }), leftovers, clock, settings: { idleTimeoutMs: IDLE_TIMEOUT_MS } }) };
}

const active = async (customerId: string) => (await harness.sessions.getActive(customerId))!;

/** A new harness, and a customer whose first message was answered: their open session. */
async function answeredOnce(text: string): Promise<{ readonly customer: string; readonly first: Session }> {
  harness = await TurnHarness.start();
  const customer = newCustomer();
  await harness.receive(customer, 'wamid.A', text);
  await harness.process(customer, 'wamid.A');
  return { customer, first: await active(customer) };
}

async function messageTtls(customerId: string): Promise<unknown[]> {
  const prefix = messageHistoryPrefix(customerId);
  const { items } = await harness.kit.queryPage({ keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)', names: { '#pk': PK, '#sk': SK }, values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix }, consistentRead: true });
  return items.map((item) => item[TTL]);
}

test('an idle conversation is closed with its retention and audited; the next message opens a new session shown the closed one’s last messages', async () => {
  const { customer, first } = await answeredOnce('Oi, quero um exame');

  expect(await sweeperAt(23).sweeper.sweep()).toMatchObject({ closed: 0 });
  expect((await active(customer)).state).toBe(SessionState.QUALIFYING);

  const { sweeper, clock } = sweeperAt(25);
  expect(await sweeper.sweep()).toEqual({ idle: 1, closed: 1, kept: 0, complete: true });
  const closed = await active(customer);
  expect(closed).toMatchObject({ sessionId: first.sessionId, state: SessionState.CLOSED, closedAt: isoMicros(clock.now()) });
  const ttl = expiresAt(closed.closedAt!, DEFAULT_RETENTION.conversationSeconds);
  expect((await harness.kit.get({ key: sessionKey(customer, first.sessionId) }))?.[TTL]).toBe(ttl);
  expect(await messageTtls(customer)).toEqual([ttl, ttl]);
  expect((await harness.kit.get({ key: activePointerKey(customer) }))?.session_state).toBe(SessionState.CLOSED);
  const [audited] = (await new DynamoAdminAuditRepository(harness.kit).listRecent()).items;
  expect(audited).toMatchObject({ author: IDLE_SWEEP_AUTHOR, action: 'conversation.close', resourceType: 'conversation', details: { from: SessionState.QUALIFYING, to: SessionState.CLOSED } });
  expect(audited.resourceId).not.toBe(customer);
  // Nothing is left to close.
  expect(await sweeperAt(26).sweeper.sweep()).toEqual({ idle: 0, closed: 0, kept: 0, complete: true });

  await harness.receive(customer, 'wamid.B', 'Voltei!');
  await harness.process(customer, 'wamid.B');
  const second = await active(customer);
  expect(second).toMatchObject({ state: SessionState.QUALIFYING, previousSessionId: first.sessionId });
  expect(second.sessionId).not.toBe(first.sessionId);
  const [, reopening] = harness.agent.requests;
  expect(reopening.history.map((entry) => entry.text)).toEqual(['Voltei!']);
  expect(reopening.earlierConversation?.map((entry) => [entry.role, entry.text])).toEqual([
    ['customer', 'Oi, quero um exame'],
    ['assistant', 'Olá! Recebi: Oi, quero um exame (mensagem 1)'],
  ]);

  // Every turn of the new session keeps the earlier conversation beside its own history.
  await harness.receive(customer, 'wamid.C', 'Ainda estou aqui');
  await harness.process(customer, 'wamid.C');
  const [, , later] = harness.agent.requests;
  expect(later.history.map((entry) => entry.text)).toEqual(['Voltei!', 'Olá! Recebi: Voltei! (mensagem 1)', 'Ainda estou aqui']);
  expect(later.earlierConversation).toHaveLength(2);
});

test('a message registered before the close keeps the conversation open, and its turn answers in the same session', async () => {
  const { customer, first } = await answeredOnce('Oi');

  // The customer writes again just as the sweep runs: registered, its turn not yet run.
  await harness.receive(customer, 'wamid.B', 'Ainda quero o exame');
  expect(await sweeperAt(25).sweeper.sweep()).toEqual({ idle: 1, closed: 0, kept: 1, complete: true });
  expect((await active(customer)).state).toBe(SessionState.QUALIFYING);

  await harness.process(customer, 'wamid.B');
  const after = await active(customer);
  expect(after.sessionId).toBe(first.sessionId);
  expect(harness.sentTo(customer)).toEqual(['Olá! Recebi: Oi (mensagem 1)', 'Olá! Recebi: Ainda quero o exame (mensagem 2)']);
  // Its answer was activity: the timeout counts again from it.
  expect(await sweeperAt(23).sweeper.sweep()).toMatchObject({ idle: 0, closed: 0 });
});

test('a message registered after the close opens a new session: nothing is lost', async () => {
  const { customer, first } = await answeredOnce('Oi');

  expect(await sweeperAt(25).sweeper.sweep()).toMatchObject({ closed: 1 });
  await harness.receive(customer, 'wamid.B', 'Oi de novo');
  await harness.process(customer, 'wamid.B');

  const second = await active(customer);
  expect(second.sessionId).not.toBe(first.sessionId);
  expect(harness.sentTo(customer)).toEqual(['Olá! Recebi: Oi (mensagem 1)', 'Olá! Recebi: Oi de novo (mensagem 1)']);
  expect(await harness.history(customer)).toEqual(['user: Oi', 'assistant[sent]: Olá! Recebi: Oi (mensagem 1)', 'user: Oi de novo', 'assistant[sent]: Olá! Recebi: Oi de novo (mensagem 1)']);
});

test('overlapping sweeps close a conversation once', async () => {
  await answeredOnce('Oi');

  const reports = await Promise.all([sweeperAt(25).sweeper.sweep(), sweeperAt(25).sweeper.sweep()]);
  expect(reports.map((report) => report.closed).sort()).toEqual([0, 1]);
  expect((await new DynamoAdminAuditRepository(harness.kit).listRecent()).items).toHaveLength(1);
});

test('conversations people own, and one whose sort key predates its last activity, are left open', async () => {
  harness = await TurnHarness.start();
  const old = new Date(Date.now() - 48 * HOUR).toISOString();
  const owned = [SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE].map((state) => newSession(newCustomer(), { state, createdAt: old, updatedAt: old, handoffRequestedAt: old }));
  for (const session of owned) await harness.sessions.put(session);
  // Written before the agent's states sorted by activity: created two days ago, answered an hour ago.
  const recent = newSession(newCustomer(), { state: SessionState.QUALIFYING, createdAt: old, updatedAt: new Date(Date.now() - HOUR).toISOString() });
  await harness.sessions.put(recent);
  await harness.kit.update({ key: sessionKey(recent.customerId, recent.sessionId), update: 'SET #sk = :created', names: { '#sk': GSI1SK }, values: { ':created': isoMicros(old) } });

  expect(await sweeperAt(0).sweeper.sweep()).toEqual({ idle: 1, closed: 0, kept: 1, complete: true });
  const states = await Promise.all([...owned, recent].map(async (session: Session) => (await harness.sessions.get(session.customerId, session.sessionId))?.state));
  expect(states).toEqual([SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE, SessionState.QUALIFYING]);
});

test('a scenario customer an evaluation run left when it did not finish is erased, never closed nor audited', async () => {
  const { customer } = await answeredOnce('Oi');
  // What a run that timed out in the middle of a scenario leaves: the scenario's customer, played through the turn path.
  const scenarioCustomer = 'eval-20261207181500000-unfinished-0';
  await harness.receive(scenarioCustomer, 'wamid.E', 'Quero falar com uma pessoa');
  await harness.process(scenarioCustomer, 'wamid.E');
  const { sweeper, customerData } = sweeperAt(25);
  expect(await customerData.evaluationCustomerItems(scenarioCustomer)).not.toEqual([]);

  expect(await sweeper.sweep()).toEqual({ idle: 1, closed: 1, kept: 0, evaluationLeftoversErased: 1, complete: true });
  expect(await customerData.evaluationCustomerItems(scenarioCustomer)).toEqual([]);
  expect((await active(customer)).state).toBe(SessionState.CLOSED);
  const audited = (await new DynamoAdminAuditRepository(harness.kit).listRecent()).items;
  expect(audited.map((event) => event.action)).toEqual(['conversation.close']);
  expect(await sweeperAt(26).sweeper.sweep()).toEqual({ idle: 0, closed: 0, kept: 0, complete: true });
});
