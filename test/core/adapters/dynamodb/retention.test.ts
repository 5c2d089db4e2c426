import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { demandKey, messageKey, sessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { newMessageId, newCustomer } from '../../../support/ids';
import { newSession } from '../../../support/domain-records';
import { ManualClock } from '../../../support/manual-clock';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';

let table: TestTable;
let repos: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
const DAY = 86_400;
const retention = { conversationSeconds: 30 * DAY, demandSeconds: 90 * DAY };
const epoch = (iso: string) => Date.parse(iso) / 1000;

beforeAll(async () => {
  table = await createTestTable('retention');
  repos = createDynamoRepositories({ tableName: table.name, clock, retention });
});
afterAll(() => table.drop());

test('closing a session sets its TTL and its messages’, and once it passes the reads see nothing (DynamoDB deletes late)', async () => {
  clock.set('2026-03-10T12:00:00.000Z');
  const customerId = newCustomer();
  const session = newSession(customerId);
  const other = newSession(customerId, { sessionId: `${session.sessionId}-other` });
  await repos.sessions.put(other);
  await repos.sessions.put(session);
  const [mine, theirs] = [newMessageId(), newMessageId()];
  await repos.messages.append({ customerId, sessionId: session.sessionId, messageId: mine, direction: 'inbound', role: 'user', text: 'olá', timestamp: '2026-03-10T11:00:00.000000Z' });
  await repos.messages.append({ customerId, sessionId: other.sessionId, messageId: theirs, direction: 'inbound', role: 'user', text: 'outra', timestamp: '2026-03-10T11:30:00.000000Z' });
  expect((await repos.kit.get({ key: sessionKey(customerId, session.sessionId) }))?.ttl).toBeUndefined();

  clock.set('2026-03-11T12:00:00.000Z');
  await repos.sessions.transitionState(session, 'QUALIFYING', 'CLOSED');
  const ttl = epoch('2026-03-11T12:00:00.000Z') + 30 * DAY;
  expect((await repos.kit.get({ key: sessionKey(customerId, session.sessionId) }))?.ttl).toBe(ttl);
  expect((await repos.kit.get({ key: messageKey(customerId, '2026-03-10T11:00:00.000000Z', mine) }))?.ttl).toBe(ttl);
  // The open session's messages are not touched.
  expect((await repos.kit.get({ key: messageKey(customerId, '2026-03-10T11:30:00.000000Z', theirs) }))?.ttl).toBeUndefined();

  clock.set(new Date((ttl - 1) * 1000));
  expect(await repos.sessions.get(customerId, session.sessionId)).toBeDefined();
  clock.set(new Date(ttl * 1000));
  expect(await repos.sessions.get(customerId, session.sessionId)).toBeUndefined();
  expect(await repos.messages.historyForSession(customerId, session.sessionId, 10)).toEqual([]);
  expect((await repos.messages.history(customerId)).items.map((message) => message.messageId)).toEqual([theirs]);
});

test('a demand expires demandRetention after it was recorded, and the list hides it once due', async () => {
  clock.set('2026-03-10T12:00:00.000Z');
  const recordedAt = '2026-03-10T12:00:00.000000Z';
  const demandId = `d-${newCustomer()}`;
  await repos.demands.record({ demandId, sourceMessageId: newMessageId(), customerId: newCustomer(), requestedService: 'x', originalMessage: 'y', recordedAt });
  expect((await repos.kit.get({ key: demandKey(recordedAt, demandId) }))?.ttl).toBe(epoch(recordedAt) + 90 * DAY);
  expect((await repos.demands.listRecent()).items.map((demand) => demand.demandId)).toContain(demandId);
  clock.set(new Date((epoch(recordedAt) + 90 * DAY) * 1000));
  expect((await repos.demands.listRecent()).items.map((demand) => demand.demandId)).not.toContain(demandId);
});
