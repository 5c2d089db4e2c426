// The data subject's rights over the admin API: export and erase one customer, admins only,
// with the customer id repeated as confirmation.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { waitUntil } from '../../support/waiting';
import { type ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';
import type { tableRepositories } from '../../support/dynamo-table';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone, { agent: new ScriptedAgent() }));
});
afterAll(async () => {
  await pipeline.stop();
});

async function customerWithAConversation(): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Olá, quero o exame de paternidade');
  await waitUntil(() => pipeline.fakeWhatsApp.sent().some((message) => message.recipient === customer), 10_000, 'the agent’s reply');
  await pipeline.waitForIdle();
  return customer;
}

const stored = async (customer: string) => (await repositories.customerData.inventory(customer)).anchors.length;

it('refuses export and erase to an operator with 403, and erases nothing', async () => {
  const customer = await customerWithAConversation();
  const before = await stored(customer);
  expect((await operator.call('GET', `/api/admin/customers/${customer}/export`)).status).toBe(403);
  expect((await operator.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer })).status).toBe(403);
  expect(await stored(customer)).toBe(before);
  expect((await repositories.audit.listRecent({ limit: 20 })).items.filter((event) => event.action.startsWith('customer.'))).toEqual([]);
});

it('exports the customer as one JSON document', async () => {
  const customer = await customerWithAConversation();
  const answer = await admin.call('GET', `/api/admin/customers/${customer}/export`);
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ format: 'customer-export/1', customerId: customer });
  expect(answer.body.records.message.map((message: { text: string }) => message.text)).toContain('Olá, quero o exame de paternidade');
});

it('erases only with the customer id repeated, then nothing of the customer is left', async () => {
  const customer = await customerWithAConversation();
  const before = await stored(customer);
  for (const body of [{}, { confirm: newCustomer() }, { confirm: customer.slice(1) }]) {
    expect((await admin.call('POST', `/api/admin/customers/${customer}/erase`, body)).status).toBe(400);
  }
  expect((await admin.call('POST', '/api/admin/customers/a%23b/erase', { confirm: 'a#b' })).status).toBe(400);
  expect(await stored(customer)).toBe(before);

  const answer = await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer });
  expect(answer.status).toBe(200);
  expect(answer.body.erasure.deleted.message).toBeGreaterThanOrEqual(2);
  expect(await stored(customer)).toBe(0);
  const [audit] = (await repositories.audit.listRecent({ limit: 5 })).items.filter((event) => event.action === 'customer.erase');
  expect(audit).toMatchObject({ author: adminPhone, resourceId: answer.body.erasure.customerPseudonym });
  expect(JSON.stringify(audit)).not.toContain(customer);
});
