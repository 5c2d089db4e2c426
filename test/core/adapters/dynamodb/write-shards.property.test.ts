// Property: whatever mix of seed-layout and sharded writes a list holds, written in any order and
// interleaved with the reader's pages, and whatever the page size, paging the list across its shards
// hands out every item present before the first page exactly once and in order, and never any item twice.
import fc from 'fast-check';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from '../../../../lambda/core/adapters/dynamodb/key-layout';
import { sessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { type Session, SessionState } from '../../../../lambda/core/domain/session';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newSession } from '../../../support/domain-records';
import { ManualClock } from '../../../support/manual-clock';

const clock = new ManualClock('2026-05-20T12:00:00.000Z');
let table: TestTable;
let kit: DynamoKit;
let writers: Record<'seed' | 'migrating', DynamoSessionRepository>;

beforeAll(async () => {
  table = await createTestTable('write-shards-property');
  kit = new DynamoKit({ tableName: table.name });
  const repository = (layout: KeyLayout) => new DynamoSessionRepository(kit, clock, undefined, new KeyLayoutPolicy(layout, kit, clock));
  writers = { seed: repository(KeyLayout.SEED), migrating: repository(KeyLayout.MIGRATING) };
});
afterAll(() => table.drop());

/** A small pool of customers and instants, so shards hold several items and sort keys tie. */
const CUSTOMERS = Array.from({ length: 6 }, (_, index) => `551190000000${index}`);
interface Write {
  readonly customer: number;
  readonly second: number;
  readonly layout: 'seed' | 'migrating';
}
const write: fc.Arbitrary<Write> = fc.record({
  customer: fc.integer({ min: 0, max: CUSTOMERS.length - 1 }),
  second: fc.integer({ min: 0, max: 5 }),
  layout: fc.constantFrom<'seed' | 'migrating'>('seed', 'migrating'),
});

test('any interleaving of writes, any page size: every list pages across shards with no item lost or repeated', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(write, { minLength: 1, maxLength: 18 }),
      fc.array(fc.record({ write, afterPage: fc.integer({ min: 0, max: 6 }) }), { maxLength: 6 }),
      fc.integer({ min: 1, max: 7 }),
      fc.constantFrom<KeyLayout>(KeyLayout.MIGRATING, KeyLayout.SHARDED),
      async (initial, during, limit, readerLayout) => {
        const state = SessionState.HUMAN_ACTIVE;
        const written: { session: Session; layout: 'seed' | 'migrating' }[] = [];
        const put = async ({ customer, second, layout }: Write) => {
          const session = newSession(CUSTOMERS[customer], { state, createdAt: `2033-01-01T00:00:0${second}.000000Z` });
          await writers[layout].put(session);
          written.push({ session, layout });
        };
        try {
          await Promise.all(initial.map(put));
          // A sharded reader no longer reads the seed partition: only what was written sharded is its list.
          const expected = written.filter((entry) => readerLayout === KeyLayout.MIGRATING || entry.layout === 'migrating').map((entry) => entry.session.sessionId);

          const reader = new DynamoSessionRepository(kit, clock, undefined, new KeyLayoutPolicy(readerLayout, kit, clock));
          const seen: Session[] = [];
          let cursor: string | undefined;
          let page = 0;
          do {
            await Promise.all(during.filter((entry) => entry.afterPage === page).map((entry) => put(entry.write)));
            const result = await reader.listByState(state, { limit, cursor });
            expect(result.items.length).toBeLessThanOrEqual(limit);
            seen.push(...result.items);
            cursor = result.cursor;
            page++;
          } while (cursor);

          const seenIds = seen.map((session) => session.sessionId);
          expect(new Set(seenIds).size).toBe(seenIds.length);
          for (const id of expected) expect(seenIds).toContain(id);
          // Items written between pages may land behind a shard's position (as with any cursor); the
          // items present before the first page come out in sort-key order.
          const createdAt = seen.filter((session) => expected.includes(session.sessionId)).map((session) => session.createdAt);
          expect(createdAt).toEqual([...createdAt].sort());
        } finally {
          await Promise.all(written.map(({ session }) => kit.delete({ key: sessionKey(session.customerId, session.sessionId) })));
        }
      },
    ),
    { numRuns: 40 },
  );
}, 240_000);
