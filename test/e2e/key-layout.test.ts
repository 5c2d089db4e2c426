// The write-shard migration's middle phase end to end: a pipeline whose every function runs the
// `migrating` key layout holds conversations, and the operator inbox (over real HTTP, paging with its
// cursor) lists them from their write shards, beside one an earlier `seed` deployment wrote.
import { writeShardOf } from '../../lambda/core/adapters/dynamodb/keys';
import { KeyLayout } from '../../lib/contract/key-layout';
import { SessionState } from '../../lambda/core/domain/session';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { newSession } from '../support/domain-records';
import { type ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { tableRepositories } from '../support/dynamo-table';

let pipeline: LocalPipeline;
let seedDeployment: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;

beforeAll(async () => {
  const adminPhone = newOperatorPhone();
  pipeline = await startOperatorPipeline([adminPhone], { keyLayout: KeyLayout.MIGRATING });
  seedDeployment = tableRepositories(pipeline.tableName);
  admin = await signInOverWhatsApp(pipeline, adminPhone);
});
afterAll(async () => {
  await pipeline?.stop();
});

it('holds conversations on migrating and the operator inbox lists them across shards and the seed partition', async () => {
  // Enough customers to land on several shards.
  const customers = Array.from({ length: 6 }, () => newCustomer());
  expect(new Set(customers.map(writeShardOf)).size).toBeGreaterThan(1);
  for (const customer of customers) expect((await pipeline.sendCustomerMessage(customer, 'Oi, tudo bem?')).status).toBe(200);
  await pipeline.waitForIdle();
  for (const customer of customers) expect((await pipeline.conversation(customer)).session?.state).toBe(SessionState.QUALIFYING);
  const replied = new Set(pipeline.fakeWhatsApp.sent().map((message) => message.recipient));
  expect(customers.every((customer) => replied.has(customer))).toBe(true);

  // Written by the seed deployment before the move: still in the seed partition.
  const earlier = newSession(newCustomer(), { state: SessionState.QUALIFYING });
  await seedDeployment.sessions.put(earlier);

  // A seed-layout reader sees only that one: the pipeline wrote its sessions to the shards.
  const seedListed = (await seedDeployment.sessions.listByState(SessionState.QUALIFYING, { limit: 100 })).items.map((session) => session.customerId);
  expect(seedListed).toEqual([earlier.customerId]);

  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await admin.call('GET', `/api/conversations?state=QUALIFYING&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeLessThanOrEqual(2);
    listed.push(...page.body.items.map((item: { customerId: string }) => item.customerId));
    cursor = page.body.cursor;
  } while (cursor);
  expect([...listed].sort()).toEqual([...customers, earlier.customerId].sort());
});
