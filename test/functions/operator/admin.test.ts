// The admin API over real HTTP: prompts with versions (compare-and-set, rollback) that the agent
// then uses, validated settings, the read-only lists, and 403 for operators on every admin call.
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';
import type { tableRepositories } from '../../support/dynamo-table';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let agent: ScriptedAgent;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

const ADMIN_CALLS: ReadonlyArray<readonly [string, string, unknown?]> = [
  ['GET', '/api/admin/prompts'],
  ['GET', '/api/admin/prompts/system'],
  ['GET', '/api/admin/prompts/system/versions'],
  ['PUT', '/api/admin/prompts/system', { content: 'x', expectedVersion: 0 }],
  ['POST', '/api/admin/prompts/system/rollback', { targetVersion: 1 }],
  ['GET', '/api/admin/config/operators'],
  ['PUT', '/api/admin/config/operators', { value: {}, expectedVersion: 0 }],
  ['GET', '/api/admin/deployment-admins'],
  ['GET', '/api/admin/audit'],
  ['GET', '/api/admin/demands'],
  ['GET', '/api/admin/consents'],
  ['GET', '/api/admin/crm'],
  ['GET', '/api/admin/dead-letters'],
  ['POST', '/api/admin/dead-letters/refresh'],
  ['POST', '/api/admin/dead-letters/redrive', { dryRun: false }],
];

beforeAll(async () => {
  agent = new ScriptedAgent();
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone, { agent }));
});
afterAll(async () => {
  await pipeline.stop();
});

it('refuses every admin call to an operator with 403 and writes nothing', async () => {
  for (const [method, path, body] of ADMIN_CALLS) {
    const answer = await operator.call(method, path, body);
    expect({ path, status: answer.status }).toEqual({ path, status: 403 });
  }
  expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();
  expect((await repositories.config.get('operators'))?.version).toBe(1);
});

it('edits the prompt with compare-and-set, keeps every version, rolls back, and the agent uses it', async () => {
  const created = await admin.call('PUT', '/api/admin/prompts/system', { content: 'Você é a assistente do laboratório.', expectedVersion: 0 });
  expect(created.status).toBe(200);
  expect(created.body.prompt).toMatchObject({ version: 1, author: adminPhone, active: true });
  const edited = await admin.call('PUT', '/api/admin/prompts/system', { content: 'Seja breve.', expectedVersion: 1, description: 'shorter' });
  expect(edited.body.prompt).toMatchObject({ version: 2, content: 'Seja breve.' });

  const stale = await admin.call('PUT', '/api/admin/prompts/system', { content: 'Edição perdida', expectedVersion: 1 });
  expect(stale.status).toBe(409);
  expect((await admin.call('GET', '/api/admin/prompts/system')).body.prompt).toMatchObject({ version: 2, content: 'Seja breve.' });

  const rolledBack = await admin.call('POST', '/api/admin/prompts/system/rollback', { targetVersion: 1 });
  expect(rolledBack.status).toBe(200);
  expect(rolledBack.body.prompt).toMatchObject({ version: 3, content: 'Você é a assistente do laboratório.', rolledBackFrom: 1 });
  expect((await admin.call('POST', '/api/admin/prompts/system/rollback', { targetVersion: 9 })).status).toBe(404);

  const versions = await admin.call('GET', '/api/admin/prompts/system/versions');
  expect(versions.body.items.map((version: { version: number }) => version.version)).toEqual([3, 2, 1]);
  expect((await admin.call('GET', '/api/admin/prompts')).body.items.map((prompt: { resourceId: string }) => prompt.resourceId)).toEqual(['system']);
  expect((await admin.call('GET', '/api/admin/prompts/nope')).status).toBe(404);

  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Oi');
  await pipeline.waitForIdle();
  expect(agent.requests.find((request) => request.session.customerId === customer)?.systemPrompt).toBe('Você é a assistente do laboratório.');

  const actions = (await admin.call('GET', '/api/admin/audit?limit=100')).body.items.map((event: { action: string }) => event.action);
  expect(actions).toEqual(expect.arrayContaining(['prompt.update', 'prompt.rollback']));
  expect(actions.filter((action: string) => action === 'prompt.update')).toHaveLength(2);
});

it('validates each setting, compares and sets on its version, and audits who changed whom', async () => {
  const current = await admin.call('GET', '/api/admin/config/operators');
  expect(current.body.config).toMatchObject({ key: 'operators', version: 1 });
  const newcomer = newOperatorPhone();
  const value = { [operatorPhone]: { role: 'operator', name: 'Bia' }, [newcomer]: { role: 'admin', name: 'Caio' } };

  for (const invalid of [
    { [newcomer]: { role: 'boss' } },
    { '+55 11': { role: 'operator' } },
    { [newcomer]: { role: 'operator', isAdmin: true } },
    [newcomer],
    'everyone',
  ]) {
    const refused = await admin.call('PUT', '/api/admin/config/operators', { value: invalid, expectedVersion: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid');
  }
  expect((await repositories.config.get('operators'))?.version).toBe(1);

  const saved = await admin.call('PUT', '/api/admin/config/operators', { value, expectedVersion: 1 });
  expect(saved.status).toBe(200);
  expect(saved.body.config.value[newcomer]).toMatchObject({ role: 'admin', name: 'Caio', added_by: adminPhone, added_at: expect.any(String) });
  expect((await admin.call('PUT', '/api/admin/config/operators', { value, expectedVersion: 1 })).status).toBe(409);

  expect((await admin.call('PUT', '/api/admin/config/availability_ttl_hours', { value: 0, expectedVersion: 0 })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/config/availability_ttl_hours', { value: 8, expectedVersion: 0 })).status).toBe(200);
  expect((await admin.call('PUT', '/api/admin/config/handoff_texts', { value: { fallback: '' }, expectedVersion: 0 })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/config/handoff_texts', { value: { fallback: 'Já volto!' }, expectedVersion: 0 })).status).toBe(200);
  // A price table is cleared with null, as the console does when its last row is removed: the packaged prices apply again.
  expect((await admin.call('PUT', '/api/admin/config/model_prices', { value: { 'model-a': { input: 1, output: 2 } }, expectedVersion: 0 })).status).toBe(200);
  expect((await admin.call('PUT', '/api/admin/config/model_prices', { value: null, expectedVersion: 1 })).status).toBe(200);
  expect(await repositories.config.get('model_prices')).toMatchObject({ version: 2, value: undefined });
  expect((await admin.call('PUT', '/api/admin/config/anything_else', { value: 1, expectedVersion: 0 })).status).toBe(400);
  expect((await admin.call('GET', '/api/admin/config/anything_else')).status).toBe(404);

  const audit = (await admin.call('GET', '/api/admin/audit?limit=100')).body.items.find((event: { resourceId?: string; action: string }) => event.action === 'config.update' && event.resourceId === 'operators');
  expect(audit).toMatchObject({ author: adminPhone, details: { added: [newcomer], removed: [] } });
});

it('answers a refused setting with a code and the facts its words need, and writes nothing', async () => {
  const refusal = async (key: string, value: unknown) => {
    const before = (await repositories.config.get(key))?.version ?? 0;
    const answer = await admin.call('PUT', `/api/admin/config/${key}`, { value, expectedVersion: before });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid');
    expect((await repositories.config.get(key))?.version ?? 0).toBe(before);
    return answer.body.problem;
  };
  expect(await refusal('availability_ttl_hours', 500)).toEqual({ code: 'out_of_range', field: 'availability_ttl_hours', min: 1, max: 168 });
  expect(await refusal('availability_ttl_hours', 2.5)).toEqual({ code: 'out_of_range', field: 'availability_ttl_hours', min: 1, max: 168 });
  expect(await refusal('handoff_texts', { fallback: 'x'.repeat(1001) })).toEqual({ code: 'blank_or_too_long', field: 'handoff_texts.fallback', max: 1000 });
  expect(await refusal('handoff_texts', { operatorNotification: 'Abra {link} agora' })).toEqual({ code: 'link_not_last', field: 'handoff_texts.operatorNotification', placeholder: '{link}' });
  expect(await refusal('handoff_texts', { greeting: 'Oi' })).toEqual({ code: 'unknown_field', field: 'handoff_texts.greeting' });
  expect(await refusal('handoff_notice_template', { name: 'Not A Name' })).toEqual({ code: 'bad_template_ref', field: 'handoff_notice_template' });
  const current = await repositories.config.get('operators');
  expect(await refusal('operators', { ...(current!.value as object), '12': { role: 'operator' } })).toEqual({ code: 'bad_phone', field: '12' });
  expect(await refusal('operators', { [newOperatorPhone()]: { role: 'boss' } })).toMatchObject({ code: 'bad_role' });
  expect(await refusal('operators', { [newOperatorPhone()]: { role: 'operator', name: 'n'.repeat(101) } })).toMatchObject({ code: 'too_long', max: 100 });
  expect(await refusal('model_prices', { 'anthropic.claude-3-haiku': { input: -1, output: 1.25 } })).toEqual({ code: 'out_of_range', field: 'model_prices.anthropic.claude-3-haiku.input', min: 0, max: 1000 });
  expect(await refusal('model_prices', { 'model-a': { input: 1 } })).toEqual({ code: 'out_of_range', field: 'model_prices.model-a.output', min: 0, max: 1000 });
  expect(await refusal('model_prices', ['model-a'])).toEqual({ code: 'not_an_object', field: 'model_prices' });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: { brazil: { service: 1.5 } } })).toEqual({ code: 'out_of_range', field: 'meta_rates.rates.brazil.service', min: 0, max: 1 });
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: { brazil: { service: '0.01' } } })).toEqual({ code: 'out_of_range', field: 'meta_rates.rates.brazil.service', min: 0, max: 1 });
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: { mars: { service: 0.01 } } })).toEqual({ code: 'unknown_field', field: 'meta_rates.rates.mars' });
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: { brazil: { referral: 0.01 } } })).toEqual({ code: 'unknown_field', field: 'meta_rates.rates.brazil.referral' });
  expect(await refusal('meta_rates', { checkedOn: tomorrow, rates: { brazil: { service: 0.01 } } })).toEqual({ code: 'bad_date', field: 'meta_rates.checkedOn' });
  expect(await refusal('meta_rates', { checkedOn: '2026-02-30', rates: {} })).toEqual({ code: 'bad_date', field: 'meta_rates.checkedOn' });
  expect(await refusal('meta_rates', { rates: { brazil: { service: 0.01 } } })).toEqual({ code: 'bad_date', field: 'meta_rates.checkedOn' });
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: [] })).toEqual({ code: 'not_an_object', field: 'meta_rates' });
  expect(await refusal('meta_rates', { checkedOn: '2026-12-01', rates: {}, currency: 'BRL' })).toEqual({ code: 'unknown_field', field: 'meta_rates.currency' });
  // A refusal of the HTTP layer itself has no problem parts: its message is the whole answer.
  const unknownKey = await admin.call('PUT', '/api/admin/config/availability_ttl_hours', { value: 5 });
  expect(unknownKey.body).toEqual({ error: 'missing_field', message: expect.any(String) });
});

it("lists the deployment's admins apart from the operators setting", async () => {
  expect((await admin.call('GET', '/api/admin/deployment-admins')).body).toEqual({ items: [{ phone: adminPhone, role: 'admin' }] });
});

it('lists demands, consents and CRM problems', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Vocês fazem #fora teste de paternidade');
  await pipeline.waitForIdle();
  const demands = await admin.call('GET', '/api/admin/demands?limit=10');
  expect(demands.status).toBe(200);
  expect(demands.body.items[0]).toMatchObject({ requestedService: 'teste de paternidade' });
  expect((await admin.call('GET', '/api/admin/consents')).body).toEqual({ items: [] });
  expect((await admin.call('GET', '/api/admin/crm')).body.problems).toEqual(expect.any(Array));
});

it('shows the dead letters and redrives only what is safe, as npm run redrive does', async () => {
  const customer = newCustomer();
  // A record whose message was never registered: the redrive asks for a confirmation, never acts alone.
  await pipeline.sqsClient.send(
    new SendMessageCommand({
      QueueUrl: pipeline.deadLetterQueueUrl,
      MessageBody: JSON.stringify({ phone_number: customer, message_id: 'wamid.never-registered' }),
      MessageGroupId: customer,
      MessageDeduplicationId: `dlq-${customer}`,
    }),
  );
  const listed = await admin.call('GET', '/api/admin/dead-letters');
  expect(listed.status).toBe(200);
  expect(listed.body.items).toEqual([expect.objectContaining({ customer, messageId: 'wamid.never-registered', verdict: 'confirm' })]);

  const dryRun = await admin.call('POST', '/api/admin/dead-letters/redrive', { dryRun: true });
  expect(dryRun.body.outcomes.map((outcome: { action: string }) => outcome.action)).toEqual(['inspected']);
  const applied = await admin.call('POST', '/api/admin/dead-letters/redrive', { dryRun: false });
  expect(applied.status).toBe(200);
  expect(applied.body.outcomes.map((outcome: { action: string }) => outcome.action)).toEqual(['held']);
  expect((await admin.call('GET', '/api/admin/dead-letters')).body.items).toHaveLength(1);
  expect((await admin.call('POST', '/api/admin/dead-letters/redrive', {})).status).toBe(400);

  const audit = (await admin.call('GET', '/api/admin/audit?limit=100')).body.items.find((event: { action: string }) => event.action === 'dead_letters.redrive');
  expect(audit).toMatchObject({ author: adminPhone, details: { dropped: 0, redriven: 0, held: 1 } });
});

it('reads the dead-letter queue only when asked: screen reads leave its receive counts alone', async () => {
  const before = (await admin.call('POST', '/api/admin/dead-letters/refresh')).body;
  expect(before).toMatchObject({ takenBy: adminPhone, count: 1 });
  const [card] = before.items;
  expect(card).toMatchObject({ verdict: 'confirm', onConfirm: 'drop', explanation: [{ code: 'no_receipt' }] });
  // What the card shows is what the redrive decided from, without the stored items themselves.
  expect(card.receipt).toBeUndefined();

  for (let read = 0; read < 5; read++) expect((await admin.call('GET', '/api/admin/dead-letters')).body).toEqual(before);
  const attributes = await pipeline.sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: pipeline.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }));
  expect(attributes.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('0');

  // The next refresh is the one receive since: the ApproximateReceiveCount of the record grew by one.
  const after = (await admin.call('POST', '/api/admin/dead-letters/refresh')).body;
  expect(after.items.map((item: { recordId: string }) => item.recordId)).toEqual([card.recordId]);
  expect(after.items[0].receiveCount).toBe(card.receiveCount + 1);
  expect((await admin.call('POST', '/api/admin/dead-letters/refresh', { extra: true })).status).toBe(400);
});
