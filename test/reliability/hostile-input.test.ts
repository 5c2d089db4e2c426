// Hostile input: whatever reaches the webhook or the queue, the functions answer clearly (a 4xx
// for what Meta did not sign, a 200 for whatever Meta signed, a logged no-op for a bad SQS body),
// never crash, never ask for a retry that cannot succeed, and write nothing for what they refuse
// or cannot read.
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { signMetaPayload } from '../../lambda/core/adapters/whatsapp/webhook-signature';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { principalPorts } from '../support/permissions/function-principals';
import { composeWebhook as composeWebhookFunction, type WebhookHandler } from '../../lambda/composition/webhook';
import { LOCAL_WEBHOOK_REQUEST_TIMEOUTS } from '../../local/runtime/local-pipeline';
import { webhookSettings } from '../support/deployment-settings';
import { FaultInjector } from '../support/fault-injection';
import { queueDepth, takeAll } from '../support/inspect';
import { functionUrlEvent, TEST_CREDENTIALS, textNotification } from '../support/webhook-events';
import { toRecord } from './harness/drivers';
import { composeOrchestrator, composeWebhook, MetricsRecorder, startReliabilityEnvironment, type OrchestratorUnderTest, type ReliabilityEnvironment } from './harness/pipeline-under-test';
import { newCustomer } from '../support/ids';

const dynamodb = new DynamoDBClient({});
let env: ReliabilityEnvironment;
let webhook: WebhookHandler;

beforeAll(async () => {
  env = await startReliabilityEnvironment('hostile');
  const quiet = new FaultInjector();
  webhook = composeWebhookFunction(webhookSettings(env.tableName, env.turnQueueUrl), {
    credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
    ...principalPorts('webhook'),
    sqsClient: env.principals.inbound.queues,
    logger: new Logger({ serviceName: 'hostile', logLevel: 'SILENT' }),
    metrics: new MetricsRecorder(quiet),
    requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS,
  });
}, 60_000);

afterAll(async () => {
  await env?.close();
  dynamodb.destroy();
});

/** A POST as a Function URL delivers it: the raw bytes signed, text bodies as is, others base64. */
function post(rawBody: Buffer | string, options: { signature?: string; headerName?: string } = {}) {
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const event = functionUrlEvent('POST', { headers: { [options.headerName ?? 'x-hub-signature-256']: options.signature ?? signMetaPayload(bytes, TEST_CREDENTIALS.appSecret) } });
  const textual = typeof rawBody === 'string';
  return { ...event, body: textual ? rawBody : bytes.toString('base64'), isBase64Encoded: !textual };
}

/** Everything a customer can leave behind: items in the customer's partitions, and the queue depth. */
async function footprint(customer: string): Promise<{ items: number; queued: number }> {
  let items = 0;
  for (const partition of [`DEBOUNCE#${customer}`, `SESSION#${customer}`]) {
    const { Count = 0 } = await dynamodb.send(
      new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': { S: partition } }, ConsistentRead: true, Select: 'COUNT' }),
    );
    items += Count;
  }
  return { items, queued: await queueDepth(env.turnQueueUrl) };
}

/** The texts of the customer's inbound receipts, as stored. */
async function storedTexts(customer: string): Promise<string[]> {
  const { Items = [] } = await dynamodb.send(
    new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :receipt)', ExpressionAttributeValues: { ':pk': { S: `DEBOUNCE#${customer}` }, ':receipt': { S: 'INBOUND#' } }, ConsistentRead: true }),
  );
  return Items.map((item) => item.text?.S ?? '');
}

/** Items in the whole table, and the queue depth. */
async function everything(): Promise<{ items: number; queued: number }> {
  const { Count = 0 } = await dynamodb.send(new ScanCommand({ TableName: env.tableName, Select: 'COUNT', ConsistentRead: true }));
  return { items: Count, queued: await queueDepth(env.turnQueueUrl) };
}

function notification(customer: string, text = 'Oi') {
  return JSON.parse(textNotification(customer, `wamid.${randomUUID()}`, text)) as Record<string, unknown>;
}

/** Every path to a value in a JSON document (objects and arrays included). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const children = Array.isArray(value) ? value.map((child, index) => [index, child] as const) : Object.entries(value);
  return [prefix, ...children.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

function replaced(document: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(document) ? [...document] : { ...(document as object) }) as Record<string | number, unknown>;
  if (rest.length === 0 && replacement === REMOVE) delete copy[head];
  else copy[head] = replaced(copy[head], rest, replacement);
  return copy;
}

const REMOVE = Symbol('remove the field');

/** Whether a string is valid Unicode (no lone surrogate): exactly what encodeURIComponent accepts. */
function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** Values of every JSON type, including the awkward ones: empty, huge, nested, Unicode, key separators. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', ' ', '#', 'a#b', '0', '-1', '1e400', 'null', '\u0000', '\ud800', '😀'.repeat(40), 'x'.repeat(5000)),
  fc.constantFrom(0, -1, 1.5, 1e21, -1e21, 8.64e15, Number.MAX_SAFE_INTEGER, true, false, null, [], {}),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('the webhook refuses what Meta did not sign, and never what Meta signed; it writes nothing for either', () => {
  test('signed bodies that are not notifications (garbage, JSON of any shape, deep nesting) → 200, nothing written', async () => {
    const deeplyNested = fc.integer({ min: 1, max: 100_000 }).chain((depth) =>
      fc.constantFrom(`${'['.repeat(depth)}${']'.repeat(depth)}`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, '['.repeat(depth)),
    );
    const body = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.jsonValue().map((value) => JSON.stringify(value)), deeplyNested);
    const before = await everything();
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const response = await webhook(post(raw));
        expect(response.statusCode).toBe(200);
      }),
      { numRuns: 200 },
    );
    expect(await everything()).toEqual(before);
  });

  test('a wrong type, a strange value or a missing field anywhere in a signed notification → 200, never a refusal Meta would retry for days', async () => {
    const mutation = fc.record({ pathIndex: fc.nat(), value: fc.oneof(hostileValue, fc.constant(REMOVE)) });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ pathIndex, value }) => {
        const customer = newCustomer();
        const document = notification(customer);
        const paths = pathsOf(document).slice(1);
        const path = paths[pathIndex % paths.length];
        const response = await webhook(post(JSON.stringify(replaced(document, path, value))));
        expect(response.statusCode).toBe(200);
      }),
      { numRuns: 300 },
    );
  });

  test('bytes that are not UTF-8 inside a signed body → 200, nothing written', async () => {
    const invalidUtf8 = fc.constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x28, 0xa1], [0xf0, 0x90, 0x28, 0xbc], [0xed, 0xa0, 0x80], [0xc0, 0xaf]);
    await fc.assert(
      fc.asyncProperty(invalidUtf8, fc.nat({ max: 20 }), async (bad, offset) => {
        const customer = newCustomer();
        const [prefix, suffix] = JSON.stringify(notification(customer, 'Olá, tudo bem? Quero um exame')).split('tudo bem');
        const at = Math.min(offset, suffix.length);
        const raw = Buffer.concat([Buffer.from(prefix), Buffer.from(bad), Buffer.from(suffix.slice(0, at)), Buffer.from(suffix.slice(at))]);
        const response = await webhook(post(raw));
        expect(response.statusCode).toBe(200);
        expect(await footprint(customer)).toMatchObject({ items: 0 });
      }),
      { numRuns: 60 },
    );
  });

  test('text that is not well-formed Unicode (lone surrogates through JSON escapes) → 200, kept as an unsupported message whose stored text is well-formed; well-formed text → 200, kept as sent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00')), { minLength: 1, maxLength: 4 }), async (parts) => {
        const text = parts.join('');
        const customer = newCustomer();
        const body = notification(customer, text);
        const response = await webhook(post(JSON.stringify(body)));
        expect(response.statusCode).toBe(200);
        const stored = await storedTexts(customer);
        expect(stored.every(isWellFormed)).toBe(true);
        expect(stored).toEqual([isWellFormed(text) ? text.slice(0, 4096) : '[text]']);
      }),
      { numRuns: 100 },
    );
  });

  test('signatures: missing → 401, anything but the HMAC of these bytes with this secret → 403; the header name in any case', async () => {
    const hex = (body: string, secret: string = TEST_CREDENTIALS.appSecret) => signMetaPayload(body, secret).slice('sha256='.length);
    const forgery = fc.oneof(
      fc.constant({ make: () => undefined, status: 401 }),
      fc.constantFrom('', '   ').map((value) => ({ make: () => value, status: 401 })),
      fc.string().map((value) => ({ make: () => (value.trim() === '' ? 'x' : value), status: 403 })),
      fc.constant({ make: (body: string) => `sha1=${hex(body)}`, status: 403 }),
      fc.constant({ make: (body: string) => `sha256=${hex(body).slice(1)}`, status: 403 }),
      fc.constant({ make: (body: string) => `sha256=${hex(body, 'another-secret')}`, status: 403 }),
      fc.constant({ make: (body: string) => `sha256=${hex(`${body} `)}`, status: 403 }),
      fc.constant({ make: (body: string) => `sha256=${hex(body)},sha256=${hex(body)}`, status: 403 }),
      fc.constant({ make: (body: string) => `  sha256=${hex(body).toUpperCase()}  `, status: 200 }),
    );
    const headerName = fc.constantFrom('x-hub-signature-256', 'X-Hub-Signature-256', 'X-HUB-SIGNATURE-256', 'x-HUB-signature-256');
    await fc.assert(
      fc.asyncProperty(forgery, headerName, async ({ make, status }, name) => {
        const customer = newCustomer();
        const body = JSON.stringify(notification(customer));
        const signature = make(body);
        const event = functionUrlEvent('POST', { body, headers: signature === undefined ? {} : { [name]: signature } });
        expect((await webhook(event)).statusCode).toBe(status);
        if (status !== 200) expect(await footprint(customer)).toMatchObject({ items: 0 });
      }),
      { numRuns: 80 },
    );
  });

  test('over 3 MB → 413 before the body is read, declared or decoded', async () => {
    const huge = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    expect((await webhook(post(huge.toString('latin1')))).statusCode).toBe(413);
    expect((await webhook(post(huge))).statusCode).toBe(413);
  });

  test('other methods → 405; a handshake with the wrong token → 403, with a strange challenge → 400', async () => {
    for (const method of ['PUT'] as const) expect((await webhook(functionUrlEvent(method, { body: '{}' }))).statusCode).toBe(405);
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (token, challenge) => {
        fc.pre(token !== TEST_CREDENTIALS.verifyToken);
        const response = await webhook(functionUrlEvent('GET', { query: { 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': challenge } }));
        expect(response.statusCode).toBe(403);
      }),
      { numRuns: 50 },
    );
    const challenge = await webhook(functionUrlEvent('GET', { query: { 'hub.mode': 'subscribe', 'hub.verify_token': TEST_CREDENTIALS.verifyToken, 'hub.challenge': '<img src=x>' } }));
    expect(challenge.statusCode).toBe(400);
  });
});

describe('signed notifications the pipeline does not serve: 200, nothing written', () => {
  const OUR_NUMBER = '106540352242922';
  const SECONDS_PER_DAY = 86_400;

  test('any other business number of the Meta app, any message age beyond the receipt retention', async () => {
    const servingOneNumber = composeWebhookFunction(webhookSettings(env.tableName, env.turnQueueUrl, { businessPhoneNumberIds: [OUR_NUMBER] }), {
      credentials: new StaticCredentialsProvider(TEST_CREDENTIALS),
      ...principalPorts('webhook'),
      sqsClient: env.principals.inbound.queues,
      logger: new Logger({ serviceName: 'hostile', logLevel: 'SILENT' }),
      metrics: new MetricsRecorder(new FaultInjector()),
      requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS,
    });
    const foreignNumber = fc.stringMatching(/^\d{1,20}$/).filter((id) => id !== OUR_NUMBER);
    const staleAge = fc.integer({ min: 7 * SECONDS_PER_DAY, max: 5 * 365 * SECONDS_PER_DAY });
    const unserved = fc.oneof(
      foreignNumber.map((id) => ({ phoneNumberId: id, ageSeconds: 0 })),
      staleAge.map((ageSeconds) => ({ phoneNumberId: OUR_NUMBER, ageSeconds })),
    );
    await fc.assert(
      fc.asyncProperty(unserved, async ({ phoneNumberId, ageSeconds }) => {
        const customer = newCustomer();
        const queuedBefore = await queueDepth(env.turnQueueUrl);
        const sentAt = Math.floor(Date.now() / 1000) - ageSeconds;
        const body = textNotification(customer, `wamid.${randomUUID()}`, 'Oi', sentAt).replace(OUR_NUMBER, phoneNumberId);

        expect((await servingOneNumber(post(body))).statusCode).toBe(200);
        expect(await footprint(customer)).toEqual({ items: 0, queued: queuedBefore });
      }),
      { numRuns: 60 },
    );
  });
});

describe('replays of a valid notification', () => {
  test('delivered again and again, one after the other or at once: always 200, one receipt, one queued turn', async () => {
    const replays = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(replays, async (waves) => {
        const customer = newCustomer();
        const queuedBefore = await queueDepth(env.turnQueueUrl);
        const body = JSON.stringify(notification(customer));
        for (const concurrent of waves) {
          const responses = await Promise.all(Array.from({ length: concurrent }, () => webhook(post(body))));
          expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 200));
        }
        // The receipt and the latest-inbound marker; one turn queued.
        expect(await footprint(customer)).toEqual({ items: 2, queued: queuedBefore + 1 });
      }),
      { numRuns: 40 },
    );
  });
});

describe('the orchestrator and whatever sits in the queue', () => {
  // A table of its own: the webhook suites above legitimately register messages from customers such
  // as "null", and a body naming one of them would start a real turn with the agent.
  let sqsEnv: ReliabilityEnvironment;
  let orchestrator: OrchestratorUnderTest;
  beforeAll(async () => {
    sqsEnv = await startReliabilityEnvironment('hostile-sqs');
    orchestrator = composeOrchestrator(sqsEnv, new FaultInjector());
  }, 60_000);
  afterAll(async () => {
    await sqsEnv?.close();
  });

  test('any SQS body: a logged no-op — never an exception, never a retry, never the agent', async () => {
    const customerId = fc.oneof(hostileValue, fc.constantFrom(newCustomer(), 'a#b', '#', '', 'x'.repeat(3000), 'US.13491208655302741918'));
    const body = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.record({ phone_number: customerId, message_id: hostileValue }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const record = toRecord({ MessageId: randomUUID(), ReceiptHandle: 'handle', Body: raw, Attributes: { ApproximateReceiveCount: '1' } }, sqsEnv.turnQueueUrl);
        expect(await orchestrator.handle(record)).toEqual({ batchItemFailures: [] });
      }),
      { numRuns: 200 },
    );
    expect(orchestrator.agent.requests).toHaveLength(0);
  });
});

describe('a burst from one customer over budget', () => {
  // A table and queue of their own, so the queue holds only this customer's turns.
  let burstEnv: ReliabilityEnvironment;
  beforeAll(async () => {
    burstEnv = await startReliabilityEnvironment('hostile-burst');
  }, 60_000);
  afterAll(async () => {
    await burstEnv?.close();
  });

  test('no turn past the budget reaches the agent, the customer gets the short budget reply once, and nothing is lost', async () => {
    const limit = 3;
    const burst = 12;
    const reply = 'Muitas mensagens: aguarde um pouco.';
    // One minute for the whole burst, whatever the wall clock does meanwhile.
    const minute = { now: () => new Date('2026-11-30T10:15:00.000Z') };
    const orchestrator = composeOrchestrator(burstEnv, new FaultInjector(), { budget: { clock: minute, settings: { turnsPerMinute: limit, reply } } });
    const burstWebhook = composeWebhook(burstEnv, new FaultInjector());
    const customer = newCustomer();
    for (let n = 1; n <= burst; n++) {
      expect((await burstWebhook.handle(post(textNotification(customer, `wamid.${randomUUID()}`, `mensagem ${n} #fora tudo`)))).statusCode).toBe(200);
      for (const message of await takeAll(burstEnv.turnQueueUrl)) {
        expect(await orchestrator.handle(toRecord(message, burstEnv.turnQueueUrl))).toEqual({ batchItemFailures: [] });
      }
    }

    expect(orchestrator.agent.calls).toBe(limit);
    const sent = burstEnv.fake.sent().filter((message) => message.recipient === customer).map((message) => message.text);
    expect(sent).toHaveLength(limit + 1);
    expect(sent.at(-1)).toBe(reply);
    expect(orchestrator.metrics.recorded.filter((metric) => metric.name === 'TurnOverBudget')).toHaveLength(burst - limit);
    // Every message was taken in: none waits on the pending list, every one is in the history.
    expect((await burstEnv.repositories.receipts.getLatest(customer))?.pendingMessageIds).toEqual([]);
    const { items: history } = await burstEnv.repositories.messages.history(customer, { limit: 100 });
    expect(history.filter((message) => message.role === 'user')).toHaveLength(burst);
    // The budget reply carries no actions: what the hostile text asked for happened only on admitted turns.
    const { items: demands } = await burstEnv.repositories.demands.listRecent({ limit: 100 });
    expect(demands.filter((demand) => demand.customerId === customer)).toHaveLength(limit);
  });
});