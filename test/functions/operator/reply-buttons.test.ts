// Reply buttons an operator sends over real HTTP: one interactive message within WhatsApp's limits,
// recorded in the history as the customer saw it; buttons WhatsApp would refuse are refused with
// what to change, and nothing is sent or recorded.
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';
import { waitUntil } from '../../support/waiting';

let pipeline: LocalPipeline;
let operator: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone()));
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

async function claimedCustomer(): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #humano');
  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the agent’s reply and the handoff notice');
  await pipeline.waitForIdle();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  return customer;
}

it('sends the text with reply buttons as one interactive message and records them as sent', async () => {
  const customer = await claimedCustomer();

  const sent = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Posso confirmar?', buttons: ['Sim', 'Não'] });

  expect(sent.status).toBe(201);
  const interactive = { kind: 'buttons', buttons: [{ id: 'option-1', title: 'Sim' }, { id: 'option-2', title: 'Não' }] };
  expect(sent.body.message).toMatchObject({ role: 'operator', text: 'Posso confirmar?', interactive, deliveryStatus: 'sent' });
  expect(sentTo(customer).at(-1)?.interactive).toMatchObject({ type: 'button', body: { text: 'Posso confirmar?' } });
  expect((await operator.call('GET', `/api/conversations/${customer}`)).body.messages[0]).toMatchObject({ text: 'Posso confirmar?', interactive });
});

it.each([
  ['four buttons', { text: 'Qual?', buttons: ['a', 'b', 'c', 'd'] }, 'a reply has 1 to 3 buttons'],
  ['a title of 21 characters', { text: 'Qual?', buttons: ['x'.repeat(21)] }, 'more than 20'],
  ['the same title twice', { text: 'Qual?', buttons: ['Sim', 'Sim'] }, 'button titles must differ'],
  ['a body of 1025 characters', { text: 'x'.repeat(1025), buttons: ['Sim'] }, 'the body has 1025 characters, more than 1024'],
])('refuses %s with what to change, sending and recording nothing', async (_what, body, problem) => {
  const customer = await claimedCustomer();
  const before = sentTo(customer).length;
  const historyBefore = (await operator.call('GET', `/api/conversations/${customer}`)).body.messages.length;

  const refused = await operator.call('POST', `/api/conversations/${customer}/messages`, body);

  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toContain(problem);
  expect(sentTo(customer)).toHaveLength(before);
  expect((await operator.call('GET', `/api/conversations/${customer}`)).body.messages).toHaveLength(historyBefore);
});

it('refuses buttons that are not a list of titles', async () => {
  const customer = await claimedCustomer();
  const refused = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Qual?', buttons: [{ title: 'Sim' }] });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('bad_field');
});
