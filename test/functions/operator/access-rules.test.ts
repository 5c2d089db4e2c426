// Who may read, claim, answer, release and close a conversation (docs/OPERATOR-API.md#who-may-do-what),
// over real HTTP: operators see what waits for a person and what they own, admins everything;
// nobody but the owner or an admin gives a conversation back or closes it, and a refusal changes nothing.
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { auditNameOf } from '../../support/customer-history';
import { tableRepositories } from '../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, signInOverWhatsApp } from '../../support/operator-console-client';
import { startOperatorPipeline } from '../../support/pipeline';
import { waitUntil } from '../../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let ana: ConsoleClient;
let bia: ConsoleClient;
const adminPhone = newOperatorPhone();
const anaPhone = newOperatorPhone();
const biaPhone = newOperatorPhone();

beforeAll(async () => {
  pipeline = await startOperatorPipeline([adminPhone]);
  repositories = tableRepositories(pipeline.tableName);
  await repositories.config.set({ key: 'operators', value: { [anaPhone]: { role: 'operator', name: 'Ana' }, [biaPhone]: { role: 'operator', name: 'Bia' } }, author: adminPhone });
  [admin, ana, bia] = [await signInOverWhatsApp(pipeline, adminPhone), await signInOverWhatsApp(pipeline, anaPhone), await signInOverWhatsApp(pipeline, biaPhone)];
});
afterAll(async () => {
  await pipeline.stop();
});

const repliesTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

/** A new customer who says `text`, once the pipeline sent them `replies` messages and went idle. */
async function customerWho(text: string, replies: number): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, text);
  await waitUntil(() => repliesTo(customer).length === replies, 10_000, `${replies} replies`);
  await pipeline.waitForIdle();
  return customer;
}

/** A customer the agent is serving (QUALIFYING). */
const servedByTheAgent = () => customerWho('Oi', 1);
/** A customer the agent handed to people (AWAITING_HUMAN): its reply and the handoff notice. */
const waiting = () => customerWho('Quero uma pessoa #humano', 2);

/** A customer Ana claimed (HUMAN_ACTIVE, assigned to her). */
async function anasConversation(): Promise<string> {
  const customer = await waiting();
  expect((await ana.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  return customer;
}

const listed = async (client: ConsoleClient, state: string) =>
  ((await client.call('GET', `/api/conversations?state=${state}&limit=100`)).body.items as { customerId: string }[]).map((item) => item.customerId);
const stateOf = async (customer: string) => (await pipeline.conversation(customer)).session?.state;
// The audit names customers by their pseudonym.
const auditOf = async (customer: string) => {
  const name = await auditNameOf(repositories, customer);
  return (await repositories.audit.listRecent({ limit: 200 })).items.filter((event) => event.resourceId === name).map((event) => event.action);
};

it('lists and reads what waits for a person and what the operator owns; admins read everything', async () => {
  const [waitingCustomer, anas, served] = [await waiting(), await anasConversation(), await servedByTheAgent()];

  expect(await listed(bia, 'AWAITING_HUMAN')).toEqual(expect.arrayContaining([waitingCustomer]));
  expect(await listed(bia, 'HUMAN_ACTIVE')).not.toContain(anas);
  expect(await listed(ana, 'HUMAN_ACTIVE')).toContain(anas);
  expect(await listed(bia, 'QUALIFYING')).toEqual([]);
  expect(await listed(admin, 'HUMAN_ACTIVE')).toContain(anas);
  expect(await listed(admin, 'QUALIFYING')).toContain(served);

  expect((await bia.call('GET', `/api/conversations/${waitingCustomer}`)).status).toBe(200);
  expect((await ana.call('GET', `/api/conversations/${anas}`)).status).toBe(200);
  for (const other of [anas, served]) {
    const refused = await bia.call('GET', `/api/conversations/${other}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden' });
    expect((await admin.call('GET', `/api/conversations/${other}`)).status).toBe(200);
  }
});

it('claims only a conversation waiting for a person', async () => {
  const [anas, served] = [await anasConversation(), await servedByTheAgent()];
  expect((await bia.call('POST', `/api/conversations/${anas}/claim`)).status).toBe(409);
  expect((await admin.call('POST', `/api/conversations/${served}/claim`)).status).toBe(409);
  expect(await stateOf(served)).toBe('QUALIFYING');
  expect((await repositories.sessions.getActive(anas))?.assignedTo).toBe(anaPhone);
});

it('sends replies of the assigned operator only, an admin’s included', async () => {
  const anas = await anasConversation();
  const sent = repliesTo(anas).length;
  expect((await bia.call('POST', `/api/conversations/${anas}/messages`, { text: 'Sou a Bia' })).status).toBe(403);
  expect((await admin.call('POST', `/api/conversations/${anas}/messages`, { text: 'Sou o admin' })).status).toBe(403);
  expect(repliesTo(anas)).toHaveLength(sent);
  expect((await ana.call('POST', `/api/conversations/${anas}/messages`, { text: 'Sou a Ana' })).status).toBe(201);
});

it('lets only the assigned operator or an admin release or close an operator’s conversation', async () => {
  const anas = await anasConversation();
  for (const action of ['release', 'close']) {
    const refused = await bia.call('POST', `/api/conversations/${anas}/${action}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden' });
  }
  expect(await stateOf(anas)).toBe('HUMAN_ACTIVE');
  expect(await auditOf(anas)).toEqual(['conversation.claim']);
  const released = await admin.call('POST', `/api/conversations/${anas}/release`);
  expect(released.status).toBe(200);
  expect(released.body.conversation).toMatchObject({ state: 'QUALIFYING' });

  const biaClosesHerOwn = await waiting();
  expect((await bia.call('POST', `/api/conversations/${biaClosesHerOwn}/claim`)).status).toBe(200);
  expect((await bia.call('POST', `/api/conversations/${biaClosesHerOwn}/close`)).status).toBe(200);
});

it('leaves a conversation nobody owns — waiting for a person, or served by the agent — to admins to release or close', async () => {
  const [waitingCustomer, served] = [await waiting(), await servedByTheAgent()];
  for (const action of ['release', 'close']) expect((await ana.call('POST', `/api/conversations/${waitingCustomer}/${action}`)).status).toBe(403);
  const closingServed = await ana.call('POST', `/api/conversations/${served}/close`);
  expect(closingServed.status).toBe(403);
  expect(closingServed.body.message).toContain('agent');
  expect([await stateOf(waitingCustomer), await stateOf(served)]).toEqual(['AWAITING_HUMAN', 'QUALIFYING']);
  expect(await auditOf(served)).toEqual([]);

  expect((await admin.call('POST', `/api/conversations/${waitingCustomer}/release`)).status).toBe(200);
  const closed = await admin.call('POST', `/api/conversations/${served}/close`);
  expect(closed.status).toBe(200);
  expect(closed.body.conversation).toMatchObject({ state: 'CLOSED' });
});
