// No notification can be made to fail by what a customer or another app on the WhatsApp Business
// Account controls: statuses with any recipient, any wamid, any callback data (another app's
// messages carry whatever it put there, ours included), any status kind or error. Through the real
// webhook and End User Messaging handlers on DynamoDB Local, on both channels: the webhook answers
// 200 (never a 5xx Meta would redeliver for 7 days), the End User Messaging function never throws
// (which would retry the event and park it in the inbound dead-letter queue), a genuine status in
// the same notification is always recorded, and a reply of another customer is never touched.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { composeEndUserMessagingInbound } from '../../lambda/composition/eum-inbound';
import { composeWebhook } from '../../lambda/composition/webhook';
import { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { messageKeyFromRef } from '../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../lambda/core/adapters/dynamodb/message-repository';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import { callbackDataOf } from '../../lambda/core/domain/callback-data';
import type { Message } from '../../lambda/core/domain/message';
import { LOCAL_WEBHOOK_REQUEST_TIMEOUTS } from '../../local/runtime/local-pipeline';
import { endUserMessagingEvents } from '../../local/runtime/end-user-messaging-event';
import { endUserMessagingInboundSettings, webhookSettings } from '../support/deployment-settings';
import { newCustomer } from '../support/ids';
import { useInboundTestResources } from '../support/inbound-test-resources';
import { principalPorts } from '../support/permissions/function-principals';
import { signedPost, TEST_CREDENTIALS } from '../support/webhook-events';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const BUSINESS_NUMBER = '106540352242922';
const WABA = '102290129340398';
const sqs = new SQSClient({});
const resources = useInboundTestResources('signed', sqs);
const logger = new Logger({ serviceName: 'signed-notifications', logLevel: 'SILENT' });
const metrics = () => new Metrics({ namespace: 'test', serviceName: 'signed-notifications' });

/** A reply of the pipeline's, sent as `wamid`, in a fresh customer's history. */
async function sentReply(messages: DynamoMessageRepository, wamid: string): Promise<Message> {
  const reply: Message = {
    customerId: newCustomer(),
    sessionId: 'S1',
    messageId: `reply-${wamid}`,
    direction: 'outbound',
    role: 'assistant',
    text: 'Olá! Como posso ajudar?',
    timestamp: '2026-03-10T11:00:00.000001Z',
    deliveryStatus: 'sent',
    providerMessageId: wamid,
    sentAt: '2026-03-10T11:00:01.000000Z',
  };
  await messages.append(reply);
  return reply;
}

const now = () => Math.floor(Date.now() / 1000);

/** Values of any JSON type, and the strings that break keys and encodings. */
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '#', 'a#b', ' ', '\u0000', '\ud800', 'x'.repeat(2000), '😀'.repeat(300), -1, 1e21, 131047, null, [], {}),
);

/**
 * Statuses anyone with a number on the account can make Meta send about the victim `victim`: to
 * any recipient (another customer, the victim with another wamid, nobody), naming the victim's
 * reply or any key of the victim's partitions in the pipeline's own callback-data form, of any
 * kind, with any error. Never the victim's own status (recipient and wamid both the reply's).
 */
function foreignStatus(victim: Message) {
  const sortKeyOfTheVictim = fc.oneof(
    fc.constantFrom('SESSION', 'ACTIVE', 'SESSION#S1', 'MSG#', 'MSG#x#y', 'NOTE#2026-03-10T11:00:00.000001Z#n', 'INBOUND#abc', 'LATEST_INBOUND', 'MSG#2026-03-10T11:00:00.000001Z#a#b'),
    fc.string({ unit: 'binary', maxLength: 60 }).map((tail) => `MSG#${tail}`),
    fc.string({ maxLength: 600 }),
  );
  const victimsData = callbackDataOf({ customerId: victim.customerId, sortKey: new DynamoMessageRepository(new DynamoKit({ tableName: 'unused' }), systemClock).refFor(victim).sortKey });
  const callbackData = fc.oneof(
    fc.constant(victimsData),
    sortKeyOfTheVictim.map((sortKey) => `r1 ${victim.customerId} ${sortKey}`),
    fc.string({ maxLength: 80 }),
    anyValue,
  );
  const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  return fc
    .record({
      id: fc.oneof(fc.constant(victim.providerMessageId!), fc.constant('wamid.OTHER'), anyValue),
      status: fc.oneof(fc.constantFrom('sent', 'delivered', 'read', 'failed', 'played', 'deleted'), anyValue),
      timestamp: fc.oneof(fc.constant(String(now())), fc.integer({ min: 0, max: now() }).map(String), anyValue),
      recipient_id: optional(fc.oneof(fc.constant(victim.customerId), fc.constant(newCustomer()), anyValue)),
      recipient_user_id: optional(fc.oneof(fc.constant(victim.customerId), anyValue)),
      biz_opaque_callback_data: optional(callbackData),
      errors: optional(fc.oneof(fc.constant([{ code: 131047, title: 'Re-engagement message' }]), fc.array(fc.record({ code: anyValue })), anyValue)),
    })
    .filter((status) => !(status.id === victim.providerMessageId && (status.recipient_id === victim.customerId || status.recipient_user_id === victim.customerId)))
    .map((status) => Object.fromEntries(Object.entries(status).filter(([, value]) => value !== undefined)));
}

/** A notification of `statuses` with the genuine `delivered` of `genuine` among them, at `at`. */
function notificationOf(statuses: readonly object[], genuine: Message, at: number): { object: string; entry: object[] } {
  const genuineStatus = { id: genuine.providerMessageId, status: 'delivered', timestamp: String(now()), recipient_id: genuine.customerId, biz_opaque_callback_data: callbackDataOf(new DynamoMessageRepository(new DynamoKit({ tableName: 'unused' }), systemClock).refFor(genuine)) };
  const all = [...statuses];
  all.splice(at % (all.length + 1), 0, genuineStatus);
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: WABA, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: BUSINESS_NUMBER }, statuses: all } }] }],
  };
}

/**
 * Runs the property on one channel: `deliver` hands the notification to the function and says
 * whether it was taken for good (no retry). The victim's reply is read raw before and after.
 */
async function holdsOn(deliver: (notification: { object: string; entry: object[] }) => Promise<void>): Promise<void> {
  const kit = new DynamoKit({ tableName: resources.table.name });
  const messages = new DynamoMessageRepository(kit, systemClock);
  const victim = await sentReply(messages, 'wamid.VICTIM');
  const victimItem = async () => kit.get({ key: messageKeyFromRef(messages.refFor(victim)), consistentRead: true });
  const untouched = await victimItem();
  await fc.assert(
    fc.asyncProperty(fc.array(foreignStatus(victim), { maxLength: 5 }), fc.nat(), async (statuses, at) => {
      const genuine = await sentReply(messages, `wamid.G${Math.random().toString(36).slice(2)}`);
      await deliver(notificationOf(statuses, genuine, at));
      expect((await messages.getOutbound(messages.refFor(genuine)))?.receipt?.status).toBe('delivered');
      expect(await victimItem()).toEqual(untouched);
    }),
    { numRuns: 120 },
  );
}

test('the webhook: any statuses and callback data in a signed notification → 200, the genuine status recorded, the other customer’s reply untouched', async () => {
  const webhook = composeWebhook(webhookSettings(resources.table.name, resources.queueUrl), {
    credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
    ...principalPorts('webhook'),
    logger,
    metrics: metrics(),
    requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS,
  });
  await holdsOn(async (notification) => {
    expect((await webhook(signedPost(JSON.stringify(notification)))).statusCode).toBe(200);
  });
}, 240_000);

test('End User Messaging: the same events are taken for good (never thrown, so never retried into the inbound dead-letter queue), with the same outcome', async () => {
  const inbound = composeEndUserMessagingInbound(endUserMessagingInboundSettings(resources.table.name, resources.queueUrl, [BUSINESS_NUMBER]), {
    ...principalPorts('eum-inbound', { channel: 'end-user-messaging', operatorPlane: false, crmSync: 'off' }),
    logger,
    metrics: metrics(),
  });
  await holdsOn(async (notification) => {
    const [event, ...rest] = endUserMessagingEvents(notification);
    expect(rest).toEqual([]);
    await expect(inbound(event)).resolves.toBeUndefined();
  });
}, 240_000);
