// Write shards and their phased introduction, on DynamoDB Local: a table holding seed-layout items,
// items written by the `migrating` layout and items moved between them, read before and after the
// backfill reports complete.
import { DynamoCrmSyncRepository } from '../../../../lambda/core/adapters/dynamodb/crm-sync-repository';
import { DynamoKit, type UpdateRequest } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from '../../../../lambda/core/adapters/dynamodb/key-layout';
import * as keys from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoMessageRepository } from '../../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { backfillWriteShards } from '../../../../lambda/core/adapters/dynamodb/write-shard-backfill';
import { randomIdGenerator } from '../../../../lambda/core/adapters/system/random-id-generator';
import { type CrmSyncRow, CrmSyncStatus } from '../../../../lambda/core/domain/crm-sync';
import { InvalidCursorError, InvalidKeySegmentError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import type { Message } from '../../../../lambda/core/domain/message';
import { type Session, SessionState } from '../../../../lambda/core/domain/session';
import { createTestTable, type TestTable, withTestTable } from '../../../support/dynamo-table';
import { newCustomer } from '../../../support/ids';
import { newSession } from '../../../support/domain-records';
import { ManualClock } from '../../../support/manual-clock';
import { CallRecorder } from '../../../support/dynamo-call-recorder';

const clock = new ManualClock('2026-05-20T12:00:00.000Z');
let table: TestTable;
let kit: DynamoKit;

beforeAll(async () => {
  table = await createTestTable('write-shards');
  kit = new DynamoKit({ tableName: table.name });
});
afterAll(() => table.drop());

/** Repositories of one deployment phase, each with its own policy (and so its own marker cache). */
function deployment(layout: KeyLayout, onKit: DynamoKit = kit) {
  const policy = new KeyLayoutPolicy(layout, onKit, clock);
  const crmSync = new DynamoCrmSyncRepository(onKit, clock, randomIdGenerator, policy);
  return {
    sessions: new DynamoSessionRepository(onKit, clock, undefined, policy),
    messages: new DynamoMessageRepository(onKit, clock, policy),
    crmSync,
    /** Session writes that carry the CRM projection (a deployment with `crmSync`). */
    crmSessions: new DynamoSessionRepository(onKit, clock, crmSync, policy),
  };
}

async function allDue(crmSync: DynamoCrmSyncRepository, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await crmSync.listDue(clock.now().toISOString(), { limit, cursor });
    seen.push(...page.items.map((row) => row.sessionId));
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

async function listAll(sessions: DynamoSessionRepository, state: SessionState, limit: number): Promise<Session[]> {
  const seen: Session[] = [];
  let cursor: string | undefined;
  do {
    const page = await sessions.listByState(state, { limit, cursor });
    seen.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

const ids = (sessions: readonly Session[]) => sessions.map((session) => session.sessionId);

function reply(customerId: string, timestamp: string): Message {
  return { customerId, sessionId: 's', messageId: `r-${customerId}-${timestamp}`, direction: 'outbound', role: 'assistant', text: 'oi', timestamp, deliveryStatus: 'sent' };
}

describe('sharded keys', () => {
  test('a customer always lands on the same shard, and customers spread over every shard', () => {
    const customers = Array.from({ length: 400 }, (_, index) => `5511${String(900_000_000 + index)}`);
    for (const customer of customers) expect(keys.writeShardOf(customer)).toBe(keys.writeShardOf(customer));
    const perShard = new Map<number, number>();
    for (const customer of customers) perShard.set(keys.writeShardOf(customer), (perShard.get(keys.writeShardOf(customer)) ?? 0) + 1);
    expect([...perShard.keys()].sort((a, b) => a - b)).toEqual(keys.allWriteShards());
    expect(Math.max(...perShard.values())).toBeLessThan((2 * customers.length) / keys.WRITE_SHARDS);
  });

  test('session, LLM and CRM index keys carry the shard of the customer; the seed builders are unchanged', () => {
    const customer = '5511999990000';
    const shard = keys.writeShardOf(customer);
    expect(keys.shardedSessionStateIndexKey('QUALIFYING', '2026-03-10T12:00:00Z', customer)).toEqual({ GSI1PK: `STATE#QUALIFYING#${shard}`, GSI1SK: '2026-03-10T12:00:00.000000Z' });
    expect(keys.shardedLlmMessageIndexKey('2026-03-10T12:00:00Z', 'm-1', customer)).toEqual({ GSI1PK: `LLM#2026-03-10#${shard}`, GSI1SK: '2026-03-10T12:00:00.000000Z#m-1' });
    expect(keys.sessionStateIndexKey('QUALIFYING', '2026-03-10T12:00:00Z')).toEqual({ GSI1PK: 'STATE#QUALIFYING', GSI1SK: '2026-03-10T12:00:00.000000Z' });
    expect(keys.shardedCrmSyncStatusIndexKey('PENDING', '2026-03-10T12:00:00Z', 's-1', customer)).toEqual({ GSI1PK: `CRM_SYNC#PENDING#${shard}`, GSI1SK: '2026-03-10T12:00:00.000000Z#s-1' });
  });

  test('a shard outside the range, or a customer id that could collide, is refused', () => {
    expect(() => keys.shardedSessionStatePartition('NEW', keys.WRITE_SHARDS)).toThrow(InvalidKeySegmentError);
    expect(() => keys.shardedLlmDayPartition('2026-03-10T00:00:00Z', -1)).toThrow(InvalidKeySegmentError);
    expect(() => keys.writeShardOf('55#11')).toThrow(InvalidKeySegmentError);
  });
});

describe('phased migration on a table with old, mixed and new items', () => {
  test('seed readers keep the seed layout; migrating readers see every item once; after the backfill they read the shards only', async () => {
    const state = SessionState.AWAITING_HUMAN;
    const seedPhase = deployment(KeyLayout.SEED);
    const old = Array.from({ length: 5 }, (_, index) => newSession(newCustomer(), { state, createdAt: `2031-02-01T00:00:0${index}.000000Z` }));
    for (const session of old) await seedPhase.sessions.put(session);
    // Written by the seed layout in another state, then moved into the list by a migrating writer: a mixed item.
    const moved = newSession(newCustomer(), { state: SessionState.QUALIFYING, createdAt: '2031-02-01T00:00:05.500000Z' });
    await seedPhase.sessions.put(moved);

    const migrating = deployment(KeyLayout.MIGRATING);
    const fresh = Array.from({ length: 5 }, (_, index) => newSession(newCustomer(), { state, createdAt: `2031-02-01T00:00:0${index}.500000Z` }));
    for (const session of fresh) await migrating.sessions.put(session);
    const movedNow = await migrating.sessions.transitionState(moved, SessionState.QUALIFYING, state);
    expect((await kit.get({ key: keys.sessionKey(moved.customerId, moved.sessionId) }))?.GSI1PK).toBe(`STATE#${state}#${keys.writeShardOf(moved.customerId)}`);
    expect((await kit.get({ key: keys.sessionKey(fresh[0].customerId, fresh[0].sessionId) }))?.GSI1PK).toBe(`STATE#${state}#${keys.writeShardOf(fresh[0].customerId)}`);

    const everyone = [...old, ...fresh, movedNow].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const mine = (seen: Session[]) => seen.filter((session) => everyone.some((candidate) => candidate.sessionId === session.sessionId));

    // The seed deployment still reads its own layout, unchanged.
    expect(ids(mine(await listAll(seedPhase.sessions, state, 50)))).toEqual(ids(old));
    // The migrating deployment reads both layouts, merged oldest first, whatever the page size.
    for (const limit of [1, 2, 3, 50]) expect(ids(mine(await listAll(migrating.sessions, state, limit)))).toEqual(ids(everyone));

    const report = await backfillWriteShards(kit, clock, { llmDays: 2 });
    expect(report).toMatchObject({ remaining: 0, complete: true });
    expect(report.moved).toBeGreaterThanOrEqual(old.length);
    expect(await kit.get({ key: keys.writeShardBackfillKey() })).toMatchObject({ completed_at: '2026-05-20T12:00:00.000000Z' });
    for (const session of old) {
      expect((await kit.get({ key: keys.sessionKey(session.customerId, session.sessionId) }))?.GSI1PK).toBe(`STATE#${state}#${keys.writeShardOf(session.customerId)}`);
    }

    // A seed-layout item appearing now (an old writer still running) is no longer read: readers switched.
    const straggler = newSession(newCustomer(), { state, createdAt: '2031-02-01T00:00:09.000000Z' });
    await deployment(KeyLayout.SEED).sessions.put(straggler);
    const switched = deployment(KeyLayout.MIGRATING);
    const afterSwitch = await listAll(switched.sessions, state, 4);
    expect(ids(mine(afterSwitch))).toEqual(ids(everyone));
    expect(ids(afterSwitch)).not.toContain(straggler.sessionId);
    // The reader that cached "not complete" looks again once the re-check interval passed.
    expect(ids(await listAll(migrating.sessions, state, 50))).toContain(straggler.sessionId);
    clock.advance(61_000);
    expect(ids(await listAll(migrating.sessions, state, 50))).not.toContain(straggler.sessionId);

    // Running the backfill again moves the straggler and stays complete.
    expect(await backfillWriteShards(kit, clock, { llmDays: 2 })).toMatchObject({ moved: 1, remaining: 0, complete: true });
    expect(ids(await listAll(switched.sessions, state, 50))).toContain(straggler.sessionId);
  });

  test("the agent's usage of a day adds up the seed day bucket and every shard, one Query each (beside one per shard of the day's fee index)", async () => {
    await withTestTable('write-shards-llm', async (isolated) => {
      const calls = new CallRecorder();
      const onKit = new DynamoKit({ tableName: isolated.name, observer: calls });
      const at = (second: number) => `2026-05-20T11:00:${String(second).padStart(2, '0')}.000000Z`;
      const old = [0, 2, 4].map((second) => reply(newCustomer(), at(second)));
      const fresh = [1, 3, 5, 6].map((second) => reply(newCustomer(), at(second)));
      for (const message of old) await deployment(KeyLayout.SEED, onKit).messages.append(message);
      for (const message of fresh) await deployment(KeyLayout.MIGRATING, onKit).messages.append(message);
      const repliesOfTheDay = async (layout: KeyLayout) => {
        calls.reset();
        const [day] = await deployment(layout, onKit).messages.agentUsageByDay(['2026-05-20'], { pagesPerPartition: 3, pageSize: 100 });
        const feeQueries = keys.WRITE_SHARDS;
        return { replies: day.replies, complete: day.complete, queries: calls.operations().filter((operation) => operation === 'queryPage').length - feeQueries };
      };

      expect(await repliesOfTheDay(KeyLayout.SEED)).toEqual({ replies: old.length, complete: true, queries: 1 });
      expect(await repliesOfTheDay(KeyLayout.MIGRATING)).toEqual({ replies: old.length + fresh.length, complete: true, queries: 1 + keys.WRITE_SHARDS });

      expect(await backfillWriteShards(onKit, clock, { llmDays: 1 })).toEqual({ moved: old.length, movedConcurrently: 0, remaining: 0, complete: true });
      expect(await repliesOfTheDay(KeyLayout.SHARDED)).toEqual({ replies: old.length + fresh.length, complete: true, queries: keys.WRITE_SHARDS });
    });
  });

  test('CRM projection rows: migrating writes their status index in shards, the worker and the admin read both layouts, the backfill moves them before its marker', async () => {
    await withTestTable('write-shards-crm', async (isolated) => {
      const onKit = new DynamoKit({ tableName: isolated.name });
      const [seed, migrating] = [deployment(KeyLayout.SEED, onKit), deployment(KeyLayout.MIGRATING, onKit)];
      const written: string[] = [];
      for (const phase of [seed, migrating, seed, migrating, migrating]) {
        const session = newSession(newCustomer(), { state: SessionState.QUALIFYING });
        await phase.crmSessions.put(session);
        written.push(session.sessionId);
        clock.advance(1_000);
      }
      const indexPartition = async (sessionId: string) => (await onKit.get({ key: keys.crmSyncKey(sessionId) }))?.GSI1PK;
      const shardOf = async (sessionId: string) => keys.writeShardOf(String((await onKit.get({ key: keys.crmSyncKey(sessionId) }))?.phone_number));
      expect(await indexPartition(written[0])).toBe('CRM_SYNC#PENDING');
      expect(await indexPartition(written[1])).toBe(`CRM_SYNC#PENDING#${await shardOf(written[1])}`);

      // The seed worker sees its own rows; the migrating worker every row, earliest first, whatever the page size.
      expect(await allDue(seed.crmSync, 50)).toEqual([written[0], written[2]]);
      for (const limit of [1, 2, 50]) expect(await allDue(migrating.crmSync, limit)).toEqual(written);
      const block = (row: CrmSyncRow): CrmSyncRow => ({ ...row, status: CrmSyncStatus.BLOCKED });
      await seed.crmSync.change(written[0], block);
      await migrating.crmSync.change(written[1], block);
      const blocked = async (crmSync: DynamoCrmSyncRepository) => (await crmSync.problems()).find((summary) => summary.status === CrmSyncStatus.BLOCKED);
      expect(await blocked(migrating.crmSync)).toMatchObject({ count: 2, oldest: { sessionId: written[0] } });
      expect((await migrating.crmSync.listStatus(CrmSyncStatus.BLOCKED, { limit: 1 })).items.map((row) => row.sessionId)).toEqual([written[0]]);

      const report = await backfillWriteShards(onKit, clock, { llmDays: 1 });
      // Two CRM rows and the two sessions the seed deployment wrote.
      expect(report).toEqual({ moved: 4, movedConcurrently: 0, remaining: 0, complete: true });
      for (const sessionId of written) expect(await indexPartition(sessionId)).toMatch(new RegExp(`^CRM_SYNC#(PENDING|BLOCKED)#${await shardOf(sessionId)}$`));
      const sharded = deployment(KeyLayout.SHARDED, onKit);
      expect(await allDue(sharded.crmSync, 2)).toEqual(written.slice(2));
      expect(await blocked(sharded.crmSync)).toMatchObject({ count: 2, oldest: { sessionId: written[0] } });
    });
  });

  test('a backfill that finds seed items written meanwhile reports incomplete and writes no marker', async () => {
    await withTestTable('write-shards-incomplete', async (isolated) => {
      const onKit = new DynamoKit({ tableName: isolated.name });
      const seedWriter = deployment(KeyLayout.SEED, onKit).sessions;
      await seedWriter.put(newSession(newCustomer(), { state: SessionState.NEW }));
      /** A seed-layout deployment still running: it writes a session while the backfill moves one. */
      class RacingKit extends DynamoKit {
        raced = false;
        override async update(request: UpdateRequest) {
          if (!this.raced) {
            this.raced = true;
            await seedWriter.put(newSession(newCustomer(), { state: SessionState.NEW }));
          }
          return super.update(request);
        }
      }
      const report = await backfillWriteShards(new RacingKit({ tableName: isolated.name }), clock, { llmDays: 1 });
      expect(report).toEqual({ moved: 1, movedConcurrently: 0, remaining: 1, complete: false });
      expect(await onKit.get({ key: keys.writeShardBackfillKey() })).toBeUndefined();
      // Migrating readers therefore keep reading the seed partition: nothing is lost.
      expect((await deployment(KeyLayout.MIGRATING, onKit).sessions.listByState(SessionState.NEW)).items).toHaveLength(2);
    });
  });

  test('a bad backfill window is refused before anything is written', async () => {
    const before = await kit.get({ key: keys.writeShardBackfillKey() });
    await expect(backfillWriteShards(kit, clock, { llmDays: 0 })).rejects.toThrow(RangeError);
    expect(await kit.get({ key: keys.writeShardBackfillKey() })).toEqual(before);
  });
});

describe('fan-out cursors', () => {
  test('carry every shard position and refuse tampering or another list', async () => {
    const sharded = deployment(KeyLayout.SHARDED);
    for (let index = 0; index < 6; index++) await sharded.sessions.put(newSession(newCustomer(), { state: SessionState.CLOSED, createdAt: `2032-01-01T00:00:0${index}.000000Z` }));
    const page = await sharded.sessions.listByState(SessionState.CLOSED, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.cursor).toBeDefined();
    const tampered = `${page.cursor!.slice(0, -2)}${page.cursor!.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(sharded.sessions.listByState(SessionState.CLOSED, { limit: 2, cursor: tampered })).rejects.toBeInstanceOf(InvalidCursorError);
    await expect(sharded.sessions.listByState(SessionState.NEW, { limit: 2, cursor: page.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    // A single-partition (seed) cursor is not a fan-out cursor either.
    const seedPage = await deployment(KeyLayout.SEED).sessions.listByState(SessionState.CLOSED, { limit: 1 });
    if (seedPage.cursor) await expect(sharded.sessions.listByState(SessionState.CLOSED, { limit: 2, cursor: seedPage.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});
