// The local event source mapping against the real SQS emulator, with queues created from the
// pipeline contract (FIFO, redrive to a FIFO DLQ after 3 receives).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { PIPELINE_DEFAULTS } from '../../lib/contract';
import { createTurnQueues, type LocalQueues } from '../../local/servers/local-resources';
import { SqsEventSource, type InvocationReport, type LocalInvocationContext, type SqsFunctionHandler } from '../../local/runtime/sqs-event-source';
import { gate, waitUntil } from '../support/waiting';
import { receiveOne } from '../support/inspect';

const client = new SQSClient({});
let queues: LocalQueues;
let source: SqsEventSource | undefined;
let reports: InvocationReport[];

beforeEach(async () => {
  const suffix = randomBytes(4).toString('hex');
  queues = await createTurnQueues(client, { queue: `esm-${suffix}.fifo`, deadLetterQueue: `esm-dlq-${suffix}.fifo` }, { visibilityTimeoutSeconds: 1 });
  reports = [];
});
afterEach(async () => {
  await source?.stop();
  source = undefined;
});
afterAll(() => client.destroy());

function start(handler: SqsFunctionHandler, options: { functionTimeoutSeconds?: number; maxConcurrency?: number } = {}): Promise<SqsEventSource> {
  return SqsEventSource.start({ client, queueUrl: queues.turnQueueUrl, handler, waitTimeSeconds: 1, onInvocation: (report) => reports.push(report), ...options }).then((started) => (source = started));
}

async function send(body: string, group: string): Promise<void> {
  await client.send(new SendMessageCommand({ QueueUrl: queues.turnQueueUrl, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: randomBytes(8).toString('hex') }));
}

async function queued(queueUrl = queues.turnQueueUrl): Promise<number> {
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

it('invokes with one Lambda-shaped record and a deadline counting down from the function timeout, then deletes it', async () => {
  const seen: Array<{ event: SQSEvent; remaining: number[] }> = [];
  await start(async (event, context: LocalInvocationContext) => {
    const first = context.getRemainingTimeInMillis();
    await sleep(30);
    seen.push({ event, remaining: [first, context.getRemainingTimeInMillis()] });
  });
  await send('{"phone_number":"5511900000001","message_id":"wamid.1"}', '5511900000001');
  await waitUntil(() => reports.length === 1, 10_000);

  const [{ event, remaining }] = seen;
  expect(event.Records).toHaveLength(1);
  expect(event.Records[0]).toMatchObject({
    body: '{"phone_number":"5511900000001","message_id":"wamid.1"}',
    eventSource: 'aws:sqs',
    eventSourceARN: expect.stringMatching(/^arn:aws:sqs:[a-z0-9-]+:\d{12}:esm-[0-9a-f]+\.fifo$/),
    awsRegion: expect.any(String),
    attributes: { ApproximateReceiveCount: '1', MessageGroupId: '5511900000001', SequenceNumber: expect.any(String), SentTimestamp: expect.any(String) },
  });
  const timeoutMs = PIPELINE_DEFAULTS.orchestratorTimeoutSeconds * 1000;
  expect(remaining[0]).toBeLessThanOrEqual(timeoutMs);
  expect(remaining[0]).toBeGreaterThan(timeoutMs - 5_000);
  expect(remaining[1]).toBeLessThan(remaining[0]);
  expect(reports[0]).toMatchObject({ outcome: 'deleted', receiveCount: 1 });
  await waitUntil(async () => (await queued()) === 0, 5_000, 'the queue to be empty');
});

it('leaves a record reported in batchItemFailures for the queue to redeliver, and the redrive moves it to the DLQ after 3 receives', async () => {
  await start(async (event) => ({ batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) }));
  await send('poison', 'g1');

  const deadLetter = await receiveOne(client, queues.deadLetterQueueUrl, 20_000);
  expect(deadLetter.Body).toBe('poison');
  expect(reports.map((report) => [report.outcome, report.receiveCount])).toEqual([
    ['retained', 1],
    ['retained', 2],
    ['retained', 3],
  ]);
});

it('leaves the record when the invocation throws or times out, and deletes it once an invocation succeeds', async () => {
  let calls = 0;
  await start(
    async () => {
      calls++;
      if (calls === 1) throw new Error('handler crashed');
      if (calls === 2) await sleep(1_500);
    },
    { functionTimeoutSeconds: 1 },
  );
  await send('flaky', 'g1');
  await waitUntil(() => reports.some((report) => report.outcome === 'deleted'), 20_000, 'a successful invocation');

  expect(reports.map((report) => [report.outcome, report.receiveCount])).toEqual([
    ['threw', 1],
    ['timed_out', 2],
    ['deleted', 3],
  ]);
  expect(String(reports[0].error)).toContain('handler crashed');
  expect(String(reports[1].error)).toContain('timed out after 1 seconds');
  expect(await queued(queues.deadLetterQueueUrl)).toBe(0);
});

it('keeps each message group in order, one invocation at a time, while groups run concurrently', async () => {
  const groupBFinished = gate();
  const running = new Map<string, number>();
  const order: string[] = [];
  await start(async (event) => {
    const [group, sequence] = event.Records[0].body.split(':');
    running.set(group, (running.get(group) ?? 0) + 1);
    expect(running.get(group)).toBe(1);
    // Group A's first message waits for group B to finish entirely: only concurrency lets it.
    if (group === 'A' && sequence === '1') await groupBFinished.opened;
    await sleep(5);
    order.push(`${group}:${sequence}`);
    running.set(group, running.get(group)! - 1);
    if (group === 'B' && sequence === '4') groupBFinished.open();
  });
  for (const sequence of [1, 2, 3, 4]) for (const group of ['A', 'B']) await send(`${group}:${sequence}`, group);

  await waitUntil(() => order.length === 8, 20_000, 'all eight invocations');
  expect(order.filter((entry) => entry.startsWith('A'))).toEqual(['A:1', 'A:2', 'A:3', 'A:4']);
  expect(order.filter((entry) => entry.startsWith('B'))).toEqual(['B:1', 'B:2', 'B:3', 'B:4']);
  expect(order.slice(0, 4)).toEqual(['B:1', 'B:2', 'B:3', 'B:4']);
  expect(reports.every((report) => report.outcome === 'deleted')).toBe(true);
});

it('never runs more invocations at once than its maximum concurrency', async () => {
  const release = gate();
  let running = 0;
  let mostAtOnce = 0;
  await start(
    async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await release.opened;
      running--;
    },
    { maxConcurrency: 2 },
  );
  for (const group of ['A', 'B', 'C', 'D', 'E']) await send(group, group);
  await waitUntil(() => running === 2, 10_000, 'two invocations');
  await sleep(300);
  expect(running).toBe(2);
  release.open();
  await waitUntil(() => reports.length === 5, 10_000, 'all five invocations');
  expect(mostAtOnce).toBe(2);
  expect(reports.every((report) => report.outcome === 'deleted')).toBe(true);
});

it('stop() stops polling but lets the invocation in flight finish and delete its record', async () => {
  const release = gate();
  const started = gate();
  await start(async () => {
    started.open();
    await release.opened;
  });
  await send('in flight', 'g1');
  await started.opened;

  let stopped = false;
  const stopping = source!.stop().then(() => (stopped = true));
  await sleep(100);
  expect(stopped).toBe(false);
  release.open();
  await stopping;
  source = undefined;
  expect(reports.map((report) => report.outcome)).toEqual(['deleted']);
  expect(await queued()).toBe(0);
});
