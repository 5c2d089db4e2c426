// A real conversation turned into a scenario through the operator API (docs/EVALUATION.md, "From a
// real conversation"), on DynamoDB Local: the customer tells the agent their name, number, e-mail
// and document, taps a button and sends a photo; an operator may not draft it (403); the admin gets
// a scenario that follows the file format with no trace of the customer's phone or name, and the
// only item written is the audit event, which names the customer by pseudonym; completed with an
// expectation, the draft is saved to the deployment's suite under the id it suggests. A conversation
// where the agent did not hand over, drafted and completed with the handoff it missed, passes with a
// prompt that hands over and fails with one that does not.
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LOCAL_BUSINESS } from '../../local/runtime/meta-notification';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/contract';
import { parseScenarios } from '../../lambda/core/application/evaluation/scenario-format';
import type { Scenario } from '../../lambda/core/domain/evaluation/scenario';
import { startLocalEvaluation } from '../../local/runtime/local-evaluation';
import { auditNameOf } from '../support/customer-history';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { allItems } from '../support/inspect';
import { type ConsoleClient, startStaffedPipeline, textsSentTo } from '../support/operator-console-client';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone()));
});
afterAll(() => pipeline.stop());

/** The customer's message (or tap), once the agent answered it. */
async function customerSends(customer: string, send: () => Promise<{ status: number }>): Promise<void> {
  const replies = textsSentTo(pipeline, customer).length;
  expect((await send()).status).toBe(200);
  await waitUntil(() => textsSentTo(pipeline, customer).length > replies, 15_000, 'the agent’s answer');
  await pipeline.waitForIdle();
}

it('gives the admin the customer\'s turns pseudonymised, refuses an operator, and writes only the audit event', async () => {
  const customer = newCustomer();
  const national = customer.slice(2);
  const profileName = 'Carla Souza';
  const texts = [
    `Oi! Sou a Carla Souza, meu celular é (${national.slice(0, 2)}) ${national.slice(2, 7)}-${national.slice(7)} #cadastro nome=Carla Beatriz Souza`,
    'Meu e-mail é carla.souza@exemplo.com.br e o CPF 123.456.789-09 #cadastro documento=123.456.789-09 #botoes Sim | Não',
  ];
  for (const text of texts) await customerSends(customer, () => pipeline.sendCustomerMessage(customer, text, { profileName }));
  const buttons = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)!;
  await customerSends(customer, () =>
    pipeline.sendCustomerContent(customer, { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'opcao-1', title: 'Sim' } }, context: { from: LOCAL_BUSINESS.displayPhoneNumber, id: buttons.providerMessageId } }, { profileName }),
  );
  await customerSends(customer, () => pipeline.sendCustomerMessage(customer, `carla aqui de novo, ${customer}`, { profileName }));

  const path = `/api/admin/conversations/${customer}/scenario`;
  const pseudonym = await auditNameOf(repositories, customer);
  // The deployment's cursor signing key is made once, by the first read that pages (here: the audit's).
  expect((await admin.call('GET', '/api/admin/audit?limit=1')).body.cursor).toBeDefined();
  const before = await allItems(pipeline.tableName);
  const refused = await operator.call('POST', path);
  expect(refused).toMatchObject({ status: 403, body: { error: 'admin_only' } });
  const answer = await admin.call('POST', path);
  const after = await allItems(pipeline.tableName);

  expect(answer.status).toBe(200);
  const { id, scenario } = answer.body;
  expect(id).toBe(scenario.name);
  expect(id).toMatch(new RegExp(`^conversation-\\d{8}-${pseudonym.slice(0, 8)}$`));
  expect(parseScenarios([{ file: `${id}.json`, text: JSON.stringify(scenario) }])).toEqual([scenario]);
  expect(scenario.turns).toEqual([
    { customer: { text: 'Oi! Sou a [name], meu celular é [phone] #cadastro nome=[name]' } },
    { customer: { text: 'Meu e-mail é [email] e o CPF [document_id] #cadastro documento=[document_id] #botoes Sim | Não' } },
    { customer: { tap: { kind: 'button', id: 'opcao-1', title: 'Sim' } } },
    { customer: { text: '[name] aqui de novo, [phone]' } },
  ]);
  const drafted = JSON.stringify(answer.body);
  for (const trace of [customer, national, national.slice(-8), 'Carla', 'Souza', 'Beatriz', 'carla.souza', '789-09']) expect(drafted).not.toContain(trace);

  // The only item the refusal and the draft wrote: the draft's audit event, which names the customer by pseudonym.
  const written = after.filter((item) => !before.some((earlier) => earlier.PK === item.PK && earlier.SK === item.SK));
  expect(written).toEqual([expect.objectContaining({ entity_type: 'admin_audit', action: 'conversation.scenario', resource_id: pseudonym })]);
  expect(after.filter((item) => before.some((earlier) => earlier.PK === item.PK && earlier.SK === item.SK && JSON.stringify(earlier) !== JSON.stringify(item)))).toEqual([]);
  expect(JSON.stringify(written)).not.toContain(customer);

  // The admin writes what the tap must do and saves the draft to the suite under the id it suggests.
  const pinned = { ...scenario, turns: scenario.turns.map((turn: object, index: number) => (index === 2 ? { ...turn, expect: { handoff: false } } : turn)) };
  expect(await admin.call('PUT', `/api/admin/scenarios/${id}`, { scenario: pinned, expectedVersion: 0 })).toMatchObject({ status: 200, body: { scenario: { id, version: 1, scenario: pinned } } });
  expect((await admin.call('GET', '/api/admin/scenarios')).body.items).toEqual([expect.objectContaining({ id, scenario: pinned })]);
});

it('answers 404 for a customer without a conversation, 400 for a malformed id or a body, 409 for a conversation without a customer message, writing nothing', async () => {
  // An operator's template opened the conversation, and the customer has not answered yet.
  const silent = newCustomer();
  const { sessions, messages } = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  const openedAt = new Date().toISOString().replace('Z', '000Z');
  await sessions.put({ sessionId: `session-${silent}`, customerId: silent, customerIdKind: 'phone', state: 'HUMAN_ACTIVE', qualificationData: {}, cadastralData: {}, handoffRenotifyCount: 0, createdAt: openedAt, updatedAt: openedAt });
  await messages.append({ customerId: silent, sessionId: `session-${silent}`, messageId: `template-${silent}`, direction: 'outbound', role: 'operator', text: 'Olá! Podemos ajudar?', timestamp: openedAt, deliveryStatus: 'sent' });
  const customer = newCustomer();
  await customerSends(customer, () => pipeline.sendCustomerMessage(customer, 'Oi'));
  const before = await allItems(pipeline.tableName);

  expect(await admin.call('POST', `/api/admin/conversations/${newCustomer()}/scenario`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  expect(await admin.call('POST', '/api/admin/conversations/not%20an%20id/scenario')).toMatchObject({ status: 400, body: { error: 'bad_id' } });
  expect(await admin.call('POST', `/api/admin/conversations/${customer}/scenario`, { turns: 5 })).toMatchObject({ status: 400, body: { error: 'unknown_field' } });
  expect(await admin.call('POST', `/api/admin/conversations/${silent}/scenario`)).toMatchObject({ status: 409, body: { error: 'conflict' } });

  expect(await allItems(pipeline.tableName)).toEqual(before);
});

it('pins what went wrong: the handoff the agent missed, written into the draft, passes with a prompt that hands over and fails with one that does not', async () => {
  const customer = newCustomer();
  const texts = ['Olá, vocês fazem exame de sangue?', `Prefiro falar com uma pessoa, por favor. Aqui é a Carla Souza, ${customer}`];
  for (const text of texts) await customerSends(customer, () => pipeline.sendCustomerMessage(customer, text, { profileName: 'Carla Souza' }));
  // The agent answered and kept the conversation: the behaviour to pin.
  expect((await pipeline.conversation(customer)).session?.state).toBe('QUALIFYING');

  const { scenario } = (await admin.call('POST', `/api/admin/conversations/${customer}/scenario`)).body as { scenario: Scenario };
  expect(scenario.turns[1]).toEqual({ customer: { text: 'Prefiro falar com uma pessoa, por favor. Aqui é a [name], [phone]' } });
  const pinned: Scenario = { ...scenario, turns: [scenario.turns[0], { ...scenario.turns[1], expect: { toolsCalled: [{ name: 'request_human_handoff' }], handoff: true } }] };
  const [suite] = parseScenarios([{ file: 'pinned.json', text: JSON.stringify(pinned) }]);

  const play = async (systemPrompt: string) => {
    const local = await startLocalEvaluation({ systemPrompt });
    try {
      return (await local.runner.execute([suite], 1)).scenarios[0];
    } finally {
      await local.close();
    }
  };
  const withoutHandoff = DEFAULT_SYSTEM_PROMPT.replace(/Hand the conversation to a human[^.]*\./, '').trim();
  expect(withoutHandoff).not.toBe(DEFAULT_SYSTEM_PROMPT);
  expect(await play(DEFAULT_SYSTEM_PROMPT)).toMatchObject({ passed: true });
  const failed = await play(withoutHandoff);
  expect(failed.passed).toBe(false);
  expect(failed.turns[1].problems).toEqual([expect.stringMatching(/^toolsCalled: request_human_handoff was not called/), 'handoff: the conversation did not go to people']);
});
