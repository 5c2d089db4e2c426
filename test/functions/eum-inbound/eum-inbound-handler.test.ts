// The End User Messaging inbound function on DynamoDB Local and the SQS emulator: SNS-shaped events
// carrying the service's envelope reach the same inbound use case as the webhook's POSTs.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SNSEvent } from 'aws-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { CUSTOM_METRICS } from '../../../lib/contract';
import { SignedSqs } from '../../../lambda/core/adapters/sqs/sqs-api';
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { systemClock } from '../../../lambda/core/adapters/system/system-clock';
import { principalPorts } from '../../support/permissions/function-principals';
import { composeEndUserMessagingInbound, type EndUserMessagingInboundHandler, type EndUserMessagingInboundPorts } from '../../../lambda/composition/eum-inbound';
import { endUserMessagingEnvelope, endUserMessagingEvents, snsEvent } from '../../../local/runtime/end-user-messaging-event';
import { endUserMessagingInboundSettings } from '../../support/deployment-settings';
import { metaFixture } from '../../support/fixtures';
import { useInboundTestResources } from '../../support/inbound-test-resources';
import { allItems, queueDepth, takeAll } from '../../support/inspect';
import { textNotification } from '../../support/webhook-events';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { callbackDataOf } from '../../../lambda/core/domain/callback-data';
import { statusNotification } from '../../../local/fake-whatsapp/fake-graph-api';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const LINKED_NUMBER = '106540352242922';
const sqs = new SQSClient({});
const resources = useInboundTestResources('eum', sqs);
let handler: EndUserMessagingInboundHandler;
let metrics: Array<[string, number]>;

class RecordingMetrics extends Metrics {
  override addMetric(name: string, _unit: Parameters<Metrics['addMetric']>[1], value: number): this {
    metrics.push([name, value]);
    return this;
  }
}

function inbound(
  ports: Pick<EndUserMessagingInboundPorts, 'sqsClient'> = {},
  businessPhoneNumberIds: readonly string[] = [LINKED_NUMBER],
  eventSource: Parameters<typeof endUserMessagingInboundSettings>[3] = {},
): EndUserMessagingInboundHandler {
  return composeEndUserMessagingInbound(endUserMessagingInboundSettings(resources.table.name, resources.queueUrl, businessPhoneNumberIds, eventSource), {
    ...principalPorts('eum-inbound', { channel: 'end-user-messaging', operatorPlane: false, crmSync: 'off' }),
    logger: new Logger({ serviceName: 'eum-test', logLevel: 'DEBUG' }),
    metrics: new RecordingMetrics({ namespace: 'test', serviceName: 'eum-test' }),
    ...ports,
  });
}

/** The one SNS event the service publishes for a one-entry Meta notification. */
function eventOf(notification: string) {
  const [event, ...rest] = endUserMessagingEvents(JSON.parse(notification) as { entry: object[] });
  expect(rest).toEqual([]);
  return event;
}

const metric = (name: string) => metrics.filter(([recorded]) => recorded === name).reduce((sum, [, value]) => sum + value, 0);

beforeEach(() => {
  handler = inbound();
  metrics = [];
});

describe('events on the topic', () => {
  test('a text message is unwrapped, registered, routed to the agent and dispatched once', async () => {
    await handler(eventOf(textNotification('5511988887777', 'wamid.E1', 'Quero um exame')));

    const receipt = await new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock).getReceipt({ customerId: '5511988887777', messageId: 'wamid.E1' });
    expect(receipt?.turn).toMatchObject({ text: 'Quero um exame', businessPhoneNumberId: LINKED_NUMBER });
    expect(receipt?.dispatchedAt).toBeDefined();
    const [message, ...rest] = await takeAll(resources.queueUrl);
    expect(rest).toEqual([]);
    expect(JSON.parse(message.Body!)).toEqual({ phone_number: '5511988887777', message_id: 'wamid.E1' });
    expect(message.Attributes?.MessageGroupId).toBe('5511988887777');
  });

  test('an SNS redelivery and a concurrent duplicate write one receipt and one turn, like Meta retries', async () => {
    const event = eventOf(textNotification('5511988887777', 'wamid.DUP', 'oi'));
    await handler(event);
    const itemsAfterFirst = await allItems(resources.table.name);
    await Promise.all([handler(event), handler(snsEvent(event.Records[0].Sns.Message))]);

    expect(await allItems(resources.table.name)).toEqual(itemsAfterFirst);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
    expect(metric('InboundDuplicates')).toBe(2);
  });

  test('SQS down: the invocation fails (Lambda retries the event); the retry dispatches exactly once', async () => {
    const event = eventOf(textNotification('5511988887777', 'wamid.SQSDOWN', 'oi'));
    const unreachable = new SignedSqs({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    await expect(inbound({ sqsClient: unreachable })(event)).rejects.toThrow();
    expect(await queueDepth(resources.queueUrl)).toBe(0);

    await handler(event);
    await handler(event);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('a status-only entry is accepted and enqueues nothing', async () => {
    await handler(eventOf(metaFixture('statuses-only')));
    await resources.expectNothingWritten();
  });

  test("a status of a reply the pipeline sent is recorded on it with Meta's pricing, as the webhook records it", async () => {
    const messages = new DynamoMessageRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    const reply = { customerId: '5511988887777', sessionId: 'S1', messageId: 'reply-1', direction: 'outbound', role: 'assistant', text: 'Olá!', timestamp: '2026-03-10T11:00:00.000001Z', deliveryStatus: 'pending_send' } as const;
    await messages.append(reply);
    const ref = messages.refFor(reply);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const notification = statusNotification({ businessPhoneNumberId: '106540352242922', providerMessageId: 'wamid.OUT1', recipient: reply.customerId, status: 'delivered', at, callbackData: callbackDataOf(ref) });
    await handler(eventOf(JSON.stringify(notification)));
    // The send's outcome was never recorded: the status settles it, with Meta's id. The event carries
    // Meta's webhook entry whole, so Meta's pricing is recorded on the same write as on the Cloud API.
    expect(await messages.getOutbound(ref)).toMatchObject({
      deliveryStatus: 'sent',
      providerMessageId: 'wamid.OUT1',
      receipt: { status: 'delivered' },
      metaPricing: { billable: false, category: 'service', type: 'free_customer_service', pricingModel: 'PMP' },
    });
    expect(await queueDepth(resources.queueUrl)).toBe(0);
  });

  test('logs carry the outcome but never the message text or the full phone number', async () => {
    await handler(eventOf(textNotification('5511988887777', 'wamid.LOG', 'segredo médico')));
    const output = resources.logged.join('');
    expect(output).toContain('eum_event_handled');
    expect(output).not.toContain('segredo');
    expect(output).not.toContain('5511988887777');
  });
});

describe('what is dropped, counted, and never retried', () => {
  const entry = (JSON.parse(textNotification('5511988887777', 'wamid.BAD', 'oi')) as { entry: object[] }).entry[0];

  test.each([
    ['a message that is not JSON', 'not json'],
    ['a JSON array', '[]'],
    ['an envelope without whatsAppWebhookEntry', JSON.stringify({ aws_account_id: '123456789012', messageId: 'x' })],
    ['a whatsAppWebhookEntry that is an object, not a string', JSON.stringify({ ...endUserMessagingEnvelope(entry, LINKED_NUMBER, '1'), whatsAppWebhookEntry: entry })],
    ['a whatsAppWebhookEntry that is not JSON', JSON.stringify({ ...endUserMessagingEnvelope(entry, LINKED_NUMBER, '1'), whatsAppWebhookEntry: '{"id":' })],
  ])('%s', async (_name, message) => {
    await expect(handler(snsEvent(message))).resolves.toBeUndefined();

    expect(metric(CUSTOM_METRICS.inboundEnvelopeMalformed)).toBe(1);
    await resources.expectNothingWritten();
  });

  test.each([
    ['an entry whose changes are not a list', { id: '1', changes: 'nope' }],
    ['a change that is not an object', { id: '1', changes: [null] }],
    ['a status of the wrong shape', { id: '1', changes: [{ field: 'messages', value: { metadata: { phone_number_id: '106540352242922' }, statuses: [{ id: 7 }] } }] }],
  ])('%s: Meta’s content, counted as unreadable, never retried nor sent to the dead-letter queue', async (_name, unreadable) => {
    await expect(handler(snsEvent(JSON.stringify(endUserMessagingEnvelope(unreadable, LINKED_NUMBER, '1'))))).resolves.toBeUndefined();

    expect(metric(CUSTOM_METRICS.inboundUnreadable)).toBe(1);
    await resources.expectNothingWritten();
  });

  test('a message to a number that is not linked to this pipeline', async () => {
    await inbound({}, ['999999999999999'])(eventOf(textNotification('5511988887777', 'wamid.FOREIGN', 'oi')));

    expect(metric(CUSTOM_METRICS.inboundForeignNumberDropped)).toBe(1);
    await resources.expectNothingWritten();
  });

  test('a malformed event next to a good one in the same invocation: the good one is registered', async () => {
    const good = eventOf(textNotification('5511988887777', 'wamid.GOOD', 'oi'));
    await handler({ Records: [...snsEvent('garbage').Records, ...good.Records] });

    expect(metric(CUSTOM_METRICS.inboundEnvelopeMalformed)).toBe(1);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });
});

describe('what is refused, counted, and never retried: events that did not come from where this pipeline’s come from', () => {
  const notification = JSON.parse(textNotification('5511988887777', 'wamid.FORGED', 'PARAR')) as { entry: Array<{ id: string }> };
  const entry = notification.entry[0];
  const WABA = entry.id;
  /** The service's envelope of the entry, with `change` applied to it: what a forger would publish. */
  const forged = (change: (envelope: Record<string, unknown>) => void) => {
    const envelope = endUserMessagingEnvelope(entry, LINKED_NUMBER, WABA) as Record<string, unknown>;
    change(envelope);
    return snsEvent(JSON.stringify(envelope));
  };
  const context = (envelope: Record<string, unknown>) => envelope.context as { MetaWabaIds: { wabaId: string; arn: string }[]; MetaPhoneNumberIds: { metaPhoneNumberId: string; arn: string }[] };

  // Every row names its event source (the settings' own unless given), so jest never takes the last argument for `done`.
  test.each<[string, () => SNSEvent, Parameters<typeof inbound>[2]]>([
    [
      'a delivery from another topic',
      () => {
        const event = eventOf(JSON.stringify(notification));
        return { Records: event.Records.map((record) => ({ ...record, Sns: { ...record.Sns, TopicArn: 'arn:aws:sns:us-east-1:123456789012:someone-elses-topic' } })) };
      },
      {},
    ],
    ['an event of another account', () => forged((envelope) => (envelope.aws_account_id = '999999999999')), {}],
    ['a WABA held by another account', () => forged((envelope) => (context(envelope).MetaWabaIds[0].arn = 'arn:aws:social-messaging:us-east-1:999999999999:waba/fb2594b8a7974770b128a409e2example')), {}],
    ['a WABA that is not one of wabaIds', () => forged(() => undefined), { wabaIds: new Set(['111111111111111']) }],
    ['a linked number named by another resource', () => forged((envelope) => (context(envelope).MetaPhoneNumberIds[0].arn = 'arn:aws:social-messaging:us-east-1:123456789012:phone-number-id/0000000000000000000000000000other')), {}],
    ['a linked number held by another account', () => forged((envelope) => (context(envelope).MetaPhoneNumberIds[0].arn = 'arn:aws:social-messaging:us-east-1:999999999999:phone-number-id/0123456789abcdef0123456789abcdef')), {}],
    ['a header that names another WABA than its entry', () => forged((envelope) => (context(envelope).MetaWabaIds[0].wabaId = '222222222222222')), {}],
    ['a header that names other numbers than its entry', () => forged((envelope) => (context(envelope).MetaPhoneNumberIds = [{ metaPhoneNumberId: '999999999999999', arn: 'arn:aws:social-messaging:us-east-1:123456789012:phone-number-id/9999' }])), {}],
  ])('%s: nothing is written, the refusal is counted, the invocation succeeds', async (_name, event, source) => {
    await expect(inbound({}, [LINKED_NUMBER], source)(event())).resolves.toBeUndefined();

    expect(metric(CUSTOM_METRICS.inboundEnvelopeRefused)).toBe(1);
    expect(metric(CUSTOM_METRICS.inboundDispatched)).toBe(0);
    await resources.expectNothingWritten();
    expect(await queueDepth(resources.queueUrl)).toBe(0);
  });

  test('the same event from the configured topic, account, WABA and number is registered', async () => {
    await inbound({}, [LINKED_NUMBER], { wabaIds: new Set([WABA]) })(forged(() => undefined));

    expect(metric(CUSTOM_METRICS.inboundEnvelopeRefused)).toBe(0);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('an event of the WABA itself (no phone number, e.g. a template status) is no refusal', async () => {
    const wabaEvent = { id: WABA, changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: 1, message_template_name: 'x', message_template_language: 'pt_BR', reason: 'NONE' } }] };
    const envelope = endUserMessagingEnvelope(wabaEvent, LINKED_NUMBER, WABA) as Record<string, unknown>;
    context(envelope).MetaPhoneNumberIds = [];
    await handler(snsEvent(JSON.stringify(envelope)));

    expect(metric(CUSTOM_METRICS.inboundEnvelopeRefused)).toBe(0);
    await resources.expectNothingWritten();
  });

  test('the log says why, and names no customer', async () => {
    await handler(forged((envelope) => (envelope.aws_account_id = '999999999999')));
    const output = resources.logged.join('');
    expect(output).toContain('"reason":"foreign_account"');
    expect(output).not.toContain('5511988887777');
  });
});
