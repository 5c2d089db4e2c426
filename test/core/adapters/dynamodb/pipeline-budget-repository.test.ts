import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { pipelineBudgetKey, pipelineBudgetKeys, TTL, WRITE_SHARDS, writeShardOf } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoPipelineBudgetRepository } from '../../../../lambda/core/adapters/dynamodb/pipeline-budget-repository';
import { DynamoCustomerBudgetRepository } from '../../../../lambda/core/adapters/dynamodb/customer-budget-repository';
import { InvalidKeySegmentError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { CallRecorder } from '../../../support/dynamo-call-recorder';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();
let counts: DynamoPipelineBudgetRepository;
const AT = new Date('2026-11-30T10:15:30.000Z');
/** Customers that land on every write shard. */
const customers = Array.from({ length: 64 }, (_, index) => `55119${String(20_000_000 + index)}`);

beforeAll(async () => {
  table = await createTestTable('pipeline-budget');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
  counts = new DynamoPipelineBudgetRepository(kit);
});
afterAll(() => table.drop());

test('spreads the day over one partition per write shard, each customer on its own shard', async () => {
  expect(new Set(customers.map(writeShardOf)).size).toBe(WRITE_SHARDS);
  await Promise.all(customers.map((customer) => counts.addTokens(customer, AT, { inputTokens: 90, outputTokens: 10 })));

  const keys = pipelineBudgetKeys(AT);
  // Every shard, and the evaluation runs' line.
  expect(new Set(keys.map((key) => key.PK)).size).toBe(WRITE_SHARDS + 1);
  expect(keys.every((key) => key.PK.startsWith('PIPELINE_BUDGET#') && key.SK === 'DAY#2026-11-30')).toBe(true);
  const shard = await kit.get({ key: pipelineBudgetKey(customers[0]!, AT), consistentRead: true });
  const onThatShard = customers.filter((customer) => writeShardOf(customer) === writeShardOf(customers[0]!)).length;
  expect(shard).toMatchObject({ entity_type: 'pipeline_budget', agent_tokens: 100 * onThatShard, input_tokens: 90 * onThatShard, output_tokens: 10 * onThatShard });
  expect(shard?.[TTL]).toBe(Date.parse('2026-12-02T00:00:00Z') / 1000);
});

test('adds evaluation runs on their own line, which the day’s total counts and the report reads per day', async () => {
  const day = new Date('2026-11-29T12:00:00Z');
  await counts.addEvaluationTokens(day, { inputTokens: 70, outputTokens: 5 });
  await counts.addEvaluationTokens(day, { inputTokens: 20, outputTokens: 5 });
  expect(await counts.tokensOfDay(day)).toBe(100);
  expect(await counts.evaluationTokensOfDays(['2026-11-28', '2026-11-29'])).toEqual([0, 100]);
});

test('reads the day’s total with one batched read of every shard; another day counts apart', async () => {
  calls.reset();
  expect(await counts.tokensOfDay(AT)).toBe(100 * customers.length);
  expect(calls.operations()).toEqual(['batchGet']);

  expect(await counts.tokensOfDay(new Date('2026-12-01T00:00:00.000Z'))).toBe(0);
  await counts.addTokens(customers[1]!, new Date('2026-12-01T08:00:00.000Z'), { inputTokens: 5, outputTokens: 5 });
  expect(await counts.tokensOfDay(new Date('2026-12-01T23:59:59.999Z'))).toBe(10);
  expect(await counts.tokensOfDay(AT)).toBe(100 * customers.length);
});

test('is kept apart from the customers’ own budget items', async () => {
  const customer = customers[2]!;
  const before = await counts.tokensOfDay(AT);
  await new DynamoCustomerBudgetRepository(kit).addTokens(customer, AT, { inputTokens: 1_000, outputTokens: 0 });
  expect(await counts.tokensOfDay(AT)).toBe(before);
});

test('refuses a customer id that could forge another key, before any write', async () => {
  await expect(counts.addTokens('', AT, { inputTokens: 1, outputTokens: 1 })).rejects.toThrow(InvalidKeySegmentError);
});
