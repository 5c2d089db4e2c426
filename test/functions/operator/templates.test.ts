// Message templates over real HTTP: an admin syncs the business's templates from WhatsApp, and an
// operator re-engages a customer whose 24-hour window closed with one of them.
import { MESSAGING_CONSENT_PURPOSE } from '../../../lambda/core/domain/privacy';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { signMetaPayload } from '../../../lambda/core/adapters/whatsapp/webhook-signature';
import { auditNameOf } from '../../support/customer-history';
import type { tableRepositories } from '../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { BUSINESS_TEMPLATES } from '../../support/message-templates';
import { backdateCustomerMessages } from '../../support/service-window';
import { type ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';
import { waitUntil } from '../../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone));
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);
  const synced = await admin.call('POST', '/api/admin/templates/sync');
  expect(synced.status).toBe(200);
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

/** A customer handed to people who last wrote 25 hours ago, claimed by the operator. */
async function quietCustomerClaimed(): Promise<string> {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #dado name=Ana #humano');
  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the agent’s reply and the handoff notice');
  await pipeline.waitForIdle();
  await backdateCustomerMessages(repositories, customer);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  return customer;
}

const reengage = { name: 'retomar_conversa', language: 'pt_BR', values: ['Ana', 'o seu exame'] };

it("syncs the account's templates (admins only) and lists them to every operator", async () => {
  const listed = await operator.call('GET', '/api/templates?limit=100');
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((template: { name: string; language: string }) => `${template.name}/${template.language}`)).toEqual([
    'aviso_atendimento/pt_BR',
    'promocao_verao/pt_BR',
    'retomar_conversa/en_US',
    'retomar_conversa/pt_BR',
  ]);
  expect(listed.body.items[3]).toMatchObject({ category: 'UTILITY', status: 'APPROVED', parameters: ['1', '2'], buttons: [{ type: 'QUICK_REPLY', text: 'Continuar' }, { type: 'QUICK_REPLY', text: 'PARAR' }] });

  expect((await operator.call('POST', '/api/admin/templates/sync')).status).toBe(403);
  const synced = await admin.call('POST', '/api/admin/templates/sync');
  expect(synced.body).toEqual({ sync: { stored: 4, removed: 0, unreadable: 0 } });
  expect((await repositories.audit.listRecent({ limit: 50 })).items.some((event) => event.action === 'templates.sync' && event.author === adminPhone)).toBe(true);
});

it('re-engages a customer whose window closed with a template, recorded in the history and the audit', async () => {
  const customer = await quietCustomerClaimed();
  const conversation = await operator.call('GET', `/api/conversations/${customer}`);
  expect(conversation.body.conversation.serviceWindow).toEqual({ open: false, closesAt: expect.any(String) });
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Ainda está aí?' })).status).toBe(422);

  const sent = await operator.call('POST', `/api/conversations/${customer}/templates`, reengage);

  expect(sent.status).toBe(201);
  const text = 'Olá Ana, ainda podemos ajudar com o seu exame? Responda esta mensagem para continuar.';
  expect(sent.body.message).toMatchObject({ role: 'operator', text, template: { name: 'retomar_conversa', language: 'pt_BR' }, operatorPhone, deliveryStatus: 'sent' });
  expect(sentTo(customer).at(-1)).toMatchObject({ text, template: { name: 'retomar_conversa', language: 'pt_BR' } });
  const history = await operator.call('GET', `/api/conversations/${customer}`);
  expect(history.body.messages[0]).toMatchObject({ text, template: { name: 'retomar_conversa', language: 'pt_BR' } });
  const named = await auditNameOf(repositories, customer);
  const audit = (await repositories.audit.listRecent({ limit: 100 })).items.find((event) => event.resourceId === named && event.action === 'conversation.template');
  expect(audit).toMatchObject({ author: operatorPhone, details: { template: 'retomar_conversa', language: 'pt_BR' } });
});

it('refuses a template that is not stored, not approved, or given the wrong values, and sends nothing', async () => {
  const customer = await quietCustomerClaimed();
  const before = sentTo(customer).length;
  const send = (body: unknown) => operator.call('POST', `/api/conversations/${customer}/templates`, body);

  expect((await send({ ...reengage, name: 'nao_existe' })).status).toBe(404);
  expect((await send({ ...reengage, language: 'es' })).status).toBe(404);
  const paused = await send({ name: 'promocao_verao', language: 'pt_BR', values: [] });
  expect(paused.status).toBe(400);
  expect(paused.body.message).toContain('PAUSED');
  const wrongCount = await send({ ...reengage, values: ['Ana'] });
  expect(wrongCount).toMatchObject({ status: 400, body: { error: 'invalid', message: expect.stringContaining('takes 2 value(s)') } });
  expect((await send({ ...reengage, values: ['Ana\nSilva', 'x'] })).status).toBe(400);
  expect((await send({ ...reengage, values: 'Ana' })).status).toBe(400);
  expect((await send({ ...reengage, values: [1, 2] })).status).toBe(400);
  expect(sentTo(customer).length).toBe(before);
});

it('answers 502 when WhatsApp refuses or drops the template send, records nothing, and frees the conversation for the next send', async () => {
  const customer = await quietCustomerClaimed();
  const before = (await operator.call('GET', `/api/conversations/${customer}`)).body.messages.length;

  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 503, code: 131016, message: 'Service overloaded' });
  const refused = await operator.call('POST', `/api/conversations/${customer}/templates`, reengage);
  expect(refused).toMatchObject({ status: 502, body: { error: 'send_failed', message: expect.stringContaining('provider_unavailable') } });

  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 400, code: 132001, message: '(#132001) Template name does not exist in the translation' });
  const unknownToMeta = await operator.call('POST', `/api/conversations/${customer}/templates`, reengage);
  expect(unknownToMeta).toMatchObject({ status: 502, body: { message: expect.stringContaining('code 132001') } });

  expect((await operator.call('GET', `/api/conversations/${customer}`)).body.messages.length).toBe(before);
  expect((await operator.call('POST', `/api/conversations/${customer}/templates`, reengage)).status).toBe(201);
});

it('refuses a template to a customer who opted out, and to a conversation the operator does not own', async () => {
  const customer = await quietCustomerClaimed();
  const otherOperatorsCustomer = newCustomer();
  expect((await admin.call('POST', `/api/conversations/${otherOperatorsCustomer}/templates`, reengage)).status).toBe(404);
  expect((await admin.call('POST', `/api/conversations/${customer}/templates`, reengage)).status).toBe(403);

  await repositories.consents.record({ consentId: 'wamid.parar', customerId: customer, recordedAt: new Date().toISOString(), purpose: MESSAGING_CONSENT_PURPOSE, granted: false, source: 'whatsapp_keyword' });
  const optedOut = await operator.call('POST', `/api/conversations/${customer}/templates`, reengage);
  expect(optedOut.status).toBe(409);
  expect(optedOut.body.message).toContain('opted out');
});

it("keeps the stored template current with Meta's message_template_status_update webhook", async () => {
  const notify = async (event: string, reason: string, time: number) => {
    const rawBody = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: pipeline.fakeWhatsApp.wabaId, time, changes: [{ field: 'message_template_status_update', value: { event, message_template_id: 1, message_template_name: 'retomar_conversa', message_template_language: 'en_US', reason } }] }],
    });
    const response = await fetch(pipeline.webhookUrl!, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signMetaPayload(rawBody, pipeline.appSecret) }, body: rawBody });
    expect(response.status).toBe(200);
  };
  const stored = async () => (await operator.call('GET', '/api/templates?limit=100')).body.items.find((template: { language: string; name: string }) => template.name === 'retomar_conversa' && template.language === 'en_US');
  const now = Math.floor(Date.now() / 1000) + 60;

  await notify('PAUSED', 'LOW_QUALITY', now);
  expect(await stored()).toMatchObject({ status: 'PAUSED', statusReason: 'LOW_QUALITY' });
  // An older notification, delivered late, does not undo the newer one.
  await notify('APPROVED', 'NONE', now - 30);
  expect(await stored()).toMatchObject({ status: 'PAUSED' });
  await notify('REINSTATED', 'NONE', now + 1);
  expect(await stored()).toMatchObject({ status: 'APPROVED' });
  expect((await stored()).statusReason).toBeUndefined();
});

it('takes a handoff notice template setting only when it names a synced, approved template', async () => {
  const setNotice = (value: unknown, expectedVersion = 0) => admin.call('PUT', '/api/admin/config/handoff_notice_template', { value, expectedVersion });

  expect((await setNotice({ name: 'Aviso Atendimento', language: 'pt_BR' })).status).toBe(400);
  for (const unsendable of [{ name: 'promocao_verao', language: 'pt_BR' }, { name: 'aviso_atendimento', language: 'en_US' }]) {
    const refused = await setNotice(unsendable);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('template_not_approved');
  }
  expect((await admin.call('GET', '/api/admin/config/handoff_notice_template')).body.config).toMatchObject({ value: null, version: 0 });

  const accepted = await setNotice({ name: 'aviso_atendimento', language: 'pt_BR' });
  expect(accepted.status).toBe(200);
  expect((await admin.call('GET', '/api/admin/config/handoff_notice_template')).body.config).toMatchObject({ value: { name: 'aviso_atendimento', language: 'pt_BR' }, version: 1 });
});
