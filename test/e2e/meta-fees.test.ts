// Meta's fee per message over the whole local pipeline: the fake Graph API's statuses carry Meta's
// pricing object, and the operator API shows each sent message's fee at the rate of the
// customer's market — nothing for a free-form reply in the window, the utility rate for a template.
import { META_MESSAGE_RATES } from '../../lib/contract/meta-message-rates';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES } from '../support/message-templates';
import { type ConsoleClient, startStaffedPipeline } from '../support/operator-console-client';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone()));
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);
  expect((await admin.call('POST', '/api/admin/templates/sync')).status).toBe(200);
});
afterAll(async () => {
  repositories.close();
  await pipeline.stop();
});

const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
const brazil = META_MESSAGE_RATES.markets.find((market) => market.market === 'brazil')!;

async function historyOf(customer: string): Promise<Array<Record<string, unknown>>> {
  const answer = await operator.call('GET', `/api/conversations/${customer}`);
  expect(answer.status).toBe(200);
  return answer.body.messages;
}

it('prices each sent message from the first status that carries its pricing', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #dado name=Ana #humano');
  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the agent’s reply and the handoff notice');
  await pipeline.waitForIdle();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);

  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(201);
  const reply = sentTo(customer).at(-1)!;
  expect((await historyOf(customer))[0]).not.toHaveProperty('metaFee');
  for (const status of ['sent', 'delivered', 'read'] as const) await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status);
  expect((await historyOf(customer))[0]).toMatchObject({ text: 'Oi, sou a Bia', receipt: 'read', metaFee: { category: 'service', market: 'brazil', usd: 0 } });

  expect((await operator.call('POST', `/api/conversations/${customer}/templates`, { name: 'retomar_conversa', language: 'pt_BR', values: ['Ana', 'o seu exame'] })).status).toBe(201);
  const template = sentTo(customer).at(-1)!;
  await pipeline.fakeWhatsApp.reportStatus(template.providerMessageId, 'delivered');
  expect((await historyOf(customer))[0]).toMatchObject({ template: { name: 'retomar_conversa' }, receipt: 'delivered', metaFee: { category: 'utility', market: 'brazil', usd: brazil.rates.utility } });
});
