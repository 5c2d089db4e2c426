// Delivery receipts against the faults they are for (docs/RELIABILITY.md#delivery-receipts): a
// status that arrives before the send is recorded, duplicate and reordered statuses, a send whose
// outcome is unknown settled by its status before the retry, and an attempt killed after WhatsApp
// took the reply, then overtaken by a newer message.
import { MAY_NOT_HAVE_REACHED_NOTE, toConverseMessages } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { TurnHarness } from '../support/turn-harness';
import { newCustomer } from '../support/ids';

const SENT_AT = Math.floor(Date.now() / 1000);
let harness: TurnHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function started(): Promise<TurnHarness> {
  harness = await TurnHarness.start();
  harness.reportStatusesToWebhook();
  return harness;
}

const lastSentTo = (pipeline: TurnHarness, customer: string) => pipeline.fake.sent().filter((message) => message.recipient === customer).at(-1)!;

test('a status that arrives before the send is recorded: the turn records the same send, once', async () => {
  const pipeline = await started();
  const customer = newCustomer();
  // Meta's status reaches the webhook while the sender still waits for the send's own answer.
  const stop = pipeline.fake.onSent((message) => void pipeline.fake.reportStatus(message.providerMessageId, 'sent'));
  pipeline.fake.delayNext(1, 300);
  await pipeline.receive(customer, 'wamid.A', 'oi', SENT_AT);
  expect(await pipeline.process(customer, 'wamid.A')).toEqual({ batchItemFailures: [] });
  stop();
  expect(pipeline.sentTo(customer)).toHaveLength(1);
  const [, reply] = [...(await pipeline.messages.history(customer)).items].reverse();
  expect(reply).toMatchObject({ deliveryStatus: 'sent', providerMessageId: lastSentTo(pipeline, customer).providerMessageId, receipt: { status: 'sent' } });
  expect((await pipeline.receipts.getLatest(customer))?.outbox).toBeUndefined();
});

test('duplicate and reordered statuses: the receipt only moves forward, and failed is final', async () => {
  const pipeline = await started();
  const customer = newCustomer();
  await pipeline.receive(customer, 'wamid.A', 'oi', SENT_AT);
  await pipeline.process(customer, 'wamid.A');
  const { providerMessageId } = lastSentTo(pipeline, customer);
  const receipt = async () => (await pipeline.messages.history(customer)).items[0].receipt?.status;
  for (const status of ['read', 'delivered', 'read', 'sent'] as const) await pipeline.fake.reportStatus(providerMessageId, status);
  expect(await receipt()).toBe('read');
  await pipeline.fake.reportStatus(providerMessageId, 'failed', { errorCode: 131047 });
  for (const status of ['sent', 'delivered', 'read'] as const) await pipeline.fake.reportStatus(providerMessageId, status);
  expect(await receipt()).toBe('failed');
  // The customer never got it: the agent's next turn does not take it as said.
  await pipeline.receive(customer, 'wamid.B', 'alô?', SENT_AT + 1);
  await pipeline.process(customer, 'wamid.B');
  expect(pipeline.agent.requests[1].history.map((entry) => entry.text)).toEqual(['oi', 'alô?']);
});

test('sends that timed out after WhatsApp took them: the status settles each before the retry, no customer gets the answer twice', async () => {
  const pipeline = await started();
  const CUSTOMERS = 6;
  const duplicates = { withoutReceipts: 0, withReceipts: 0 };
  for (const settledByReceipt of [false, true]) {
    for (let index = 0; index < CUSTOMERS; index++) {
      const customer = newCustomer();
      pipeline.fake.acceptThenDropConnection(1);
      await pipeline.receive(customer, 'wamid.A', 'oi', SENT_AT);
      expect((await pipeline.process(customer, 'wamid.A')).batchItemFailures).toHaveLength(1);
      if (settledByReceipt) await pipeline.fake.reportStatus(lastSentTo(pipeline, customer).providerMessageId, 'sent');
      expect(await pipeline.process(customer, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
      const extra = pipeline.sentTo(customer).length - 1;
      if (settledByReceipt) duplicates.withReceipts += extra;
      else duplicates.withoutReceipts += extra;
    }
  }
  console.log(`timed-out sends WhatsApp took: ${CUSTOMERS} per run; customers answered twice: ${duplicates.withoutReceipts} without receipts, ${duplicates.withReceipts} with them`);
  expect(duplicates).toEqual({ withoutReceipts: CUSTOMERS, withReceipts: 0 });
});

test('killed right after WhatsApp took the reply, then written to again: the reply is recorded as maybe sent (Turn_maybe_sent) and seen by the agent as such', async () => {
  const pipeline = await started();
  const customer = newCustomer();
  // The connection dies with the reply accepted and nothing recorded: what a killed invocation leaves.
  pipeline.fake.acceptThenDropConnection(1);
  await pipeline.receive(customer, 'wamid.A', 'quero um exame', SENT_AT);
  expect((await pipeline.process(customer, 'wamid.A')).batchItemFailures).toHaveLength(1);
  await pipeline.receive(customer, 'wamid.B', 'qual o preço?', SENT_AT + 1);

  const counted = jest.spyOn(pipeline.metrics, 'addMetric');
  expect(await pipeline.process(customer, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
  // The turn answered the newer message too; the reply it found maybe sent is counted all the same.
  expect(counted.mock.calls.filter(([name]) => name === 'Turn_maybe_sent')).toHaveLength(1);
  expect(counted.mock.calls.filter(([name]) => name === 'Turn_answered')).toHaveLength(1);
  expect(await pipeline.history(customer)).toEqual([
    'user: quero um exame',
    'assistant[maybe_sent]: Olá! Recebi: quero um exame (mensagem 1)',
    'user: qual o preço?',
    // The scripted agent answers again what may not have arrived; a model decides from the note.
    'assistant[sent]: Olá! Recebi: quero um exame | qual o preço? (mensagem 2)',
  ]);
  // The agent saw its earlier reply, marked as one that may not have reached the customer.
  const [request] = pipeline.agent.requests.slice(-1);
  expect(request.history.map((entry) => [entry.text, entry.mayNotHaveReached ?? false])).toEqual([
    ['quero um exame', false],
    ['Olá! Recebi: quero um exame (mensagem 1)', true],
    ['qual o preço?', false],
  ]);
  expect(toConverseMessages(request.history)[1].content?.[0]).toEqual({ text: `Olá! Recebi: quero um exame (mensagem 1)\n\n${MAY_NOT_HAVE_REACHED_NOTE}` });

  // Meta's status for it, whenever it comes, settles it as sent.
  await pipeline.fake.reportStatus(pipeline.fake.sent()[0].providerMessageId, 'delivered');
  expect((await pipeline.history(customer))[1]).toBe('assistant[sent]: Olá! Recebi: quero um exame (mensagem 1)');
});
