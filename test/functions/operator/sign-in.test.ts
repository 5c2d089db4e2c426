// The operator plane's sign-in over real HTTP: a WhatsApp `login` from an operator phone → the
// orchestrator's one-time link → POST /api/session → cookie + CSRF → authenticated calls.
import { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import { hashToken } from '../../../lambda/core/domain/operator-auth';
import { isoMicros } from '../../../lambda/core/domain/timestamps';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { ConsoleClient, lastLoginToken, signInOverWhatsApp } from '../../support/operator-console-client';
import { startOperatorPipeline } from '../../support/pipeline';
import { tableRepositories } from '../../support/dynamo-table';

let pipeline: LocalPipeline;
let agent: ScriptedAgent;
let repositories: ReturnType<typeof tableRepositories>;
const admin = newOperatorPhone();

beforeAll(async () => {
  agent = new ScriptedAgent();
  pipeline = await startOperatorPipeline([admin], { agent });
  repositories = tableRepositories(pipeline.tableName);
});
afterAll(async () => {
  await pipeline.stop();
});

it('signs an admin in from the WhatsApp login message to an authenticated call, without a customer session or the agent', async () => {
  const calls = agent.requests.length;
  await pipeline.sendCustomerMessage(admin, '  LOGIN ');
  await pipeline.waitForIdle();
  const [link] = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === admin);
  expect(link.text).toContain(`${pipeline.consoleUrl}/login#`);
  expect(agent.requests.length).toBe(calls);
  expect((await pipeline.conversation(admin)).session).toBeUndefined();

  const client = new ConsoleClient(pipeline.consoleUrl!);
  const signedIn = await client.signIn(lastLoginToken(pipeline, admin));
  expect(signedIn.status).toBe(200);
  expect(signedIn.body).toMatchObject({ operator: { phone: admin }, role: 'admin', csrfToken: expect.any(String), expiresAt: expect.any(String) });
  expect(signedIn.headers.get('set-cookie')).toMatch(/^__Host-op=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Strict; Path=\/; Max-Age=\d+$/);
  expect(signedIn.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(signedIn.headers.get('x-frame-options')).toBe('DENY');
  expect(signedIn.headers.get('referrer-policy')).toBe('no-referrer');
  expect(signedIn.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);

  const me = await client.call('GET', '/api/session');
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ operator: { phone: admin }, role: 'admin', csrfToken: signedIn.body.csrfToken });

  // Only hashes are stored: neither the login token nor the cookie appears in the table.
  const cookieToken = client.cookie!.split('=')[1];
  expect(await repositories.operatorAuth.getSession(hashToken(cookieToken), new Date())).toMatchObject({ operatorPhone: admin });

  const signedOut = await client.call('DELETE', '/api/session');
  expect(signedOut.status).toBe(200);
  expect(signedOut.headers.get('set-cookie')).toContain('Max-Age=0');
  expect((await client.call('GET', '/api/session')).status).toBe(401);
});

it('treats a non-operator’s login as an ordinary customer message', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'login');
  await pipeline.waitForIdle();
  const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  expect(replies.map((message) => message.text)).toEqual(['Olá! Recebi: login (mensagem 1)']);
  expect((await pipeline.conversation(customer)).session).toMatchObject({ state: 'QUALIFYING' });
});

it('refuses a reused, a forged and an expired token with 401 and creates no session', async () => {
  await pipeline.sendCustomerMessage(admin, 'entrar');
  await pipeline.waitForIdle();
  const token = lastLoginToken(pipeline, admin);
  expect((await new ConsoleClient(pipeline.consoleUrl!).signIn(token)).status).toBe(200);
  const reused = await new ConsoleClient(pipeline.consoleUrl!).signIn(token);
  expect(reused.status).toBe(401);
  expect(reused.headers.get('set-cookie')).toBeNull();

  for (const forged of ['A'.repeat(43), 'not-a-token', '../../etc/passwd', '']) {
    expect((await new ConsoleClient(pipeline.consoleUrl!).signIn(forged)).status).toBe(401);
  }

  const expiring = 'E'.repeat(43);
  await repositories.operatorAuth.putLoginGrant(hashToken(expiring), admin, new Date(Date.now() + 300));
  await new Promise((resolve) => setTimeout(resolve, 400));
  const expired = await new ConsoleClient(pipeline.consoleUrl!).signIn(expiring);
  expect(expired.status).toBe(401);
  expect(expired.body).toMatchObject({ error: 'invalid_token' });
});

it('needs the cookie on every other call (401) and the CSRF token on every change (403)', async () => {
  const client = await signInOverWhatsApp(pipeline, admin);
  expect((await client.call('GET', '/api/conversations', undefined, { cookie: null })).status).toBe(401);
  expect((await client.call('GET', '/api/session', undefined, { cookie: '__Host-op=forged' })).status).toBe(401);
  expect((await client.call('PUT', '/api/me/availability', { available: true }, { cookie: null })).status).toBe(401);

  const missing = await client.call('PUT', '/api/me/availability', { available: true }, { csrf: null });
  expect(missing.status).toBe(403);
  expect(missing.body).toMatchObject({ error: 'bad_csrf_token' });
  expect((await client.call('PUT', '/api/me/availability', { available: true }, { csrf: 'x'.repeat(43) })).status).toBe(403);
  expect((await client.call('DELETE', '/api/session', undefined, { csrf: null })).status).toBe(403);
  // Refused calls changed nothing: the availability map has no entry for the admin yet.
  expect((await repositories.config.get('operator_availability'))?.value ?? {}).not.toHaveProperty(admin);

  const accepted = await client.call('PUT', '/api/me/availability', { available: true });
  expect(accepted.status).toBe(200);
  expect(accepted.body).toMatchObject({ available: true });
});

it('answers the operator’s availability as the handoff notifications see it, on sign-in and on every reload', async () => {
  const client = await signInOverWhatsApp(pipeline, admin);
  await client.call('PUT', '/api/me/availability', { available: false });
  expect((await client.call('GET', '/api/session')).body).toMatchObject({ operator: { phone: admin }, available: false });

  expect((await client.call('PUT', '/api/me/availability', { available: true })).body).toMatchObject({ available: true });
  expect((await client.call('GET', '/api/session')).body).toMatchObject({ available: true });
  expect((await new ConsoleClient(pipeline.consoleUrl!).signIn((await pipeline.loginLink(admin)).split('#')[1])).body).toMatchObject({ available: true });

  // Declared 36 hours ago: that availability has ended, so no handoff would page this operator.
  await repositories.config.setOperatorAvailability(admin, isoMicros(new Date(Date.now() - 36 * 3_600_000)), admin);
  expect((await client.call('GET', '/api/session')).body).toMatchObject({ available: false });

  await client.call('PUT', '/api/me/availability', { available: true });
  expect((await client.call('PUT', '/api/me/availability', { available: false })).body).toEqual({ available: false });
  expect((await client.call('GET', '/api/session')).body).toMatchObject({ available: false });
});

it('gives the local runtime a ready login link for an operator, and none for anybody else', async () => {
  const link = await pipeline.loginLink(admin);
  expect(link).toMatch(new RegExp(`^${pipeline.consoleUrl}/login#[A-Za-z0-9_-]{43}$`));
  expect((await new ConsoleClient(pipeline.consoleUrl!).signIn(link.split('#')[1])).status).toBe(200);
  await expect(pipeline.loginLink(newCustomer())).rejects.toThrow(/neither an admin nor in the operators setting/);
});

// Last two: they leave this address over the limit.
it('limits sign-in attempts per source address', async () => {
  const client = new ConsoleClient(pipeline.consoleUrl!);
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 12; attempt++) statuses.push((await client.signIn('B'.repeat(43))).status);
  expect(statuses).toContain(429);
  const limited = await client.signIn('B'.repeat(43));
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
});

it('signs in a valid link from an address over the limit, and refuses the next failure there with 429', async () => {
  const client = new ConsoleClient(pipeline.consoleUrl!);
  for (let attempt = 0; attempt < 12; attempt++) await client.signIn('C'.repeat(43));
  expect((await client.signIn('C'.repeat(43))).status).toBe(429);

  const valid = await client.signIn((await pipeline.loginLink(admin)).split('#')[1]);
  expect(valid.status).toBe(200);
  expect(valid.body).toMatchObject({ operator: { phone: admin }, role: 'admin' });
  expect((await client.call('GET', '/api/session')).status).toBe(200);

  const failed = await new ConsoleClient(pipeline.consoleUrl!).signIn('D'.repeat(43));
  expect(failed.status).toBe(429);
  expect(failed.body).toMatchObject({ error: 'too_many_attempts' });
  expect(failed.headers.get('set-cookie')).toBeNull();
});
