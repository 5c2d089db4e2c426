// One answer per burst (docs/DESIGN.md#the-turns-gates): the turn waits, re-reading the marker,
// until the customer has been quiet; a newer message ends it without the agent, and the newer
// message's turn answers the whole burst once. On DynamoDB Local, through the real webhook.
import type { ProcessTurnDependencies } from '../../../lambda/core/application/process-turn';
import { turnOutcomeMetric } from '../../../lib/contract';
import { isCompleted } from '../../support/inspect';
import { TurnHarness } from '../../support/turn-harness';

const CUSTOMER = '5511977776666';
/** Long enough that a turn started right after the message still has to wait. */
const SETTLE_MS = 1_500;
let harness: TurnHarness;

afterEach(async () => {
  await harness?.close();
});

/** Counts the marker's reads outside the turn's own steps (the wait's, the agent's probes), and runs `during` before the first. */
function markerReads(during?: () => Promise<unknown>) {
  const reads: number[] = [];
  const wrap = (deps: ProcessTurnDependencies): ProcessTurnDependencies => ({
    ...deps,
    receipts: Object.assign(Object.create(deps.receipts), {
      getLatest: async (customerId: string) => {
        if (reads.length === 0) await during?.();
        reads.push(Date.now());
        return deps.receipts.getLatest(customerId);
      },
    }),
  });
  return { reads, wrap };
}

/** The webhook's first request is slow (its permission check synthesizes the roles): made for another customer, so the test's messages are fresh when their turn runs. */
async function warmWebhook(): Promise<void> {
  await harness.receive('5511900001111', 'wamid.warm', 'Oi');
}

test('a quiet customer: the agent is asked once they have been quiet for the settle period, the typing indicator shown once, before', async () => {
  const { reads, wrap } = markerReads();
  let askedAt = 0;
  harness = await TurnHarness.start({ settings: { burstSettleMs: SETTLE_MS }, wrap, agent: { respondAfter: async () => { askedAt = Date.now(); } } });
  await warmWebhook();
  const receivedBefore = Date.now();
  await harness.receive(CUSTOMER, 'wamid.A', 'Oi');
  await harness.process(CUSTOMER, 'wamid.A');

  expect(askedAt - receivedBefore).toBeGreaterThanOrEqual(SETTLE_MS);
  expect(reads.length).toBeGreaterThan(0);
  expect(reads.every((at) => at <= askedAt)).toBe(true);
  expect(harness.agent.requests).toHaveLength(1);
  expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: Oi (mensagem 1)']);
  // The typing indicator went out as the wait began, and serves the agent's call too: one read receipt, not two.
  const receipts = harness.fake.readReceipts().filter((receipt) => receipt.messageId !== 'wamid.warm');
  expect(receipts.map((receipt) => [receipt.messageId, receipt.typingIndicator])).toEqual([['wamid.A', true]]);
  expect(Date.parse(receipts[0].receivedAt)).toBeLessThanOrEqual(reads[0]);
});

test('a newer message during the wait: the turn ends without the agent, the messages stay pending, and the newer turn answers the burst once', async () => {
  const { wrap } = markerReads(() => harness.receive(CUSTOMER, 'wamid.B', 'tudo bem?'));
  harness = await TurnHarness.start({ settings: { burstSettleMs: SETTLE_MS }, wrap });
  await warmWebhook();
  const addMetric = jest.spyOn(harness.metrics, 'addMetric');
  await harness.receive(CUSTOMER, 'wamid.A', 'Oi');

  expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
  expect(harness.agent.requests).toHaveLength(0);
  expect(harness.sentTo(CUSTOMER)).toEqual([]);
  expect(addMetric).toHaveBeenCalledWith(turnOutcomeMetric('burst_continued'), 'Count', 1);
  expect((await harness.receipts.getLatest(CUSTOMER))?.pendingMessageIds).toEqual(['wamid.A', 'wamid.B']);
  expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(false);

  await harness.process(CUSTOMER, 'wamid.B');

  expect(harness.agent.requests).toHaveLength(1);
  expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: Oi | tudo bem? (mensagem 2)']);
  expect(await harness.history(CUSTOMER)).toEqual(['user: Oi', 'user: tudo bem?', 'assistant[sent]: Olá! Recebi: Oi | tudo bem? (mensagem 2)']);
  for (const messageId of ['wamid.A', 'wamid.B']) expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId })).toBe(true);
  expect((await harness.receipts.getLatest(CUSTOMER))?.pendingMessageIds).toEqual([]);
  // A redelivered record of the first message finds nothing left to answer.
  await harness.process(CUSTOMER, 'wamid.A');
  expect(harness.fake.sent()).toHaveLength(1);
});

test('a burst that kept going for three settle periods is answered without waiting again', async () => {
  const { reads, wrap } = markerReads();
  let askedAt = 0;
  harness = await TurnHarness.start({ settings: { burstSettleMs: SETTLE_MS }, wrap, agent: { respondAfter: async () => { askedAt = Date.now(); } } });
  await warmWebhook();
  await harness.receive(CUSTOMER, 'wamid.A', 'Oi');
  await new Promise((resolve) => setTimeout(resolve, 3 * SETTLE_MS + 50));
  await harness.receive(CUSTOMER, 'wamid.B', 'quero saber o preço');

  await harness.process(CUSTOMER, 'wamid.B');

  expect(reads.filter((at) => at <= askedAt)).toEqual([]);
  expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: Oi | quero saber o preço (mensagem 2)']);
});
