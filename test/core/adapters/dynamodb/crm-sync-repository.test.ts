import { crmSyncToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/crm-sync-codec';
import { CRM_SYNC_MAX_ATTEMPTS, DynamoCrmSyncRepository } from '../../../../lambda/core/adapters/dynamodb/crm-sync-repository';
import { DynamoKit, type GetRequest, type Item } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { crmSyncKey, customerCrmSyncReferenceKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { type CrmSyncRow, CrmSyncStatus, desiredProjection, projectionRevision } from '../../../../lambda/core/domain/crm-sync';
import { ConditionFailedError, CrmSyncConcurrentUpdateError } from '../../../../lambda/core/ports/repositories';
import { stableDigest } from '../../../../lambda/core/domain/stable-json';
import { createTestTable, type TestTable, withTestTable } from '../../../support/dynamo-table';
import { newCustomer } from '../../../support/ids';
import { newSession } from '../../../support/domain-records';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
const ids = new SequentialIds('etag');
let crm: DynamoCrmSyncRepository;
let sessions: DynamoSessionRepository;

/** A kit whose reads of CRM rows are followed by another writer changing the row (a lost CAS). */
class InterferingKit extends DynamoKit {
  interferences = 0;
  constructor(
    tableName: string,
    private remaining: number,
  ) {
    super({ tableName });
  }

  override async get(request: GetRequest): Promise<Item | undefined> {
    const item = await super.get(request);
    if (item && item.entity_type === 'crm_sync' && this.remaining > 0) {
      this.remaining--;
      this.interferences++;
      await super.update({ key: crmSyncKey(String(item.session_id)), update: 'SET etag = :other', values: { ':other': `other-writer-${this.interferences}` } });
    }
    return item;
  }
}

beforeAll(async () => {
  table = await createTestTable('crm');
  kit = new DynamoKit({ tableName: table.name });
  crm = new DynamoCrmSyncRepository(kit, clock, ids);
  sessions = new DynamoSessionRepository(kit, clock, crm);
});
afterAll(() => table.drop());

describe('prepare and the session transaction', () => {
  test('a NEW session without a deal publishes nothing; a qualifying one is written with the session', async () => {
    const customerId = newCustomer();
    const fresh = newSession(customerId, { state: 'NEW' });
    expect(await crm.prepare(fresh)).toBeUndefined();
    await sessions.put(fresh);
    expect(await crm.get(fresh.sessionId)).toBeUndefined();

    const qualifying = { ...fresh, state: 'QUALIFYING' as const, segment: 'PESQUISA' };
    await sessions.put(qualifying);

    const row = await crm.get(fresh.sessionId);
    expect(row).toMatchObject({ sessionId: fresh.sessionId, customerId, status: 'PENDING', attempts: 0, nextAttemptAt: '2026-03-10T12:00:00.000000Z' });
    expect(row?.desired).toEqual(desiredProjection(qualifying));
    expect(row?.revision).toBe(projectionRevision(desiredProjection(qualifying)));
    expect(await sessions.getActive(customerId)).toMatchObject({ crm: { status: 'PENDING' } });
  });

  test('the revision is the SHA-256 of the JSON with sorted keys', () => {
    const desired = { contact: { customerId: '1', name: 'Ana' }, deal: { stage: 'qualifying', qualification: { b: 2, a: 1 } } };
    const reordered = { deal: { qualification: { a: 1, b: 2 }, stage: 'qualifying' }, contact: { name: 'Ana', customerId: '1' } };
    expect(projectionRevision(desired)).toBe(projectionRevision(reordered));
    expect(projectionRevision(desired)).toBe(stableDigest(reordered));
    expect(projectionRevision(desired)).toMatch(/^[0-9a-f]{64}$/);
    expect(projectionRevision({ ...desired, deal: { ...desired.deal, stage: 'handoff' } })).not.toBe(projectionRevision(desired));
  });

  test('identical content is not rewritten; new content keeps external ids, creation markers and uncertainty', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId);
    await sessions.put(session);
    const first = (await crm.get(session.sessionId))!;
    expect(await crm.prepare(session)).toBeUndefined();

    await crm.change(session.sessionId, (row) => ({
      ...row,
      status: CrmSyncStatus.UNCERTAIN,
      contactId: 'crm-contact-1',
      dealId: 'crm-deal-1',
      dealCreationStartedAt: '2026-03-10T12:00:01Z',
      syncedRevision: row.revision,
      unknownAttributes: { crm_owner: 'team-a' },
    }));
    const moved = await sessions.transitionState(session, 'QUALIFYING', 'AWAITING_HUMAN');

    const row = (await crm.get(session.sessionId))!;
    expect(row.revision).not.toBe(first.revision);
    expect(row).toMatchObject({
      status: 'UNCERTAIN',
      contactId: 'crm-contact-1',
      dealId: 'crm-deal-1',
      dealCreationStartedAt: '2026-03-10T12:00:01.000000Z',
      syncedRevision: first.revision,
      unknownAttributes: { crm_owner: 'team-a' },
    });
    expect(row.desired.deal).toMatchObject({ stage: 'handoff' });
    expect(moved.state).toBe('AWAITING_HUMAN');

    // With CRM sync on, the transition also requires the caller's snapshot to be current.
    await expect(sessions.transitionState({ ...session, state: 'AWAITING_HUMAN' }, 'AWAITING_HUMAN', 'HUMAN_ACTIVE')).rejects.toBeInstanceOf(ConditionFailedError);
    await sessions.transitionState(moved, 'AWAITING_HUMAN', 'HUMAN_ACTIVE');
  });

  test('a session write retries only the projection when another writer changed it meanwhile', async () => {
    const customerId = newCustomer();
    const session = newSession(customerId);
    await sessions.put(session);
    const interfering = new InterferingKit(table.name, 2);
    const racingSessions = new DynamoSessionRepository(interfering, clock, new DynamoCrmSyncRepository(interfering, clock, ids));

    await racingSessions.put({ ...session, segment: 'CLINICO' });

    expect(interfering.interferences).toBe(2);
    expect((await crm.get(session.sessionId))?.desired.deal).toMatchObject({ segment: 'CLINICO' });
    expect((await sessions.get(customerId, session.sessionId))?.segment).toBe('CLINICO');
  });
});

describe('change (etag compare-and-set)', () => {
  test('parallel changes are all applied: no lost update', async () => {
    const session = newSession(newCustomer());
    await sessions.put(session);

    await Promise.all(Array.from({ length: 6 }, () => crm.change(session.sessionId, (row) => ({ ...row, attempts: row.attempts + 1 }))));

    expect((await crm.get(session.sessionId))?.attempts).toBe(6);
  });

  test('gives up with crm_sync_concurrent_update after 8 lost attempts', async () => {
    const session = newSession(newCustomer());
    await sessions.put(session);
    const interfering = new InterferingKit(table.name, Number.POSITIVE_INFINITY);
    const contested = new DynamoCrmSyncRepository(interfering, clock, ids);

    const error = await contested.change(session.sessionId, (row) => ({ ...row, attempts: row.attempts + 1 })).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(CrmSyncConcurrentUpdateError);
    expect((error as Error).message).toBe('crm_sync_concurrent_update');
    expect(interfering.interferences).toBe(CRM_SYNC_MAX_ATTEMPTS);
    expect((await crm.get(session.sessionId))?.attempts).toBe(0);
  });

  test('a missing row or a no-op mutation writes nothing', async () => {
    expect(await crm.change('no-such-session', (row) => row)).toBeUndefined();
    const session = newSession(newCustomer());
    await sessions.put(session);
    const before = await crm.get(session.sessionId);
    expect(await crm.change(session.sessionId, () => undefined)).toEqual(before);
    expect((await crm.get(session.sessionId))?.etag).toBe(before?.etag);
  });
});

describe('status index', () => {
  test('lists a status by next attempt across pages and summarises the problem statuses', async () => {
    const rows: CrmSyncRow[] = Array.from({ length: 5 }, (_, index) => ({
      sessionId: `blocked-${index}`,
      customerId: newCustomer(),
      status: CrmSyncStatus.BLOCKED,
      desired: { contact: {}, deal: {} },
      revision: 'r',
      attempts: 3,
      nextAttemptAt: `2026-03-1${5 - index}T00:00:00Z`,
      lastError: 'invalid email',
      etag: `e-${index}`,
      updatedAt: '2026-03-10T00:00:00Z',
    }));
    await kit.batchWrite(rows.map((row) => ({ put: crmSyncToItem(row) })));

    const listed: CrmSyncRow[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await crm.listStatus(CrmSyncStatus.BLOCKED, { limit: 2, cursor });
      listed.push(...page.items);
      cursor = page.cursor;
      pages++;
    } while (cursor);
    expect(listed.map((row) => row.sessionId)).toEqual(['blocked-4', 'blocked-3', 'blocked-2', 'blocked-1', 'blocked-0']);
    expect(pages).toBe(3);

    const summary = await crm.problems();
    // The PENDING backlog is the worker's ordinary work, not a problem.
    expect(summary.map((entry) => entry.status)).toEqual(['BLOCKED', 'UNCERTAIN']);
    expect(summary[0]).toMatchObject({ count: 5, oldest: { sessionId: 'blocked-4' } });
    expect(summary[1]).toMatchObject({ status: 'UNCERTAIN', count: 1 });
  });
});

describe('retention', () => {
  const DAY_SECONDS = 86_400;

  test('every row has a reference in its customer’s partition; closing the conversation gives both its retention, and an expired row is gone for every reader', async () => {
    await withTestTable('crm-retention', async ({ name }) => {
      const clock = new ManualClock('2026-03-10T12:00:00.000Z');
      const kit = new DynamoKit({ tableName: name });
      const crm = new DynamoCrmSyncRepository(kit, clock, new SequentialIds('etag'), undefined, { conversationSeconds: 30 * DAY_SECONDS, demandSeconds: DAY_SECONDS });
      const sessions = new DynamoSessionRepository(kit, clock, crm, undefined, { conversationSeconds: 30 * DAY_SECONDS, demandSeconds: DAY_SECONDS });
      const customerId = newCustomer();
      const session = newSession(customerId, { state: 'QUALIFYING' });
      await sessions.put(session);

      const reference = () => kit.get({ key: customerCrmSyncReferenceKey(customerId, session.sessionId), consistentRead: true });
      const stored = () => kit.get({ key: crmSyncKey(session.sessionId), consistentRead: true });
      expect(await reference()).toMatchObject({ entity_type: 'customer_crm_sync_reference', targets: [{ pk: crmSyncKey(session.sessionId).PK, sk: 'META' }] });
      expect((await reference())?.ttl).toBeUndefined();
      expect((await stored())?.ttl).toBeUndefined();

      await sessions.transitionState(session, 'QUALIFYING', 'CLOSED');
      const closedAt = Date.parse('2026-03-10T12:00:00.000Z') / 1000;
      expect((await stored())?.ttl).toBe(closedAt + 30 * DAY_SECONDS);
      expect((await reference())?.ttl).toBe(closedAt + 30 * DAY_SECONDS);
      expect(await crm.listDue('2026-03-10T12:00:00.000Z')).toMatchObject({ items: [{ sessionId: session.sessionId }] });
      // The worker's outcome writes keep the retention.
      await crm.change(session.sessionId, (row) => ({ ...row, attempts: 2 }));
      expect((await stored())?.ttl).toBe(closedAt + 30 * DAY_SECONDS);

      // Past the retention the row is gone for readers, though DynamoDB's TTL has not removed it yet.
      clock.set('2026-04-09T12:00:00.000Z');
      expect(await stored()).toBeDefined();
      expect(await crm.get(session.sessionId)).toBeUndefined();
      expect(await crm.change(session.sessionId, (row) => ({ ...row, attempts: 1 }))).toBeUndefined();
      expect((await crm.listDue('2026-04-09T12:00:00.000Z')).items).toEqual([]);
      expect((await crm.listStatus(CrmSyncStatus.PENDING)).items).toEqual([]);
      expect(await sessions.getActive(customerId)).toBeUndefined();
    });
  });
});
