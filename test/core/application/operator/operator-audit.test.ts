import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { OperatorAuditTrail } from '../../../../lambda/core/application/operator/operator-audit';
import { CustomerPseudonyms } from '../../../../lambda/core/application/privacy/customer-pseudonyms';
import { auditNameOf } from '../../../support/customer-history';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';

let table: TestTable;
let repos: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  table = await createTestTable('audit');
  repos = createDynamoRepositories({ tableName: table.name, clock });
});
afterAll(() => table.drop());

test('every event that names a customer stores their pseudonym, never their id; operators stay named by phone', async () => {
  const trail = new OperatorAuditTrail(repos.audit, clock, new SequentialIds('event'), new CustomerPseudonyms(repos.customerData));
  const customer = newCustomer();
  const operator = newOperatorPhone();
  for (const action of ['conversation.claim', 'conversation.reply', 'conversation.release', 'conversation.close'] as const) {
    await trail.record({ author: operator, action, resourceType: 'conversation', resourceId: customer, details: { messageId: 'm-1' } });
  }
  await trail.record({ author: operator, action: 'crm.retry', resourceType: 'crm_sync', resourceId: 'session-1', customerId: customer, details: { from: 'BLOCKED' } });
  await trail.record({ author: operator, action: 'customer.export', resourceType: 'customer', resourceId: customer });
  await trail.record({ author: operator, action: 'operator.availability', resourceType: 'operator', resourceId: operator, details: { available: true } });

  const events = (await repos.audit.listRecent({ limit: 20 })).items;
  const named = await auditNameOf(repos, customer);
  expect(named).toMatch(/^[0-9a-f]{64}$/);
  expect(JSON.stringify(events)).not.toContain(customer);
  expect(events.filter((event) => event.resourceId === named).map((event) => event.action).sort()).toEqual([
    'conversation.claim',
    'conversation.close',
    'conversation.release',
    'conversation.reply',
    'customer.export',
  ]);
  expect(events.find((event) => event.action === 'crm.retry')).toMatchObject({ resourceId: 'session-1', details: { from: 'BLOCKED', customer: named } });
  expect(events.find((event) => event.action === 'operator.availability')).toMatchObject({ author: operator, resourceId: operator });
});
