/**
 * What delivery receipts cost: the statuses of 10,000 sent replies (sent, delivered, read — out of
 * order, some twice, a share failed) plus statuses of messages the pipeline did not send, POSTed
 * to the webhook in Meta-sized notifications, on DynamoDB Local. Prints writes and capacity per
 * status and checks where every receipt ended; not a test.
 *
 *   npm run bench:receipts [-- --messages 10000 --foreign 2000 --role assistant|operator]
 *
 * `--role operator` sends operators' replies instead of the agent's: they join the fee index on
 * the status that first prices them, so their later statuses also write an index copy.
 */
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoCallEvent } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { StaticCredentialsProvider } from '../lambda/core/adapters/secrets/static-credentials-provider';
import { callbackDataOf } from '../lambda/core/domain/callback-data';
import type { Message } from '../lambda/core/domain/message';
import { composeWebhook } from '../lambda/composition/webhook';
import { statusNotification, type ReportableStatus, type StatusReport } from '../local/fake-whatsapp/fake-graph-api';
import { KeyLayout } from '../lib/contract/key-layout';
import { inProcessSettings, postToWebhook, withInProcessPipeline } from './in-process-pipeline';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '10000' }, foreign: { type: 'string', default: '2000' }, role: { type: 'string', default: 'assistant' } } });
if (values.role !== 'assistant' && values.role !== 'operator') throw new Error(`--role must be assistant or operator, got ${values.role}`);
const ROLE = values.role;
const MESSAGES = Number(values.messages);
const FOREIGN = Number(values.foreign);
const CUSTOMERS = Math.max(1, Math.round(MESSAGES / 10));
/** Meta batches statuses; a notification of this many is typical of a busy number. */
const STATUSES_PER_NOTIFICATION = 25;
const PARALLEL_NOTIFICATIONS = 8;
const BUSINESS_PHONE_NUMBER_ID = '106540352242922';

/** A deterministic generator, so every run replays the same disorder. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}
const random = seeded(30);

interface Counted {
  updates: number;
  otherCalls: number;
  writeUnits: number;
  readUnits: number;
}

async function pooled<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

function shuffle<T>(items: T[]): T[] {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other], items[index]];
  }
  return items;
}

type PlannedStatus = Omit<StatusReport, 'businessPhoneNumberId'>;

void withInProcessPipeline('bench-receipts', async (pipeline) => {
  // The seed layout, which the repositories that send the replies write (and the figures of docs/PERFORMANCE.md were measured on).
  const settings = inProcessSettings(pipeline, { keyLayout: KeyLayout.SEED });
  const repositories = createDynamoRepositories({ tableName: pipeline.tableName });
  const sentAt = new Date('2026-03-10T12:00:00Z');

  // The replies the statuses are about, as the outbox leaves them once sent.
  const replies: Message[] = Array.from({ length: MESSAGES }, (_, index) => ({
    customerId: `55119${String(10_000_000 + (index % CUSTOMERS)).padStart(8, '0')}`,
    sessionId: 'S1',
    messageId: `reply-${index}`,
    direction: 'outbound',
    role: ROLE,
    text: `resposta ${index}`,
    timestamp: new Date(sentAt.getTime() + index * 1000).toISOString(),
    deliveryStatus: 'sent',
    providerMessageId: `wamid.bench-${index}`,
    sentAt: new Date(sentAt.getTime() + index * 1000).toISOString(),
  }));
  process.stdout.write(`seeding ${MESSAGES} sent replies of ${CUSTOMERS} customers…\n`);
  await pooled(replies, 16, async (reply) => void (await repositories.messages.append(reply)));

  // Each reply: sent, delivered, read (every 20th failed 131047 instead of read), shuffled across
  // the run, every 10th status delivered twice; and statuses of messages the pipeline did not send.
  const planned: PlannedStatus[] = [];
  const expected = new Map<string, ReportableStatus>();
  replies.forEach((reply, index) => {
    const callbackData = callbackDataOf(repositories.messages.refFor(reply));
    const last: ReportableStatus = index % 20 === 0 ? 'failed' : 'read';
    expected.set(reply.messageId, last);
    (['sent', 'delivered', last] as const).forEach((status, step) => {
      planned.push({ providerMessageId: reply.providerMessageId!, recipient: reply.customerId, status, at: new Date(sentAt.getTime() + index * 1000 + step * 1000), callbackData, ...(status === 'failed' && { errorCode: 131047 }) });
    });
  });
  for (let index = 0; index < FOREIGN; index++) {
    planned.push({ providerMessageId: `wamid.not-ours-${index}`, recipient: '5511900000000', status: 'delivered', at: sentAt, ...(index % 2 === 0 && { callbackData: `campaign-${index}` }) });
  }
  const duplicated = planned.filter((_, index) => index % 10 === 0);
  const statuses = shuffle([...planned, ...duplicated]);

  const counted: Counted = { updates: 0, otherCalls: 0, writeUnits: 0, readUnits: 0 };
  // A write whose condition fails reports no capacity but is billed one write unit, as DynamoDB bills it.
  const observe = (event: DynamoCallEvent) => {
    if (event.operation !== 'update') {
      counted.otherCalls += 1;
      counted.readUnits += event.consumedCapacity?.total ?? 0;
      return;
    }
    counted.updates += 1;
    counted.writeUnits += event.outcome === 'condition_failed' ? 1 : (event.consumedCapacity?.total ?? 0);
  };
  const webhook = composeWebhook(settings, {
    credentials: new StaticCredentialsProvider(pipeline.credentials),
    logger: new Logger({ serviceName: 'bench-receipts', logLevel: 'ERROR' }),
    metrics: new Metrics({ namespace: 'bench', serviceName: 'bench-receipts' }),
    kitObserver: { onRemoteCall: observe },
  });

  const notifications: string[] = [];
  for (let start = 0; start < statuses.length; start += STATUSES_PER_NOTIFICATION) {
    const batch = statuses.slice(start, start + STATUSES_PER_NOTIFICATION).map((status) => statusNotification({ businessPhoneNumberId: BUSINESS_PHONE_NUMBER_ID, ...status }));
    notifications.push(JSON.stringify({ object: 'whatsapp_business_account', entry: batch.flatMap((notification) => notification.entry) }));
  }
  process.stdout.write(`posting ${statuses.length} statuses in ${notifications.length} notifications…\n`);
  const started = Date.now();
  await pooled(notifications, PARALLEL_NOTIFICATIONS, (body) => postToWebhook(webhook, pipeline.credentials.appSecret, body));
  const seconds = (Date.now() - started) / 1000;

  let wrong = 0;
  await pooled(replies, 16, async (reply) => {
    const stored = await repositories.messages.getOutbound(repositories.messages.refFor(reply));
    if (stored?.receipt?.status !== expected.get(reply.messageId)) wrong += 1;
  });

  const ours = MESSAGES * 3;
  const oursDelivered = statuses.filter((status) => status.callbackData?.startsWith('r1 ')).length;
  const foreignDelivered = statuses.length - oursDelivered;
  const rows: [string, string][] = [
    ['statuses posted (ours · not ours)', `${statuses.length} (${oursDelivered} · ${foreignDelivered}), ${statuses.length - planned.length} duplicates, shuffled`],
    ['distinct statuses of our replies', `${ours} for ${MESSAGES} replies`],
    ['DynamoDB writes (UpdateItem)', `${counted.updates} · ${(counted.updates / statuses.length).toFixed(3)} per status · ${(counted.updates / oursDelivered).toFixed(3)} per status of ours`],
    ['other DynamoDB calls (reads included)', String(counted.otherCalls)],
    ['write units (failed conditions at 1) · read units', `${counted.writeUnits.toFixed(1)} · ${counted.readUnits.toFixed(1)}`],
    ['writes for statuses of messages not ours', String(counted.updates - oursDelivered)],
    ['receipts where they should end (read, or failed)', `${MESSAGES - wrong} of ${MESSAGES}`],
    ['time', `${seconds.toFixed(1)} s · ${Math.round(statuses.length / seconds)} statuses/s`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(`\n${rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')}\n`);
  if (wrong > 0 || counted.updates > oursDelivered || counted.otherCalls > 0) process.exitCode = 1;
});
