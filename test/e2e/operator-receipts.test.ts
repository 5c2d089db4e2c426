// Delivery receipts of the messages the pipeline sends outside a turn, over the whole local
// pipeline: an operator's reply goes sent → delivered → read as WhatsApp reports it, another one
// fails and says why, a template and the handoff notice get theirs too, and a status of a message
// the pipeline did not send changes nothing. Meta's pricing in those statuses prices each message,
// and an admin reads each agent reply's model and AWS cost beside it.
import { DEFAULT_HANDOFF_TEXTS } from '../../lib/contract';
import { awsEstimateUsd } from '../../lib/contract/aws-cost-estimate';
import { defaultModelCost } from '../../lib/contract/model-prices';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { META_MESSAGE_RATES } from '../../lib/contract/meta-message-rates';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES } from '../support/message-templates';
import { backdateCustomerMessages } from '../support/service-window';
import { type ConsoleClient, startStaffedPipeline } from '../support/operator-console-client';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;

const MODEL = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const USAGE = { inputTokens: 1_200, outputTokens: 300, cacheReadInputTokens: 4_000 };

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { agent: new ScriptedAgent({ usage: USAGE, model: MODEL }) }));
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);
  expect((await admin.call('POST', '/api/admin/templates/sync')).status).toBe(200);
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

/** A customer handed to people (nobody available: told so), claimed by the operator. */
async function claimedCustomer(options: { windowClosedSince?: boolean } = {}): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #dado name=Ana #humano');
  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the agent’s reply and the handoff notice');
  await pipeline.waitForIdle();
  if (options.windowClosedSince) await backdateCustomerMessages(repositories, customer);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  return customer;
}

/** The conversation's history as the console shows it, newest first. */
async function historyOf(customer: string, reader: ConsoleClient = operator): Promise<Array<Record<string, unknown>>> {
  const answer = await reader.call('GET', `/api/conversations/${customer}`);
  expect(answer.status).toBe(200);
  return answer.body.messages;
}

it('records every status of an operator’s reply on it, and a failure with its reason', async () => {
  const customer = await claimedCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(201);
  const reply = sentTo(customer).at(-1)!;
  expect(reply).toMatchObject({ text: 'Oi, sou a Bia', callbackData: expect.any(String) });
  for (const status of ['sent', 'delivered', 'read'] as const) {
    await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status);
    expect((await historyOf(customer))[0]).toMatchObject({ role: 'operator', text: 'Oi, sou a Bia', deliveryStatus: 'sent', receipt: status });
  }

  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Conseguiu ver?' })).status).toBe(201);
  await pipeline.fakeWhatsApp.reportStatus(sentTo(customer).at(-1)!.providerMessageId, 'failed', { errorCode: 131047 });
  const [failed, read] = await historyOf(customer);
  expect(failed).toMatchObject({ role: 'operator', text: 'Conseguiu ver?', receipt: 'failed', deliveryFailure: { code: 131047, reason: 'window-closed' } });
  expect(read).toMatchObject({ text: 'Oi, sou a Bia', receipt: 'read' });
});

it('records the statuses of the handoff notice and of an operator’s template', async () => {
  const customer = await claimedCustomer({ windowClosedSince: true });
  const notice = sentTo(customer).find((message) => message.text === DEFAULT_HANDOFF_TEXTS.noOperatorAvailable)!;
  await pipeline.fakeWhatsApp.reportStatus(notice.providerMessageId, 'delivered');
  expect((await historyOf(customer)).find((message) => message.text === DEFAULT_HANDOFF_TEXTS.noOperatorAvailable)).toMatchObject({ role: 'system', receipt: 'delivered' });

  const sent = await operator.call('POST', `/api/conversations/${customer}/templates`, { name: 'retomar_conversa', language: 'pt_BR', values: ['Ana', 'o seu exame'] });
  expect(sent.status).toBe(201);
  const template = sentTo(customer).at(-1)!;
  expect(template.callbackData).toEqual(expect.any(String));
  await pipeline.fakeWhatsApp.reportStatus(template.providerMessageId, 'read');
  expect((await historyOf(customer))[0]).toMatchObject({ role: 'operator', template: { name: 'retomar_conversa' }, receipt: 'read' });
});

it('a status of a message the pipeline did not send changes nothing', async () => {
  const customer = await claimedCustomer();
  const before = await historyOf(customer);
  await pipeline.fakeWhatsApp.reportStatus('wamid.someone-else', 'failed', { recipient: customer, businessPhoneNumberId: sentTo(customer)[0].businessPhoneNumberId });
  expect(await historyOf(customer)).toEqual(before);
});

it('prices each sent message from the first status that carries Meta’s pricing, at the rate of the customer’s market', async () => {
  const brazil = META_MESSAGE_RATES.markets.find((market) => market.market === 'brazil')!;
  const customer = await claimedCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(201);
  const reply = sentTo(customer).at(-1)!;
  expect((await historyOf(customer))[0]).not.toHaveProperty('metaFee');
  for (const status of ['sent', 'delivered', 'read'] as const) await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status);
  expect((await historyOf(customer))[0]).toMatchObject({ text: 'Oi, sou a Bia', receipt: 'read', metaFee: { category: 'service', market: 'brazil', usd: 0 } });

  expect((await operator.call('POST', `/api/conversations/${customer}/templates`, { name: 'retomar_conversa', language: 'pt_BR', values: ['Ana', 'o seu exame'] })).status).toBe(201);
  await pipeline.fakeWhatsApp.reportStatus(sentTo(customer).at(-1)!.providerMessageId, 'delivered');
  expect((await historyOf(customer))[0]).toMatchObject({ template: { name: 'retomar_conversa' }, receipt: 'delivered', metaFee: { category: 'utility', market: 'brazil', usd: brazil.rates.utility } });

  // An admin corrects Brazil's utility rate: admins, who see fees, read it at theirs; the packaged rate stays for the rest.
  const version = (await admin.call('GET', '/api/admin/config/meta_rates')).body.config.version;
  expect((await admin.call('PUT', '/api/admin/config/meta_rates', { value: { checkedOn: '2026-12-01', rates: { brazil: { utility: 0.005 } } }, expectedVersion: version })).status).toBe(200);
  expect((await historyOf(customer, admin))[0]).toMatchObject({ template: { name: 'retomar_conversa' }, metaFee: { category: 'utility', market: 'brazil', usd: 0.005 } });
  expect((await historyOf(customer))[0]).toMatchObject({ metaFee: { usd: brazil.rates.utility } });
  expect((await admin.call('PUT', '/api/admin/config/meta_rates', { value: null, expectedVersion: version + 1 })).status).toBe(200);
});

it('an admin reads each agent reply’s model cost at the prices in force and its AWS share; an operator reads no cost', async () => {
  const customer = await claimedCustomer();
  const agentReply = async (reader: ConsoleClient) => (await historyOf(customer, reader)).find((message) => message.role === 'assistant')!;

  const { agentCost } = (await agentReply(admin)) as { agentCost: { modelUsd: number; awsUsd: number } };
  expect(agentCost.modelUsd).toBeCloseTo(defaultModelCost(MODEL, USAGE)!, 12);
  // The measured usage of a reply, and the orchestrator's GB-seconds while the model answered (the scripted agent at once).
  expect(agentCost.awsUsd).toBeGreaterThanOrEqual(awsEstimateUsd(1, 0));
  expect(agentCost.awsUsd).toBeLessThan(awsEstimateUsd(1, 1_000));
  expect(await agentReply(operator)).not.toHaveProperty('agentCost');

  // The admin's price for the model wins over the packaged one.
  const version = (await admin.call('GET', '/api/admin/config/model_prices')).body.config.version;
  expect((await admin.call('PUT', '/api/admin/config/model_prices', { value: { 'anthropic.claude-sonnet-4-20250514': { input: 1, output: 2 } }, expectedVersion: version })).status).toBe(200);
  const cheaper = (1_200 + 0.1 * 4_000) * 1e-6 + 300 * 2e-6;
  expect(((await agentReply(admin)) as { agentCost: { modelUsd: number } }).agentCost.modelUsd).toBeCloseTo(cheaper, 12);
  expect((await admin.call('PUT', '/api/admin/config/model_prices', { value: null, expectedVersion: version + 1 })).status).toBe(200);
});
