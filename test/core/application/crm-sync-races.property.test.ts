import fc from 'fast-check';
import { DynamoKit, type GetRequest, type Item, type PutRequest, type QueryPageResult, type QueryRequest, type TransactAction } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoCrmSyncRepository } from '../../../lambda/core/adapters/dynamodb/crm-sync-repository';
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import type { CrmClient } from '../../../lambda/core/ports/crm-client';
import { newCustomer } from '../../support/ids';
import { newSession } from '../../support/domain-records';
import { SequentialIds } from '../../support/manual-clock';
import { type CrmWorld, startCrmWorld } from '../../support/crm-world';

let world: CrmWorld;

beforeAll(async () => {
  world = await startCrmWorld('crm-races');
});
afterAll(() => world.close());

/** A kit whose every remote call resolves when the fast-check scheduler says so. */
class ScheduledKit extends DynamoKit {
  constructor(
    tableName: string,
    private readonly scheduler: fc.Scheduler,
    private readonly label: string,
  ) {
    super({ tableName });
  }

  override get(request: GetRequest): Promise<Item | undefined> {
    return this.scheduler.schedule(super.get(request), `${this.label} get`);
  }

  override put(request: PutRequest): Promise<void> {
    return this.scheduler.schedule(super.put(request), `${this.label} put`);
  }

  override queryPage(request: QueryRequest): Promise<QueryPageResult> {
    return this.scheduler.schedule(super.queryPage(request), `${this.label} query`);
  }

  override transact(actions: readonly TransactAction[]): Promise<void> {
    return this.scheduler.schedule(super.transact(actions), `${this.label} transact`);
  }
}

test('two workers and a session write at once: each revision is sent at most once, one deal per conversation, the latest revision ends in the CRM', async () => {
  const ids = new SequentialIds('race-etag');
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.boolean(), fc.boolean(), async (scheduler, alreadyCreated, writeDuringRun) => {
      const session = newSession(newCustomer(), { state: 'QUALIFYING' });
      await world.repositories.sessions.put(session);
      if (alreadyCreated) await world.worker().run();
      await world.repositories.sessions.put({ ...session, segment: 'CLINICO' });

      const workerOf = (label: string) => {
        const kit = new ScheduledKit(world.table.name, scheduler, label);
        const crm: CrmClient = { send: (request, options) => scheduler.schedule(world.client.send(request, options), `${label} crm`) };
        return world.worker({ crmSync: new DynamoCrmSyncRepository(kit, world.clock, ids), client: crm });
      };
      const writerKit = new ScheduledKit(world.table.name, scheduler, 'writer');
      const writer = new DynamoSessionRepository(writerKit, world.clock, new DynamoCrmSyncRepository(writerKit, world.clock, ids));
      const tasks = [workerOf('A').run(), workerOf('B').run(), writeDuringRun ? writer.put({ ...session, segment: 'CLINICO', qualificationData: { sampleType: 'blood' } }) : Promise.resolve()];
      await scheduler.waitFor(Promise.all(tasks));

      // Whatever is still due (the write's revision) goes out on a later run.
      world.clock.advance(120_000);
      await world.worker().run();

      const received = world.crm.received().filter((entry) => entry.request.sessionId === session.sessionId);
      const keys = received.map((entry) => entry.idempotencyKey);
      expect(new Set(keys).size).toBe(keys.length);
      expect(received.filter((entry) => entry.handling === 'created')).toHaveLength(1);
      expect(world.crm.deals().filter((deal) => deal.sessionId === session.sessionId)).toHaveLength(1);
      const row = (await world.repositories.crmSync.get(session.sessionId))!;
      expect(row).toMatchObject({ status: 'SYNCED', syncedRevision: row.revision });
      expect(world.crm.deals().find((deal) => deal.sessionId === session.sessionId)?.revision).toBe(row.revision);
    }),
    { numRuns: 25 },
  );
});
