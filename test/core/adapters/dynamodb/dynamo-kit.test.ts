import { createHash } from 'node:crypto';
import type { BatchGetCommandInput, BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  createDocumentClient,
  type DynamoDocuments,
  DynamoKit,
  isTransactionConflict,
  type Item,
  sharedDocumentClient,
} from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoUsageTally } from '../../../../lambda/core/adapters/dynamodb/dynamo-usage-tally';
import { ConditionFailedError } from '../../../../lambda/core/ports/repositories';
import { InvalidCursorError, UnprocessedItemsError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { deploymentCursorKey } from '../../../../lambda/core/adapters/dynamodb/cursor-signing-key';
import { cursorSigningKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { PageCursors } from '../../../../lambda/core/adapters/dynamodb/page-cursor';
import { freePort } from '../../../../local/servers/local-servers';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { CallRecorder } from '../../../support/dynamo-call-recorder';

let table: TestTable;
let kit: DynamoKit;
const calls = new CallRecorder();

beforeAll(async () => {
  table = await createTestTable('kit');
  kit = new DynamoKit({ tableName: table.name, observer: calls });
});
afterAll(() => table.drop());
beforeEach(() => calls.reset());

const key = (pk: string, sk: string) => ({ PK: pk, SK: sk });

/** A client that lets DynamoDB Local process only what `filter` keeps and reports the rest unprocessed. */
function partiallyProcessingClient(keepPerCall: (call: number, requests: Item[]) => Item[]): DynamoDocuments {
  const real = sharedDocumentClient();
  let call = 0;
  const partially: DynamoDocuments['call'] = async (operation, input) => {
    if (operation === 'BatchWriteItem') {
      const requests = (input as BatchWriteCommandInput).RequestItems![table.name] as Item[];
      const kept = keepPerCall(call++, requests);
      if (kept.length > 0) await real.call('BatchWriteItem', { RequestItems: { [table.name]: kept as never } });
      const rest = requests.filter((request) => !kept.includes(request));
      return { UnprocessedItems: rest.length > 0 ? { [table.name]: rest } : {}, $metadata: { attempts: 1 } } as never;
    }
    if (operation === 'BatchGetItem') {
      const keys = (input as BatchGetCommandInput).RequestItems![table.name].Keys as Item[];
      const kept = keepPerCall(call++, keys);
      const found = kept.length > 0 ? await real.call('BatchGetItem', { RequestItems: { [table.name]: { Keys: kept } } }) : undefined;
      const rest = keys.filter((candidate) => !kept.includes(candidate));
      return { Responses: { [table.name]: found?.Responses?.[table.name] ?? [] }, UnprocessedKeys: rest.length > 0 ? { [table.name]: { Keys: rest } } : {}, $metadata: { attempts: 1 } } as never;
    }
    return real.call(operation, input);
  };
  return { call: partially };
}

describe('single-item operations', () => {
  test('put, get, update and delete; values are returned only when asked for', async () => {
    await kit.put({ item: { ...key('ITEM#1', 'A'), count: 1, note: undefined } });
    expect(await kit.get({ key: key('ITEM#1', 'A'), consistentRead: true })).toEqual({ ...key('ITEM#1', 'A'), count: 1 });

    expect(await kit.update({ key: key('ITEM#1', 'A'), update: 'SET #c = #c + :one', names: { '#c': 'count' }, values: { ':one': 1 } })).toBeUndefined();
    expect(await kit.update({ key: key('ITEM#1', 'A'), update: 'SET #c = #c + :one', names: { '#c': 'count' }, values: { ':one': 1 }, returnValues: 'ALL_NEW' })).toMatchObject({ count: 3 });

    expect(await kit.delete({ key: key('ITEM#1', 'A') })).toBeUndefined();
    await kit.put({ item: { ...key('ITEM#1', 'B'), count: 7 } });
    expect(await kit.delete({ key: key('ITEM#1', 'B'), returnDeleted: true })).toMatchObject({ count: 7 });
    expect(await kit.get({ key: key('ITEM#1', 'B'), consistentRead: true })).toBeUndefined();
  });

  test('a map keyed by what people or the model chose stores any key, `constructor` included (a quick reply id, a qualification field)', async () => {
    const chosen = { constructor: { title: 'Boas-vindas' }, tostring: 'x', valueOf: 'y' };
    await kit.put({ item: { ...key('ITEM#2', 'A'), chosen } });
    expect((await kit.get({ key: key('ITEM#2', 'A'), consistentRead: true }))?.chosen).toEqual(chosen);
    await kit.update({ key: key('ITEM#2', 'A'), update: 'SET #m = :m', names: { '#m': 'more' }, values: { ':m': { constructor: 'z' } } });
    expect((await kit.get({ key: key('ITEM#2', 'A'), consistentRead: true }))?.more).toEqual({ constructor: 'z' });
  });

  test('a failed condition is a ConditionFailedError and writes nothing', async () => {
    await kit.put({ item: { ...key('ITEM#2', 'A'), v: 1 } });
    await expect(kit.put({ item: { ...key('ITEM#2', 'A'), v: 2 }, condition: 'attribute_not_exists(PK)' })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(kit.update({ key: key('ITEM#2', 'A'), update: 'SET v = :v', condition: 'v = :old', values: { ':v': 3, ':old': 0 } })).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(kit.delete({ key: key('ITEM#2', 'A'), condition: 'v = :old', values: { ':old': 0 } })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await kit.get({ key: key('ITEM#2', 'A'), consistentRead: true })).toMatchObject({ v: 1 });
    expect(calls.calls.filter((call) => call.outcome === 'condition_failed')).toHaveLength(3);
  });
});

describe('transact', () => {
  test('all actions or none; the failed condition is reported by its index', async () => {
    await kit.put({ item: { ...key('TX#1', 'EXISTING'), v: 1 } });

    const error = await kit
      .transact([
        { put: { item: { ...key('TX#1', 'NEW'), v: 1 } } },
        { put: { item: { ...key('TX#1', 'EXISTING'), v: 2 }, condition: 'attribute_not_exists(PK)' } },
        { update: { key: key('TX#1', 'COUNTER'), update: 'SET n = :n', values: { ':n': 1 } } },
        { conditionCheck: { key: key('TX#1', 'EXISTING'.toLowerCase()), condition: 'attribute_not_exists(PK)' } },
      ])
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConditionFailedError);
    expect((error as ConditionFailedError).reasons).toEqual([{ index: 1, code: 'ConditionalCheckFailed', message: expect.any(String) }]);
    expect((error as ConditionFailedError).failedAt(1)).toBe(true);
    expect((error as ConditionFailedError).failedAt(0)).toBe(false);
    expect(await kit.get({ key: key('TX#1', 'NEW'), consistentRead: true })).toBeUndefined();
    expect(await kit.get({ key: key('TX#1', 'COUNTER'), consistentRead: true })).toBeUndefined();

    await kit.transact([
      { put: { item: { ...key('TX#1', 'NEW'), v: 1 } } },
      { delete: { key: key('TX#1', 'EXISTING'), condition: 'v = :v', values: { ':v': 1 } } },
    ]);
    expect(await kit.get({ key: key('TX#1', 'NEW'), consistentRead: true })).toBeDefined();
    expect(await kit.get({ key: key('TX#1', 'EXISTING'), consistentRead: true })).toBeUndefined();
  });
});

describe('queryPage', () => {
  test('pages through more than 1 MB of items and through many small pages', async () => {
    const big = 'x'.repeat(90_000);
    const items = Array.from({ length: 14 }, (_, index) => ({ ...key('BIG#1', `ITEM#${String(index).padStart(3, '0')}`), payload: big }));
    await kit.batchWrite(items.map((item) => ({ put: item })));

    const pageSizes: number[] = [];
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await kit.queryPage({ keyCondition: 'PK = :pk', values: { ':pk': 'BIG#1' }, cursor });
      pageSizes.push(page.items.length);
      seen.push(...page.items.map((item) => item.SK as string));
      cursor = page.cursor;
    } while (cursor);

    // DynamoDB stops a page at 1 MB even without a Limit.
    expect(pageSizes.length).toBeGreaterThan(1);
    expect(pageSizes[0]).toBeLessThan(items.length);
    expect(seen).toEqual(items.map((item) => item.SK));

    const small: string[] = [];
    let pages = 0;
    cursor = undefined;
    do {
      const page = await kit.queryPage({ keyCondition: 'PK = :pk', values: { ':pk': 'BIG#1' }, projection: 'SK', limit: 4, newestFirst: true, cursor });
      small.push(...page.items.map((item) => item.SK as string));
      cursor = page.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(small).toEqual(items.map((item) => item.SK).reverse());
  });

  test('rejects altered, truncated, garbage and foreign cursors', async () => {
    await kit.batchWrite(Array.from({ length: 5 }, (_, index) => ({ put: key('CURSOR#1', `S#${index}`) })));
    const request = { keyCondition: 'PK = :pk', values: { ':pk': 'CURSOR#1' }, limit: 2 };
    const first = await kit.queryPage(request);
    const cursor = first.cursor!;
    const [payload, mac] = cursor.split('.');

    const forgedKey = Buffer.from(JSON.stringify(key('CURSOR#1', 'S#3'))).toString('base64url');
    const attempts = [`${forgedKey}.${mac}`, `${payload}.${mac.slice(0, -1)}`, payload, 'garbage', `${payload}.${mac}.extra`];
    for (const bad of attempts) await expect(kit.queryPage({ ...request, cursor: bad })).rejects.toBeInstanceOf(InvalidCursorError);

    // Same query shape on another partition, another table, another secret: all foreign.
    await expect(kit.queryPage({ ...request, values: { ':pk': 'CURSOR#2' }, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(new DynamoKit({ tableName: `${table.name}-other` }).queryPage({ ...request, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(new DynamoKit({ tableName: table.name, cursorSecret: 'configured-secret' }).queryPage({ ...request, cursor })).rejects.toBeInstanceOf(InvalidCursorError);

    // A genuine cursor works from another kit of the same table in this process (the process's key).
    const second = await new DynamoKit({ tableName: table.name }).queryPage({ ...request, cursor });
    expect(second.items.map((item) => item.SK)).toEqual(['S#2', 'S#3']);
    expect(calls.calls.filter((call) => call.operation === 'queryPage')).toHaveLength(1);
  });
});

describe('cursor keys', () => {
  const request = { keyCondition: 'PK = :pk', values: { ':pk': 'KEYS#1' }, limit: 2 };
  beforeAll(() => kit.batchWrite(Array.from({ length: 5 }, (_, index) => ({ put: key('KEYS#1', `S#${index}`) }))));

  /** A kit with the deployment's key, as an operator function instance has it. */
  const instance = (observer?: CallRecorder) => new DynamoKit({ tableName: table.name, cursorSecret: deploymentCursorKey, ...(observer ? { observer } : {}) });

  test('the deployment’s key is created once, whichever instance comes first, and read once per instance', async () => {
    await kit.delete({ key: cursorSigningKey() });
    const [one, two] = [instance(), instance()];
    const [fromOne, fromTwo] = await Promise.all([one.queryPage(request), two.queryPage(request)]);
    // Another instance takes the cursors of the first: one key.
    expect((await two.queryPage({ ...request, cursor: fromOne.cursor })).items).toHaveLength(2);
    expect((await one.queryPage({ ...request, cursor: fromTwo.cursor })).items).toHaveLength(2);
    const stored = await kit.get({ key: cursorSigningKey(), consistentRead: true });
    expect(stored).toMatchObject({ entity_type: 'cursor_signing_key', key: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const observed = new CallRecorder();
    const three = instance(observed);
    await three.queryPage(request);
    await three.queryPage({ ...request, cursor: fromOne.cursor });
    expect(observed.calls.map((call) => call.operation)).toEqual(['get', 'queryPage', 'queryPage']);
  });

  test('a cursor signed with the key the table name used to give, or with another deployment’s key, is refused', async () => {
    const issued = await instance().queryPage(request);
    const scope = new PageCursors(table.name, Buffer.alloc(32)).scope(request);
    const lastKey = JSON.parse(Buffer.from(issued.cursor!.split('.')[0], 'base64url').toString('utf8')) as Item;
    const tableNameKey = createHash('sha256').update(`agent-table-cursor\0${table.name}`).digest();
    const oldDerivation = new PageCursors(table.name, tableNameKey).encode(lastKey, scope);
    for (const kitOf of [instance, () => new DynamoKit({ tableName: table.name })]) {
      await expect(kitOf().queryPage({ ...request, cursor: oldDerivation })).rejects.toBeInstanceOf(InvalidCursorError);
    }
    // A new key (another deployment's, or the item deleted to rotate it): the old cursors are refused.
    await kit.delete({ key: cursorSigningKey() });
    await expect(instance().queryPage({ ...request, cursor: issued.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    // Nor does the process's own key take the deployment's cursors, or the other way round.
    const fresh = await instance().queryPage(request);
    await expect(new DynamoKit({ tableName: table.name }).queryPage({ ...request, cursor: fresh.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(instance().queryPage({ ...request, cursor: (await kit.queryPage(request)).cursor })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  test('a failed read of the key fails the query, and the next query reads it again', async () => {
    let attempts = 0;
    const flaky = new DynamoKit({
      tableName: table.name,
      cursorSecret: async (self) => {
        attempts++;
        if (attempts === 1) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
        return deploymentCursorKey(self);
      },
    });
    await expect(flaky.queryPage(request)).rejects.toThrow('Rate exceeded');
    expect((await flaky.queryPage(request)).items).toHaveLength(2);
    await flaky.queryPage(request);
    expect(attempts).toBe(2);
  });
});

describe('batch operations', () => {
  test('batchWrite chunks more than 25 requests and batchGet more than 100 keys', async () => {
    const items = Array.from({ length: 130 }, (_, index) => ({ ...key('BATCH#1', `S#${String(index).padStart(3, '0')}`), n: index }));
    await kit.batchWrite(items.map((item) => ({ put: item })));
    expect(calls.calls.filter((call) => call.operation === 'batchWrite')).toHaveLength(Math.ceil(130 / 25));

    calls.reset();
    const keys = [...items.map((item) => key(item.PK, item.SK)), key('BATCH#1', 'MISSING'), key('BATCH#1', 'S#000')];
    const found = await kit.batchGet(keys, { consistentRead: true });
    expect(found.map((item) => item.n).sort((a, b) => Number(a) - Number(b))).toEqual(items.map((item) => item.n));
    expect(calls.calls.filter((call) => call.operation === 'batchGet')).toHaveLength(2);

    await kit.batchWrite(items.slice(0, 60).map((item) => ({ delete: key(item.PK, item.SK) })));
    expect(await kit.batchGet(items.slice(0, 60).map((item) => key(item.PK, item.SK)), { consistentRead: true })).toEqual([]);
  });

  test('unprocessed items and keys are retried until done', async () => {
    const observer = new CallRecorder();
    // Each call processes only the first two requests it is given.
    const halfway = new DynamoKit({ tableName: table.name, client: partiallyProcessingClient((_, requests) => requests.slice(0, 2)), observer, batchRetry: { baseDelayMs: 1, maxAttempts: 10 } });
    const items = Array.from({ length: 7 }, (_, index) => ({ ...key('RETRY#1', `S#${index}`), n: index }));

    await halfway.batchWrite(items.map((item) => ({ put: item })));
    expect(observer.calls.filter((call) => call.operation === 'batchWrite')).toHaveLength(4);
    const found = await halfway.batchGet(items.map((item) => key(item.PK, item.SK)), { consistentRead: true });
    expect(found).toHaveLength(7);
    expect(observer.calls.filter((call) => call.operation === 'batchGet')).toHaveLength(4);
  });

  test('after the bounded retries a typed error lists what remained', async () => {
    const stuck = new DynamoKit({ tableName: table.name, client: partiallyProcessingClient((call, requests) => (call === 0 ? requests.slice(0, 1) : [])), batchRetry: { baseDelayMs: 1, maxAttempts: 3 } });
    const items = Array.from({ length: 3 }, (_, index) => ({ ...key('STUCK#1', `S#${index}`) }));

    const error = await stuck.batchWrite(items.map((item) => ({ put: item }))).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UnprocessedItemsError);
    expect((error as UnprocessedItemsError).attempts).toBe(3);
    expect((error as UnprocessedItemsError).remaining).toEqual(items.slice(1).map((item) => ({ PutRequest: { Item: item } })));
    await expect(stuck.batchGet(items.map((item) => key(item.PK, item.SK)))).rejects.toBeInstanceOf(UnprocessedItemsError);
  });
});

describe('failures are never success', () => {
  test('a missing table surfaces DynamoDB’s ResourceNotFoundException from every operation', async () => {
    const missing = new DynamoKit({ tableName: `missing-${Date.now()}` });
    const operations = [
      () => missing.get({ key: key('A', 'B') }),
      () => missing.put({ item: key('A', 'B') }),
      () => missing.update({ key: key('A', 'B'), update: 'SET v = :v', values: { ':v': 1 } }),
      () => missing.delete({ key: key('A', 'B') }),
      () => missing.queryPage({ keyCondition: 'PK = :pk', values: { ':pk': 'A' } }),
      () => missing.batchWrite([{ put: key('A', 'B') }]),
      () => missing.batchGet([key('A', 'B')]),
    ];
    for (const operation of operations) await expect(operation()).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(missing.transact([{ put: { item: key('A', 'B') } }])).rejects.not.toBeInstanceOf(ConditionFailedError);
  });

  test('an unreachable endpoint fails after the SDK retries, and the observer records the error', async () => {
    const port = await freePort();
    const observer = new CallRecorder();
    const unreachable = new DynamoKit({ tableName: table.name, client: createDocumentClient({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 2 }), observer });

    await expect(unreachable.put({ item: key('A', 'B') })).rejects.toThrow();
    await expect(unreachable.transact([{ put: { item: key('A', 'B') } }])).rejects.not.toBeInstanceOf(ConditionFailedError);

    expect(observer.calls.map((call) => [call.operation, call.outcome, call.attempts])).toEqual([
      ['put', 'error', 2],
      ['transact', 'error', 2],
    ]);
  });

  test('throttling and transaction conflicts are rethrown unchanged', async () => {
    const throttling = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { attempts: 3 } });
    const conflict = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'conflict' }],
      $metadata: {},
    });
    let next: Error = throttling;
    const failing = new DynamoKit({ tableName: table.name, client: { call: async () => Promise.reject(next) } });

    await expect(failing.put({ item: key('A', 'B') })).rejects.toBe(throttling);
    next = conflict;
    const error = await failing.transact([{ put: { item: key('A', 'B') } }]).catch((caught: unknown) => caught);
    expect(error).toBe(conflict);
    expect(isTransactionConflict(error)).toBe(true);
  });
});

describe('observer', () => {
  test('sees each remote call with the capacity DynamoDB reports', async () => {
    await kit.put({ item: { ...key('OBS#1', 'A'), v: 1 } });
    await kit.get({ key: key('OBS#1', 'A'), consistentRead: true });
    await kit.transact([{ put: { item: { ...key('OBS#1', 'B') } } }, { put: { item: { ...key('OBS#1', 'C') } } }]);

    expect(calls.operations()).toEqual(['put', 'get', 'transact']);
    const [put, get, transact] = calls.calls;
    expect(put).toMatchObject({ outcome: 'ok', tableName: table.name, attempts: 1 });
    expect(put.consumedCapacity!.total).toBeGreaterThan(0);
    expect(get.consumedCapacity!.total).toBeGreaterThan(0);
    expect(transact.consumedCapacity!.total).toBeGreaterThan(put.consumedCapacity!.total);
  });

  test('the usage tally sums calls, failures and capacity per operation', async () => {
    const tally = new DynamoUsageTally();
    const tallied = new DynamoKit({ tableName: table.name, observer: tally });
    await tallied.put({ item: key('TALLY#1', 'A') });
    await tallied.put({ item: key('TALLY#1', 'A'), condition: 'attribute_not_exists(PK)' }).catch(() => undefined);
    await tallied.get({ key: key('TALLY#1', 'A') });

    const { total, byOperation } = tally.snapshot();
    expect(total).toMatchObject({ calls: 3, conditionFailures: 1, errors: 0 });
    expect(byOperation.put).toMatchObject({ calls: 2, conditionFailures: 1 });
    expect(byOperation.get?.calls).toBe(1);
    expect(total.capacity.total).toBeGreaterThan(0);
    tally.reset();
    expect(tally.snapshot().total.calls).toBe(0);
  });

  test('one client serves the process; a table name is required', () => {
    expect(sharedDocumentClient()).toBe(sharedDocumentClient());
    expect(() => new DynamoKit({ tableName: '' })).toThrow(TypeError);
  });
});
