// The human inbox over real HTTP: a handed-off customer is claimed, answered, given back to the
// agent or closed, with every transition conditional and every action audited.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import { MESSAGING_CONSENT_PURPOSE } from '../../../lambda/core/domain/privacy';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { waitUntil } from '../../support/waiting';
import { type ConsoleClient, handedOffCustomer as handedOffCustomerOf, startStaffedPipeline, textsSentTo } from '../../support/operator-console-client';
import type { tableRepositories } from '../../support/dynamo-table';
import { auditNameOf } from '../../support/customer-history';
import { backdateCustomerMessages } from '../../support/service-window';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let agent: ScriptedAgent;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  agent = new ScriptedAgent();
  // A short visibility timeout: a turn whose reply failed to send is retried within seconds (and
  // still long enough that a slow turn on a busy machine is not redelivered while it runs).
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone, { agent, queue: { visibilityTimeoutSeconds: 6 } }));
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (customer: string): string[] => textsSentTo(pipeline, customer);
const handedOffCustomer = (options: Parameters<typeof handedOffCustomerOf>[1] = {}): Promise<string> => handedOffCustomerOf(pipeline, options);

it('lists waiting conversations by state with a cursor, and reads one with its history', async () => {
  const first = newCustomer();
  const customers = [await handedOffCustomer({ customer: first, profileName: `Cliente ${first.slice(-4)}` }), await handedOffCustomer(), await handedOffCustomer()];
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await admin.call('GET', `/api/conversations?state=AWAITING_HUMAN&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeLessThanOrEqual(2);
    seen.push(...page.body.items.map((item: { customerId: string }) => item.customerId));
    cursor = page.body.cursor;
  } while (cursor);
  expect(seen).toEqual(expect.arrayContaining(customers));
  const listed = await admin.call('GET', '/api/conversations?state=AWAITING_HUMAN&limit=100');
  expect(listed.body.items.find((item: { customerId: string }) => item.customerId === customers[0])).toMatchObject({
    displayName: 'Ana',
    state: 'AWAITING_HUMAN',
    waitingSince: expect.any(String),
    profileName: `Cliente ${customers[0].slice(-4)}`,
    handoffReason: 'O cliente pediu atendimento humano (#humano)',
    // The customer's own last message, not the pipeline's "nobody is available" that followed it.
    lastMessage: { role: 'user', preview: 'Quero falar com alguém #dado name=Ana #humano' },
  });

  const one = await operator.call('GET', `/api/conversations/${customers[0]}`);
  expect(one.status).toBe(200);
  expect(one.body.conversation).toMatchObject({ customerId: customers[0], state: 'AWAITING_HUMAN', qualificationData: { name: 'Ana' } });
  expect(one.body.conversation.handoffReason).toBe('O cliente pediu atendimento humano (#humano)');
  expect(one.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'assistant', 'user']);
  expect((await operator.call('GET', `/api/conversations/${newCustomer()}`)).status).toBe(404);
  expect((await operator.call('GET', '/api/conversations?state=WAITING')).status).toBe(400);
});

it('shows the operator the reaction a customer left on a message and marks an edited one', async () => {
  const customer = await handedOffCustomer();
  const { items } = await repositories.messages.history(customer, { limit: 10 });
  const reply = items.find((message) => message.role === 'assistant' && message.providerMessageId !== undefined)!;
  const question = items.find((message) => message.role === 'user')!;
  await repositories.messages.recordReaction(customer, { targetMessageId: reply.providerMessageId!, emoji: '🙏' }, new Date().toISOString());
  await repositories.messages.recordEdit(customer, question.messageId, 'Quero falar com uma pessoa', new Date().toISOString());

  const { body } = await operator.call('GET', `/api/conversations/${customer}`);
  expect(body.messages.find((message: { messageId: string }) => message.messageId === reply.messageId)).toMatchObject({ reaction: '🙏' });
  expect(body.messages.find((message: { messageId: string }) => message.messageId === question.messageId)).toMatchObject({ text: 'Quero falar com uma pessoa', editedAt: expect.any(String) });
});

it('keeps a row current from the items the pipeline writes: a message to the human inbox becomes its preview', async () => {
  const customer = await handedOffCustomer();
  await pipeline.sendCustomerMessage(customer, 'Ainda estou aqui, aguardando alguém para falar sobre o meu exame de sangue de amanhã cedo');
  await pipeline.waitForIdle();
  const row = async () => (await admin.call('GET', '/api/conversations?state=AWAITING_HUMAN&limit=100')).body.items.find((item: { customerId: string }) => item.customerId === customer);
  expect(await row()).toMatchObject({
    lastMessage: { role: 'user', preview: 'Ainda estou aqui, aguardando alguém para falar sobre o meu exame de sangue de amanhã cedo' },
  });
});

it('lets exactly one of two operators claim a conversation at once', async () => {
  const customer = await handedOffCustomer();
  const answers = await Promise.all([admin.call('POST', `/api/conversations/${customer}/claim`), operator.call('POST', `/api/conversations/${customer}/claim`)]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
  const winner = answers.find((answer) => answer.status === 200)!;
  expect(winner.body.conversation).toMatchObject({ state: 'HUMAN_ACTIVE', assignedTo: expect.stringMatching(new RegExp(`^(${adminPhone}|${operatorPhone})$`)) });
  // The other is told who was first: by the name the operators list gives her, else her phone.
  const { assignedTo } = winner.body.conversation;
  expect(answers.find((answer) => answer.status === 409)!.body).toMatchObject({ error: 'conflict', problem: { code: 'conversation_taken', assignedTo, who: assignedTo === operatorPhone ? 'Bia' : adminPhone } });
  const row = (await admin.call('GET', '/api/conversations?state=HUMAN_ACTIVE&limit=100')).body.items.find((item: { customerId: string }) => item.customerId === customer);
  // The operators list names Bia; the deploy-time admin it does not name shows as her phone.
  expect(row.assignedToName).toBe(row.assignedTo === operatorPhone ? 'Bia' : undefined);
  const named = await auditNameOf(repositories, customer);
  const audit = (await repositories.audit.listRecent({ limit: 200 })).items.filter((event) => event.resourceId === named && event.action === 'conversation.claim');
  expect(audit).toHaveLength(1);
});

it('sends the assigned operator’s reply through WhatsApp and records it; others get 403', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi' })).status).toBe(409);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 'Sou outra pessoa' })).status).toBe(403);

  const sent = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Olá Ana, sou a Bia.' });
  expect(sent.status).toBe(201);
  expect(sent.body.message).toMatchObject({ role: 'operator', direction: 'outbound', deliveryStatus: 'sent', operatorPhone });
  expect(sentTo(customer).at(-1)).toBe('Olá Ana, sou a Bia.');
  const history = (await pipeline.conversation(customer)).history;
  expect(history.at(-1)).toMatchObject({ role: 'operator', text: 'Olá Ana, sou a Bia.', operatorPhone, deliveryStatus: 'sent' });
});

it('answers 502 when WhatsApp refuses, records nothing as sent and releases the lock', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  const before = (await pipeline.conversation(customer)).history.length;
  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
  const failed = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Primeira tentativa' });
  expect(failed.status).toBe(502);
  expect((await pipeline.conversation(customer)).history).toHaveLength(before);
  expect((await pipeline.conversation(customer)).session?.humanSendLock).toBeUndefined();
  // The lock is free: the next send goes through at once.
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Segunda tentativa' })).status).toBe(201);
  expect(sentTo(customer)).not.toContain('Primeira tentativa');
});

it('refuses a reply to a customer who opted out with 409 and sends nothing, until they opt back in', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  const consent = (consentId: string, granted: boolean) => ({ consentId, customerId: customer, recordedAt: new Date().toISOString(), purpose: MESSAGING_CONSENT_PURPOSE, granted, source: 'whatsapp_keyword' });
  await repositories.consents.record(consent('wamid.parar', false));
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const refused = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Posso ajudar?' });
  expect(refused.status).toBe(409);
  expect(refused.body.message).toContain('opted out');
  expect(pipeline.fakeWhatsApp.sent().length).toBe(sentBefore);

  await repositories.consents.record(consent('wamid.voltar', true));
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Posso ajudar?' })).status).toBe(201);
});

it('refuses a reply outside the 24-hour window with 422 and sends nothing', async () => {
  const customer = await handedOffCustomer();
  await backdateCustomerMessages(repositories, customer);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const refused = await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Ainda está aí?' });
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({ error: 'outside_window', message: expect.stringContaining('24 hours') });
  expect(pipeline.fakeWhatsApp.sent().length).toBe(sentBefore);
});

it('gives the conversation back to the agent, which answers with the human part in its history', async () => {
  const customer = await handedOffCustomer();
  await pipeline.sendCustomerMessage(customer, 'Alguém aí?');
  await pipeline.waitForIdle();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Pronto, seu exame foi agendado.' })).status).toBe(201);
  const released = await operator.call('POST', `/api/conversations/${customer}/release`);
  expect(released.status).toBe(200);
  expect(released.body.conversation).toMatchObject({ state: 'QUALIFYING' });
  expect(released.body.conversation.assignedTo).toBeUndefined();

  await pipeline.sendCustomerMessage(customer, 'Obrigada!');
  await waitUntil(() => sentTo(customer).some((text) => text.startsWith('Olá! Recebi: Obrigada!')), 10_000, 'the agent’s answer');
  expect(sentTo(customer).at(-1)).toMatch(/^Olá! Recebi: Obrigada!/);
  const lastRequest = agent.requests.filter((request) => request.session.customerId === customer).at(-1)!;
  expect(lastRequest.history.map((entry) => entry.text)).toEqual(
    expect.arrayContaining(['Alguém aí?', 'Pronto, seu exame foi agendado.', 'Obrigada!']),
  );
  expect(lastRequest.history.find((entry) => entry.text === 'Pronto, seu exame foi agendado.')?.role).toBe('assistant');
});

it('supersedes the agent’s reply of an in-flight turn when a human answers first', async () => {
  const customer = newCustomer();
  // The agent's reply to the handoff is persisted, but its send fails: the turn waits for its retry.
  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
  await pipeline.sendCustomerMessage(customer, 'Preciso de uma pessoa #humano');
  await waitUntil(async () => (await pipeline.conversation(customer)).session?.state === 'AWAITING_HUMAN', 10_000, 'the handoff');
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, aqui é a Bia.' })).status).toBe(201);

  await pipeline.waitForIdle();
  expect(sentTo(customer)).toEqual(['Oi, aqui é a Bia.']);
  const stored = (await repositories.messages.history(customer)).items;
  expect(stored.find((message) => message.role === 'assistant')).toMatchObject({ deliveryStatus: 'superseded' });
});

it('closes a conversation and records who did it', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  const closed = await operator.call('POST', `/api/conversations/${customer}/close`);
  expect(closed.status).toBe(200);
  expect(closed.body.conversation).toMatchObject({ state: 'CLOSED' });
  expect((await operator.call('POST', `/api/conversations/${customer}/close`)).status).toBe(409);
  const named = await auditNameOf(repositories, customer);
  const actions = (await repositories.audit.listRecent({ limit: 200 })).items.filter((event) => event.resourceId === named).map((event) => [event.author, event.action]);
  expect(actions).toEqual(expect.arrayContaining([[operatorPhone, 'conversation.claim'], [operatorPhone, 'conversation.close']]));
});

describe('searching and filtering the inbox', () => {
  const idsOf = (page: { status: number; body: { items: { customerId: string }[] } }) => {
    expect(page).toMatchObject({ status: 200 });
    return page.body.items.map((item) => item.customerId);
  };
  const list = (query: string) => admin.call('GET', `/api/conversations?state=AWAITING_HUMAN&limit=100&${query}`);

  it('finds a conversation by a part of a name, without case or accents, or by the first digits of the phone', async () => {
    const customer = newCustomer();
    await pipeline.sendCustomerMessage(customer, 'Oi #dado name=José Conceição #humano', { profileName: 'Zé da Padaria' });
    await pipeline.waitForIdle();
    expect(idsOf(await list('search=conceicao'))).toContain(customer);
    expect(idsOf(await list(`search=${encodeURIComponent('JOSÉ')}`))).toContain(customer);
    expect(idsOf(await list(`search=${encodeURIComponent('padaria')}`))).toContain(customer);
    expect(idsOf(await list(`search=${encodeURIComponent(`+${customer.slice(0, 6)}`)}`))).toContain(customer);
    expect(idsOf(await list(`search=${customer.slice(2)}`))).not.toContain(customer);
    expect(idsOf(await list('search=ninguem%20com%20esse%20nome'))).toEqual([]);
  });

  it("lists only the caller's own conversations with assigned=me", async () => {
    const customer = await handedOffCustomer();
    expect((await admin.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
    const mine = await admin.call('GET', '/api/conversations?state=HUMAN_ACTIVE&assigned=me&limit=100');
    expect(idsOf(mine)).toContain(customer);
    expect(mine.body.items.every((item: { assignedTo: string }) => item.assignedTo === adminPhone)).toBe(true);
    expect(idsOf(await operator.call('GET', '/api/conversations?state=HUMAN_ACTIVE&assigned=me&limit=100'))).not.toContain(customer);
  });

  it('refuses a search or filter it cannot run with 400 bad_query, saying what to change', async () => {
    const hostile = ["' OR 1=1 --", '#pk', ':type', 'a'.repeat(65), ' ', 'x', '1', '<script>', 'contains(#names, :q)', 'name)) OR ((1'];
    for (const search of hostile) {
      const refused = await list(`search=${encodeURIComponent(search)}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'bad_query', message: expect.stringMatching(/^search /) });
    }
    const badFilter = await list('assigned=someone-else');
    expect(badFilter.status).toBe(400);
    expect(badFilter.body).toMatchObject({ error: 'bad_query', message: expect.stringContaining('assigned') });
  });
});

describe('polling the inbox with conditional requests', () => {
  const waiting = '/api/conversations?state=AWAITING_HUMAN&limit=100';
  const served = '/api/conversations?state=QUALIFYING&limit=100';
  const rowOf = (answer: { body: { items: { customerId: string }[] } }, customer: string) => answer.body.items.find((item) => item.customerId === customer);
  /** The list as a console holding `etag` asks for it again. */
  const pollWith = (client: ConsoleClient, etag: string | null, query = waiting) => client.call('GET', query, undefined, { headers: { 'if-none-match': etag! } });

  it('answers 304 with no body while nothing changed, however long, and the new list once a conversation moves', async () => {
    const customer = await handedOffCustomer();
    const first = await operator.call('GET', waiting);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // No clock in the tag: the waiting times a row shows are the console's, from its timestamps.
    expect(await pollWith(operator, etag)).toMatchObject({ status: 304, body: '' });

    expect((await admin.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
    const changed = await pollWith(operator, etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(rowOf(changed, customer)).toBeUndefined();
  });

  it('turns the tag when the customer writes to the human inbox: the row shows the message and the profile name it came with', async () => {
    const customer = await handedOffCustomer();
    const before = await operator.call('GET', waiting);
    await pipeline.sendCustomerMessage(customer, 'Ainda estou aguardando', { profileName: 'Diego Ramos' });
    await pipeline.waitForIdle();
    const after = await pollWith(operator, before.headers.get('etag'));
    expect(after.status).toBe(200);
    expect(rowOf(after, customer)).toMatchObject({ profileName: 'Diego Ramos', lastMessage: { preview: 'Ainda estou aguardando' } });
    // The search finds the conversation by the name it learned there.
    expect(rowOf(await operator.call('GET', `${waiting}&search=diego`), customer)).toBeDefined();
  });

  it('turns the tag when an admin erases the customer: the row leaves every list that showed it', async () => {
    const customer = await handedOffCustomer();
    const [operatorsCopy, adminsCopy] = await Promise.all([operator.call('GET', waiting), admin.call('GET', waiting)]);
    expect(rowOf(operatorsCopy, customer)).toBeDefined();
    expect((await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer })).status).toBe(200);
    for (const [client, copy] of [[operator, operatorsCopy], [admin, adminsCopy]] as const) {
      const after = await pollWith(client, copy.headers.get('etag'));
      expect(after.status).toBe(200);
      expect(rowOf(after, customer)).toBeUndefined();
    }
  });

  it('turns the tag of an admin’s lists of the agent’s conversations at each turn of the agent, and not people’s lists', async () => {
    const [peoples, agents] = await Promise.all([admin.call('GET', waiting), admin.call('GET', served)]);
    const customer = newCustomer();
    await pipeline.sendCustomerMessage(customer, 'Oi', { profileName: 'Carla Dias' });
    await waitUntil(() => sentTo(customer).length === 1, 10_000, 'the agent’s reply');
    await pipeline.waitForIdle();
    expect((await pollWith(admin, peoples.headers.get('etag'))).status).toBe(304);
    const appeared = await pollWith(admin, agents.headers.get('etag'), served);
    expect(appeared.status).toBe(200);
    expect(rowOf(appeared, customer)).toMatchObject({ profileName: 'Carla Dias', lastMessage: { preview: 'Oi' } });

    await pipeline.sendCustomerMessage(customer, 'Quero saber o preço');
    await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the agent’s second reply');
    await pipeline.waitForIdle();
    const next = await pollWith(admin, appeared.headers.get('etag'), served);
    expect(next.status).toBe(200);
    expect(rowOf(next, customer)).toMatchObject({ lastMessage: { preview: 'Quero saber o preço' } });
  });

  it('marks a row unread for each operator until they open it; the open turns their ETag alone', async () => {
    const customer = await handedOffCustomer();
    const [mine, theirs] = await Promise.all([operator.call('GET', waiting), admin.call('GET', waiting)]);
    expect([rowOf(mine, customer), rowOf(theirs, customer)]).toEqual([expect.objectContaining({ unread: true }), expect.objectContaining({ unread: true })]);

    expect((await operator.call('GET', `/api/conversations/${customer}`)).status).toBe(200);
    const [mineNow, theirsNow] = await Promise.all([pollWith(operator, mine.headers.get('etag')), pollWith(admin, theirs.headers.get('etag'))]);
    expect(mineNow.status).toBe(200);
    expect(rowOf(mineNow, customer)).toMatchObject({ unread: false });
    expect(theirsNow.status).toBe(304);
  });

  it('tags each caller and each query apart: one operator’s copy never answers another’s', async () => {
    const [mine, theirs, other] = await Promise.all([operator.call('GET', waiting), admin.call('GET', waiting), operator.call('GET', `${waiting}&search=ana`)]);
    expect(new Set([mine, theirs, other].map((answer) => answer.headers.get('etag'))).size).toBe(3);
    expect((await pollWith(admin, mine.headers.get('etag'))).status).toBe(200);
  });
});

it('names the operator who wrote each reply, as the operators list has it', async () => {
  const customer = await handedOffCustomer();
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, aqui é a Bia.' })).status).toBe(201);
  const read = await admin.call('GET', `/api/conversations/${customer}`);
  expect(read.body.messages[0]).toMatchObject({ role: 'operator', operatorPhone, operatorName: 'Bia', text: 'Oi, aqui é a Bia.' });
  expect(read.body.messages.filter((message: { role: string }) => message.role !== 'operator').every((message: { operatorName?: string }) => message.operatorName === undefined)).toBe(true);
});
