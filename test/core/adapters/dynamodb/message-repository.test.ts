import { messageToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/message-codec';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { WRITE_SHARDS } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { InvalidCursorError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import type { Message } from '../../../../lambda/core/domain/message';
import { awsEstimateUsd } from '../../../../lib/contract/aws-cost-estimate';
import { fromEpochMicros, toEpochMicros } from '../../../../lambda/core/domain/timestamps';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { CallRecorder } from '../../../support/dynamo-call-recorder';
import { newMessageId, newCustomer } from '../../../support/ids';
import { newSession } from '../../../support/domain-records';
import { ManualClock } from '../../../support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let messages: DynamoMessageRepository;
let sessions: DynamoSessionRepository;

beforeAll(async () => {
  table = await createTestTable('messages');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
  messages = new DynamoMessageRepository(kit, clock);
  sessions = new DynamoSessionRepository(kit, clock);
});
afterAll(() => table.drop());

function message(customerId: string, sessionId: string, overrides: Partial<Message> = {}): Message {
  return {
    customerId,
    sessionId,
    messageId: newMessageId(),
    direction: 'inbound',
    role: 'user',
    text: 'quero um orçamento',
    timestamp: '2026-03-10T11:00:00.000001Z',
    messageType: 'text',
    ...overrides,
  };
}

/** `count` messages one second apart starting at `start`. */
function conversation(customerId: string, sessionId: string, count: number, start = '2026-03-10T10:00:00Z', overrides: Partial<Message> = {}): Message[] {
  return Array.from({ length: count }, (_, index) =>
    message(customerId, sessionId, { timestamp: fromEpochMicros(toEpochMicros(start) + index * 1_000_000), text: `m${index}`, ...overrides }),
  );
}

describe('append', () => {
  test('an inbound message is appended once however often it is redelivered', async () => {
    const customerId = newCustomer();
    const inbound = message(customerId, 's1');
    expect(await messages.append(inbound)).toBe(true);
    expect(await messages.append({ ...inbound, text: 'changed on redelivery' })).toBe(false);

    const { items } = await messages.history(customerId);
    expect(items).toEqual([inbound]);
  });

  test('an outbound message with the same id and timestamp rewrites the same item', async () => {
    const customerId = newCustomer();
    const outbound = message(customerId, 's1', { direction: 'outbound', role: 'operator', deliveryStatus: 'sent', providerMessageId: 'wamid.x' });
    expect(await messages.append(outbound)).toBe(true);
    expect(await messages.append({ ...outbound, text: 'edited' })).toBe(true);
    expect((await messages.history(customerId)).items).toEqual([{ ...outbound, text: 'edited' }]);
  });

  test('every attribute round-trips, unknown ones included', async () => {
    const customerId = newCustomer();
    const full = message(customerId, 's1', {
      direction: 'outbound',
      role: 'assistant',
      deliveryStatus: 'failed_permanent',
      failureReason: 'window closed',
      replyToMessageId: 'wamid.in',
      providerMessageId: 'wamid.out',
      sentAt: '2026-03-10T11:00:01.000000Z',
      supersededAt: '2026-03-10T11:00:02.000000Z',
      llm: { model: 'model-x', inputTokens: 10, outputTokens: 20, latencyMs: 300 },
      unknownAttributes: { rating: 5 },
    });
    await messages.append(full);
    expect(await messages.getOutbound(messages.refFor(full))).toEqual(full);
  });
});

describe('appendInboundIfSessionState (human inbox)', () => {
  test('appends only while the active session is in the expected state; a retry of an appended message succeeds', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId, { state: 'HUMAN_ACTIVE' });
    await sessions.put(session);
    const inbound = message(customerId, session.sessionId);

    expect(await messages.appendInboundIfSessionState(inbound, session)).toBe(true);
    expect(await messages.appendInboundIfSessionState(inbound, session)).toBe(true);
    expect((await messages.history(customerId)).items).toHaveLength(1);

    const wrongState = message(customerId, session.sessionId);
    expect(await messages.appendInboundIfSessionState(wrongState, { ...session, state: 'AWAITING_HUMAN' })).toBe(false);

    const other = newSession(customerId, { state: 'HUMAN_ACTIVE' });
    await sessions.put(other);
    const notActive = message(customerId, session.sessionId);
    expect(await messages.appendInboundIfSessionState(notActive, session)).toBe(false);

    expect((await messages.history(customerId)).items.map((item) => item.messageId)).toEqual([inbound.messageId]);
  });
});

describe('history', () => {
  test('pages newest first across sessions; the cursor belongs to its customer', async () => {
    const customerId = newCustomer();
    const all = [...conversation(customerId, 'a', 4, '2026-03-10T10:00:00Z'), ...conversation(customerId, 'b', 3, '2026-03-10T10:10:00Z')];
    for (const item of all) await messages.append(item);

    const seen: Message[] = [];
    let cursor: string | undefined;
    do {
      const page = await messages.history(customerId, { limit: 2, cursor });
      seen.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    expect(seen.map((item) => item.messageId)).toEqual([...all].reverse().map((item) => item.messageId));

    const first = await messages.history(customerId, { limit: 2 });
    await expect(messages.history(newCustomer(), { limit: 2, cursor: first.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  test('historyForSession returns the last messages of one session chronologically, paging past other sessions and hiding superseded replies', async () => {
    const customerId = newCustomer();
    const wanted = conversation(customerId, 'wanted', 5, '2026-03-10T09:00:00Z');
    // Many newer messages of another session sit between the wanted ones and the newest end.
    const noise = conversation(customerId, 'noise', 230, '2026-03-10T09:30:00Z');
    const superseded = message(customerId, 'wanted', { timestamp: '2026-03-10T09:00:10Z', direction: 'outbound', role: 'assistant', deliveryStatus: 'superseded' });
    // Bulk fixtures go through the kit with the repository's own codec.
    await kit.batchWrite([...wanted, ...noise, superseded].map((item) => ({ put: messageToItem(item) })));

    calls.reset();
    const recent = await messages.historyForSession(customerId, 'wanted', 3);

    expect(recent.map((item) => item.text)).toEqual(['m2', 'm3', 'm4']);
    expect(calls.operations().every((operation) => operation === 'queryPage')).toBe(true);
    expect(calls.calls.length).toBeGreaterThan(1);
    expect((await messages.historyForSession(customerId, 'wanted', 50)).map((item) => item.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(await messages.historyForSession(customerId, 'absent', 5)).toEqual([]);
  });
});

describe('agentUsageByDay', () => {
  const bound = { pagesPerPartition: 10, pageSize: 50 };
  const metaFees = { messages: 0, billable: 0, usd: 0, unpriced: 0 };
  /** The AWS estimate of `replies` replies of 900 ms of model wait each. */
  const aws = (replies: number) => ({ usd: expect.closeTo(awsEstimateUsd(replies, replies * 900), 12), modelWaitSeconds: expect.closeTo(replies * 0.9, 9) });
  /** Queries, one page each: each day also reads every shard of its fee index (messages other than agent replies Meta priced). */
  const queries = (count: number) => Array.from({ length: count }, () => 'queryPage');
  const usage = (model: string, inputTokens: number, outputTokens: number) => ({ direction: 'outbound', role: 'assistant', deliveryStatus: 'sent', llm: { model, inputTokens, outputTokens, latencyMs: 900 } }) as const;

  test("adds up the agent's replies of each UTC day bucket, per model, without a scan", async () => {
    const customerId = newCustomer();
    clock.set('2026-04-02T08:00:00Z');
    const yesterday = conversation(customerId, 's', 3, '2026-04-01T20:00:00Z', usage('model-a', 100, 10));
    const today = [...conversation(customerId, 's', 2, '2026-04-02T07:00:00Z', usage('model-a', 200, 20)), ...conversation(customerId, 's', 1, '2026-04-02T07:10:00Z', usage('model-b', 50, 5))];
    const customer = conversation(customerId, 's', 3, '2026-04-02T07:30:00Z');
    for (const item of [...yesterday, ...today, ...customer]) await messages.append(item);
    // A reply of a conversation past its retention is gone, even while DynamoDB's TTL has not deleted it yet.
    const expired = message(customerId, 's', { ...usage('model-a', 999, 999), timestamp: '2026-04-02T06:00:00Z' });
    await kit.put({ item: { ...messageToItem(expired), ttl: Math.floor(clock.now().getTime() / 1000) - 1 } });

    calls.reset();
    const [first, second] = await messages.agentUsageByDay(['2026-04-01', '2026-04-02'], bound);

    expect(first).toEqual({ day: '2026-04-01', replies: 3, inputTokens: 300, outputTokens: 30, models: [{ model: 'model-a', replies: 3, inputTokens: 300, outputTokens: 30 }], metaFees, aws: aws(3), complete: true });
    expect(second).toEqual({
      day: '2026-04-02',
      replies: 3,
      inputTokens: 450,
      outputTokens: 45,
      models: [
        { model: 'model-a', replies: 2, inputTokens: 400, outputTokens: 40 },
        { model: 'model-b', replies: 1, inputTokens: 50, outputTokens: 5 },
      ],
      metaFees,
      aws: aws(3),
      complete: true,
    });
    // One Query per day of the reply index (the seed layout has one partition a day) and one per fee shard, each read to its end in one page.
    expect(calls.operations()).toEqual(queries(2 * (1 + WRITE_SHARDS)));
  });

  test('a day with more replies than the bound reads counts what was read and says it is incomplete', async () => {
    const customerId = newCustomer();
    for (const item of conversation(customerId, 's', 5, '2026-04-10T09:00:00Z', usage('model-a', 10, 1))) await messages.append(item);

    calls.reset();
    const [cut] = await messages.agentUsageByDay(['2026-04-10'], { pagesPerPartition: 2, pageSize: 2 });

    expect(cut).toMatchObject({ day: '2026-04-10', replies: 4, inputTokens: 40, complete: false });
    expect(calls.operations()).toEqual(queries(2 + WRITE_SHARDS));
    expect(await messages.agentUsageByDay(['2026-04-10', '2026-04-11'], { pagesPerPartition: 3, pageSize: 2 })).toEqual([
      { day: '2026-04-10', replies: 5, inputTokens: 50, outputTokens: 5, models: [{ model: 'model-a', replies: 5, inputTokens: 50, outputTokens: 5 }], metaFees, aws: aws(5), complete: true },
      { day: '2026-04-11', replies: 0, inputTokens: 0, outputTokens: 0, models: [], metaFees, aws: aws(0), complete: true },
    ]);
  });
});
