import { CrmWebhookUrlError, SignedWebhookCrmClient } from '../../../lambda/core/adapters/crm/signed-webhook-crm-client';
import { CrmSyncStatus, crmRetryDelayMs } from '../../../lambda/core/domain/crm-sync';
import type { Session } from '../../../lambda/core/domain/session';
import { newCustomer } from '../../support/ids';
import { newSession } from '../../support/domain-records';
import { type CrmWorld, startCrmWorld } from '../../support/crm-world';

let world: CrmWorld;

beforeAll(async () => {
  world = await startCrmWorld('crm-worker');
});
afterAll(() => world.close());

/** Nothing else is due: each test starts from an empty backlog. */
afterEach(async () => {
  world.clock.advance(24 * 3_600_000);
  await world.worker({ limits: { maxRowsPerRun: 1_000 } }).run();
});

async function qualifyingSession(overrides: Partial<Session> = {}): Promise<Session> {
  const session = newSession(newCustomer(), { state: 'QUALIFYING', segment: 'PESQUISA', ...overrides });
  await world.repositories.sessions.put(session);
  return session;
}

const requestsFor = (sessionId: string) => world.crm.received().filter((received) => received.request.sessionId === sessionId);
const row = async (sessionId: string) => (await world.repositories.crmSync.get(sessionId))!;

describe('publishing the projection', () => {
  test('a qualified conversation reaches the CRM with its stage, and later stages update the same deal', async () => {
    const session = await qualifyingSession();

    const report = await world.worker().run();

    expect(report).toMatchObject({ sent: 1, examined: 1 });
    const [created] = requestsFor(session.sessionId);
    expect(created).toMatchObject({ handling: 'created', idempotencyKey: `${session.sessionId}:${created.request.revision}` });
    expect(created.request).toMatchObject({ version: '1', customerId: session.customerId, deal: { stage: 'qualifying', segment: 'PESQUISA' } });
    expect(created.request.dealId).toBeUndefined();
    const synced = await row(session.sessionId);
    const deal = world.crm.deals().find((entry) => entry.sessionId === session.sessionId)!;
    expect(synced).toMatchObject({ status: 'SYNCED', dealId: deal.dealId, contactId: deal.contactId, syncedRevision: created.request.revision, attempts: 0 });
    expect(synced.claimedUntil).toBeUndefined();
    expect(synced.dealCreationStartedAt).toBeUndefined();

    const current = (await world.repositories.sessions.get(session.customerId, session.sessionId))!;
    await world.repositories.sessions.transitionState(current, 'QUALIFYING', 'AWAITING_HUMAN');
    await world.worker().run();

    const requests = requestsFor(session.sessionId);
    expect(requests.map((entry) => entry.handling)).toEqual(['created', 'updated']);
    expect(requests[1].request).toMatchObject({ dealId: deal.dealId, contactId: deal.contactId, deal: { stage: 'handoff' } });
    expect(world.crm.deals().filter((entry) => entry.sessionId === session.sessionId)).toEqual([expect.objectContaining({ stage: 'handoff' })]);
  });

  test('an identical revision sends nothing; a changed one is sent exactly once', async () => {
    const session = await qualifyingSession();
    await world.worker().run();
    await world.repositories.sessions.put(session);
    await world.worker().run();
    expect(requestsFor(session.sessionId)).toHaveLength(1);

    await world.repositories.sessions.put({ ...session, qualificationData: { sampleType: 'saliva' } });
    await world.worker().run();
    await world.worker().run();

    const requests = requestsFor(session.sessionId);
    expect(requests).toHaveLength(2);
    expect(requests[1].request.deal).toMatchObject({ qualification: { sampleType: 'saliva' } });
    expect((await row(session.sessionId)).status).toBe('SYNCED');
  });

  test('due rows go out earliest first, bounded per run, and a run stops when its time runs short', async () => {
    const sessions: Session[] = [];
    for (let index = 0; index < 3; index++) {
      sessions.push(await qualifyingSession());
      world.clock.advance(1_000);
    }
    const before = world.crm.received().length;

    expect(await world.worker().run(() => 1_000)).toMatchObject({ examined: 0, sent: 0, stoppedBy: 'time' });
    expect(await world.worker({ limits: { maxRowsPerRun: 2 } }).run()).toMatchObject({ examined: 2, sent: 2, stoppedBy: 'row_limit' });
    expect(await world.worker().run()).toMatchObject({ examined: 1, sent: 1 });

    expect(world.crm.received().slice(before).map((entry) => entry.request.sessionId)).toEqual(sessions.map((session) => session.sessionId));
  });

  test('a NEW conversation is not published', async () => {
    const session = newSession(newCustomer(), { state: 'NEW' });
    await world.repositories.sessions.put(session);
    await world.worker().run();
    expect(requestsFor(session.sessionId)).toHaveLength(0);
  });
});

describe('failures', () => {
  test('retryable answers back off with jitter, then the send succeeds', async () => {
    const session = await qualifyingSession();
    world.crm.failNext(503);
    world.crm.failNext(429);

    expect(await world.worker().run()).toMatchObject({ retrying: 1 });
    const first = await row(session.sessionId);
    expect(first).toMatchObject({ status: 'PENDING', attempts: 1, lastError: 'crm_http_503' });
    expect(first.dealCreationStartedAt).toBeUndefined();
    expect(Date.parse(first.nextAttemptAt) - world.clock.now().getTime()).toBe(crmRetryDelayMs(1, 0.5));

    // Not due yet: nothing is sent.
    await world.worker().run();
    expect(requestsFor(session.sessionId)).toHaveLength(1);

    world.clock.set(first.nextAttemptAt);
    await world.worker().run();
    const second = await row(session.sessionId);
    expect(second).toMatchObject({ status: 'PENDING', attempts: 2, lastError: 'crm_http_429' });
    expect(Date.parse(second.nextAttemptAt) - world.clock.now().getTime()).toBe(crmRetryDelayMs(2, 0.5));
    expect(crmRetryDelayMs(2, 0.5)).toBeGreaterThan(crmRetryDelayMs(1, 0.5));

    world.clock.set(second.nextAttemptAt);
    await world.worker().run();
    expect(requestsFor(session.sessionId).map((entry) => entry.handling)).toEqual(['failed', 'failed', 'created']);
    expect(await row(session.sessionId)).toMatchObject({ status: 'SYNCED', attempts: 0 });
  });

  test('the jitter stays between half and all of the capped exponential wait', () => {
    expect(crmRetryDelayMs(1, 0)).toBe(15_000);
    expect(crmRetryDelayMs(1, 0.999_999)).toBeLessThanOrEqual(30_000);
    expect(crmRetryDelayMs(3, 0)).toBe(60_000);
    expect(crmRetryDelayMs(30, 0.999_999)).toBeLessThanOrEqual(3_600_000);
  });

  test('the attempt budget exhausted → BLOCKED, and nothing more is sent', async () => {
    const session = await qualifyingSession();
    world.crm.failNext(503, 6);
    let blocked = 0;
    for (let run = 0; run < 7; run++) {
      blocked += (await world.worker().run()).blocked;
      world.clock.advance(2 * 3_600_000);
    }
    expect(requestsFor(session.sessionId)).toHaveLength(6);
    expect(blocked).toBe(1);
    expect(await row(session.sessionId)).toMatchObject({ status: 'BLOCKED', attempts: 6, lastError: 'crm_http_503 (gave up after 6 attempts)' });
    expect((await world.repositories.crmSync.problems()).find((entry) => entry.status === 'BLOCKED')?.count).toBeGreaterThan(0);
  });

  test('a permanent refusal → BLOCKED at once with the reason; a later change of content goes out again', async () => {
    const session = await qualifyingSession();
    world.crm.refuseNext('email is not valid');

    expect(await world.worker().run()).toMatchObject({ blocked: 1 });
    expect(await row(session.sessionId)).toMatchObject({ status: 'BLOCKED', lastError: 'crm_http_422: email is not valid' });

    await world.repositories.sessions.put({ ...session, cadastralData: { email: 'ana@example.com' } });
    await world.worker().run();
    expect(requestsFor(session.sessionId).map((entry) => entry.handling)).toEqual(['refused', 'created']);
  });

  test('a timeout after the request left → UNCERTAIN, and the deal is never created a second time', async () => {
    const session = await qualifyingSession();
    world.crm.hangNext(2_000);

    expect(await world.worker({ limits: { sendTimeoutMs: 200 } }).run()).toMatchObject({ uncertain: 1 });
    const uncertain = await row(session.sessionId);
    expect(uncertain).toMatchObject({ status: 'UNCERTAIN', lastError: 'crm_timeout after 200 ms' });
    expect(uncertain.dealCreationStartedAt).toBeDefined();
    expect(uncertain.dealId).toBeUndefined();

    // New content keeps the row UNCERTAIN: nothing goes out until a person reconciles it.
    await world.repositories.sessions.put({ ...session, segment: 'CLINICO' });
    world.clock.advance(3_600_000);
    await world.worker().run();

    expect(requestsFor(session.sessionId)).toHaveLength(1);
    expect(world.crm.deals().filter((entry) => entry.sessionId === session.sessionId)).toHaveLength(1);
    expect((await row(session.sessionId)).status).toBe('UNCERTAIN');
  });

  test('a CRM that cannot be reached is retried (nothing left), not uncertain', async () => {
    const session = await qualifyingSession();
    const unreachable = new SignedWebhookCrmClient({ url: 'http://127.0.0.1:9/crm', secret: async () => world.crm.secret });

    await world.worker({ client: unreachable }).run();

    expect(await row(session.sessionId)).toMatchObject({ status: 'PENDING', attempts: 1, lastError: expect.stringMatching(/^crm_unreachable: /) });
  });

  test('a wrong signing secret is refused by the CRM (401) and blocks the row', async () => {
    const session = await qualifyingSession();
    const badlySigned = new SignedWebhookCrmClient({ url: world.crm.url, secret: async () => 'not-the-secret' });
    const rejectedBefore = world.crm.badSignatures;

    await world.worker({ client: badlySigned }).run();

    expect(world.crm.badSignatures).toBe(rejectedBefore + 1);
    expect(requestsFor(session.sessionId)).toHaveLength(0);
    expect(await row(session.sessionId)).toMatchObject({ status: 'BLOCKED', lastError: 'crm_http_401: bad signature' });
  });
});

describe('the webhook URL', () => {
  test.each(['http://crm.example.com/hook', 'ftp://127.0.0.1/x', 'not a url', 'https://user:pw@crm.example.com/'])('%s is refused before anything is sent', (url) => {
    expect(() => new SignedWebhookCrmClient({ url, secret: async () => 's' })).toThrow(CrmWebhookUrlError);
  });

  test.each(['https://crm.example.com/hook', 'http://127.0.0.1:8080/crm', 'http://localhost/crm'])('%s is accepted', (url) => {
    expect(() => new SignedWebhookCrmClient({ url, secret: async () => 's' })).not.toThrow();
  });
});

test('the row stays claimed by its worker: another worker skips it until the claim lapses', async () => {
  const session = await qualifyingSession();
  await world.repositories.crmSync.change(session.sessionId, (current) => ({ ...current, claimedUntil: new Date(world.clock.now().getTime() + 60_000).toISOString() }));

  expect(await world.worker().run()).toMatchObject({ skipped: 1, sent: 0 });
  world.clock.advance(61_000);
  expect(await world.worker().run()).toMatchObject({ sent: 1 });
  expect(requestsFor(session.sessionId)).toHaveLength(1);
  expect(CrmSyncStatus.SYNCED).toBe((await row(session.sessionId)).status);
});
