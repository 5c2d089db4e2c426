// What an evaluation run that did not finish leaves (it timed out or crashed in the middle of a
// scenario: docs/EVALUATION.md, "What a run may do"), over the real pipeline, each function signing
// as itself: the scenario's customer is no conversation of the business's. The usage report does
// not count its replies, the re-engagement sends it no template, and the idle sweep erases it
// instead of closing it, so it never reaches the CRM; a real customer beside it is served as usual.
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import type { UtcDay } from '../../lambda/core/domain/agent-usage';
import { openSession, SessionState } from '../../lambda/core/domain/session';
import { isoMicros } from '../../lambda/core/domain/timestamps';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { QUIET_CUSTOMER_TEMPLATE } from '../support/message-templates';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const AFTER_MS = 1_500;
const IDLE_TIMEOUT_MS = 4_000;
/** A scenario's customer, as keys.ts `evaluationCustomerId` names one of a run. */
const SCENARIO_CUSTOMER = `eval-${Date.now()}-unfinished-0`;

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

it('a scenario customer left by a run that did not finish is not counted, not re-engaged, and erased by the idle sweep, never closed to the CRM', async () => {
  pipeline = await startOperatorPipeline([newOperatorPhone()], {
    agent: new ScriptedAgent(),
    crmSync: {},
    idleSweep: { idleTimeoutMs: IDLE_TIMEOUT_MS, reengagement: { template: { name: QUIET_CUSTOMER_TEMPLATE.name, language: QUIET_CUSTOMER_TEMPLATE.language }, afterMs: AFTER_MS } },
  });
  pipeline.fakeWhatsApp.setTemplates([QUIET_CUSTOMER_TEMPLATE]);
  expect(await pipeline.syncTemplates()).toMatchObject({ stored: 1 });
  const repositories = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  await leaveScenarioCustomer(repositories);
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Sou a Rita #dado name=Rita');
  await waitUntil(() => sentTo(customer).length === 1, 15_000, 'the answer');
  await pipeline.waitForIdle();
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });

  // The usage report counts the customer's reply only: the scenario's is the evaluation line's.
  const today = new Date().toISOString().slice(0, 10) as UtcDay;
  const [usage] = await repositories.messages.agentUsageByDay([today], { pageSize: 100, pagesPerPartition: 3 });
  expect(usage.replies).toBe(1);

  await sleep(AFTER_MS + 200);
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 1 });
  expect(sentTo(SCENARIO_CUSTOMER)).toEqual([]);
  expect(sentTo(customer).at(-1)?.template?.name).toBe(QUIET_CUSTOMER_TEMPLATE.name);

  await sleep(IDLE_TIMEOUT_MS - AFTER_MS);
  expect(await pipeline.sweepIdleConversations()).toMatchObject({ idle: 1, closed: 1, kept: 0, evaluationLeftoversErased: 1 });
  expect((await pipeline.conversation(customer)).session?.state).toBe('CLOSED');
  const { Items = [] } = await new DynamoDBClient({}).send(new ScanCommand({ TableName: pipeline.tableName }));
  expect(Items.map((item) => unmarshall(item)).filter((item) => JSON.stringify([item.PK, item.SK, item.GSI1PK, item.customer_id]).includes(SCENARIO_CUSTOMER))).toEqual([]);
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  expect(pipeline.fakeCrm!.received().map((entry) => entry.request.customerId)).toEqual([customer, customer]);
});

const sentTo = (recipient: string) => pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === recipient);

/** What a scenario's first turn writes before its run dies: its session, the customer's message and the agent's reply, with its tokens. */
async function leaveScenarioCustomer(repositories: ReturnType<typeof tableRepositories>): Promise<void> {
  const at = isoMicros(new Date());
  const session = { ...openSession({ customerId: SCENARIO_CUSTOMER, customerIdKind: 'phone', businessPhoneNumberId: '100000000000000' }, 'session-unfinished', at, { state: SessionState.QUALIFYING }), profileName: 'Rita' };
  await repositories.sessions.put(session);
  const message = { customerId: SCENARIO_CUSTOMER, sessionId: session.sessionId, timestamp: at } as const;
  await repositories.messages.append({ ...message, messageId: 'wamid.scenario-1', direction: 'inbound', role: 'user', text: 'Sou a Rita' });
  await repositories.messages.append({
    ...message,
    timestamp: isoMicros(new Date(Date.now() + 1)),
    messageId: 'reply-scenario-1',
    direction: 'outbound',
    role: 'assistant',
    text: 'Olá, Rita!',
    deliveryStatus: 'sent',
    llm: { model: 'us.anthropic.claude-sonnet-4-20250514-v1:0', inputTokens: 1_000, outputTokens: 50 },
  });
}
