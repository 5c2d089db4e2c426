// Opening a conversation from the inbox: what it reads for the 24-hour window, and the unread marks
// it clears. The sessions, the history and the inbox version are real (DynamoDB Local); the history
// reads are counted.
import { DynamoInboxVersion } from '../../../../lambda/core/adapters/dynamodb/inbox-version';
import { OperatorInbox, type OperatorInboxDependencies } from '../../../../lambda/core/application/operator/operator-inbox';
import type { Message } from '../../../../lambda/core/domain/message';
import type { Operator } from '../../../../lambda/core/domain/operator';
import { SessionState } from '../../../../lambda/core/domain/session';
import type { MessageRepository } from '../../../../lambda/core/ports/repositories';
import { newSession } from '../../../support/domain-records';
import { createTestTable, tableRepositories, type TestTable } from '../../../support/dynamo-table';
import { newCustomer, newMessageId, newOperatorPhone } from '../../../support/ids';

const NOW = new Date('2026-03-10T12:10:00.000Z');
const WROTE_AT = '2026-03-10T12:00:01.000000Z';
const admin: Operator = { phone: newOperatorPhone(), role: 'admin' };
const ana: Operator = { phone: newOperatorPhone(), role: 'operator' };

let table: TestTable;
let repositories: ReturnType<typeof tableRepositories>;
beforeAll(async () => {
  table = await createTestTable('operator-conversations');
  repositories = tableRepositories(table.name);
});
afterAll(async () => {
  await table.drop();
});

/** The use case over the table, with the history reads counted in `historyReads`. */
function conversations(): { readonly use: OperatorInbox; readonly historyReads: () => number } {
  let reads = 0;
  const messages: MessageRepository = Object.create(repositories.messages, {
    history: {
      value: (...args: Parameters<MessageRepository['history']>) => {
        reads++;
        return repositories.messages.history(...args);
      },
    },
  });
  const deps: OperatorInboxDependencies = {
    sessions: repositories.sessions,
    messages,
    clock: { now: () => NOW },
    inboxVersion: new DynamoInboxVersion(repositories.kit, { now: () => NOW }),
  };
  return { use: new OperatorInbox(deps), historyReads: () => reads };
}

async function waitingCustomer(options: { readonly summary: boolean }): Promise<string> {
  const customerId = newCustomer();
  const session = newSession(customerId, { state: SessionState.AWAITING_HUMAN, ...(options.summary && { lastCustomerMessage: { preview: 'Quero falar com uma pessoa', at: WROTE_AT } }) });
  await repositories.sessions.put(session);
  const message: Message = { customerId, sessionId: session.sessionId, messageId: newMessageId(), direction: 'inbound', role: 'user', text: 'Quero falar com uma pessoa', timestamp: WROTE_AT, messageType: 'text' };
  await repositories.messages.append(message);
  return customerId;
}

const OPEN_UNTIL = { open: true, closesAt: '2026-03-11T12:00:01.000000Z' };

it('reads the 24-hour window from the session item: opening a conversation reads its history once, for the page shown', async () => {
  const { use, historyReads } = conversations();
  const { conversation } = await use.get(admin, await waitingCustomer({ summary: true }), { limit: 50 });
  expect(conversation.serviceWindow).toEqual(OPEN_UNTIL);
  expect(historyReads()).toBe(1);
});

it('looks the window up in the history for a session written before session items kept the customer’s last message', async () => {
  const { use, historyReads } = conversations();
  const { conversation } = await use.get(admin, await waitingCustomer({ summary: false }), { limit: 50 });
  expect(conversation.serviceWindow).toEqual(OPEN_UNTIL);
  expect(historyReads()).toBe(2);
});

it('clears the unread mark for the operator who opens the conversation, keeping the others’, and counts the change for them alone', async () => {
  const { use } = conversations();
  const customerId = await waitingCustomer({ summary: true });
  const unread = async (operator: Operator) => (await use.list(operator, SessionState.AWAITING_HUMAN, { limit: 100 })).items.find((row) => row.customerId === customerId)?.unread;
  expect([await unread(admin), await unread(ana)]).toEqual([true, true]);
  const versionOf = (operator: Operator) => use.listVersion(operator, SessionState.AWAITING_HUMAN);
  const [adminBefore, anaBefore] = [await versionOf(admin), await versionOf(ana)];

  await use.get(admin, customerId, { limit: 50 });
  expect([await unread(admin), await unread(ana)]).toEqual([false, true]);
  const adminAfter = await versionOf(admin);
  expect(adminAfter).not.toEqual(adminBefore);
  expect(await versionOf(ana)).toEqual(anaBefore);

  // The second mark joins the first; opening again with nothing new writes nothing.
  await use.get(ana, customerId, { limit: 50 });
  await use.get(admin, customerId, { limit: 50 });
  expect([await unread(admin), await unread(ana)]).toEqual([false, false]);
  expect((await repositories.sessions.getActive(customerId))?.seenBy).toEqual({ [admin.phone]: WROTE_AT, [ana.phone]: WROTE_AT });
  expect(await versionOf(admin)).toEqual(adminAfter);
});
