// Drafting a scenario from a customer's conversation on DynamoDB Local (conversation-scenario.ts):
// the latest session's messages only, read across history pages; the draft audited under the
// customer's pseudonym and nothing else written; an unknown customer and a conversation without a
// customer message refused, unaudited.
import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { ConversationScenarios } from '../../../../lambda/core/application/evaluation/conversation-scenario';
import { parseScenarios } from '../../../../lambda/core/application/evaluation/scenario-format';
import { OperatorAuditTrail } from '../../../../lambda/core/application/operator/operator-audit';
import { OperatorActionError } from '../../../../lambda/core/application/operator/operator-errors';
import { CustomerPseudonyms } from '../../../../lambda/core/application/privacy/customer-pseudonyms';
import type { Operator } from '../../../../lambda/core/domain/operator';
import type { Session } from '../../../../lambda/core/domain/session';
import { Locale } from '../../../../lib/contract';
import { auditNameOf } from '../../../support/customer-history';
import { newSession } from '../../../support/domain-records';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../../support/ids';
import { allItems } from '../../../support/inspect';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';

let table: TestTable;
let repos: DynamoRepositories;
let scenarios: ConversationScenarios;
const clock = new ManualClock('2026-11-30T18:00:00.000Z');
const admin: Operator = { phone: newOperatorPhone(), role: 'admin' };

beforeAll(async () => {
  table = await createTestTable('conversation-scenario');
  repos = createDynamoRepositories({ tableName: table.name, clock });
  const trail = new OperatorAuditTrail(repos.audit, clock, new SequentialIds('event'), new CustomerPseudonyms(repos.customerData));
  scenarios = new ConversationScenarios({ sessions: repos.sessions, messages: repos.messages, trail, locale: Locale.EN });
});
afterAll(() => table.drop());

const at = (day: string, minute: number) => `${day}T${String(10 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00.000000Z`;

/** A session of `customerId` opened on `day`, where the customer says each of `texts`, each answered by `replies` agent messages. */
async function conversation(customerId: string, day: string, texts: readonly string[], replies: number, overrides: Partial<Session> = {}): Promise<Session> {
  const session = newSession(customerId, { createdAt: at(day, 0), updatedAt: at(day, 0), currentAgent: undefined, ...overrides });
  await repos.sessions.put(session);
  let minute = 0;
  for (const [index, text] of texts.entries()) {
    await repos.messages.append({ customerId, sessionId: session.sessionId, messageId: `wamid.${day}-${index}`, direction: 'inbound', role: 'user', text, timestamp: at(day, ++minute) });
    for (let reply = 0; reply < replies; reply++) {
      await repos.messages.append({ customerId, sessionId: session.sessionId, messageId: `reply-${day}-${index}-${reply}`, direction: 'outbound', role: 'assistant', text: `Hello! ${text}`, timestamp: at(day, ++minute), deliveryStatus: 'sent' });
    }
  }
  return session;
}

const auditedFor = async (customerId: string) => {
  const name = await auditNameOf(repos, customerId);
  return (await repos.audit.listRecent({ limit: 100 })).items.filter((event) => event.resourceId === name);
};

it('drafts the latest session\'s customer messages, read across pages of the history, and audits it under the customer\'s pseudonym only', async () => {
  const customer = newCustomer();
  await conversation(customer, '2026-11-28', ['an earlier conversation', 'of the same customer'], 1, { state: 'CLOSED' });
  // 15 customer messages, each followed by 6 agent messages: 105 items, more than a page of the history.
  const texts = Array.from({ length: 15 }, (_, index) => `message ${index + 1} from ${customer}`);
  await conversation(customer, '2026-11-30', texts, 6, { profileName: 'Dora Lima' });
  // The deployment's pseudonym salt is made once, by whichever reads it first.
  const pseudonym = await auditNameOf(repos, customer);
  const before = await allItems(table.name);

  const drafted = await scenarios.draft(admin, customer);

  expect(drafted.id).toBe(`conversation-20261130-${pseudonym.slice(0, 8)}`);
  expect(parseScenarios([{ file: 'drafted.json', text: JSON.stringify(drafted.scenario) }])).toEqual([drafted.scenario]);
  expect(drafted.scenario.start).toEqual({ locale: 'en' });
  expect(drafted.scenario.turns.map((turn) => turn.customer.text)).toEqual(Array.from({ length: 15 }, (_, index) => `message ${index + 1} from [phone]`));
  expect(drafted.scenario.description).not.toContain('latest 20');
  // Only the audit event was written, and it names the customer by pseudonym.
  const written = (await allItems(table.name)).filter((item) => !before.some((earlier) => earlier.PK === item.PK && earlier.SK === item.SK));
  expect(written.map((item) => item.entity_type)).toEqual(['admin_audit']);
  expect(JSON.stringify(written)).not.toContain(customer);
  expect(await auditedFor(customer)).toEqual([expect.objectContaining({ author: admin.phone, action: 'conversation.scenario', resourceType: 'conversation', details: { turns: 15 } })]);
});

it('keeps the latest 20 customer messages of a longer conversation', async () => {
  const customer = newCustomer();
  await conversation(customer, '2026-11-30', Array.from({ length: 26 }, (_, index) => `pergunta ${index + 1}`), 1);
  const { scenario } = await scenarios.draft(admin, customer);
  expect(scenario.turns.map((turn) => turn.customer.text)).toEqual(Array.from({ length: 20 }, (_, index) => `pergunta ${index + 7}`));
  expect(scenario.description).toContain('Only its latest 20 customer messages are here');
});

it('reads at most 5 pages of the history, and says when the conversation\'s earlier messages lie beyond them', async () => {
  const customer = newCustomer();
  // The customer's first message, 504 of the agent's, and the customer's latest: 506 messages, beyond 5 pages of 100.
  const session = await conversation(customer, '2026-11-30', ['the first message'], 0);
  const later = (index: number) => `2026-11-30T11:${String(Math.floor(index / 60)).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}.000000Z`;
  const replies = Array.from({ length: 504 }, (_, index) => ({ customerId: customer, sessionId: session.sessionId, messageId: `reply-${index}`, direction: 'outbound' as const, role: 'assistant' as const, text: 'Hello!', timestamp: later(index), deliveryStatus: 'sent' as const }));
  for (let start = 0; start < replies.length; start += 50) await Promise.all(replies.slice(start, start + 50).map((reply) => repos.messages.append(reply)));
  await repos.messages.append({ customerId: customer, sessionId: session.sessionId, messageId: 'wamid.latest', direction: 'inbound', role: 'user', text: 'the latest message', timestamp: later(600) });
  const { scenario } = await scenarios.draft(admin, customer);
  expect(scenario.turns).toEqual([{ customer: { text: 'the latest message' } }]);
  expect(scenario.description).toContain('Only its latest customer message is here; the earlier ones were left out.');
});

it('refuses a customer without a conversation, and a conversation without a message of the customer\'s, auditing neither', async () => {
  const unknown = newCustomer();
  await expect(scenarios.draft(admin, unknown)).rejects.toEqual(new OperatorActionError('not_found', 'No conversation with this customer'));
  const silent = newCustomer();
  const session = await conversation(silent, '2026-11-30', [], 0);
  await repos.messages.append({ customerId: silent, sessionId: session.sessionId, messageId: 'template-1', direction: 'outbound', role: 'operator', text: 'Olá! Podemos ajudar?', timestamp: at('2026-11-30', 1), deliveryStatus: 'sent' });
  const refusal = await scenarios.draft(admin, silent).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(OperatorActionError);
  expect(refusal).toMatchObject({ reason: 'conflict' });
  expect([...(await auditedFor(unknown)), ...(await auditedFor(silent))]).toEqual([]);
});
