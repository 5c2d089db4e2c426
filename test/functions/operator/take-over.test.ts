// An admin takes over a conversation the agent is serving, over real HTTP and the local pipeline:
// the agent's reply in flight loses the latest-wins guard and is never sent, and the customer's
// next message goes to the person.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import type { tableRepositories } from '../../support/dynamo-table';
import { auditNameOf } from '../../support/customer-history';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, startStaffedPipeline, textsSentTo } from '../../support/operator-console-client';
import { gate, waitUntil } from '../../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();
/** Held customers: their agent call waits until the test opens the gate. */
const held = new Map<string, ReturnType<typeof gate>>();
/** Agent calls per customer. */
const calls = new Map<string, number>();

beforeAll(async () => {
  const agent = new ScriptedAgent({
    respondAfter: async (request) => {
      const customer = request.session.customerId;
      calls.set(customer, (calls.get(customer) ?? 0) + 1);
      await held.get(customer)?.opened;
    },
  });
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone, { agent }));
});
afterAll(async () => {
  for (const hold of held.values()) hold.open();
  await pipeline.stop();
});

const sentTo = (customer: string) => textsSentTo(pipeline, customer);

async function servedByTheAgent(): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Olá');
  await waitUntil(() => sentTo(customer).length === 1, 10_000, 'the agent’s reply');
  await pipeline.waitForIdle();
  return customer;
}

it('supersedes the agent’s reply in flight, assigns the conversation to the admin and routes the next message to her', async () => {
  const customer = await servedByTheAgent();
  const hold = gate();
  held.set(customer, hold);
  await pipeline.sendCustomerMessage(customer, 'Quero saber o preço');
  await waitUntil(() => calls.get(customer) === 2, 10_000, 'the agent’s second call');

  const taken = await admin.call('POST', `/api/conversations/${customer}/take-over`);
  expect(taken.status).toBe(200);
  expect(taken.body.conversation).toMatchObject({ state: 'HUMAN_ACTIVE', assignedTo: adminPhone });
  hold.open();
  await pipeline.waitForIdle();

  expect(sentTo(customer)).toHaveLength(1);
  const { session, history } = await pipeline.conversation(customer);
  expect(session).toMatchObject({ state: 'HUMAN_ACTIVE', assignedTo: adminPhone });
  expect(history.filter((message) => message.role === 'assistant').map((message) => message.deliveryStatus)).not.toContain('pending_send');
  expect(history.filter((message) => message.role === 'assistant' && message.deliveryStatus === 'sent')).toHaveLength(1);

  await pipeline.sendCustomerMessage(customer, 'Alguém aí?');
  await pipeline.waitForIdle();
  expect(calls.get(customer)).toBe(2);
  expect((await pipeline.conversation(customer)).history.at(-1)).toMatchObject({ role: 'user', text: 'Alguém aí?' });
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, aqui é a equipe.' })).status).toBe(201);
  expect(sentTo(customer).at(-1)).toBe('Oi, aqui é a equipe.');

  const named = await auditNameOf(repositories, customer);
  const audit = (await repositories.audit.listRecent({ limit: 200 })).items.filter((event) => event.resourceId === named && event.action === 'conversation.take_over');
  expect(audit).toHaveLength(1);
});

it('refuses an operator’s take-over with 403 and changes nothing', async () => {
  const customer = await servedByTheAgent();
  const before = (await pipeline.conversation(customer)).session;
  const refused = await operator.call('POST', `/api/conversations/${customer}/take-over`);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toBe('forbidden');
  expect((await pipeline.conversation(customer)).session).toEqual(before);
});

it('answers 409 for a conversation people already have, 404 for none, 400 for a body or a bad id', async () => {
  const customer = await servedByTheAgent();
  expect((await admin.call('POST', `/api/conversations/${customer}/take-over`, { reason: 'x' })).status).toBe(400);
  expect((await pipeline.conversation(customer)).session?.state).toBe('QUALIFYING');
  expect((await admin.call('POST', `/api/conversations/${customer}/take-over`)).status).toBe(200);
  const again = await admin.call('POST', `/api/conversations/${customer}/take-over`);
  expect(again.status).toBe(409);
  expect(again.body.error).toBe('conflict');
  expect((await admin.call('POST', `/api/conversations/${newCustomer()}/take-over`)).status).toBe(404);
  expect((await admin.call('POST', '/api/conversations/a%23b/take-over')).status).toBe(400);
});
