import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SignedSqs } from '../../../lambda/core/adapters/sqs/sqs-api';
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { crmSyncKey } from '../../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import type { WebhookSettings } from '../../../lambda/composition/deployment-settings';
import { principalPorts } from '../../support/permissions/function-principals';
import { composeWebhook, WEBHOOK_REQUEST_TIMEOUTS, type WebhookHandler, type WebhookPorts } from '../../../lambda/composition/webhook';
import { callbackDataOf } from '../../../lambda/core/domain/callback-data';
import { statusNotification } from '../../../local/fake-whatsapp/fake-graph-api';
import { LOCAL_WEBHOOK_REQUEST_TIMEOUTS } from '../../../local/runtime/local-pipeline';
import { StaticCredentialsProvider } from '../../../lambda/core/adapters/secrets/static-credentials-provider';
import { systemClock } from '../../../lambda/core/adapters/system/system-clock';
import { SessionState, type Session } from '../../../lambda/core/domain/session';
import { webhookSettings } from '../../support/deployment-settings';
import { metaFixture } from '../../support/fixtures';
import { useInboundTestResources } from '../../support/inbound-test-resources';
import { allItems, queueDepth, takeAll } from '../../support/inspect';
import { functionUrlEvent, restApiEvent, signedPost, signedRestApiPost, TEST_CREDENTIALS, textNotification } from '../../support/webhook-events';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** The recorded Meta fixtures were sent in June 2025; a webhook of that time still takes them. */
const FIXTURE_CLOCK = { now: () => new Date('2025-06-09T00:00:00Z') };
const SECONDS_PER_DAY = 86_400;
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const sqs = new SQSClient({});
const resources = useInboundTestResources('webhook', sqs);
let handler: WebhookHandler;
const logger = new Logger({ serviceName: 'webhook-test', logLevel: 'DEBUG' });

function webhook(ports: Pick<WebhookPorts, 'sqsClient' | 'clock' | 'credentials' | 'metrics'> = {}, settings: Partial<Pick<WebhookSettings, 'businessPhoneNumberIds' | 'crmSyncEnabled'>> = {}): WebhookHandler {
  return composeWebhook(webhookSettings(resources.table.name, resources.queueUrl, settings), {
    credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
    ...principalPorts('webhook'),
    logger,
    metrics: new Metrics({ namespace: 'test', serviceName: 'webhook-test' }),
    requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS,
    ...ports,
  });
}

beforeEach(() => {
  handler = webhook();
});

describe('verification handshake', () => {
  test('echoes the challenge when the verify token matches', async () => {
    const response = await handler(functionUrlEvent('GET', { query: { 'hub.mode': 'subscribe', 'hub.verify_token': TEST_CREDENTIALS.verifyToken, 'hub.challenge': '1158201444' } }));
    expect(response).toMatchObject({ statusCode: 200, body: '1158201444' });
  });

  test.each([
    ['a wrong token', { 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' }, 403],
    ['another mode', { 'hub.mode': 'unsubscribe', 'hub.verify_token': TEST_CREDENTIALS.verifyToken, 'hub.challenge': '1' }, 403],
    ['no parameters', {}, 403],
    ['a challenge carrying markup', { 'hub.mode': 'subscribe', 'hub.verify_token': TEST_CREDENTIALS.verifyToken, 'hub.challenge': '<script>' }, 400],
  ])('refuses %s', async (_name, query, status) => {
    expect((await handler(functionUrlEvent('GET', { query }))).statusCode).toBe(status);
  });
});

describe('through the API Gateway front door (REST API proxy events)', () => {
  test('the verification handshake echoes the challenge', async () => {
    const response = await handler(restApiEvent('GET', { query: { 'hub.mode': 'subscribe', 'hub.verify_token': TEST_CREDENTIALS.verifyToken, 'hub.challenge': '1158201444' } }));
    expect(response).toMatchObject({ statusCode: 200, body: '1158201444' });
  });

  test('a signed notification, base64-encoded with its header in Meta’s case, is verified over its exact bytes and dispatched', async () => {
    const response = await handler(signedRestApiPost(textNotification('5511988887777', 'wamid.REST', 'olá, ação 🧬')));
    expect(response.statusCode).toBe(200);
    const [message, ...rest] = await takeAll(resources.queueUrl);
    expect(rest).toEqual([]);
    expect(JSON.parse(message.Body!)).toEqual({ phone_number: '5511988887777', message_id: 'wamid.REST' });
  });

  test('a body changed after signing, or a missing signature, is refused', async () => {
    const signed = signedRestApiPost(textNotification('5511988887777', 'wamid.REST2', 'oi'));
    const tampered = { ...signed, body: Buffer.from(textNotification('5511988887777', 'wamid.REST2', 'oi!')).toString('base64') };
    expect((await handler(tampered)).statusCode).toBe(403);
    expect((await handler(restApiEvent('POST', { body: textNotification('5511988887777', 'wamid.REST3', 'oi') }))).statusCode).toBe(401);
    await resources.expectNothingWritten();
  });

  test('another method is refused', async () => {
    expect((await handler(restApiEvent('PUT', { body: '{}' }))).statusCode).toBe(405);
  });
});

describe('notifications', () => {
  test('a text message is registered, routed to the agent and dispatched once', async () => {
    const response = await handler(signedPost(textNotification('5511988887777', 'wamid.T1', 'Quero um exame de DNA')));
    expect(response.statusCode).toBe(200);

    const receipt = await new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock).getReceipt({ customerId: '5511988887777', messageId: 'wamid.T1' });
    expect(receipt?.agentRoutedAt).toBeDefined();
    expect(receipt?.dispatchedAt).toBeDefined();
    expect(receipt?.turn.text).toBe('Quero um exame de DNA');

    const [message, ...rest] = await takeAll(resources.queueUrl);
    expect(rest).toEqual([]);
    expect(JSON.parse(message.Body!)).toEqual({ phone_number: '5511988887777', message_id: 'wamid.T1' });
    expect(message.Attributes?.MessageGroupId).toBe('5511988887777');
  });

  test('a base64-encoded body is verified and parsed from its decoded bytes', async () => {
    const response = await handler(signedPost(textNotification('5511988887777', 'wamid.B64', 'olá, ação'), { base64: true }));
    expect(response.statusCode).toBe(200);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('the same POST delivered twice, one after the other, writes one receipt and one message', async () => {
    const body = textNotification('5511988887777', 'wamid.DUP', 'oi');
    expect((await handler(signedPost(body))).statusCode).toBe(200);
    const itemsAfterFirst = await allItems(resources.table.name);
    expect((await handler(signedPost(body))).statusCode).toBe(200);
    expect(await allItems(resources.table.name)).toEqual(itemsAfterFirst);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('the same POST delivered concurrently writes one receipt and one message', async () => {
    const body = textNotification('5511988887777', 'wamid.RACE', 'oi');
    const responses = await Promise.all(Array.from({ length: 5 }, () => handler(signedPost(body))));
    expect(new Set(responses.map((response) => response.statusCode))).toEqual(new Set([200]));
    const receipts = (await allItems(resources.table.name)).filter((item) => String(item.SK).startsWith('INBOUND#'));
    expect(receipts).toHaveLength(1);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('SQS down on the first delivery, up on the retry: 5xx then 200, exactly one message in the end', async () => {
    const body = textNotification('5511988887777', 'wamid.SQSDOWN', 'oi');
    const unreachable = new SignedSqs({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    expect((await webhook({ sqsClient: unreachable })(signedPost(body))).statusCode).toBe(500);
    expect(await queueDepth(resources.queueUrl)).toBe(0);
    const receipts = new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    expect((await receipts.getReceipt({ customerId: '5511988887777', messageId: 'wamid.SQSDOWN' }))?.dispatchedAt).toBeUndefined();

    expect((await handler(signedPost(body))).statusCode).toBe(200);
    expect((await handler(signedPost(body))).statusCode).toBe(200);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
    expect((await receipts.getReceipt({ customerId: '5511988887777', messageId: 'wamid.SQSDOWN' }))?.dispatchedAt).toBeDefined();
  });

  test('a multi-entry batch registers every message and keeps each customer’s order', async () => {
    expect((await webhook({ clock: FIXTURE_CLOCK })(signedPost(metaFixture('multi-entry-batch')))).statusCode).toBe(200);
    const dispatched = await takeAll(resources.queueUrl);
    expect(dispatched.map((message) => JSON.parse(message.Body!).message_id).sort()).toEqual(['wamid.BATCH-A1', 'wamid.BATCH-A2', 'wamid.BATCH-B1', 'wamid.BATCH-C1']);
    const receipts = new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    expect((await receipts.getLatest('5511988887777'))?.pendingMessageIds).toEqual(['wamid.BATCH-A1', 'wamid.BATCH-A2']);
  });

  test('a status-only notification is accepted and enqueues nothing', async () => {
    expect((await handler(signedPost(metaFixture('statuses-only')))).statusCode).toBe(200);
    await resources.expectNothingWritten();
  });

  test('a business-scoped user id is the customer id and the message group', async () => {
    expect((await webhook({ clock: FIXTURE_CLOCK })(signedPost(metaFixture('business-scoped-user')))).statusCode).toBe(200);
    const [message] = await takeAll(resources.queueUrl);
    expect(message.Attributes?.MessageGroupId).toBe('US.13491208655302741918');
  });

  /** A session a person owns, put in the table directly; returns the kit it used. */
  async function humanOwnedSession(): Promise<DynamoKit> {
    const kit = new DynamoKit({ tableName: resources.table.name });
    const now = new Date().toISOString();
    const session: Session = {
      sessionId: 'session-human',
      customerId: '5511988887777',
      state: SessionState.HUMAN_ACTIVE,
      assignedTo: '5511900000000',
      qualificationData: {},
      cadastralData: {},
      handoffRenotifyCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    await new DynamoSessionRepository(kit, systemClock).put(session);
    return kit;
  }

  test('a customer whose session is human-owned reaches the human inbox, not the agent', async () => {
    const kit = await humanOwnedSession();
    expect((await handler(signedPost(textNotification('5511988887777', 'wamid.HUMAN', 'Alguém aí?')))).statusCode).toBe(200);
    expect(await queueDepth(resources.queueUrl)).toBe(0);
    const history = await new DynamoMessageRepository(kit, systemClock).historyForSession('5511988887777', 'session-human', 10);
    expect(history.map((message) => [message.messageId, message.text])).toEqual([['wamid.HUMAN', 'Alguém aí?']]);
  });

  test('with CRM sync on, routing reads the session but never its CRM row (outside the webhook’s IAM reach)', async () => {
    const kit = await humanOwnedSession();
    // A row that cannot be decoded: reading it would fail the delivery.
    await kit.put({ item: { ...crmSyncKey('session-human'), entity_type: 'crm_sync' } });
    expect((await webhook({}, { crmSyncEnabled: true })(signedPost(textNotification('5511988887777', 'wamid.HUMAN', 'Alguém aí?')))).statusCode).toBe(200);
    const history = await new DynamoMessageRepository(kit, systemClock).historyForSession('5511988887777', 'session-human', 10);
    expect(history.map((message) => message.messageId)).toEqual(['wamid.HUMAN']);
  });

  test('logs carry the outcome but never the message text or the full phone number', async () => {
    await handler(signedPost(textNotification('5511988887777', 'wamid.LOG', 'segredo médico')));
    const output = resources.logged.join('');
    expect(output).toContain('webhook_handled');
    expect(output).not.toContain('segredo');
    expect(output).not.toContain('5511988887777');
  });
});

describe('requests that are not Meta’s get a clear answer and write nothing', () => {
  const body = textNotification('5511988887777', 'wamid.BAD', 'oi');
  const oversized = JSON.stringify({ object: 'whatsapp_business_account', entry: [], padding: 'x'.repeat(3 * 1024 * 1024) });
  const cases: Array<[string, () => ReturnType<typeof signedPost>, number]> = [
    ['a missing signature', () => functionUrlEvent('POST', { body }), 401],
    ['a signature made with another secret', () => signedPost(body, { secret: 'wrong-secret' }), 403],
    ['a body changed by one byte after signing', () => ({ ...signedPost(body), body: body.replace('"oi"', '"oI"') }), 403],
    ['a body over 3 MB', () => signedPost(oversized), 413],
    ['another HTTP method', () => functionUrlEvent('PUT', { body }), 405],
  ];
  test.each(cases)('%s', async (_name, event, status) => {
    expect((await handler(event())).statusCode).toBe(status);
    await resources.expectNothingWritten();
  });
});

describe('a notification Meta signed is never refused for its content', () => {
  /** The handler with its `InboundUnreadable` count. */
  function countingUnreadable(): { readonly handle: WebhookHandler; readonly unreadable: () => number } {
    const metrics = new Metrics({ namespace: 'test', serviceName: 'webhook-test' });
    const added = jest.spyOn(metrics, 'addMetric');
    const handle = webhook({ metrics });
    const unreadable = () => added.mock.calls.filter(([name]) => name === 'InboundUnreadable').reduce((sum, [, , value]) => sum + Number(value), 0);
    return { handle, unreadable };
  }

  const unreadable: Array<[string, string]> = [
    ['invalid JSON', '{"object":"whatsapp_business_account",'],
    ['valid JSON of the wrong shape', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { messages: [{ id: 'x' }] } }] }] })],
    ['a phone_number_id that is not a Meta id (it would reach a URL)', textNotification('5511988887777', 'wamid.PATH', 'oi').replace('106540352242922', '../../me/accounts')],
  ];
  test.each(unreadable)('%s: 200 (Meta would send it again for days), counted as unreadable, nothing written', async (_name, body) => {
    const { handle, unreadable: counted } = countingUnreadable();
    expect((await handle(signedPost(body))).statusCode).toBe(200);
    expect(counted()).toBe(1);
    await resources.expectNothingWritten();
  });

  test('Meta’s "Unsupported webhook payload" (an interactive message without its object) is registered as unsupported, so the customer is told, and the message beside it as it is', async () => {
    const { handle, unreadable: counted } = countingUnreadable();
    const notification = JSON.parse(textNotification('5511988887777', 'wamid.FINE', 'oi')) as { entry: [{ changes: [{ value: { messages: object[] } }] }] };
    const { messages } = notification.entry[0].changes[0].value;
    messages.unshift({ from: '5511988887777', id: 'wamid.UNRENDERED', timestamp: String(nowSeconds() - 1), type: 'interactive', errors: [{ code: 131000, title: 'Something went wrong', message: 'Something went wrong', error_data: { details: 'Unsupported webhook payload' } }] });

    expect((await handle(signedPost(JSON.stringify(notification)))).statusCode).toBe(200);
    expect(counted()).toBe(0);
    const receipts = new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    expect(await receipts.getReceipt({ customerId: '5511988887777', messageId: 'wamid.UNRENDERED' })).toMatchObject({ turn: { messageType: 'interactive', text: '[interactive]', unsupported: true } });
    expect(await receipts.getReceipt({ customerId: '5511988887777', messageId: 'wamid.FINE' })).toMatchObject({ turn: { text: 'oi' } });
    expect(await queueDepth(resources.queueUrl)).toBe(2);
  });

  test('a text of 4,095 letters and an emoji is cut before the emoji, never inside it: no lone surrogate is stored', async () => {
    const text = `${'a'.repeat(4095)}😀`;
    expect((await handler(signedPost(textNotification('5511988887777', 'wamid.LONG', text)))).statusCode).toBe(200);
    const receipts = new DynamoInboundReceiptRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    const stored = (await receipts.getReceipt({ customerId: '5511988887777', messageId: 'wamid.LONG' }))!.turn.text;
    expect(stored).toBe('a'.repeat(4095));
    expect(/\p{Cs}/u.test(stored)).toBe(false);
  });
});

describe('guards on signed notifications', () => {
  const OUR_NUMBER = '106540352242922';

  test('a message to another business number of the same Meta app gets 200 and writes nothing', async () => {
    const foreign = textNotification('5511988887777', 'wamid.FOREIGN', 'oi').replace(OUR_NUMBER, '999999999999999');

    const response = await webhook({}, { businessPhoneNumberIds: [OUR_NUMBER] })(signedPost(foreign));

    expect(response.statusCode).toBe(200);
    await resources.expectNothingWritten();
    expect(resources.logged.join('')).toContain('"droppedForeignNumber":1');
  });

  test('a message to a listed business number is registered', async () => {
    const response = await webhook({}, { businessPhoneNumberIds: ['1', OUR_NUMBER] })(signedPost(textNotification('5511988887777', 'wamid.OURS', 'oi')));

    expect(response.statusCode).toBe(200);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('a message older than the receipt retention (7 days) gets 200 and writes nothing', async () => {
    const eightDaysOld = textNotification('5511988887777', 'wamid.OLD', 'oi', nowSeconds() - 8 * SECONDS_PER_DAY);

    const response = await handler(signedPost(eightDaysOld));

    expect(response.statusCode).toBe(200);
    await resources.expectNothingWritten();
    expect(resources.logged.join('')).toContain('"droppedStale":1');
  });

  test('a message six days old is still registered', async () => {
    const sixDaysOld = textNotification('5511988887777', 'wamid.SIX', 'oi', nowSeconds() - 6 * SECONDS_PER_DAY);

    expect((await handler(signedPost(sixDaysOld))).statusCode).toBe(200);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });

  test('during a rotation a body signed with the previous app secret is accepted; any other secret is not', async () => {
    const rotating = webhook({ credentials: new StaticCredentialsProvider({ ...TEST_CREDENTIALS, appSecret: 'new-secret', previousAppSecret: TEST_CREDENTIALS.appSecret }) });
    const body = textNotification('5511988887777', 'wamid.ROTATE', 'oi');

    expect((await rotating(signedPost(body, { secret: 'new-secret' }))).statusCode).toBe(200);
    expect((await rotating(signedPost(body))).statusCode).toBe(200);
    expect((await rotating(signedPost(body, { secret: 'another-secret' }))).statusCode).toBe(403);
    expect(await queueDepth(resources.queueUrl)).toBe(1);
  });
});

describe('a stalled table', () => {
  /** A TCP server on 127.0.0.1 that takes connections and never answers, as a frozen DynamoDB does. */
  async function stalledServer(): Promise<{ readonly endpoint: string; close(): Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      endpoint: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    };
  }

  test('answers 5xx within its budget instead of hanging, and writes nothing', async () => {
    const stalled = await stalledServer();
    try {
      const frozen = composeWebhook(webhookSettings(resources.table.name, resources.queueUrl), {
        credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
        ...principalPorts('webhook'),
        dynamoDbEndpoint: stalled.endpoint,
        logger,
        metrics: new Metrics({ namespace: 'test', serviceName: 'webhook-test' }),
      });
      const started = Date.now();
      const response = await frozen(signedPost(textNotification('5511988887777', 'wamid.FROZEN', 'oi')));
      const elapsedMs = Date.now() - started;
      expect(response.statusCode).toBe(500);
      // Two attempts of WEBHOOK_REQUEST_TIMEOUTS.requestTimeoutMs and the SDK's backoff, far inside the 10 s the function has.
      expect(elapsedMs).toBeGreaterThanOrEqual(2 * WEBHOOK_REQUEST_TIMEOUTS.requestTimeoutMs);
      expect(elapsedMs).toBeLessThan(8_000);
      await resources.expectNothingWritten();
    } finally {
      await stalled.close();
    }
  }, 20_000);
});

describe('delivery statuses', () => {
  async function sentReply(customerId: string): Promise<{ readonly messages: DynamoMessageRepository; readonly callbackData: string; readonly ref: ReturnType<DynamoMessageRepository['refFor']> }> {
    const messages = new DynamoMessageRepository(new DynamoKit({ tableName: resources.table.name }), systemClock);
    const reply = {
      customerId,
      sessionId: 'S1',
      messageId: 'reply-1',
      direction: 'outbound',
      role: 'assistant',
      text: 'Olá!',
      timestamp: '2026-03-10T11:00:00.000001Z',
      deliveryStatus: 'sent',
      providerMessageId: 'wamid.OUT1',
      sentAt: '2026-03-10T11:00:01.000000Z',
    } as const;
    await messages.append(reply);
    const ref = messages.refFor(reply);
    return { messages, callbackData: callbackDataOf(ref), ref };
  }

  test('a status of a reply the pipeline sent is recorded on it, with Meta’s error for a failure; nothing is queued', async () => {
    const { messages, callbackData, ref } = await sentReply('5511988887777');
    const at = nowSeconds();
    for (const [status, offset, errorCode] of [['delivered', 0, undefined], ['failed', 1, 131047]] as const) {
      const notification = statusNotification({ businessPhoneNumberId: '106540352242922', providerMessageId: 'wamid.OUT1', recipient: '5511988887777', status, at: new Date((at + offset) * 1000), callbackData, errorCode });
      expect((await handler(signedPost(JSON.stringify(notification)))).statusCode).toBe(200);
    }
    expect((await messages.getOutbound(ref))?.receipt).toEqual({ status: 'failed', at: new Date((at + 1) * 1000).toISOString().replace('Z', '000Z'), failureCode: 131047 });
    expect(await queueDepth(resources.queueUrl)).toBe(0);
  });
});
