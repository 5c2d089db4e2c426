import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { loginGrantKey, operatorSessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoOperatorAuthRepository } from '../../../../lambda/core/adapters/dynamodb/operator-auth-repository';
import { ConditionFailedError } from '../../../../lambda/core/ports/repositories';
import { hashToken } from '../../../../lambda/core/domain/operator-auth';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { ManualClock } from '../../../support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const clock = new ManualClock();
let auth: DynamoOperatorAuthRepository;
let tokens = 0;
const newTokenHash = () => hashToken(`raw-token-${++tokens}-${Math.random()}`);

beforeAll(async () => {
  table = await createTestTable('auth');
  kit = new DynamoKit({ tableName: table.name });
  auth = new DynamoOperatorAuthRepository(kit, clock);
});
afterAll(() => table.drop());
beforeEach(() => clock.set('2026-03-10T15:00:00.000Z')); // 12:00 in São Paulo

describe('login grants', () => {
  test('stored by token hash with at most 10 minutes of validity, and a TTL for cleanup', async () => {
    const tokenHash = newTokenHash();
    const grant = await auth.putLoginGrant(tokenHash, '5511999990000', new Date('2026-03-10T18:00:00Z'));

    expect(grant).toEqual({ tokenHash, operatorPhone: '5511999990000', createdAt: '2026-03-10T15:00:00.000000Z', expiresAt: '2026-03-10T15:10:00.000000Z' });
    const stored = await kit.get({ key: loginGrantKey(tokenHash), consistentRead: true });
    expect(stored).toMatchObject({ token_hash: tokenHash, ttl: Date.parse('2026-03-10T15:10:00Z') / 1000 });
    expect(JSON.stringify(stored)).not.toContain('raw-token');

    const shorter = await auth.putLoginGrant(newTokenHash(), '5511999990000', new Date('2026-03-10T15:02:00Z'));
    expect(shorter.expiresAt).toBe('2026-03-10T15:02:00.000000Z');
    await expect(auth.putLoginGrant(tokenHash, 'someone-else')).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(auth.putLoginGrant('raw-token-not-hashed', '5511999990000')).rejects.toThrow(TypeError);
  });

  test('a grant issued just before local midnight ends at midnight', async () => {
    clock.set('2026-03-11T02:55:00Z'); // 23:55 in São Paulo (UTC-3)
    const grant = await auth.putLoginGrant(newTokenHash(), '5511999990000');
    expect(grant.expiresAt).toBe('2026-03-11T03:00:00.000000Z');

    const tokyo = new DynamoOperatorAuthRepository(kit, clock, 'Asia/Tokyo');
    clock.set('2026-03-10T14:58:00Z'); // 23:58 in Tokyo (UTC+9)
    expect((await tokyo.putLoginGrant(newTokenHash(), '5511999990000')).expiresAt).toBe('2026-03-10T15:00:00.000000Z');
  });

  test('consumed once, only while unexpired — an expired grant does not authenticate though the item still exists', async () => {
    const valid = newTokenHash();
    const grant = await auth.putLoginGrant(valid, '5511999990000');
    expect(await auth.consumeLoginGrant(valid, new Date('2026-03-10T15:09:59Z'))).toEqual(grant);
    expect(await auth.consumeLoginGrant(valid, new Date('2026-03-10T15:09:59Z'))).toBeUndefined();

    const expired = newTokenHash();
    await auth.putLoginGrant(expired, '5511999990000');
    expect(await auth.consumeLoginGrant(expired, new Date('2026-03-10T15:10:00Z'))).toBeUndefined();
    expect(await kit.get({ key: loginGrantKey(expired), consistentRead: true })).toBeDefined();
    expect(await auth.consumeLoginGrant(newTokenHash(), new Date('2026-03-10T15:00:00Z'))).toBeUndefined();
  });

  test('parallel consumers: exactly one gets the grant', async () => {
    const tokenHash = newTokenHash();
    await auth.putLoginGrant(tokenHash, '5511999990000');
    const results = await Promise.all(Array.from({ length: 6 }, () => auth.consumeLoginGrant(tokenHash, new Date('2026-03-10T15:01:00Z'))));
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
  });
});

describe('operator sessions', () => {
  test('expire at the next local midnight even though the item outlives it', async () => {
    const tokenHash = newTokenHash();
    const session = await auth.putSession({ tokenHash, operatorPhone: '5511999990000', csrfToken: 'csrf-123' });

    expect(session.expiresAt).toBe('2026-03-11T03:00:00.000000Z');
    expect(await auth.getSession(tokenHash, new Date('2026-03-11T02:59:59Z'))).toEqual(session);
    expect(await auth.getSession(tokenHash, new Date('2026-03-11T03:00:00Z'))).toBeUndefined();
    expect(await kit.get({ key: operatorSessionKey(tokenHash), consistentRead: true })).toMatchObject({ csrf_token: 'csrf-123', ttl: Date.parse('2026-03-11T03:00:00Z') / 1000 });

    await auth.deleteSession(tokenHash);
    expect(await auth.getSession(tokenHash, new Date('2026-03-10T16:00:00Z'))).toBeUndefined();
    await expect(auth.getSession('not-a-hash', new Date())).rejects.toThrow(TypeError);
  });
});

describe('revoking an operator', () => {
  test('deletes every session and login grant of the operator by key, with their references, and no one else’s', async () => {
    const phone = '5511988880001';
    const other = '5511988880002';
    const sessions = [newTokenHash(), newTokenHash(), newTokenHash()];
    for (const tokenHash of sessions) await auth.putSession({ tokenHash, operatorPhone: phone, csrfToken: 'csrf' });
    const grant = newTokenHash();
    await auth.putLoginGrant(grant, phone);
    const theirs = newTokenHash();
    await auth.putSession({ tokenHash: theirs, operatorPhone: other, csrfToken: 'csrf' });
    // Signed out already: its reference remains, and there is nothing live to count.
    await auth.deleteSession(sessions[2]);

    expect(await auth.revokeAll(phone, clock.now())).toEqual({ sessions: 2, loginGrants: 1 });
    for (const tokenHash of sessions) expect(await auth.getSession(tokenHash, clock.now())).toBeUndefined();
    expect(await auth.consumeLoginGrant(grant, clock.now())).toBeUndefined();
    expect(await kit.queryPage({ keyCondition: '#pk = :pk', names: { '#pk': 'PK' }, values: { ':pk': `CUSTOMER#${phone}` }, consistentRead: true })).toEqual({ items: [] });
    expect(await auth.getSession(theirs, clock.now())).toMatchObject({ operatorPhone: other });
    expect(await auth.revokeAll(phone, clock.now())).toEqual({ sessions: 0, loginGrants: 0 });
  });

  test('counts only what was still live, and pages through many references', async () => {
    const phone = '5511988880003';
    for (let index = 0; index < 120; index++) await auth.putSession({ tokenHash: newTokenHash(), operatorPhone: phone, csrfToken: 'csrf' });
    const expiring = newTokenHash();
    await auth.putLoginGrant(expiring, phone, new Date('2026-03-10T15:01:00Z'));
    expect(await auth.revokeAll(phone, new Date('2026-03-10T15:05:00Z'))).toEqual({ sessions: 120, loginGrants: 0 });
    expect(await kit.get({ key: loginGrantKey(expiring), consistentRead: true })).toBeUndefined();
  });
});
