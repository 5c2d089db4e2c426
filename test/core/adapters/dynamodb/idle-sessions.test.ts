// The idle index on DynamoDB Local: the agent's sessions listed by last activity up to a cutoff,
// in every key layout, and the idle close's conditions on the session and the inbound marker.
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { InboundAttribute } from '../../../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { KeyLayoutPolicy } from '../../../../lambda/core/adapters/dynamodb/key-layout';
import { ENTITY_TYPE, EntityType, latestInboundKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { type Session, SessionState } from '../../../../lambda/core/domain/session';
import { isoMicros } from '../../../../lambda/core/domain/timestamps';
import { ConditionFailedError } from '../../../../lambda/core/ports/repositories';
import { newSession } from '../../../support/domain-records';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newCustomer } from '../../../support/ids';
import { ManualClock } from '../../../support/manual-clock';

let table: TestTable;
let kit: DynamoKit;
const clock = new ManualClock('2026-05-01T12:00:00.000Z');

beforeAll(async () => {
  table = await createTestTable('idle');
  kit = new DynamoKit({ tableName: table.name });
});
afterAll(() => table.drop());

const repository = (layout: KeyLayout) => new DynamoSessionRepository(kit, clock, undefined, new KeyLayoutPolicy(layout, kit, clock));
const at = (hour: number) => isoMicros(`2026-05-01T${String(hour).padStart(2, '0')}:00:00Z`);

async function allIdle(sessions: DynamoSessionRepository, state: SessionState, idleSince: string): Promise<Session[]> {
  const seen: Session[] = [];
  let cursor: string | undefined;
  do {
    const page = await sessions.listIdle(state, idleSince, { limit: 2, cursor });
    seen.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

test.each([KeyLayout.SEED, KeyLayout.MIGRATING, KeyLayout.SHARDED])('lists the agent’s sessions quiet since the cutoff, longest idle first, in the %s layout', async (layout) => {
  const sessions = repository(layout);
  const state = SessionState.QUALIFYING;
  // Created at midnight, last answered at 02:00 … 09:00.
  const written = [2, 5, 3, 9].map((hour) => newSession(newCustomer(), { state, createdAt: at(0), updatedAt: at(hour) }));
  for (const session of written) await sessions.put(session);

  const listed = (await allIdle(sessions, state, at(5))).filter((session) => written.some((mine) => mine.sessionId === session.sessionId));
  expect(listed.map((session) => session.updatedAt)).toEqual([at(2), at(3), at(5)]);
});

test('only the agent’s states are listed by last activity', async () => {
  await expect(repository(KeyLayout.SEED).listIdle(SessionState.AWAITING_HUMAN, at(5))).rejects.toThrow(RangeError);
});

describe('the idle close', () => {
  const sessions = () => repository(KeyLayout.SEED);
  const idleSession = async () => {
    const session = newSession(newCustomer(), { state: SessionState.QUALIFYING, createdAt: at(1), updatedAt: at(2) });
    await sessions().put(session);
    return session;
  };
  const marker = (customerId: string, updatedAt: string, pending: string[]) =>
    kit.put({ item: { ...latestInboundKey(customerId), [ENTITY_TYPE]: EntityType.latestInbound, [InboundAttribute.phoneNumber]: customerId, [InboundAttribute.latestMessageId]: 'wamid.X', [InboundAttribute.pendingMessageIds]: pending, [InboundAttribute.updatedAt]: updatedAt } });
  const close = (session: Session, idleSince: string) => sessions().transitionState(session, session.state, SessionState.CLOSED, { idleSince });

  test('closes a session quiet since the cutoff, whose customer’s last message was settled before it', async () => {
    const session = await idleSession();
    await marker(session.customerId, at(2), []);
    expect(await close(session, at(3))).toMatchObject({ state: SessionState.CLOSED });
  });

  test('fails when the customer wrote after the cutoff, even once settled, or a message still waits', async () => {
    const wroteLater = await idleSession();
    await marker(wroteLater.customerId, at(4), []);
    await expect(close(wroteLater, at(3))).rejects.toBeInstanceOf(ConditionFailedError);

    const waiting = await idleSession();
    await marker(waiting.customerId, at(2), ['wamid.X']);
    await expect(close(waiting, at(3))).rejects.toBeInstanceOf(ConditionFailedError);

    for (const session of [wroteLater, waiting]) expect((await sessions().get(session.customerId, session.sessionId))?.state).toBe(SessionState.QUALIFYING);
  });

  test('fails when the session changed since it was read, or its last activity is after the cutoff', async () => {
    const session = await idleSession();
    // A turn answered at 02:30, after the sweep read the session.
    await sessions().put({ ...session, updatedAt: isoMicros('2026-05-01T02:30:00Z') });
    await expect(close(session, at(3))).rejects.toBeInstanceOf(ConditionFailedError);
    expect((await sessions().get(session.customerId, session.sessionId))?.state).toBe(SessionState.QUALIFYING);

    const recent = await idleSession();
    await expect(close(recent, at(1))).rejects.toBeInstanceOf(ConditionFailedError);
  });
});
