// Two operators racing for one conversation: what Ana does is conditioned, in DynamoDB, on the owner
// she saw. When the conversation changed hands between her read and her write (released by an
// admin, handed over again, claimed by Bia), her release, close or reply loses, told that Bia has it;
// nothing is sent.
import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import type { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { OperatorActionError } from '../../../../lambda/core/application/operator/operator-errors';
import type { Operator } from '../../../../lambda/core/domain/operator';
import { SessionState } from '../../../../lambda/core/domain/session';
import type { SessionRepository } from '../../../../lambda/core/ports/repositories';
import type { OutboundTextMessage, SentTextMessage, WhatsAppSender } from '../../../../lambda/core/ports/whatsapp-sender';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newSession } from '../../../support/domain-records';
import { newCustomer, newMessageId } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';
import { type OperatorConversations, operatorConversationsOn } from '../../../support/operator-conversations';

let table: TestTable;
let repos: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
const ids = new SequentialIds('race');
const ana: Operator = { phone: '5511900000001', role: 'operator' };
const bia: Operator = { phone: '5511900000002', role: 'operator' };
const admin: Operator = { phone: '5511900000009', role: 'admin' };

class RecordingSender implements WhatsAppSender {
  readonly sent: OutboundTextMessage[] = [];

  async sendText(message: OutboundTextMessage): Promise<SentTextMessage> {
    this.sent.push(message);
    return { providerMessageId: `wamid.sent-${this.sent.length}`, providerMessageIds: [`wamid.sent-${this.sent.length}`] };
  }

  async sendTemplate(): Promise<SentTextMessage> {
    throw new Error('No template is sent in these races');
  }

  async sendMedia(): Promise<SentTextMessage> {
    throw new Error('No attachment is sent in these races');
  }

  async markAsRead(): Promise<void> {}
}

beforeAll(async () => {
  table = await createTestTable('owner-race');
  repos = createDynamoRepositories({ tableName: table.name, clock, ids });
});
afterAll(() => table.drop());

function conversations(sessions: SessionRepository, whatsapp: WhatsAppSender): OperatorConversations {
  return operatorConversationsOn(repos, { clock, ids, whatsapp, sessions });
}

/**
 * The sessions as Ana reads them: `meanwhile` runs after her first read of the conversation, before
 * her write; a read after the lost write sees the conversation as it is now.
 */
function readThen(meanwhile: () => Promise<void>): SessionRepository {
  const racing: DynamoSessionRepository = Object.create(repos.sessions);
  let raced = false;
  racing.getActive = async (customerId) => {
    const seen = await repos.sessions.getActive(customerId);
    if (!raced) {
      raced = true;
      await meanwhile();
    }
    return seen;
  };
  return racing;
}

/** A conversation Ana owns, whose customer wrote a minute ago (the 24-hour window is open). */
async function ownedByAna(): Promise<string> {
  const customerId = newCustomer();
  await repos.sessions.put(newSession(customerId, { state: SessionState.HUMAN_ACTIVE, assignedTo: ana.phone }));
  await repos.messages.append({ customerId, sessionId: 'any', messageId: newMessageId(), direction: 'inbound', role: 'user', text: 'Oi', timestamp: '2026-03-10T11:59:00.000000Z' });
  return customerId;
}

/** An admin gives the conversation back to the agent, the customer asks for a person again, Bia claims it. */
async function changesHandsToBia(customerId: string, whatsapp: WhatsAppSender): Promise<void> {
  const others = conversations(repos.sessions, whatsapp);
  await others.release(admin, customerId);
  const released = (await repos.sessions.getActive(customerId))!;
  await repos.sessions.transitionState(released, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: '2026-03-10T12:00:00Z' } });
  await others.claim(bia, customerId);
}

test.each(['release', 'close', 'reply'] as const)("Ana's %s, read while she owned the conversation, loses once Bia claimed it", async (action) => {
  const customerId = await ownedByAna();
  const whatsapp = new RecordingSender();
  const stale = conversations(readThen(() => changesHandsToBia(customerId, whatsapp)), whatsapp);

  const attempt = action === 'reply' ? stale.reply(ana, customerId, 'Oi, sou a Ana') : stale[action](ana, customerId);

  const refusal = await attempt.then(() => undefined, (error: unknown) => error);
  expect(refusal).toBeInstanceOf(OperatorActionError);
  // Refused as what the conversation is now: Bia's, and said so.
  expect(refusal).toMatchObject({ reason: 'forbidden', problem: { code: 'conversation_taken', assignedTo: bia.phone } });
  expect(await repos.sessions.getActive(customerId)).toMatchObject({ state: SessionState.HUMAN_ACTIVE, assignedTo: bia.phone });
  expect(whatsapp.sent).toEqual([]);
});

test('the send lock is taken only while the session is owned by whom the caller read', async () => {
  const customerId = await ownedByAna();
  const seenByAna = (await repos.sessions.getActive(customerId))!;
  await changesHandsToBia(customerId, new RecordingSender());

  expect(await repos.sessions.acquireHumanSendLock(seenByAna, 'ana-lock', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(false);
  const seenByBia = (await repos.sessions.getActive(customerId))!;
  expect(await repos.sessions.acquireHumanSendLock(seenByBia, 'bia-lock', '2026-03-10T12:00:00Z', '2026-03-10T12:00:30Z')).toBe(true);
});

test("an admin's release, read while Ana owned the conversation, loses once Bia claimed it", async () => {
  const customerId = await ownedByAna();
  const whatsapp = new RecordingSender();
  const stale = conversations(
    readThen(async () => {
      await conversations(repos.sessions, whatsapp).release(ana, customerId);
      const released = (await repos.sessions.getActive(customerId))!;
      await repos.sessions.transitionState(released, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: '2026-03-10T12:00:00Z' } });
      await conversations(repos.sessions, whatsapp).claim(bia, customerId);
    }),
    whatsapp,
  );

  await expect(stale.release(admin, customerId)).rejects.toMatchObject({ reason: 'conflict' });
  expect(await repos.sessions.getActive(customerId)).toMatchObject({ state: SessionState.HUMAN_ACTIVE, assignedTo: bia.phone });
});

test("an admin's close, read while the agent served the conversation, loses once it was handed to people and claimed", async () => {
  const customerId = newCustomer();
  await repos.sessions.put(newSession(customerId, { state: SessionState.QUALIFYING }));
  const stale = conversations(
    readThen(async () => {
      const served = (await repos.sessions.getActive(customerId))!;
      await repos.sessions.transitionState(served, SessionState.QUALIFYING, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: '2026-03-10T12:00:00Z' } });
      await conversations(repos.sessions, new RecordingSender()).claim(bia, customerId);
    }),
    new RecordingSender(),
  );

  await expect(stale.close(admin, customerId)).rejects.toMatchObject({ reason: 'conflict' });
  expect(await repos.sessions.getActive(customerId)).toMatchObject({ state: SessionState.HUMAN_ACTIVE, assignedTo: bia.phone });
});
