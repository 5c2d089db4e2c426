// Idle conversations end, over the real pipeline (webhook, orchestrator, idle sweeper and CRM
// worker, each signing as itself): the sweep closes a conversation nobody wrote in for the idle
// timeout, its retention TTL is set and the CRM sees the close; the customer's next message opens
// a new session whose agent is shown the closed one's last messages; a message already on its way
// when the sweep runs keeps the conversation open.
import { setTimeout as sleep } from 'node:timers/promises';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { messageHistoryPrefix, PK, sessionKey, SK, TTL } from '../../lambda/core/adapters/dynamodb/keys';
import { DEFAULT_RETENTION, expiresAt } from '../../lambda/core/domain/privacy';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { gate } from '../support/waiting';

const IDLE_TIMEOUT_MS = 1_500;

let pipeline: LocalPipeline | undefined;
let repositories: ReturnType<typeof tableRepositories> | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = repositories = undefined;
});

it('closes an idle conversation with its retention and the CRM’s close; the next message opens a new session shown the last one', async () => {
  const agent = new ScriptedAgent();
  pipeline = await startTestPipeline({ agent, crmSync: {}, idleSweep: { idleTimeoutMs: IDLE_TIMEOUT_MS } });
  repositories = tableRepositories(pipeline.tableName);
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Oi, quero um exame #dado exame=sangue');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  const first = (await pipeline.conversation(customer)).session!;
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  expect(await pipeline.sweepIdleConversations()).toMatchObject({ closed: 0 });

  await sleep(IDLE_TIMEOUT_MS + 200);
  expect(await pipeline.sweepIdleConversations()).toEqual({ idle: 1, closed: 1, kept: 0, complete: true });
  const closed = (await pipeline.conversation(customer)).session!;
  expect(closed).toMatchObject({ sessionId: first.sessionId, state: 'CLOSED' });
  const ttl = expiresAt(closed.closedAt!, DEFAULT_RETENTION.conversationSeconds);
  expect((await repositories.kit.get({ key: sessionKey(customer, first.sessionId) }))?.[TTL]).toBe(ttl);
  const prefix = messageHistoryPrefix(customer);
  const { items } = await repositories.kit.queryPage({ keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)', names: { '#pk': PK, '#sk': SK }, values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix }, consistentRead: true });
  expect(items.map((item) => item[TTL])).toEqual([ttl, ttl]);
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  const crmStages = pipeline.fakeCrm!.received().filter((entry) => entry.request.customerId === customer).map((entry) => [entry.handling, entry.request.deal.stage]);
  expect(crmStages).toEqual([
    ['created', 'qualifying'],
    ['updated', 'closed'],
  ]);

  await pipeline.sendCustomerMessage(customer, 'Voltei!');
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();
  const reopened = (await pipeline.conversation(customer)).session!;
  expect(reopened).toMatchObject({ state: 'QUALIFYING', previousSessionId: first.sessionId });
  const request = agent.requests.at(-1)!;
  expect(request.history.map((entry) => entry.text)).toEqual(['Voltei!']);
  expect(request.earlierConversation?.map((entry) => entry.text)).toEqual(['Oi, quero um exame #dado exame=sangue', 'Olá! Recebi: Oi, quero um exame #dado exame=sangue (mensagem 1)']);
});

it('keeps a conversation open when the customer’s message is on its way as the sweep runs', async () => {
  const holding = gate();
  const release = gate();
  const agent = new ScriptedAgent({
    respondAfter: async (_request, call) => {
      if (call !== 2) return;
      holding.open();
      await release.opened;
    },
  });
  pipeline = await startTestPipeline({ agent, queue: { visibilityTimeoutSeconds: 10 }, idleSweep: { idleTimeoutMs: IDLE_TIMEOUT_MS } });
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Oi');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  const first = (await pipeline.conversation(customer)).session!;

  await sleep(IDLE_TIMEOUT_MS + 200);
  await pipeline.sendCustomerMessage(customer, 'Ainda estou aqui');
  await holding.opened;
  expect(await pipeline.sweepIdleConversations()).toEqual({ idle: 1, closed: 0, kept: 1, complete: true });
  release.open();
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();

  expect((await pipeline.conversation(customer)).session).toMatchObject({ sessionId: first.sessionId, state: 'QUALIFYING' });
  expect(pipeline.fakeWhatsApp.sent().map((message) => message.text)).toEqual(['Olá! Recebi: Oi (mensagem 1)', 'Olá! Recebi: Ainda estou aqui (mensagem 2)']);
});
