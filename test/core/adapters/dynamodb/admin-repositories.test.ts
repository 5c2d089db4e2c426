import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { adminResourceKey, operationalConfigKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { OPERATOR_AVAILABILITY_CONFIG_KEY } from '../../../../lambda/core/domain/admin';
import { AdminResourceVersionNotFoundError, VersionConflictError } from '../../../../lambda/core/ports/repositories';
import { InvalidCursorError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newCustomer } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';

let table: TestTable;
let repos: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  table = await createTestTable('admin');
  repos = createDynamoRepositories({ tableName: table.name, clock, ids: new SequentialIds() });
});
afterAll(() => table.drop());

async function collect<T>(list: (cursor?: string) => Promise<{ items: readonly T[]; cursor?: string }>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe('versioned resources', () => {
  test('each edit writes the current item and a new version; versions list newest first across pages', async () => {
    const { resources } = repos;
    const v1 = await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'greeting', content: 'Olá v1', author: 'ana', expectedVersion: 0 });
    clock.advance(1000);
    const v2 = await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'greeting', content: 'Olá v2', description: 'warmer', author: 'bia' });
    const v3 = await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'greeting', content: 'Olá v3', author: 'ana', expectedVersion: 2 });

    expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
    expect(await resources.getCurrent('prompt', 'greeting')).toEqual(v3);
    expect(await resources.getVersion('prompt', 'greeting', 2)).toEqual(v2);
    const { items, pages } = await collect((cursor) => resources.listVersions('prompt', 'greeting', { limit: 2, cursor }));
    expect(items.map((item) => item.version)).toEqual([3, 2, 1]);
    expect(pages).toBe(2);
  });

  test('parallel editors of the same version: exactly one winner, no lost update', async () => {
    const { resources } = repos;
    await resources.putNextVersion({ resourceType: 'package', resourceId: 'exome', content: 'base', author: 'ana', expectedVersion: 0 });

    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => resources.putNextVersion({ resourceType: 'package', resourceId: 'exome', content: `edit ${index}`, author: `editor-${index}`, expectedVersion: 1 })),
    );

    const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(VersionConflictError);
    const current = await resources.getCurrent('package', 'exome');
    expect(current).toEqual(winners[0]);
    expect(await resources.getVersion('package', 'exome', 2)).toEqual(winners[0]);
    expect((await collect((cursor) => resources.listVersions('package', 'exome', { cursor }))).items).toHaveLength(2);
  });

  test('concurrent editors that read the version themselves also serialize: every version has one author', async () => {
    const { resources } = repos;
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, index) => resources.putNextVersion({ resourceType: 'prompt', resourceId: 'race', content: `c${index}`, author: `e${index}` })),
    );
    const written = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const versions = (await collect((cursor) => resources.listVersions('prompt', 'race', { cursor }))).items;
    expect(versions.map((version) => version.version).sort()).toEqual(written.map((version) => version.version).sort());
    expect(new Set(written.map((version) => version.version)).size).toBe(written.length);
    expect((await resources.getCurrent('prompt', 'race'))?.version).toBe(Math.max(...written.map((version) => version.version)));
  });

  test('a stale editor is refused before writing', async () => {
    const { resources } = repos;
    await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'stale', content: 'a', author: 'ana' });
    await expect(resources.putNextVersion({ resourceType: 'prompt', resourceId: 'stale', content: 'b', author: 'bia', expectedVersion: 0 })).rejects.toBeInstanceOf(VersionConflictError);
    await expect(resources.putNextVersion({ resourceType: 'prompt', resourceId: 'stale', content: 'b', author: 'bia', expectedVersion: 5 })).rejects.toBeInstanceOf(VersionConflictError);
    expect((await resources.getCurrent('prompt', 'stale'))?.content).toBe('a');
  });

  test('rollback creates a new version with the target content; a missing target is a clear error', async () => {
    const { resources } = repos;
    await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'rb', content: 'first', author: 'ana' });
    await resources.putNextVersion({ resourceType: 'prompt', resourceId: 'rb', content: 'second', author: 'ana' });

    const restored = await resources.rollback('prompt', 'rb', 1, 'bia');

    expect(restored).toMatchObject({ version: 3, content: 'first', author: 'bia', rolledBackFrom: 1, active: true });
    expect(await resources.getCurrent('prompt', 'rb')).toEqual(restored);
    await expect(resources.rollback('prompt', 'rb', 9, 'bia')).rejects.toBeInstanceOf(AdminResourceVersionNotFoundError);
    await expect(resources.rollback('prompt', 'rb', 9, 'bia')).rejects.toThrow('Admin resource prompt/rb has no version 9');
  });

  test('unknown attributes of the current item survive edits', async () => {
    const { resources, kit } = repos;
    await resources.putNextVersion({ resourceType: 'package', resourceId: 'panel', content: 'genes', author: 'ana' });
    await kit.update({ key: adminResourceKey('package', 'panel'), update: 'SET price_cents = :p', values: { ':p': 12900 } });

    const inactive = await resources.putNextVersion({ resourceType: 'package', resourceId: 'panel', content: 'genes', author: 'bia', active: false });

    expect(inactive).toMatchObject({ version: 2, active: false, content: 'genes', unknownAttributes: { price_cents: 12900 } });
    expect(await kit.get({ key: adminResourceKey('package', 'panel'), consistentRead: true })).toMatchObject({ price_cents: 12900, active: false });
  });

  test('listCurrent pages through the current items of a type only', async () => {
    const { resources } = repos;
    for (let index = 0; index < 5; index++) await resources.putNextVersion({ resourceType: 'faq', resourceId: `q${index}`, content: `a${index}`, author: 'ana' });
    const { items, pages } = await collect((cursor) => resources.listCurrent('faq', { limit: 2, cursor }));
    expect(items.map((item) => item.resourceId)).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
    expect(pages).toBe(3);
    const first = await resources.listCurrent('faq', { limit: 2 });
    await expect(resources.listCurrent('prompt', { limit: 2, cursor: first.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});

describe('operational config', () => {
  test('set without and with compare-and-set', async () => {
    const { config } = repos;
    const created = await config.set({ key: 'handoff_hours', value: { start: 8, end: 18 }, author: 'ana' }, { expectedVersion: 0 });
    expect(created).toMatchObject({ key: 'handoff_hours', value: { start: 8, end: 18 }, version: 1, author: 'ana', updatedAt: '2026-03-10T12:00:01.000000Z' });
    await expect(config.set({ key: 'handoff_hours', value: 1, author: 'bia' }, { expectedVersion: 0 })).rejects.toBeInstanceOf(VersionConflictError);

    const racing = await Promise.allSettled([1, 2, 3].map((n) => config.set({ key: 'handoff_hours', value: n, author: `e${n}` }, { expectedVersion: 1 })));
    expect(racing.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const unconditional = await config.set({ key: 'handoff_hours', value: 'last', author: 'ana' });
    expect(unconditional.version).toBe(3);
    expect(await config.get('handoff_hours')).toEqual(unconditional);
  });

  test('operator availability entries are edited in place by concurrent operators without losing any', async () => {
    const { config, kit } = repos;
    const phones = Array.from({ length: 8 }, () => newCustomer());

    await Promise.all(phones.map((customerId, index) => config.setOperatorAvailability(customerId, `2026-03-10T0${index}:00:00Z`, customerId)));

    const stored = await config.get(OPERATOR_AVAILABILITY_CONFIG_KEY);
    expect(Object.keys(stored!.value as object).sort()).toEqual([...phones].sort());
    expect(stored!.version).toBe(phones.length);
    expect((stored!.value as Record<string, string>)[phones[3]]).toBe('2026-03-10T03:00:00.000000Z');

    const afterRemoval = await config.setOperatorAvailability(phones[0], null, phones[0]);
    expect(afterRemoval[phones[0]]).toBeUndefined();
    expect(Object.keys(afterRemoval)).toHaveLength(phones.length - 1);
    expect(await kit.get({ key: operationalConfigKey(OPERATOR_AVAILABILITY_CONFIG_KEY), consistentRead: true })).toMatchObject({ entity_type: 'operational_config' });
  });
});

describe('audit and consent logs', () => {
  test('append-only, newest first, paginated', async () => {
    const { audit, consents } = repos;
    for (let index = 0; index < 5; index++) {
      await audit.record({ eventId: `evt-${index}`, occurredAt: `2026-03-10T12:00:0${index}Z`, author: 'ana', action: 'prompt.update', resourceType: 'prompt', resourceId: 'greeting', details: { version: index } });
      await consents.record({ consentId: `c-${index}`, customerId: '5511999990000', recordedAt: `2026-03-10T12:00:0${index}Z`, purpose: 'data_processing', granted: index !== 2, source: 'whatsapp', termsVersion: 'v1' });
    }
    // A retried record never replaces the first.
    await audit.record({ eventId: 'evt-0', occurredAt: '2026-03-10T12:00:00Z', author: 'mallory', action: 'rewrite' });

    const events = await collect((cursor) => audit.listRecent({ limit: 2, cursor }));
    expect(events.items.map((event) => event.eventId)).toEqual(['evt-4', 'evt-3', 'evt-2', 'evt-1', 'evt-0']);
    expect(events.items[4]).toMatchObject({ author: 'ana', details: { version: 0 } });
    expect(events.pages).toBe(3);

    const consentPage = await consents.listRecent({ limit: 3 });
    expect(consentPage.items.map((consent) => [consent.consentId, consent.granted])).toEqual([
      ['c-4', true],
      ['c-3', true],
      ['c-2', false],
    ]);
    await expect(audit.listRecent({ cursor: consentPage.cursor })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});

describe('out-of-portfolio demands', () => {
  test('recorded once per source message, listed newest first', async () => {
    const { demands } = repos;
    const demand = {
      demandId: 'd-1',
      sourceMessageId: 'wamid.source-1',
      customerId: '5511999990000',
      sessionId: 's-1',
      requestedService: 'paternity test',
      originalMessage: 'vocês fazem teste de paternidade?',
      estimatedSegment: 'PESSOAL',
      recordedAt: '2026-03-10T12:00:00Z',
    };
    expect(await demands.record(demand)).toBe(true);
    // A retried turn generates a new id and time for the same source message.
    expect(await demands.record({ ...demand, demandId: 'd-2', recordedAt: '2026-03-10T12:05:00Z' })).toBe(false);
    const parallel = await Promise.all([1, 2, 3].map((n) => demands.record({ ...demand, demandId: `p-${n}`, sourceMessageId: 'wamid.source-2' })));
    expect(parallel.filter(Boolean)).toHaveLength(1);
    expect(await demands.record({ ...demand, demandId: 'd-3', sourceMessageId: 'wamid.source-3', recordedAt: '2026-03-10T12:10:00Z' })).toBe(true);

    const { items } = await collect((cursor) => demands.listRecent({ limit: 1, cursor }));
    expect(items.map((item) => item.sourceMessageId)).toEqual(['wamid.source-3', 'wamid.source-2', 'wamid.source-1']);
    expect(items[2]).toEqual({ ...demand, recordedAt: '2026-03-10T12:00:00.000000Z' });
  });
});
