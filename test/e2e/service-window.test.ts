// End to end on the local runtime: a customer message that reaches the agent's turn a day late
// (a backlog, a redrive) is not answered free-form — WhatsApp would refuse it — and nothing about
// it reaches the fake Graph API but the operator's handoff notice; people get the conversation,
// and the console offers the templates a closed window needs.
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { MESSAGING_CONSENT_PURPOSE } from '../../lambda/core/domain/privacy';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { type ConsoleClient, startStaffedPipeline } from '../support/operator-console-client';
import { PAST_THE_WINDOW_MS } from '../support/service-window';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let operator: ConsoleClient;
const agent = new ScriptedAgent();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  ({ pipeline, repositories, operator } = await startStaffedPipeline(newOperatorPhone(), operatorPhone, { agent }));
  expect((await operator.call('PUT', '/api/me/availability', { available: true })).status).toBe(200);
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (recipient: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === recipient);

it('a message that reaches the turn after the window closed: no agent, nothing sent to the customer, people have the conversation', async () => {
  const customer = newCustomer();
  const callsBefore = agent.calls;
  const noticesBefore = sentTo(operatorPhone).length;

  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Ainda dá para marcar o exame?', { sentAt: new Date(Date.now() - PAST_THE_WINDOW_MS) });
  await pipeline.waitForIdle();

  expect(agent.calls).toBe(callsBefore);
  expect(sentTo(customer)).toEqual([]);
  expect(pipeline.fakeWhatsApp.readReceipts().filter((receipt) => receipt.messageId === messageId)).toEqual([]);
  const { session, history } = await pipeline.conversation(customer);
  expect(session?.state).toBe('AWAITING_HUMAN');
  expect(history.map((message) => [message.role, message.text])).toEqual([['user', 'Ainda dá para marcar o exame?']]);
  await waitUntil(() => sentTo(operatorPhone).length === noticesBefore + 1, 10_000, 'the handoff notice to the available operator');

  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  const conversation = await operator.call('GET', `/api/conversations/${customer}`);
  expect(conversation.body.conversation.serviceWindow).toEqual({ open: false, closesAt: expect.any(String) });
  expect(sentTo(customer)).toEqual([]);
});

it('a customer who writes again after such a handoff reaches the people who have the conversation, not the agent', async () => {
  const customer = newCustomer();
  const callsBefore = agent.calls;
  await pipeline.sendCustomerMessage(customer, 'Olá, ontem escrevi', { sentAt: new Date(Date.now() - PAST_THE_WINDOW_MS) });
  await pipeline.waitForIdle();
  await pipeline.sendCustomerMessage(customer, 'Alguém aí?');
  await pipeline.waitForIdle();

  expect(agent.calls).toBe(callsBefore);
  expect(sentTo(customer)).toEqual([]);
  expect((await pipeline.conversation(customer)).history.map((message) => message.text)).toEqual(['Olá, ontem escrevi', 'Alguém aí?']);
});

it('with nobody available, the customer is not told so either: the notice would be free text outside the window', async () => {
  expect((await operator.call('PUT', '/api/me/availability', { available: false })).status).toBe(200);
  const customer = newCustomer();
  try {
    await pipeline.sendCustomerMessage(customer, 'Bom dia, ainda atendem?', { sentAt: new Date(Date.now() - PAST_THE_WINDOW_MS) });
    await pipeline.waitForIdle();
    await pipeline.sweepHandoffs();

    expect((await pipeline.conversation(customer)).session?.state).toBe('AWAITING_HUMAN');
    expect(sentTo(customer)).toEqual([]);
  } finally {
    expect((await operator.call('PUT', '/api/me/availability', { available: true })).status).toBe(200);
  }
});

it('an opt-out word that reaches its turn after the window closed is recorded, and its confirmation is not sent', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'PARAR', { sentAt: new Date(Date.now() - PAST_THE_WINDOW_MS) });
  await pipeline.waitForIdle();

  expect(await repositories.consents.latestFor(customer, MESSAGING_CONSENT_PURPOSE)).toMatchObject({ granted: false });
  expect(sentTo(customer)).toEqual([]);
});
