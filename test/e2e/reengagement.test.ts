// Re-engaging a customer who went quiet, over the real pipeline (webhook, orchestrator, handoff
// sweeper's template sync and idle sweeper, each signing as itself) and the fake Graph API, which
// checks the template send as Meta does: the template goes once after the delay, with the
// customer's name, never twice across sweeps, never to an opted-out customer or one who wrote
// meanwhile; a send WhatsApp refuses is not repeated; the customer's answer goes on as any turn and
// the idle close still comes at its timeout.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { QUIET_CUSTOMER_TEMPLATE } from '../support/message-templates';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const AFTER_MS = 1_500;
const IDLE_TIMEOUT_MS = 5_000;
const TEMPLATE = QUIET_CUSTOMER_TEMPLATE;

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

async function started(template = TEMPLATE): Promise<LocalPipeline> {
  pipeline = await startOperatorPipeline([newOperatorPhone()], {
    idleSweep: { idleTimeoutMs: IDLE_TIMEOUT_MS, reengagement: { template: { name: TEMPLATE.name, language: TEMPLATE.language }, afterMs: AFTER_MS } },
  });
  pipeline.fakeWhatsApp.setTemplates([template]);
  expect(await pipeline.syncTemplates()).toMatchObject({ stored: 1 });
  return pipeline;
}

const sentTo = (customer: string) => pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

async function converse(customer: string, text: string, answers: number): Promise<void> {
  await pipeline!.sendCustomerMessage(customer, text);
  await waitUntil(() => sentTo(customer).length >= answers, 15_000, `answer ${answers}`);
  await pipeline!.waitForIdle();
}

it('sends the template once after the delay, with the name; the answer goes on in the same conversation, and the idle close still comes', async () => {
  pipeline = await started();
  const customer = newCustomer();
  await converse(customer, 'Sou a Rita #dado name=Rita', 1);
  const session = (await pipeline.conversation(customer)).session!;
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0 });

  await sleep(AFTER_MS + 200);
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 1, failed: 0 });
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0 });
  const templates = sentTo(customer).filter((message) => message.template !== undefined);
  expect(templates).toEqual([expect.objectContaining({ text: 'Olá Rita, ainda podemos ajudar? Responda esta mensagem para continuar.', template: expect.objectContaining({ name: TEMPLATE.name }) })]);
  expect((await pipeline.conversation(customer)).session).toMatchObject({ sessionId: session.sessionId, state: 'QUALIFYING', updatedAt: session.updatedAt });
  expect((await pipeline.conversation(customer)).history.at(-1)).toMatchObject({ role: 'system', text: 'Olá Rita, ainda podemos ajudar? Responda esta mensagem para continuar.' });

  // Quiet again after the template, the conversation closes at the idle timeout of its last activity.
  await sleep(IDLE_TIMEOUT_MS - AFTER_MS);
  expect(await pipeline.sweepIdleConversations()).toMatchObject({ closed: 1, reengagement: { sent: 0 } });
});

it('a customer who answers the template continues the conversation normally, and is not re-engaged again in it', async () => {
  pipeline = await started();
  const customer = newCustomer();
  await converse(customer, 'Sou o Caio #dado name=Caio', 1);
  await sleep(AFTER_MS + 200);
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 1 });
  const session = (await pipeline.conversation(customer)).session!;

  await converse(customer, 'Oi, ainda quero', 3);
  expect((await pipeline.conversation(customer)).session).toMatchObject({ sessionId: session.sessionId, state: 'QUALIFYING' });
  await sleep(AFTER_MS + 200);
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0 });
  expect(sentTo(customer).filter((message) => message.template !== undefined)).toHaveLength(1);
});

it('sends nothing to a customer who opted out, nor to one who wrote meanwhile', async () => {
  pipeline = await started();
  const optedOut = newCustomer();
  const writing = newCustomer();
  await converse(optedOut, 'Sou a Ana #dado name=Ana', 1);
  await converse(optedOut, 'PARAR', 2);
  await converse(writing, 'Sou o Davi #dado name=Davi', 1);
  await sleep(AFTER_MS + 200);
  await converse(writing, 'Ainda estou aqui', 2);

  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0 });
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.template !== undefined)).toEqual([]);
});

it('a send WhatsApp refuses keeps its claim: the template is not sent on the next sweep either', async () => {
  pipeline = await started();
  const customer = newCustomer();
  await converse(customer, 'Sou a Bia #dado name=Bia', 1);
  await sleep(AFTER_MS + 200);
  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 400, code: 132001, message: '(#132001) Template name does not exist in the translation' });
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0, failed: 1 });
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0, failed: 0 });
  expect(sentTo(customer).filter((message) => message.template !== undefined)).toEqual([]);
  expect((await pipeline.conversation(customer)).history.map((entry) => entry.role)).toEqual(['user', 'assistant']);
});

it('sends nothing when the synced template takes a value the pipeline cannot fill, and says why', async () => {
  // The same template, edited in WhatsApp Manager to show a coupon code the pipeline has none of.
  pipeline = await started({ ...TEMPLATE, components: [...TEMPLATE.components, { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'VOLTA10' }] }] });
  const customer = newCustomer();
  await converse(customer, 'Sou a Rita #dado name=Rita', 1);

  await sleep(AFTER_MS + 200);
  expect((await pipeline.sweepIdleConversations()).reengagement).toMatchObject({ sent: 0, templateReady: false, templateProblem: expect.stringContaining('takes values the pipeline cannot fill by itself') });
  expect(sentTo(customer).filter((message) => message.template !== undefined)).toEqual([]);
  expect((await pipeline.conversation(customer)).session?.reengagedAt).toBeUndefined();
});
