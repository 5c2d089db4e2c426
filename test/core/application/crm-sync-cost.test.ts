// What one sync costs in DynamoDB: the requests the worker makes for one due row, and the capacity
// DynamoDB Local reports for them (table and GSI1). docs/CRM.md quotes these figures.
import type { DynamoCallEvent } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { newCustomer } from '../../support/ids';
import { newSession } from '../../support/domain-records';
import { type CrmWorld, startCrmWorld } from '../../support/crm-world';

const calls: DynamoCallEvent[] = [];
let world: CrmWorld;

beforeAll(async () => {
  world = await startCrmWorld('crm-cost', { onRemoteCall: (event) => calls.push(event) });
});
afterAll(() => world.close());

async function costOfOneRun(): Promise<{ operations: string[]; capacityUnits: number }> {
  calls.length = 0;
  await world.worker().run();
  const sum = (pick: (event: DynamoCallEvent) => number) => calls.reduce((total, event) => total + pick(event), 0);
  return { operations: calls.map((event) => event.operation), capacityUnits: sum((event) => event.consumedCapacity?.total ?? 0) };
}

test('one sync of one row: five requests — the due query, a claim (get + conditional put), the record (get + conditional put)', async () => {
  const session = newSession(newCustomer(), { state: 'QUALIFYING', segment: 'PESQUISA' });
  await world.repositories.sessions.put(session);

  const create = await costOfOneRun();
  await world.repositories.sessions.put({ ...session, state: 'AWAITING_HUMAN' });
  const update = await costOfOneRun();
  const idle = await costOfOneRun();

  expect(create.operations).toEqual(['queryPage', 'get', 'put', 'get', 'put']);
  expect(update.operations).toEqual(create.operations);
  expect(idle.operations).toEqual(['queryPage']);
  expect(world.crm.received().map((entry) => entry.handling)).toEqual(['created', 'updated']);
  // Reported, not asserted: capacity depends on item size (a row is well under 1 KB here).
  process.stdout.write(`CRM sync cost per row — create: ${JSON.stringify(create)}; update: ${JSON.stringify(update)}; empty run: ${JSON.stringify(idle)}\n`);
  expect(create.capacityUnits).toBeGreaterThan(0);
});
