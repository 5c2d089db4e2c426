// Opt-out and back over the whole local pipeline: the words are confirmed once, nothing else is
// sent while the customer is opted out, and the consent events are one Query per customer.
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { DynamoConsentRepository } from '../../lambda/core/adapters/dynamodb/consent-repository';
import { DynamoCustomerDataRepository } from '../../lambda/core/adapters/dynamodb/customer-data-repository';
import { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import { createDynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { consentCommandOf, MESSAGING_CONSENT_PURPOSE } from '../../lambda/core/domain/privacy';
import { DEFAULT_CONSENT_CONFIRMATIONS } from '../../lambda/core/application/privacy/messaging-consent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { SessionState } from '../../lambda/core/domain/session';
import { gate, waitUntil } from '../support/waiting';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startTestPipeline, startOperatorPipeline } from '../support/pipeline';
import { signInOverWhatsApp } from '../support/operator-console-client';
import { withTestTable } from '../support/dynamo-table';
import { consentEventsOf, writeSeedLayoutConsent } from '../support/customer-history';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

const sentTo = (customer: string) => pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);

test.each([
  ['PARAR', 'opt_out'],
  ['parar', 'opt_out'],
  [' Stop! ', 'opt_out'],
  ['SAÍR', 'opt_out'],
  ['sair.', 'opt_out'],
  ['Voltar', 'opt_in'],
  ['start', 'opt_in'],
  ['parar de receber', undefined],
  ['não quero parar', undefined],
  ['', undefined],
] as const)('%p is %p', (text, command) => {
  expect(consentCommandOf(text)).toBe(command);
});

test('PARAR mid-conversation: one confirmation, the held reply is never sent, nothing more until VOLTAR', async () => {
  const agentStarted = gate();
  const releaseAgent = gate();
  const agent = new ScriptedAgent({
    respondAfter: async (_request, call) => {
      if (call !== 2) return;
      agentStarted.open();
      await releaseAgent.opened;
    },
  });
  pipeline = await startTestPipeline({ agent });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Olá');
  await waitUntil(() => sentTo(customer).length === 1, 10_000, 'the first reply');
  await pipeline.sendCustomerMessage(customer, 'Quanto custa o exame?');
  await agentStarted.opened;
  // While the agent writes its answer, the customer opts out.
  await pipeline.sendCustomerMessage(customer, 'Parar');
  releaseAgent.open();
  await pipeline.waitForIdle();
  expect(sentTo(customer)).toEqual(['Olá! Recebi: Olá (mensagem 1)', DEFAULT_CONSENT_CONFIRMATIONS.optedOut]);

  await pipeline.sendCustomerMessage(customer, 'Ainda está aí?');
  await pipeline.waitForIdle();
  expect(sentTo(customer)).toHaveLength(2);
  expect(agent.requests).toHaveLength(2);

  await pipeline.sendCustomerMessage(customer, 'VOLTAR');
  await waitUntil(() => sentTo(customer).length === 3, 10_000, 'the opt-in confirmation');
  expect(sentTo(customer)[2]).toBe(DEFAULT_CONSENT_CONFIRMATIONS.optedIn);
  await pipeline.sendCustomerMessage(customer, 'Quero marcar');
  await waitUntil(() => sentTo(customer).length === 4, 10_000, 'an answer again');
  expect(sentTo(customer)[3]).toMatch(/^Olá! Recebi: .*Quero marcar/);

  const repositories = createDynamoRepositories({ tableName: pipeline.tableName });
  const events = await consentEventsOf(repositories, customer);
  expect(events.map((event) => [event.purpose, event.granted, event.source])).toEqual([
    ['whatsapp_messages', true, 'whatsapp_keyword'],
    ['whatsapp_messages', false, 'whatsapp_keyword'],
  ]);
});

test('one customer’s consent events are one Query of their partition, and the seed’s layout is still read', async () => {
  pipeline = await startTestPipeline();
  const repositories = createDynamoRepositories({ tableName: pipeline.tableName });
  const [customer, other] = [newCustomer(), newCustomer()];
  for (const [who, at] of [[customer, '2026-03-01T10:00:00.000000Z'], [other, '2026-03-02T10:00:00.000000Z'], [customer, '2026-03-03T10:00:00.000000Z']] as const) {
    await repositories.consents.record({ consentId: `c-${who}-${at.slice(8, 10)}`, customerId: who, recordedAt: at, purpose: 'data_processing', granted: true, source: 'test' });
  }
  const seeded = await writeSeedLayoutConsent(repositories.kit, customer, '2025-12-01T10:00:00.000000Z');
  await writeSeedLayoutConsent(repositories.kit, other, '2025-12-02T10:00:00.000000Z');

  const mine = await consentEventsOf(repositories, customer);
  expect(mine.map((event) => event.recordedAt)).toEqual(['2026-03-03T10:00:00.000000Z', '2026-03-01T10:00:00.000000Z', '2025-12-01T10:00:00.000000Z']);
  expect(mine[2]!.consentId).toBe(seeded);
  expect(mine.every((event) => event.customerId === customer)).toBe(true);
  // The admin's timeline: every customer, newest first, the seed's layout after the newer one, across pages.
  const timeline: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await repositories.consents.listRecent({ limit: 2, cursor });
    timeline.push(...page.items.map((event) => event.recordedAt));
    cursor = page.cursor;
  } while (cursor);
  expect(timeline).toEqual(['2026-03-03T10:00:00.000000Z', '2026-03-02T10:00:00.000000Z', '2026-03-01T10:00:00.000000Z', '2025-12-02T10:00:00.000000Z', '2025-12-01T10:00:00.000000Z']);
});

test('PARAR while a person owns the conversation: recorded and confirmed, then neither reminders nor operator replies reach the customer', async () => {
  const admin = newOperatorPhone();
  // Reminders due at once, so the sweep below would send one if opting out did not stop it.
  pipeline = await startOperatorPipeline([admin], { handoffTimings: { remindCustomerAfterMs: 0 } });
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quero uma pessoa #humano');
  await waitUntil(() => sentTo(customer).length === 2, 10_000, 'the reply and the nobody-available notice');
  const handedOff = sentTo(customer);

  await pipeline.sendCustomerMessage(customer, 'Parar');
  await waitUntil(() => sentTo(customer).length === 3, 10_000, 'the opt-out confirmation');
  await pipeline.waitForIdle();
  expect(sentTo(customer)).toEqual([...handedOff, DEFAULT_CONSENT_CONFIRMATIONS.optedOut]);
  expect((await pipeline.conversation(customer)).session?.state).toBe(SessionState.AWAITING_HUMAN);

  expect((await pipeline.sweepHandoffs()).customersReminded).toBe(0);
  const console = await signInOverWhatsApp(pipeline, admin);
  expect((await console.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await console.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(409);
  expect(sentTo(customer)).toEqual([...handedOff, DEFAULT_CONSENT_CONFIRMATIONS.optedOut]);

  // Back with VOLTAR, still in the person's hands: confirmed, and the person can answer again.
  await pipeline.sendCustomerMessage(customer, 'VOLTAR');
  await waitUntil(() => sentTo(customer).length === 4, 10_000, 'the opt-in confirmation');
  expect(sentTo(customer)[3]).toBe(DEFAULT_CONSENT_CONFIRMATIONS.optedIn);
  expect((await console.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi, sou a Bia' })).status).toBe(201);
});

test('the current consent is the newest event, written with it: a retried record changes nothing, a late older event is kept as evidence only', async () => {
  await withTestTable('consent-state', async (table) => {
    const kit = new DynamoKit({ tableName: table.name });
    const consents = new DynamoConsentRepository(kit);
    const customer = newCustomer();
    const event = (day: string, granted: boolean) => ({ consentId: `wamid.${day}`, customerId: customer, recordedAt: `2026-03-${day}T10:00:00.000000Z`, purpose: MESSAGING_CONSENT_PURPOSE, granted, source: 'whatsapp_keyword' });
    expect(await consents.latestFor(customer, MESSAGING_CONSENT_PURPOSE)).toBeUndefined();

    await consents.record(event('02', false));
    await consents.record(event('02', false));
    expect(await consents.latestFor(customer, MESSAGING_CONSENT_PURPOSE)).toMatchObject({ consentId: 'wamid.02', granted: false });
    await consents.record(event('03', true));
    // An opt-out redriven late, after the opt-in that followed it.
    await consents.record(event('01', false));
    expect(await consents.latestFor(customer, MESSAGING_CONSENT_PURPOSE)).toMatchObject({ consentId: 'wamid.03', granted: true });
    expect((await consentEventsOf({ customerData: new DynamoCustomerDataRepository(kit, systemClock) }, customer)).map((recorded) => recorded.consentId)).toEqual(['wamid.03', 'wamid.02', 'wamid.01']);
    expect(await consents.latestFor(customer, 'data_processing')).toBeUndefined();
  });
});
