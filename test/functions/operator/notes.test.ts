// Private notes between operators over real HTTP: kept beside the conversation, never sent to the
// customer nor shown to the agent, listed in the customer's export and gone with their erasure.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import { operatorNoteKey, sessionKey } from '../../../lambda/core/adapters/dynamodb/keys';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import type { tableRepositories } from '../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { ConsoleClient, handedOffCustomer as handedOffCustomerOf, startStaffedPipeline, textsSentTo } from '../../support/operator-console-client';
import { loginToken } from '../../support/operator-instances';
import { waitUntil } from '../../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let agent: ScriptedAgent;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  agent = new ScriptedAgent();
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone, { agent }));
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (customer: string) => textsSentTo(pipeline, customer);
const handedOffCustomer = () => handedOffCustomerOf(pipeline);

const notesOf = async (customer: string) => (await repositories.notes.list(customer, { limit: 100 })).items;

it('keeps a note with the conversation for the operators, sends nothing and never shows it to the agent', async () => {
  const customer = await handedOffCustomer();
  const sentBefore = sentTo(customer).length;
  const added = await operator.call('POST', `/api/conversations/${customer}/notes`, { text: '  Cliente prefere ligação à tarde.  ' });
  expect(added.status).toBe(201);
  expect(added.body.note).toMatchObject({ text: 'Cliente prefere ligação à tarde.', author: { phone: operatorPhone, name: 'Bia' }, at: expect.any(String), noteId: expect.any(String) });
  expect((await admin.call('POST', `/api/conversations/${customer}/notes`, { text: 'Confirmar o endereço.' })).status).toBe(201);

  const listed = await operator.call('GET', `/api/conversations/${customer}/notes`);
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((note: { text: string }) => note.text)).toEqual(['Confirmar o endereço.', 'Cliente prefere ligação à tarde.']);
  expect(sentTo(customer)).toHaveLength(sentBefore);
  expect((await pipeline.conversation(customer)).history.map((message) => message.text)).not.toContain('Confirmar o endereço.');

  // The agent's next turn reads the history: the notes are not in it.
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/release`)).status).toBe(200);
  await pipeline.sendCustomerMessage(customer, 'Ainda estou aqui');
  await waitUntil(() => agent.requests.some((request) => request.history.some((entry) => entry.text === 'Ainda estou aqui')), 10_000, 'the agent’s turn');
  const request = agent.requests.find((candidate) => candidate.history.some((entry) => entry.text === 'Ainda estou aqui'))!;
  // What the agent reads: the request's data, without the turn's capabilities it carries (class instances such as its tool rounds).
  const shown = JSON.stringify(request, (_key, value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype ? undefined : value));
  expect(shown).toContain('Ainda estou aqui');
  expect(shown).not.toContain('Confirmar o endereço');
  expect(shown).not.toContain('ligação à tarde');
  await pipeline.waitForIdle();
});

it('refuses blank, oversized, mistyped and misaddressed notes, and writes nothing', async () => {
  const customer = await handedOffCustomer();
  for (const body of [{ text: '   ' }, { text: 'x'.repeat(2001) }, { text: 42 }, {}, { text: 'ok', extra: true }]) {
    const refused = await operator.call('POST', `/api/conversations/${customer}/notes`, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^(invalid|bad_field|missing_field|unknown_field)$/);
  }
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, undefined, { rawBody: 'não é json' })).status).toBe(400);
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'sem token' }, { csrf: null })).status).toBe(403);
  expect((await operator.call('POST', '/api/conversations/a%23b/notes', { text: 'id ruim' })).status).toBe(400);
  expect((await operator.call('POST', '/api/conversations/../notes', { text: 'id ruim' })).status).toBeGreaterThanOrEqual(400);
  expect((await operator.call('POST', `/api/conversations/${newCustomer()}/notes`, { text: 'ninguém' })).status).toBe(404);
  expect((await operator.call('GET', `/api/conversations/${customer}/notes?limit=0`)).status).toBe(400);
  expect(await notesOf(customer)).toEqual([]);
});

it('refuses an operator the notes of a conversation another operator owns, and one the agent serves', async () => {
  const customer = await handedOffCustomer();
  expect((await admin.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'não é minha' })).status).toBe(403);
  expect((await operator.call('GET', `/api/conversations/${customer}/notes`)).status).toBe(403);
  expect((await admin.call('POST', `/api/conversations/${customer}/release`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'o agente atende' })).status).toBe(403);
  expect(await notesOf(customer)).toEqual([]);
});

it('refuses a removed operator’s note with 401 and writes nothing', async () => {
  const customer = await handedOffCustomer();
  const carlaPhone = newOperatorPhone();
  const current = await admin.call('GET', '/api/admin/config/operators');
  const withCarla = { ...current.body.config.value, [carlaPhone]: { role: 'operator', name: 'Carla' } };
  const added = await admin.call('PUT', '/api/admin/config/operators', { value: withCarla, expectedVersion: current.body.config.version });
  expect(added.status).toBe(200);
  const carla = new ConsoleClient(pipeline.consoleUrl!);
  expect((await carla.signIn(await loginToken(repositories, carlaPhone))).status).toBe(200);
  expect((await carla.call('GET', `/api/conversations/${customer}/notes`)).status).toBe(200);

  const { [carlaPhone]: _removed, ...withoutCarla } = withCarla;
  expect((await admin.call('PUT', '/api/admin/config/operators', { value: withoutCarla, expectedVersion: added.body.config.version })).status).toBe(200);
  expect((await carla.call('POST', `/api/conversations/${customer}/notes`, { text: 'Ainda posso?' })).status).toBe(401);
  expect(await notesOf(customer)).toEqual([]);
});

it('lists the notes in the customer’s export and erases them with the customer', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'Pediu retorno amanhã.' })).status).toBe(201);
  const exported = await admin.call('GET', `/api/admin/customers/${customer}/export`);
  expect(exported.status).toBe(200);
  // The file is the customer's: the note's author is staff, never a phone.
  expect(exported.body.records.operator_note).toEqual([expect.objectContaining({ text: 'Pediu retorno amanhã.', author_phone: 'staff' })]);
  expect(JSON.stringify(exported.body)).not.toContain(operatorPhone);

  const erased = await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer });
  expect(erased.status).toBe(200);
  expect(erased.body.erasure.deleted.operator_note).toBe(1);
  expect(await notesOf(customer)).toEqual([]);
  expect((await repositories.customerData.inventory(customer)).anchors).toEqual([]);
});

it('audits that a note was written, never its text', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'Segredo do atendimento' })).status).toBe(201);
  const events = (await repositories.audit.listRecent({ limit: 200 })).items.filter((event) => event.action === 'conversation.note');
  expect(events.length).toBeGreaterThan(0);
  expect(JSON.stringify(events)).not.toContain('Segredo do atendimento');
});

it('gives the notes the closed conversation’s retention, as its messages', async () => {
  const customer = await handedOffCustomer();
  const added = await operator.call('POST', `/api/conversations/${customer}/notes`, { text: 'Encerrar depois do retorno.' });
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/close`)).status).toBe(200);
  const { noteId, sessionId, at } = added.body.note;
  const note = await repositories.kit.get({ key: operatorNoteKey(customer, at, noteId), consistentRead: true });
  const session = await repositories.kit.get({ key: sessionKey(customer, sessionId), consistentRead: true });
  expect(session?.ttl).toEqual(expect.any(Number));
  expect(note?.ttl).toBe(session?.ttl);
  expect(await notesOf(customer)).toHaveLength(1);
});
