import { SignedWebhookCrmClient } from '../../lambda/core/adapters/crm/signed-webhook-crm-client';
import { createDynamoRepositories, type DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import type { DynamoKitObserver } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { SyncCrmProjections, type CrmSyncWorkerLimits } from '../../lambda/core/application/sync-crm-projections';
import { type CrmSyncRequest, crmSyncRequest } from '../../lambda/core/domain/crm-sync';
import type { CrmClient } from '../../lambda/core/ports/crm-client';
import type { CrmSyncRepository } from '../../lambda/core/ports/repositories';
import { FakeCrm } from '../../local/fake-crm/fake-crm';
import { ManualClock, SequentialIds } from './manual-clock';
import { createTestTable, type TestTable } from './dynamo-table';

/** One pending projection as the worker sends it (contract version 1), for the CRM clients' tests. */
export const PENDING_CRM_REQUEST: CrmSyncRequest = crmSyncRequest({
  sessionId: 's-1',
  customerId: '5511912345678',
  status: 'PENDING',
  desired: { contact: { customerId: '5511912345678' }, deal: { stage: 'qualifying' } },
  revision: 'r-1',
  attempts: 1,
  nextAttemptAt: '2026-03-10T12:00:00Z',
  etag: 'e',
  updatedAt: '2026-03-10T12:00:00Z',
});

/** A table with CRM sync on, a fake CRM over real HTTP and a manual clock. */
export interface CrmWorld {
  readonly table: TestTable;
  readonly repositories: DynamoRepositories;
  readonly clock: ManualClock;
  readonly crm: FakeCrm;
  readonly client: CrmClient;
  worker(options?: { crmSync?: CrmSyncRepository; client?: CrmClient; limits?: Partial<CrmSyncWorkerLimits>; random?: () => number }): SyncCrmProjections;
  close(): Promise<void>;
}

export async function startCrmWorld(label: string, observer?: DynamoKitObserver): Promise<CrmWorld> {
  const table = await createTestTable(label);
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  const repositories = createDynamoRepositories({ tableName: table.name, clock, ids: new SequentialIds(`${label}-etag`), crmSyncEnabled: true, observer });
  const crm = await FakeCrm.start();
  const client = new SignedWebhookCrmClient({ url: crm.url, secret: async () => crm.secret });
  return {
    table,
    repositories,
    clock,
    crm,
    client,
    worker: (options = {}) =>
      new SyncCrmProjections({
        crmSync: options.crmSync ?? repositories.crmSync,
        crm: options.client ?? client,
        clock,
        random: options.random ?? (() => 0.5),
        limits: { sendTimeoutMs: 500, ...options.limits },
      }),
    close: async () => {
      await crm.close();
      await table.drop();
    },
  };
}
