import { DynamoCustomerBudgetRepository } from '../../../../lambda/core/adapters/dynamodb/customer-budget-repository';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { customerBudgetKey, TTL } from '../../../../lambda/core/adapters/dynamodb/keys';
import { budgetWindows, limitWindow, reachedLimit, type BudgetLimit, type CustomerBudgetLimits } from '../../../../lambda/core/domain/customer-budget';
import { InvalidKeySegmentError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';

let table: TestTable;
let kit: DynamoKit;
let budgets: DynamoCustomerBudgetRepository;
let customers = 0;
const newCustomer = () => `55119${String(++customers).padStart(8, '0')}`;
const LIMITS: CustomerBudgetLimits = { turnsPerMinute: 3, turnsPerHour: 10, agentTokensPerDay: 1_000 };
const AT = new Date('2026-11-30T10:15:30.000Z');

beforeAll(async () => {
  table = await createTestTable('budget');
  kit = new DynamoKit({ tableName: table.name });
  budgets = new DynamoCustomerBudgetRepository(kit);
});
afterAll(() => table.drop());

describe('customer budget counts', () => {
  test('concurrent turns of one customer cannot both slip under the limit: exactly the limit is admitted', async () => {
    const customer = newCustomer();
    const verdicts = await Promise.all(Array.from({ length: 12 }, (_, turn) => budgets.admitTurn(customer, `wamid.${turn}`, AT, LIMITS)));
    expect(verdicts.filter((verdict) => verdict.admitted)).toHaveLength(LIMITS.turnsPerMinute);
    expect(verdicts.find((verdict) => !verdict.admitted)).toEqual({ admitted: false, limit: 'turns_per_minute', toldInWindow: false });
  });

  test('one item per customer and UTC day, expiring a day after its day, counting only admitted turns', async () => {
    const customer = newCustomer();
    for (let turn = 0; turn < 5; turn++) await budgets.admitTurn(customer, `wamid.${turn}`, AT, LIMITS);
    const item = await kit.get({ key: customerBudgetKey(customer, AT), consistentRead: true });
    expect(item).toMatchObject({ PK: `BUDGET#${customer}`, SK: 'DAY#2026-11-30', entity_type: 'customer_budget', turns_m1015: 3, turns_h10: 3 });
    expect(item?.[TTL]).toBe(Date.parse('2026-12-02T00:00:00Z') / 1000);
  });

  test('a retried turn is admitted again and counted once, even at its window\'s limit', async () => {
    const customer = newCustomer();
    expect(await budgets.admitTurn(customer, 'wamid.1', AT, LIMITS)).toEqual({ admitted: true });
    expect(await budgets.admitTurn(customer, 'wamid.1', AT, LIMITS)).toEqual({ admitted: true });
    expect(await kit.get({ key: customerBudgetKey(customer, AT), consistentRead: true })).toMatchObject({ turns_m1015: 1, turns_h10: 1 });
    await budgets.admitTurn(customer, 'wamid.2', AT, LIMITS);
    await budgets.admitTurn(customer, 'wamid.3', AT, LIMITS);
    expect(await budgets.admitTurn(customer, 'wamid.3', AT, LIMITS)).toEqual({ admitted: true });
    expect(await budgets.admitTurn(customer, 'wamid.4', AT, LIMITS)).toEqual({ admitted: false, limit: 'turns_per_minute', toldInWindow: false });
    expect(await kit.get({ key: customerBudgetKey(customer, AT), consistentRead: true })).toMatchObject({ turns_m1015: 3, turns_h10: 3 });
  });

  test('tokens are added atomically and refuse the next turn once the day reaches the budget', async () => {
    const customer = newCustomer();
    await Promise.all([budgets.addTokens(customer, AT, { inputTokens: 400, outputTokens: 50 }), budgets.addTokens(customer, AT, { inputTokens: 500, outputTokens: 50 })]);
    const item = await kit.get({ key: customerBudgetKey(customer, AT), consistentRead: true });
    expect(item).toMatchObject({ agent_tokens: 1_000, input_tokens: 900, output_tokens: 100 });
    expect(await budgets.admitTurn(customer, 'wamid.1', AT, LIMITS)).toEqual({ admitted: false, limit: 'agent_tokens_per_day', toldInWindow: false });
    expect(await budgets.admitTurn(customer, 'wamid.1', new Date('2026-12-01T00:00:00.000Z'), LIMITS)).toEqual({ admitted: true });
  });

  test('a refusal says whether the customer was told in the window of the limit reached', async () => {
    const customer = newCustomer();
    const admit = (turnId: string, at: Date) => budgets.admitTurn(customer, turnId, at, LIMITS);
    for (let turn = 0; turn < LIMITS.turnsPerMinute; turn++) await admit(`wamid.${turn}`, AT);

    expect(await admit('wamid.a', AT)).toEqual({ admitted: false, limit: 'turns_per_minute', toldInWindow: false });
    await budgets.markTold(customer, AT, 'turns_per_minute');
    expect(await admit('wamid.b', new Date('2026-11-30T10:15:59.999Z'))).toEqual({ admitted: false, limit: 'turns_per_minute', toldInWindow: true });

    // The next minute is a window of its own; the hour's count holds the admitted turns only.
    const nextMinute = new Date('2026-11-30T10:16:00.000Z');
    for (let turn = 0; turn < LIMITS.turnsPerMinute; turn++) expect(await admit(`wamid.next${turn}`, nextMinute)).toEqual({ admitted: true });
    expect(await admit('wamid.c', nextMinute)).toEqual({ admitted: false, limit: 'turns_per_minute', toldInWindow: false });
    expect(await kit.get({ key: customerBudgetKey(customer, AT), consistentRead: true })).toMatchObject({ turns_h10: 2 * LIMITS.turnsPerMinute, last_told_window: 'turns_per_minute@1015' });
  });

  test('a customer id that could forge another key is refused before any write', async () => {
    await expect(budgets.admitTurn('5511#DAY', 'wamid.1', AT, LIMITS)).rejects.toThrow(InvalidKeySegmentError);
    await expect(budgets.addTokens('', AT, { inputTokens: 1, outputTokens: 1 })).rejects.toThrow(InvalidKeySegmentError);
  });
});

describe('budget windows', () => {
  test('an instant falls in its UTC day, hour and minute', () => {
    expect(budgetWindows(new Date('2026-11-30T23:59:59.999Z'))).toEqual({ day: '2026-11-30', hour: '23', minute: '2359' });
  });

  test('a limit counts in its own window: the minute, the hour or the day', () => {
    const windows = budgetWindows(new Date('2026-11-30T10:15:30.000Z'));
    const limits: BudgetLimit[] = ['turns_per_minute', 'turns_per_hour', 'agent_tokens_per_day'];
    expect(limits.map((limit) => limitWindow(limit, windows))).toEqual([
      'turns_per_minute@1015',
      'turns_per_hour@10',
      'agent_tokens_per_day@2026-11-30',
    ]);
  });

  test('the limit named is the first one reached, tokens first', () => {
    expect(reachedLimit({ turnsThisMinute: 3, turnsThisHour: 10, agentTokensToday: 1_000 }, LIMITS)).toBe('agent_tokens_per_day');
    expect(reachedLimit({ turnsThisMinute: 3, turnsThisHour: 10, agentTokensToday: 0 }, LIMITS)).toBe('turns_per_hour');
    expect(reachedLimit({ turnsThisMinute: 3, turnsThisHour: 4, agentTokensToday: 0 }, LIMITS)).toBe('turns_per_minute');
    expect(reachedLimit({ turnsThisMinute: 2, turnsThisHour: 9, agentTokensToday: 999 }, LIMITS)).toBeUndefined();
  });
});
