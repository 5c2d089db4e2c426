// Stages end to end: with AgentBackend.stages() configured as `npm start` takes it (AGENT_STAGES),
// which the plan's writer tells the orchestrator as the construct does, a conversation moves from the entry agent to a second agent, and
// what they recorded — segment, intent, registration data, the agent that has it — reaches the
// fake CRM over HTTP, the operator console's conversation view, and the customer's export; the
// erasure leaves none of it.
import { AGENT_BACKEND_KINDS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LOCAL_ENV } from '../../local/runtime/local-plan';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { allItems } from '../support/inspect';
import { type ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const scripted = { [LOCAL_ENV.agentBackend]: AGENT_BACKEND_KINDS.scripted };
const STAGES_ENV = {
  [LOCAL_ENV.agentBackend]: AGENT_BACKEND_KINDS.stages,
  [LOCAL_ENV.agentStages]: JSON.stringify({ entry: 'qualificacao', maxHandoversPerTurn: 3, agents: { qualificacao: scripted, cadastro: scripted } }),
};

let pipeline: LocalPipeline;
let admin: ConsoleClient;
const adminPhone = newOperatorPhone();

beforeAll(async () => {
  pipeline = await startOperatorPipeline([adminPhone], { crmSync: {}, env: STAGES_ENV });
  admin = await signInOverWhatsApp(pipeline, adminPhone);
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);

async function say(phone: string, text: string): Promise<string> {
  const before = sentTo(phone).length;
  expect((await pipeline.sendCustomerMessage(phone, text)).status).toBe(200);
  await waitUntil(() => sentTo(phone).length > before, 15_000, `an answer to "${text}"`);
  await pipeline.waitForIdle();
  return sentTo(phone).at(-1)!;
}

it('the entry agent hands the conversation to the second agent, and the CRM, the console and the export get what they recorded', async () => {
  const customer = newCustomer();

  // The entry agent answers, records segment and intent.
  expect(await say(customer, 'Oi, somos um laboratório #segmento laboratório #intencao orçamento')).toMatch(/^\[qualificacao\] /);
  expect((await pipeline.conversation(customer)).session).toMatchObject({ currentAgent: 'qualificacao', segment: 'laboratório', intent: 'orçamento' });

  // It hands over; the second agent answers in the same turn, and keeps the conversation.
  expect(await say(customer, 'Quero fazer meu cadastro #passar cadastro')).toMatch(/^\[cadastro\] Olá! Recebi: Quero fazer meu cadastro #passar cadastro/);
  expect(await say(customer, 'Sou #cadastro nome=Ana Souza #cadastro email=ana@exemplo.com #cadastro cidade=Campinas')).toMatch(/^\[cadastro\] /);
  expect(sentTo(customer)).toHaveLength(3);
  const { session } = await pipeline.conversation(customer);
  expect(session).toMatchObject({
    state: 'QUALIFYING',
    currentAgent: 'cadastro',
    segment: 'laboratório',
    intent: 'orçamento',
    cadastralData: { name: 'Ana Souza', email: 'ana@exemplo.com', city: 'Campinas' },
  });

  // The CRM receives the registration data on the contact, segment, intent and agent on the deal.
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  const [received] = pipeline.fakeCrm!.received().filter((entry) => entry.request.customerId === customer);
  expect(received.request.contact).toEqual({ customerId: customer, name: 'Ana Souza', email: 'ana@exemplo.com', city: 'Campinas' });
  expect(received.request.deal).toMatchObject({ stage: 'qualifying', segment: 'laboratório', intent: 'orçamento', agent: 'cadastro' });

  // The operator console's conversation view shows them.
  const view = await admin.call('GET', `/api/conversations/${customer}`);
  expect(view.status).toBe(200);
  expect(view.body.conversation).toMatchObject({ currentAgent: 'cadastro', segment: 'laboratório', intent: 'orçamento', cadastralData: { name: 'Ana Souza', email: 'ana@exemplo.com', city: 'Campinas' } });

  // The export holds them; the erasure removes them with everything else.
  const exported = await admin.call('GET', `/api/admin/customers/${customer}/export`);
  expect(exported.body.records.session).toEqual([
    expect.objectContaining({ current_agent: 'cadastro', segment: 'laboratório', intent: 'orçamento', cadastral_data: { name: 'Ana Souza', email: 'ana@exemplo.com', city: 'Campinas' } }),
  ]);
  expect(exported.body.records.crm_sync).toEqual([expect.objectContaining({ desired: expect.objectContaining({ contact: expect.objectContaining({ email: 'ana@exemplo.com' }) }) })]);
  expect((await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer })).status).toBe(200);
  expect((await allItems(pipeline.tableName)).filter((item) => JSON.stringify(item).includes('ana@exemplo.com'))).toEqual([]);
});
