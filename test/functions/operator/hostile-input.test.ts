// Hostile input to every operator route: a clear 4xx, and nothing written (the audit stays empty
// and the conversation keeps its state).
import { createHash, randomBytes } from 'node:crypto';
import type { Item } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { cursorSigningKey } from '../../../lambda/core/adapters/dynamodb/keys';
import { PageCursors } from '../../../lambda/core/adapters/dynamodb/page-cursor';
import { KEY_NAMES } from '../../../lambda/core/adapters/dynamodb/repository-support';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { type ConsoleClient, signInOverWhatsApp } from '../../support/operator-console-client';
import { startOperatorPipeline } from '../../support/pipeline';
import { tableRepositories } from '../../support/dynamo-table';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let customer: string;
const adminPhone = newOperatorPhone();

/** Every route that changes something, with a valid body. */
const WRITES: ReadonlyArray<readonly [method: string, path: (id: string) => string, body: unknown]> = [
  ['POST', (id) => `/api/conversations/${id}/claim`, {}],
  ['POST', (id) => `/api/conversations/${id}/messages`, { text: 'Oi' }],
  ['POST', (id) => `/api/conversations/${id}/release`, {}],
  ['POST', (id) => `/api/conversations/${id}/close`, {}],
  ['PUT', () => '/api/me/availability', { available: true }],
  ['PUT', () => '/api/admin/prompts/system', { content: 'Prompt', expectedVersion: 0 }],
  ['POST', () => '/api/admin/prompts/system/rollback', { targetVersion: 1 }],
  ['PUT', () => '/api/admin/config/availability_ttl_hours', { value: 8, expectedVersion: 0 }],
];

beforeAll(async () => {
  pipeline = await startOperatorPipeline([adminPhone]);
  repositories = tableRepositories(pipeline.tableName);
  customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Oi #humano');
  await pipeline.waitForIdle();
  admin = await signInOverWhatsApp(pipeline, adminPhone);
});
afterAll(async () => {
  await pipeline.stop();
});

async function auditedActions(): Promise<string[]> {
  return (await repositories.audit.listRecent({ limit: 100 })).items.map((event) => event.action).filter((action) => action !== 'operator.sign_in');
}

it('refuses bad JSON, wrong media types, non-objects, unknown and mistyped fields with 400/415', async () => {
  for (const [method, path] of WRITES) {
    const url = path(customer);
    expect((await admin.call(method, url, undefined, { rawBody: '{"text": "Oi"' })).status).toBe(400);
    expect((await admin.call(method, url, undefined, { rawBody: '[1,2]' })).status).toBe(400);
    expect((await admin.call(method, url, undefined, { rawBody: '"text"' })).status).toBe(400);
    expect((await admin.call(method, url, undefined, { rawBody: '{"text":"Oi"}', contentType: 'text/plain' })).status).toBe(415);
    const unknown = await admin.call(method, url, { text: 'Oi', available: true, content: 'x', expectedVersion: 0, value: 1, targetVersion: 1, isAdmin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'unknown_field' });
  }
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 42 })).status).toBe(400);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: '   ' })).status).toBe(400);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, {})).status).toBe(400);
  expect((await admin.call('PUT', '/api/me/availability', { available: 'yes' })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/prompts/system', { content: 'x', expectedVersion: 1.5 })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/prompts/system', { content: 'x', expectedVersion: -1 })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/prompts/system', { content: ' ', expectedVersion: 0 })).status).toBe(400);
  expect((await admin.call('POST', '/api/admin/prompts/system/rollback', { targetVersion: '1' })).status).toBe(400);
  expect((await admin.call('GET', '/api/admin/audit?limit=0')).status).toBe(400);
  expect((await admin.call('GET', '/api/admin/audit?cursor=forged')).status).toBe(400);
  expect((await admin.call('POST', '/api/session', undefined, { rawBody: 'token=abc', contentType: 'application/x-www-form-urlencoded', cookie: null })).status).toBe(415);
  expect(await auditedActions()).toEqual([]);
  expect((await pipeline.conversation(customer)).session?.state).toBe('AWAITING_HUMAN');
  expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();
  expect(await repositories.config.get('availability_ttl_hours')).toBeUndefined();
});

it('refuses huge bodies with 413', async () => {
  const huge = { text: 'x'.repeat(70 * 1024) };
  for (const [method, path] of WRITES) expect((await admin.call(method, path(customer), huge)).status).toBe(413);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 'x'.repeat(5000) })).status).toBe(400);
  expect(await auditedActions()).toEqual([]);
});

it('refuses ids that are not plain segments, and unknown paths', async () => {
  for (const id of ['..', '.', '%2e%2e', 'a%2Fb', 'x'.repeat(129), 'SESSION#1', "1' OR '1'='1"]) {
    const answer = await admin.call('POST', `/api/conversations/${encodeURI(id).replace(/#/g, '%23')}/claim`, {});
    // `.`/`..` are resolved by the URL itself; whatever path results, the answer is a 4xx.
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  }
  expect((await admin.call('GET', '/api/conversations/../session')).status).not.toBe(500);
  expect((await admin.call('GET', '/api/nothing-here')).status).toBe(404);
  expect((await admin.call('GET', '/etc/passwd')).status).toBe(404);
  expect((await admin.call('GET', '/api/conversations/a/b/c/d')).status).toBe(404);
  expect(await auditedActions()).toEqual([]);
  expect((await pipeline.conversation(customer)).session?.state).toBe('AWAITING_HUMAN');
});

it('answers wrong methods with 405 and the allowed ones', async () => {
  const wrong = await admin.call('DELETE', `/api/conversations/${customer}/claim`);
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get('allow')).toBe('POST');
  expect((await admin.call('PATCH', '/api/session', {})).status).toBe(405);
  expect((await admin.call('GET', '/api/me/availability')).status).toBe(405);
  expect((await admin.call('POST', '/', {})).status).toBe(405);
  expect(await auditedActions()).toEqual([]);
});

it('serves the console page with the security headers and no inline script', async () => {
  const page = await admin.call('GET', '/login');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toContain('text/html');
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
  expect(page.body).not.toMatch(/\sstyle=/);
  expect((await admin.call('GET', '/no-such-page')).status).toBe(404);
});

it('takes back only cursors signed with the deployment’s key: the table-name derivation and other keys are refused with 400 bad_query', async () => {
  // Enough audit events for the list to page.
  for (let index = 0; index < 3; index++) await repositories.audit.record({ eventId: `cursor-${index}`, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(), author: adminPhone, action: 'test.cursor', resourceType: 'test', resourceId: String(index) });
  const first = await admin.call('GET', '/api/admin/audit?limit=1');
  expect(first.status).toBe(200);
  const issued = (first.body as { cursor: string }).cursor;
  const lastKey = JSON.parse(Buffer.from(issued.split('.')[0], 'base64url').toString('utf8')) as Item;
  // The audit list's query, as its repository asks for it: the cursor's scope.
  const scope = new PageCursors(pipeline.tableName, Buffer.alloc(32)).scope({ keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)', names: KEY_NAMES, values: { ':pk': 'ADMIN#AUDIT', ':prefix': 'AUDIT#' }, newestFirst: true });
  const signedWith = (key: Buffer) => encodeURIComponent(new PageCursors(pipeline.tableName, key).encode(lastKey, scope));
  const stored = await repositories.kit.get({ key: cursorSigningKey(), consistentRead: true });
  const deploymentKey = Buffer.from(String(stored?.key), 'hex');

  expect((await admin.call('GET', `/api/admin/audit?limit=1&cursor=${signedWith(deploymentKey)}`)).status).toBe(200);
  for (const key of [createHash('sha256').update(`agent-table-cursor\0${pipeline.tableName}`).digest(), randomBytes(32)]) {
    const refused = await admin.call('GET', `/api/admin/audit?limit=1&cursor=${signedWith(key)}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'bad_query' });
  }
});
