// The console's CRM view over real HTTP: rows by status, an admin's retry and resolve (audited),
// and refusals that change nothing.
import { KeyLayout } from '../../../lib/contract/key-layout';
import { crmSyncToItem } from '../../../lambda/core/adapters/dynamodb/codecs/crm-sync-codec';
import { type CrmSyncRow, CrmSyncStatus } from '../../../lambda/core/domain/crm-sync';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';
import type { tableRepositories } from '../../support/dynamo-table';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();

beforeAll(async () => {
  // The CRM screen belongs to a deployment with the operator plane and CRM sync: the functions sign as that deployment's.
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, newOperatorPhone(), { crmSync: {} }));
});
afterAll(async () => {
  await pipeline.stop();
});

let sequence = 0;
async function problemRow(status: CrmSyncStatus, extra: Partial<CrmSyncRow> = {}): Promise<CrmSyncRow> {
  sequence++;
  const row: CrmSyncRow = {
    sessionId: `crm-admin-${sequence}-${Date.now()}`,
    customerId: newCustomer(),
    status,
    desired: { contact: {}, deal: { stage: 'qualifying' } },
    revision: `rev-${sequence}`,
    attempts: 6,
    nextAttemptAt: '2026-03-10T12:00:00Z',
    lastError: 'crm_http_503 (gave up after 6 attempts)',
    dealCreationStartedAt: status === CrmSyncStatus.UNCERTAIN ? '2026-03-10T11:59:00Z' : undefined,
    etag: `etag-${sequence}`,
    updatedAt: '2026-03-10T12:00:00Z',
    ...extra,
  };
  // In the layout the pipeline's functions list by: a new deployment's, sharded.
  await repositories.kit.put({ item: crmSyncToItem(row, pipeline.keyLayout !== KeyLayout.SEED) });
  return row;
}

test('lists rows of a status and refuses an unknown status', async () => {
  const blocked = await problemRow(CrmSyncStatus.BLOCKED);
  const listed = await admin.call('GET', '/api/admin/crm/BLOCKED?limit=100');
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((row: CrmSyncRow) => row.sessionId)).toContain(blocked.sessionId);
  expect((await admin.call('GET', '/api/admin/crm/LOST')).status).toBe(400);
});

test('retry puts a BLOCKED row back in the queue with a fresh budget, and is audited', async () => {
  const blocked = await problemRow(CrmSyncStatus.BLOCKED);

  const answer = await admin.call('POST', `/api/admin/crm/${blocked.sessionId}/retry`);

  expect(answer.status).toBe(200);
  expect(answer.body.crmSync).toMatchObject({ sessionId: blocked.sessionId, status: 'PENDING', attempts: 0 });
  const stored = (await repositories.crmSync.get(blocked.sessionId))!;
  expect(stored).toMatchObject({ status: 'PENDING', attempts: 0 });
  expect(stored.lastError).toBeUndefined();
  const audit = await repositories.audit.listRecent({ limit: 20 });
  expect(audit.items).toContainEqual(expect.objectContaining({ author: adminPhone, action: 'crm.retry', resourceId: blocked.sessionId, details: expect.objectContaining({ from: 'BLOCKED' }) }));
});

test('resolve records the ids the admin found in the CRM and clears the uncertainty', async () => {
  const uncertain = await problemRow(CrmSyncStatus.UNCERTAIN);

  const answer = await admin.call('POST', `/api/admin/crm/${uncertain.sessionId}/resolve`, { contactId: 'c-77', dealId: 'd-77' });

  expect(answer.status).toBe(200);
  const stored = (await repositories.crmSync.get(uncertain.sessionId))!;
  expect(stored).toMatchObject({ status: 'PENDING', contactId: 'c-77', dealId: 'd-77', attempts: 0 });
  expect(stored.dealCreationStartedAt).toBeUndefined();
});

test('refusals change nothing: a SYNCED row (409), an unknown session (404), bad bodies (400), an operator (403)', async () => {
  const synced = await problemRow(CrmSyncStatus.SYNCED, { syncedRevision: 'x', dealId: 'd-1', contactId: 'c-1' });
  const uncertain = await problemRow(CrmSyncStatus.UNCERTAIN);

  expect((await admin.call('POST', `/api/admin/crm/${synced.sessionId}/retry`)).status).toBe(409);
  expect((await admin.call('POST', '/api/admin/crm/no-such-session/retry')).status).toBe(404);
  expect((await admin.call('POST', `/api/admin/crm/${uncertain.sessionId}/resolve`, { contactId: 'c' })).body.error).toBe('missing_field');
  expect((await admin.call('POST', `/api/admin/crm/${uncertain.sessionId}/resolve`, { contactId: ' ', dealId: 'd' })).body.error).toBe('bad_field');
  expect((await admin.call('POST', `/api/admin/crm/${uncertain.sessionId}/retry`, { force: true })).body.error).toBe('unknown_field');
  expect((await operator.call('POST', `/api/admin/crm/${uncertain.sessionId}/retry`)).status).toBe(403);
  expect((await operator.call('GET', '/api/admin/crm/UNCERTAIN')).status).toBe(403);

  expect((await repositories.crmSync.get(synced.sessionId))?.etag).toBe(synced.etag);
  expect((await repositories.crmSync.get(uncertain.sessionId))?.etag).toBe(uncertain.etag);
});
