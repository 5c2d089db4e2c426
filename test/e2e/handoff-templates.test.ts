// Handoff notices outside an operator's own 24-hour window: WhatsApp refuses the text (131047), so
// the notice goes as the admin's template; when no operator can be reached at all, the customer is
// told nobody is available instead of waiting in silence.
import { DEFAULT_HANDOFF_TEXTS } from '../../lib/contract';
import { HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY } from '../../lambda/core/domain/operational-settings';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES, HANDOFF_NOTICE_TEMPLATE } from '../support/message-templates';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
const operator = newOperatorPhone();
const noticeTemplate = { name: HANDOFF_NOTICE_TEMPLATE.name, language: HANDOFF_NOTICE_TEMPLATE.language };

beforeAll(async () => {
  pipeline = await startOperatorPipeline([operator], { queue: { visibilityTimeoutSeconds: 6 }, handoffNoticeTemplate: noticeTemplate });
  repositories = tableRepositories(pipeline.tableName);
});
beforeEach(async () => {
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);
  // As the template sync schedule runs it: the handoff sweeper, with its own role.
  expect(await pipeline.syncTemplates()).toEqual({ stored: BUSINESS_TEMPLATES.length, removed: 0, unreadable: 0 });
  await repositories.config.setOperatorAvailability(operator, new Date().toISOString(), operator);
  pipeline.fakeWhatsApp.closeServiceWindow(operator);
});
afterEach(() => pipeline.fakeWhatsApp.openServiceWindow(operator));
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone);

async function handOff(name: string, customer = newCustomer()): Promise<string> {
  await pipeline.sendCustomerMessage(customer, `Sou ${name} #dado name=${name} #humano`);
  await waitUntil(() => sentTo(customer).length >= 1, 10_000, 'the agent’s reply');
  await pipeline.waitForIdle();
  return customer;
}

it('sends the notice as the admin’s template, with the customer’s name, to an operator whose window closed', async () => {
  const customer = await handOff('Rita');

  const notices = sentTo(operator).filter((message) => message.text.includes('Rita'));
  expect(notices).toEqual([expect.objectContaining({ template: { name: 'aviso_atendimento', language: 'pt_BR', parameters: [{ type: 'text', name: 'cliente', text: 'Rita' }] } })]);
  expect(sentTo(customer).map((message) => message.text)).not.toContain(DEFAULT_HANDOFF_TEXTS.noOperatorAvailable);
});

it('tells the customer nobody is available when the template is not stored', async () => {
  await repositories.templates.remove(noticeTemplate);
  const customer = await handOff('Lia');

  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the notice to the customer');
  expect(sentTo(customer).at(-1)?.text).toBe(DEFAULT_HANDOFF_TEXTS.noOperatorAvailable);
  expect(sentTo(operator).filter((message) => message.text.includes('Lia'))).toEqual([]);
  expect((await repositories.messages.history(customer)).items[0]).toMatchObject({ role: 'system', text: DEFAULT_HANDOFF_TEXTS.noOperatorAvailable });
});

it('tells the customer nobody is available when WhatsApp refuses the template too', async () => {
  const customer = newCustomer();
  // Once the agent's reply went out: the next send WhatsApp answers is the template to the operator.
  const stop = pipeline.fakeWhatsApp.onSent((message) => {
    if (message.recipient !== customer) return;
    pipeline.fakeWhatsApp.failNext(1, { httpStatus: 400, code: 132001, message: '(#132001) Template name does not exist in the translation' });
    stop();
  });
  await handOff('Eva', customer);

  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the notice to the customer');
  expect(sentTo(customer).at(-1)?.text).toBe(DEFAULT_HANDOFF_TEXTS.noOperatorAvailable);
  expect(sentTo(operator).filter((message) => message.text.includes('Eva'))).toEqual([]);
});

it('sends the notice as the template an admin set in the console, over the deployment’s', async () => {
  const onCall = { ...HANDOFF_NOTICE_TEMPLATE, name: 'aviso_plantao', components: [{ type: 'BODY', text: 'Plantão: {{cliente}} aguarda no console.' }] };
  pipeline.fakeWhatsApp.setTemplates([...BUSINESS_TEMPLATES, onCall]);
  await pipeline.syncTemplates();
  const setting = await repositories.config.set({ key: HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY, value: { name: onCall.name, language: onCall.language }, author: operator });

  await handOff('Ana');

  expect(sentTo(operator).filter((message) => message.text.includes('Ana'))).toEqual([expect.objectContaining({ template: expect.objectContaining({ name: 'aviso_plantao', language: 'pt_BR' }) })]);
  await repositories.config.set({ key: HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY, value: noticeTemplate, author: operator }, { expectedVersion: setting.version });
});
