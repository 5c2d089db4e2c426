// The handoff report on DynamoDB Local: a handoff claimed 3 minutes later and answered 2 minutes
// after that reports 180 s to the claim and 300 s to the first human reply (the customer's wait,
// from the handoff); one never claimed counts as waiting. Each step is recorded by the write that
// makes it — with and without the CRM projection, whose transaction carries the claim too — and
// the request counts of the three paths are pinned.
import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { AdminConsole, type AdminConsoleDependencies } from '../../../../lambda/core/application/operator/admin-console';
import type { Operator } from '../../../../lambda/core/domain/operator';
import { SessionState } from '../../../../lambda/core/domain/session';
import type { WhatsAppSender } from '../../../../lambda/core/ports/whatsapp-sender';
import { CallRecorder } from '../../../support/dynamo-call-recorder';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newSession } from '../../../support/domain-records';
import { newCustomer, newMessageId } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';
import { operatorConversationsOn } from '../../../support/operator-conversations';

const ana: Operator = { phone: '5511900000001', role: 'operator' };
const MINUTE = 60_000;

const whatsapp: WhatsAppSender = {
  sendText: async () => ({ providerMessageId: 'wamid.sent', providerMessageIds: ['wamid.sent'] }),
  sendTemplate: async () => {
    throw new Error('No template is sent here');
  },
  sendMedia: async () => {
    throw new Error('No attachment is sent here');
  },
  markAsRead: async () => undefined,
};

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable('handoff-report');
});
afterAll(() => table.drop());

function world(crmSyncEnabled: boolean, day = '2026-03-10') {
  const clock = new ManualClock(`${day}T12:00:00.000Z`);
  const ids = new SequentialIds(`report-${crmSyncEnabled}`);
  const recorder = new CallRecorder();
  const repos: DynamoRepositories = createDynamoRepositories({ tableName: table.name, clock, ids, crmSyncEnabled, observer: recorder });
  const conversations = operatorConversationsOn(repos, { clock, ids, whatsapp });
  // The report reads only the handoff items and the clock.
  const admin = new AdminConsole({ handoffs: repos.handoffReport, clock } as Partial<AdminConsoleDependencies> as AdminConsoleDependencies);
  /** How many requests of each operation `step` made. */
  const requestsOf = async (step: () => Promise<unknown>) => {
    recorder.reset();
    await step();
    return recorder.operations().reduce<Record<string, number>>((counts, operation) => ({ ...counts, [operation]: (counts[operation] ?? 0) + 1 }), {});
  };
  return { clock, repos, conversations, admin, requestsOf };
}

/** The agent serving a customer who wrote a minute ago (the 24-hour window is open). */
async function servedCustomer(repos: DynamoRepositories, clock: ManualClock): Promise<string> {
  const customerId = newCustomer();
  await repos.sessions.put(newSession(customerId, { state: SessionState.QUALIFYING }));
  await repos.messages.append({ customerId, sessionId: 'any', messageId: newMessageId(), direction: 'inbound', role: 'user', text: 'Oi', timestamp: new Date(clock.now().getTime() - MINUTE).toISOString() });
  return customerId;
}

test.each([
  [false, '2026-03-10'],
  [true, '2026-03-20'],
])('handoff, claim 3 min later, first reply 2 min after that: 180 s and 300 s; a handoff never claimed waits (CRM projection: %s)', async (crmSyncEnabled, day) => {
  const { clock, repos, conversations, admin, requestsOf } = world(crmSyncEnabled, day);
  const answered = await servedCustomer(repos, clock);
  const unclaimed = await servedCustomer(repos, clock);
  for (const customerId of [answered, unclaimed]) {
    const session = (await repos.sessions.getActive(customerId))!;
    await repos.sessions.transitionState(session, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: isoNow(clock) } });
  }

  clock.advance(3 * MINUTE);
  const claim = await requestsOf(() => conversations.claim(ana, answered));
  clock.advance(2 * MINUTE);
  const reply = await requestsOf(() => conversations.reply(ana, answered, 'Oi, sou a Ana'));
  clock.advance(MINUTE);
  await conversations.reply(ana, answered, 'Um momento, por favor');

  const report = await admin.handoffReport({ from: day, to: day });
  expect(report.days).toEqual([{ day, handoffs: 2, claimed: 1, waiting: 1, replied: 1, medianSecondsToClaim: 180, medianSecondsToFirstReply: 300, complete: true }]);
  // Without the projection the claim's update returns the stored session, so its report write goes
  // beside the pointer's and the inbox's; with it, inside the claim's transaction.
  // Before the report: a claim made 9 requests (get 3, update 3, put 2, query 1) without the
  // projection and 10 with it (get 5, transact 1, update 2, put 1, query 1); a reply 9 (get 2,
  // query 2, update 3, put 2), 10 with the projection (a get more). Without the projection the claim's update returns the stored session,
  // which a transaction cannot, so its report write goes beside the pointer's and the inbox's (in
  // parallel: one more request, no more latency); with it, inside the claim's transaction.
  expect(claim).toEqual(crmSyncEnabled ? { get: 5, transact: 1, update: 2, put: 1, queryPage: 1 } : { get: 3, update: 4, put: 2, queryPage: 1 });
  // The release of the send lock becomes one transaction with the first reply: no request more.
  expect(reply).toEqual({ get: crmSyncEnabled ? 3 : 2, queryPage: 2, update: 2, put: 2, transact: 1 });
});

test('the report days are UTC days: a handoff a microsecond before midnight is the day before', async () => {
  const { clock, repos, admin } = world(false, '2026-03-11');
  const customerId = await servedCustomer(repos, clock);
  clock.set('2026-03-11T23:59:59.999Z');
  const session = (await repos.sessions.getActive(customerId))!;
  await repos.sessions.transitionState(session, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: isoNow(clock) } });
  clock.set('2026-03-12T10:00:00Z');

  const report = await admin.handoffReport({ from: '2026-03-11', to: '2026-03-12' });
  expect(report.days.map((day) => [day.day, day.handoffs])).toEqual([
    ['2026-03-11', 1],
    ['2026-03-12', 0],
  ]);
});

function isoNow(clock: ManualClock): string {
  return clock.now().toISOString();
}
