// The admins' usage report over real HTTP: the agent's replies and model tokens per UTC day and per
// model, read from every write shard of the day index of agent replies; its default week, its
// bounds, and who may read it. Beside it, the handoff report: a conversation the agent hands to
// people counts on its UTC day, waiting until someone claims it, then with its claim and first reply.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import { createDocumentClient } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { writeShardOf } from '../../../lambda/core/adapters/dynamodb/keys';
import type { Message } from '../../../lambda/core/domain/message';
import type { MetaPricing } from '../../../lambda/core/domain/meta-fee';
import { awsEstimateUsd } from '../../../lib/contract/aws-cost-estimate';
import { META_MESSAGE_RATES, type MetaRateCategory } from '../../../lib/contract/meta-message-rates';
import { utcDay } from '../../../lambda/core/domain/timestamps';
import { KeyLayout } from '../../../lib/contract/key-layout';
import type { AwsEstimate, HandoffReport, UsageReport } from '../../../lib/contract/operator-api';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { waitUntil } from '../../support/waiting';
import { type ConsoleClient, handedOffCustomer, startStaffedPipeline } from '../../support/operator-console-client';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NO_FEES = { messages: 0, billable: 0, usd: 0, unpriced: 0 };

let pipeline: LocalPipeline;
let sharded: DynamoRepositories;
let admin: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  const agent = new ScriptedAgent({ model: MODEL, usage: { inputTokens: 1200, outputTokens: 80 } });
  ({ pipeline, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { agent, keyLayout: KeyLayout.SHARDED }));
  const client = createDocumentClient({});
  sharded = createDynamoRepositories({ tableName: pipeline.tableName, client, keyLayout: KeyLayout.SHARDED });
});
afterAll(async () => {
  await pipeline.stop();
});

let sequence = 0;
/** The AWS estimate of `replies` replies whose models took `modelWaitMs` in all; the sums of days may differ in the last digits. */
function awsOf(replies: number, modelWaitMs: number): AwsEstimate {
  return { usd: expect.closeTo(awsEstimateUsd(replies, modelWaitMs), 12), modelWaitSeconds: expect.closeTo(modelWaitMs / 1000, 9) };
}

function agentReply(customerId: string, timestamp: string, llm: Message['llm']): Message {
  sequence++;
  return { customerId, sessionId: 'report', messageId: `reply-${sequence}`, direction: 'outbound', role: 'assistant', text: 'Olá!', timestamp, deliveryStatus: 'sent', llm };
}

test("per UTC day and model: the agent's replies and tokens from every write shard, each day of the period listed", async () => {
  const customers = Array.from({ length: 12 }, () => newCustomer());
  expect(new Set(customers.map(writeShardOf)).size).toBeGreaterThan(1);
  for (const [index, customerId] of customers.entries()) {
    await sharded.messages.append(agentReply(customerId, `2026-01-05T${String(10 + index).padStart(2, '0')}:00:00Z`, { model: 'model-a', inputTokens: 100, outputTokens: 10, latencyMs: 900 }));
  }
  await sharded.messages.append(agentReply(customers[0], '2026-01-06T23:59:59.999999Z', { model: 'model-b', inputTokens: 40, outputTokens: 4 }));
  await sharded.messages.append(agentReply(customers[1], '2026-01-06T00:00:00Z', { latencyMs: 10 }));
  // A customer's message is not the agent's work.
  await sharded.messages.append({ ...agentReply(customers[2], '2026-01-06T12:00:00Z', undefined), direction: 'inbound', role: 'user' });

  const answer = await admin.call('GET', '/api/admin/reports/usage?from=2026-01-05&to=2026-01-07');

  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    from: '2026-01-05',
    to: '2026-01-07',
    metaRatesCheckedOn: META_MESSAGE_RATES.checkedOn,
    // No evaluation ran: its line is there, at zero, every day.
    evaluation: { tokens: 0, days: ['2026-01-05', '2026-01-06', '2026-01-07'].map((day) => ({ day, tokens: 0 })) },
    days: [
      { day: '2026-01-05', replies: 12, inputTokens: 1200, outputTokens: 120, models: [{ model: 'model-a', replies: 12, inputTokens: 1200, outputTokens: 120 }], metaFees: NO_FEES, aws: awsOf(12, 10_800), complete: true },
      {
        day: '2026-01-06',
        replies: 2,
        inputTokens: 40,
        outputTokens: 4,
        models: [
          { model: 'model-b', replies: 1, inputTokens: 40, outputTokens: 4 },
          { replies: 1, inputTokens: 0, outputTokens: 0 },
        ],
        metaFees: NO_FEES,
        aws: awsOf(2, 10),
        complete: true,
      },
      { day: '2026-01-07', replies: 0, inputTokens: 0, outputTokens: 0, models: [], metaFees: NO_FEES, aws: awsOf(0, 0), complete: true },
    ],
    total: {
      replies: 14,
      inputTokens: 1240,
      outputTokens: 124,
      models: [
        { model: 'model-a', replies: 12, inputTokens: 1200, outputTokens: 120 },
        { model: 'model-b', replies: 1, inputTokens: 40, outputTokens: 4 },
        { replies: 1, inputTokens: 0, outputTokens: 0 },
      ],
      metaFees: NO_FEES,
      aws: awsOf(14, 10_810),
      complete: true,
    },
  } satisfies UsageReport);
});

test("Meta's fees per UTC day: agent replies by their day, any other message by its pricing status's day, each message once, free ones counted but not billed", async () => {
  const [brazilian, american] = [newCustomer(), `1555${String(Date.now()).slice(-7)}`];
  const billed = (category: string) => ({ billable: true, category, type: 'regular', pricingModel: 'PMP' });
  const sent = async (message: Message, statuses: readonly { at: string; pricing: MetaPricing }[]) => {
    await sharded.messages.append({ ...message, providerMessageId: `wamid.${message.messageId}` });
    for (const [index, { at, pricing }] of statuses.entries()) {
      const status = (['sent', 'delivered', 'read'] as const)[index];
      expect(await sharded.messages.recordReceipt(sharded.messages.refFor(message), { status, at, providerMessageId: `wamid.${message.messageId}`, pricing })).toMatchObject({ pricingRecorded: index === 0 });
    }
  };
  // An agent reply, priced by its sent and delivered statuses: counted once, on its own day.
  await sent(agentReply(brazilian, '2026-02-10T23:59:00Z', { model: 'model-a', inputTokens: 10, outputTokens: 1 }), [
    { at: '2026-02-10T23:59:01Z', pricing: billed('service') },
    { at: '2026-02-11T00:00:02Z', pricing: billed('service') },
  ]);
  const operatorReply = (customerId: string, timestamp: string): Message => ({ ...agentReply(customerId, timestamp, undefined), role: 'operator' });
  // Other messages: on the day Meta priced them.
  await sent(operatorReply(american, '2026-02-10T23:59:30Z'), [{ at: '2026-02-11T00:00:01Z', pricing: billed('marketing') }]);
  await sent(operatorReply(brazilian, '2026-02-11T09:00:00Z'), [{ at: '2026-02-11T09:00:01Z', pricing: { billable: false, category: 'service', type: 'free_customer_service', pricingModel: 'PMP' } }]);
  await sent(operatorReply(american, '2026-02-11T10:00:00Z'), [{ at: '2026-02-11T10:00:01Z', pricing: billed('authentication_international') }]);

  const report = (await admin.call('GET', '/api/admin/reports/usage?from=2026-02-10&to=2026-02-11')).body as UsageReport;

  const rate = (market: string, category: MetaRateCategory) => META_MESSAGE_RATES.markets.find((candidate) => candidate.market === market)!.rates[category];
  expect(report.days.map((day) => [day.day, day.metaFees])).toEqual([
    ['2026-02-10', { messages: 1, billable: 1, usd: rate('brazil', 'service'), unpriced: 0 }],
    ['2026-02-11', { messages: 3, billable: 2, usd: rate('north-america', 'marketing'), unpriced: 1 }],
  ]);
  expect(report.total.metaFees).toEqual({ messages: 4, billable: 3, usd: rate('brazil', 'service') + rate('north-america', 'marketing'), unpriced: 1 });
});

test("an admin's corrected rates price Meta's fees in the report and in the conversation, with the day they were read; an operator's view keeps the packaged rate", async () => {
  const customerId = newCustomer();
  const reply = { ...agentReply(customerId, '2026-02-20T10:00:00Z', { model: 'model-a', inputTokens: 10, outputTokens: 1 }), providerMessageId: 'wamid.corrected-rate' };
  await sharded.messages.append(reply);
  await sharded.messages.recordReceipt(sharded.messages.refFor(reply), { status: 'sent', at: '2026-02-20T10:00:01Z', providerMessageId: 'wamid.corrected-rate', pricing: { billable: true, category: 'service', type: 'regular', pricingModel: 'PMP' } });
  const before = (await admin.call('GET', '/api/admin/config/meta_rates')).body.config.version;

  const saved = await admin.call('PUT', '/api/admin/config/meta_rates', { value: { checkedOn: '2026-02-01', rates: { brazil: { service: 0.0055 } } }, expectedVersion: before });

  expect(saved.status).toBe(200);
  const report = (await admin.call('GET', '/api/admin/reports/usage?from=2026-02-20&to=2026-02-20')).body as UsageReport;
  expect(report.metaRatesCheckedOn).toBe('2026-02-01');
  expect(report.total.metaFees).toEqual({ messages: 1, billable: 1, usd: 0.0055, unpriced: 0 });
  await admin.call('PUT', '/api/admin/config/meta_rates', { value: null, expectedVersion: before + 1 });
  const packaged = (await admin.call('GET', '/api/admin/reports/usage?from=2026-02-20&to=2026-02-20')).body as UsageReport;
  expect([packaged.metaRatesCheckedOn, packaged.total.metaFees.usd]).toEqual([META_MESSAGE_RATES.checkedOn, 0.0068]);
});

test('by default the last 7 UTC days, today included; a reply the agent just wrote counts with its model', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Quanto custa o exame?');
  await waitUntil(() => pipeline.fakeWhatsApp.sent().some((message) => message.recipient === customer), 15_000, 'the agent answer');

  const before = utcDay(new Date());
  const answer = await admin.call('GET', '/api/admin/reports/usage');
  const after = utcDay(new Date());

  expect(answer.status).toBe(200);
  const report = answer.body as UsageReport;
  expect([before, after]).toContain(report.to);
  expect(report.days.map((day) => day.day)).toHaveLength(7);
  expect(report.days[0].day).toBe(report.from);
  expect(report.days.at(-1)!.day).toBe(report.to);
  expect(report.total.models).toContainEqual({ model: MODEL, replies: 1, inputTokens: 1200, outputTokens: 80 });
});

test.each([
  ['from=2026-01-07&to=2026-01-05', 'from (2026-01-07) must not be after to (2026-01-05)'],
  ['from=2026-01-01&to=2026-02-01', 'A report covers at most 31 days; this one asks for 32'],
  ['from=2026-1-5&to=2026-01-07', 'from must be a calendar day as YYYY-MM-DD (UTC), got "2026-1-5"'],
  ['from=2026-02-29&to=2026-03-01', 'from must be a calendar day as YYYY-MM-DD (UTC), got "2026-02-29"'],
  ['to=', 'to must be a calendar day as YYYY-MM-DD (UTC), got ""'],
])('?%s is refused with 400 bad_query, saying what to change', async (query, message) => {
  const answer = await admin.call('GET', `/api/admin/reports/usage?${query}`);
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ error: 'bad_query', message });
});

test('31 days is the longest period', async () => {
  const answer = await admin.call('GET', '/api/admin/reports/usage?from=2026-01-01&to=2026-01-31');
  expect(answer.status).toBe(200);
  expect((answer.body as UsageReport).days).toHaveLength(31);
});

test('a day that has not begun (the calendar’s last, year 9999) is a 400 that says which days are allowed, never a 500', async () => {
  for (const report of ['usage', 'handoffs']) {
    for (const query of ['from=9999-12-25&to=9999-12-31', 'from=9999-12-31&to=9999-12-31', 'to=9999-12-31', 'from=3000-01-01&to=3000-01-02']) {
      const answer = await admin.call('GET', `/api/admin/reports/${report}?${query}`);
      expect([report, query, answer.status, answer.body.error]).toEqual([report, query, 400, 'bad_query']);
      expect(answer.body.message).toMatch(/^to \(\d{4}-\d{2}-\d{2}\) must not be after tomorrow/);
    }
  }
});

test('an operator who is not an admin gets 403 before anything is read', async () => {
  const answer = await operator.call('GET', '/api/admin/reports/usage');
  expect(answer.status).toBe(403);
  expect(answer.body.error).toBe('admin_only');
});

test("a handoff of the agent's turn counts today as waiting; claimed and answered, with its claim and first reply", async () => {
  const customer = await handedOffCustomer(pipeline);
  const today = utcDay(new Date());
  const report = async () => (await admin.call('GET', `/api/admin/reports/handoffs?from=${today}&to=${today}`)).body as HandoffReport;

  expect((await report()).days).toEqual([{ day: today, handoffs: 1, claimed: 0, waiting: 1, replied: 0, complete: true }]);

  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await operator.call('POST', `/api/conversations/${customer}/messages`, { text: 'Oi Ana, sou a Bia.' })).status).toBe(201);
  const [day] = (await report()).days;
  expect(day).toMatchObject({ handoffs: 1, claimed: 1, waiting: 0, replied: 1, complete: true });
  expect(day.medianSecondsToClaim).toBeGreaterThanOrEqual(0);
  expect(day.medianSecondsToFirstReply).toBeGreaterThanOrEqual(day.medianSecondsToClaim!);
});

test('the handoff report takes the usage report\'s period and is for admins only', async () => {
  expect((await admin.call('GET', '/api/admin/reports/handoffs?from=2026-01-07&to=2026-01-05')).body).toEqual({ error: 'bad_query', message: 'from (2026-01-07) must not be after to (2026-01-05)' });
  expect(((await admin.call('GET', '/api/admin/reports/handoffs')).body as HandoffReport).days).toHaveLength(7);
  expect((await operator.call('GET', '/api/admin/reports/handoffs')).status).toBe(403);
});
