// CRM sync end to end: customer messages through the webhook and the orchestrator (the deployed
// handlers with CRM sync on) reach the fake CRM over HTTP with the stage the conversation is in.
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

it('a qualified conversation reaches the CRM with its stage; the handoff updates the same deal; nothing is sent twice', async () => {
  pipeline = await startTestPipeline({ crmSync: {} });
  const customer = newCustomer();
  const crm = pipeline.fakeCrm!;
  const dealsOf = () => crm.deals().filter((deal) => deal.sessionId === session()?.sessionId);
  let snapshot = await pipeline.conversation(customer);
  const session = () => snapshot.session;

  expect((await pipeline.sendCustomerMessage(customer, 'Oi, quero um exame #dado exame=sangue')).status).toBe(200);
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  snapshot = await pipeline.conversation(customer);
  expect(snapshot.session).toMatchObject({ state: 'QUALIFYING' });

  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  expect(dealsOf()).toEqual([expect.objectContaining({ stage: 'qualifying', deal: expect.objectContaining({ qualification: { exame: 'sangue' } }) })]);

  expect((await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #humano')).status).toBe(200);
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 0, examined: 0 });

  const received = crm.received().filter((entry) => entry.request.customerId === customer);
  expect(received.map((entry) => [entry.handling, entry.request.deal.stage])).toEqual([
    ['created', 'qualifying'],
    ['updated', 'handoff'],
  ]);
  expect(dealsOf()).toHaveLength(1);
});

it('with CRM sync off, no projection is written and there is no fake CRM', async () => {
  pipeline = await startTestPipeline();
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Oi #dado exame=sangue');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  expect(pipeline.fakeCrm).toBeUndefined();
  expect(() => pipeline!.syncCrm()).toThrow('CRM sync is off');
  const { sessionId } = (await pipeline.conversation(customer)).session!;
  const repositories = tableRepositories(pipeline.tableName);
  expect(await repositories.crmSync.get(sessionId)).toBeUndefined();
});

it('a reply WhatsApp reported failed claims nothing in the CRM: the deal says what the conversation is about, not that it was answered', async () => {
  pipeline = await startTestPipeline({ crmSync: {} });
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Oi, quero um exame #dado exame=sangue');
  const [reply] = await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'failed', { errorCode: 131026 });
  const repositories = tableRepositories(pipeline.tableName);
  const [failed] = (await repositories.messages.history(customer)).items;
  expect(failed).toMatchObject({ role: 'assistant', receipt: { status: 'failed' } });

  expect(await pipeline.syncCrm()).toMatchObject({ sent: 1 });
  const [received] = pipeline.fakeCrm!.received().filter((entry) => entry.request.customerId === customer);
  expect(received.request.deal).toEqual({ stage: 'qualifying', qualification: { exame: 'sangue' } });
  // The status is one write on the reply: the projection is not touched, nothing is sent again.
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'failed', { errorCode: 131026 });
  expect(await pipeline.syncCrm()).toMatchObject({ sent: 0, examined: 0 });
});
