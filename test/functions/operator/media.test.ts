// The attachment route of the operator API over real HTTP (docs/OPERATOR-API.md#attachments):
// Meta's base64 message ids travel URL-encoded, the message's `at` is required, and a deployment
// without the media bucket has no such route.
import type { FunctionUrlServer } from '../../../local/runtime/function-url-server';
import { SECURITY_HEADERS } from '../../../lambda/operator/http-kit';
import type { ConsoleSite } from '../../../lambda/operator/static-console';
import { SessionState } from '../../../lambda/core/domain/session';
import { newSession } from '../../support/domain-records';
import { createTestTable, tableRepositories, type TestTable } from '../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { InMemoryMediaStore } from '../../support/in-memory-media-store';
import type { ConsoleClient } from '../../support/operator-console-client';
import { operatorSettings, signedInConsole, startOperatorInstance } from '../../support/operator-instances';

const adminPhone = newOperatorPhone();
const WAMID = 'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMzE2RjQ2QjI1QjQ3RDJBAA==';
const AT = '2026-03-10T12:00:01.000000Z';
const MEDIA_ORIGIN = 'https://media-bucket.s3.sa-east-1.amazonaws.com';
/** A console of one page, served with the plane's headers. */
const consolePage: ConsoleSite = { serve: ({ path }) => (path === '/' ? { statusCode: 200, headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html>' } : undefined) };
let table: TestTable;
let repositories: ReturnType<typeof tableRepositories>;
let withBucket: FunctionUrlServer;
let withoutBucket: FunctionUrlServer;
let admin: ConsoleClient;
let adminWithoutBucket: ConsoleClient;
let customerId: string;

beforeAll(async () => {
  table = await createTestTable('operator-media-http');
  repositories = tableRepositories(table.name);
  withBucket = await startOperatorInstance(operatorSettings(table.name, [adminPhone]), { media: { store: new InMemoryMediaStore(), origin: MEDIA_ORIGIN }, console: consolePage });
  withoutBucket = await startOperatorInstance(operatorSettings(table.name, [adminPhone]));
  admin = await signedInConsole(withBucket, repositories, adminPhone);
  adminWithoutBucket = await signedInConsole(withoutBucket, repositories, adminPhone);
  customerId = newCustomer();
  const session = newSession(customerId, { state: SessionState.AWAITING_HUMAN });
  await repositories.sessions.put(session);
  await repositories.messages.append({ customerId, sessionId: session.sessionId, messageId: WAMID, direction: 'inbound', role: 'user', text: 'Oi', timestamp: AT, messageType: 'text' });
});
afterAll(async () => {
  await Promise.all([withBucket.close(), withoutBucket.close()]);
  await table.drop();
});

const mediaPath = (messageId: string, at?: string) => `/api/conversations/${customerId}/messages/${encodeURIComponent(messageId)}/media${at === undefined ? '' : `?at=${encodeURIComponent(at)}`}`;

it("finds the message by its URL-encoded id and `at`: a text message has no attachment (404)", async () => {
  const answer = await admin.call('GET', mediaPath(WAMID, AT));

  expect([answer.status, answer.body.error]).toEqual([404, 'not_found']);
  expect(answer.body.message).toBe('No such message with an attachment in this conversation');
});

it('without `at` the call is a bad query; an id with a separator is a bad id', async () => {
  expect((await admin.call('GET', mediaPath(WAMID))).body.error).toBe('bad_query');
  expect((await admin.call('GET', mediaPath('wamid.a b'))).body.error).toBe('bad_id');
});

it('a deployment without the media bucket has no such call', async () => {
  const answer = await adminWithoutBucket.call('GET', mediaPath(WAMID, AT));

  expect([answer.status, answer.body.error]).toEqual([404, 'not_found']);
  expect(answer.body.message).toBe('No such API call');
});

it("the console's pages may show images, audio and video from the bucket's links, and nothing else from elsewhere", async () => {
  const [withMedia, without] = await Promise.all([fetch(withBucket.url), fetch(withoutBucket.url)]);

  expect(withMedia.headers.get('content-security-policy')).toBe(
    `default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; img-src 'self' ${MEDIA_ORIGIN}; media-src 'self' ${MEDIA_ORIGIN}`,
  );
  // The API's answers keep the plain policy.
  expect((await fetch(`${withBucket.url.replace(/\/$/, '')}/api/session`)).headers.get('content-security-policy')).toBe(SECURITY_HEADERS['content-security-policy']);
  expect(without.status).toBe(404);
});
