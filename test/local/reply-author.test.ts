// How `npm start`'s terminal chat labels each reply it shows: the agent's as `agent`, an operator's
// with the operator's name (the phone when nobody named them), on the whole local pipeline with an
// operator answering through the operator API.
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { replyAuthor } from '../../local/runtime/reply-author';
import { newOperatorPhone } from '../support/ids';
import { type ConsoleClient, handedOffCustomer, startStaffedPipeline } from '../support/operator-console-client';

let pipeline: LocalPipeline;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();

beforeAll(async () => {
  ({ pipeline, admin, operator } = await startStaffedPipeline(adminPhone, newOperatorPhone()));
});
afterAll(async () => {
  await pipeline.stop();
});

/** The label of the newest reply to `customer`, read as the terminal reads it. */
async function labelOfLastReply(customer: string): Promise<string> {
  const reply = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)!;
  const { history } = await pipeline.conversation(customer);
  return replyAuthor(reply, history, (phone) => pipeline.operatorName(phone));
}

test("the agent's reply and the handoff notice are the agent's; an operator's reply carries the operator's name", async () => {
  const customer = await handedOffCustomer(pipeline);
  expect(await labelOfLastReply(customer)).toBe('agent');

  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(201);
  expect(await labelOfLastReply(customer)).toBe('operator Bia');
});

test('an operator nobody named is labelled with the phone', async () => {
  const customer = await handedOffCustomer(pipeline);
  expect((await admin.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 'Aqui é o admin' })).status).toBe(201);
  expect(await labelOfLastReply(customer)).toBe(`operator ${adminPhone}`);
});

test('a reply read before the pipeline recorded its WhatsApp id is found by its text', async () => {
  const customer = await handedOffCustomer(pipeline);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Já te respondo' })).status).toBe(201);
  const { history } = await pipeline.conversation(customer);
  const withoutIds = history.map(({ providerMessageId: _, ...message }) => message);
  expect(await replyAuthor({ providerMessageId: 'wamid.not-recorded-yet', text: 'Já te respondo' }, withoutIds, (phone) => pipeline.operatorName(phone))).toBe('operator Bia');
});
