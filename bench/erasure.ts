/**
 * What erasing one customer costs now that every item goes by its own DeleteItem (BatchWriteItem,
 * which IAM cannot keep from writing, is granted to no role): a customer with `messages` messages
 * (default 2,000; each with its receipt) is erased on DynamoDB Local, and the time, the requests
 * and the write units are printed. Not a test.
 *
 *   npm run bench:erasure [messages=2000]
 */
import type { DynamoCallEvent } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { systemClock } from '../lambda/core/adapters/system/system-clock';
import { randomIdGenerator } from '../lambda/core/adapters/system/random-id-generator';
import { OperatorAuditTrail } from '../lambda/core/application/operator/operator-audit';
import { CustomerDataRights } from '../lambda/core/application/privacy/customer-data-rights';
import { CustomerPseudonyms } from '../lambda/core/application/privacy/customer-pseudonyms';
import { fromEpochMicros, toEpochMicros } from '../lambda/core/domain/timestamps';
import { withInProcessPipeline } from './in-process-pipeline';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const WRITES_AT_ONCE = 50;
const CUSTOMER = '5511999990000';

async function main(): Promise<void> {
  const messages = Number(process.argv[2] ?? 2_000);
  await withInProcessPipeline('erasure', async (pipeline) => {
    const calls: DynamoCallEvent[] = [];
    const repositories = createDynamoRepositories({ tableName: pipeline.tableName, observer: { onRemoteCall: (event) => calls.push(event) } });
    const writes: (() => Promise<unknown>)[] = [];
    for (let index = 0; index < messages; index++) {
      const timestamp = fromEpochMicros(toEpochMicros('2026-03-01T08:00:00Z') + index * 1_000_000);
      writes.push(() => repositories.messages.append({ customerId: CUSTOMER, sessionId: 'S1', messageId: `wamid.${index}`, direction: 'inbound', role: 'user', text: `mensagem ${index}`, timestamp }));
    }
    for (let start = 0; start < writes.length; start += WRITES_AT_ONCE) await Promise.all(writes.slice(start, start + WRITES_AT_ONCE).map((write) => write()));

    const trail = new OperatorAuditTrail(repositories.audit, systemClock, randomIdGenerator, new CustomerPseudonyms(repositories.customerData));
    const rights = new CustomerDataRights({ data: repositories.customerData, trail, clock: systemClock });
    calls.length = 0;
    const started = performance.now();
    const report = await rights.erase(CUSTOMER, 'bench');
    const seconds = (performance.now() - started) / 1000;
    const deletes = calls.filter((event) => event.operation === 'delete').length;
    const writeUnits = calls.reduce((sum, event) => sum + (event.consumedCapacity?.total ?? 0), 0);
    console.log(`Erasure of one customer with ${messages} messages, DynamoDB Local, one DeleteItem per item (16 at a time)`);
    console.log(`  items deleted ${Object.values(report.deleted).reduce((sum, count) => sum + count, 0)}, DeleteItem requests ${deletes}, requests in all ${calls.length}`);
    console.log(`  ${seconds.toFixed(2)} s (${Math.round(deletes / seconds)} items/s), ${writeUnits.toFixed(1)} capacity units`);
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
