import { createHash } from 'node:crypto';
import { DynamoKit } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import * as keys from '../../../../lambda/core/adapters/dynamodb/keys';
import { InvalidKeySegmentError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { GSI1_PARTITIONS, TABLE_PARTITIONS } from '../../../../lib/contract';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const ts = '2026-03-10T12:00:00Z';
const tsMicros = '2026-03-10T12:00:00.000000Z';

/** Every table key of docs/DESIGN.md#data-model, with the exact key it must produce. */
const inventory: [string, keys.TableKey, { PK: string; SK: string }][] = [
  ['session', keys.sessionKey('5511', 's-1'), { PK: 'SESSION#5511', SK: 'SESSION#s-1' }],
  ['active pointer', keys.activePointerKey('5511'), { PK: 'SESSION#5511', SK: 'ACTIVE' }],
  ['message', keys.messageKey('5511', ts, 'wamid.A'), { PK: 'SESSION#5511', SK: `MSG#${tsMicros}#wamid.A` }],
  ['demand', keys.demandKey(ts, 'd-1'), { PK: 'DEMAND#OOP', SK: `DEMAND#${tsMicros}#d-1` }],
  ['demand source marker', keys.demandSourceKey('wamid.A'), { PK: 'DEMAND#OOP', SK: `SOURCE#${sha('wamid.A')}` }],
  ['inbound receipt', keys.inboundReceiptKey('5511', 'wamid.A'), { PK: 'DEBOUNCE#5511', SK: `INBOUND#${sha('wamid.A')}` }],
  ['latest inbound', keys.latestInboundKey('5511'), { PK: 'DEBOUNCE#5511', SK: 'LATEST_INBOUND' }],
  ['legacy buffer', keys.legacyBufferKey('5511'), { PK: 'DEBOUNCE#5511', SK: 'BUFFER' }],
  ['legacy pending reply', keys.legacyPendingReplyKey('5511'), { PK: 'DEBOUNCE#5511', SK: 'PENDING_REPLY' }],
  ['CRM projection', keys.crmSyncKey('s-1'), { PK: 'CRM_SYNC#s-1', SK: 'META' }],
  ['admin resource', keys.adminResourceKey('prompt', 'greeting'), { PK: 'ADMIN#RESOURCE#prompt', SK: 'RESOURCE#greeting' }],
  ['admin resource version', keys.adminResourceVersionKey('prompt', 'greeting', 7), { PK: 'ADMIN#RESOURCE#prompt#greeting', SK: 'VERSION#000007' }],
  ['operational config', keys.operationalConfigKey('operator_availability'), { PK: 'ADMIN#CONFIG', SK: 'CONFIG#operator_availability' }],
  ['admin audit', keys.adminAuditKey(ts, 'e-1'), { PK: 'ADMIN#AUDIT', SK: `AUDIT#${tsMicros}#e-1` }],
  ['consent', keys.consentKey('5511', ts, 'c-1'), { PK: 'CUSTOMER#5511', SK: `CONSENT#${tsMicros}#c-1` }],
  ['consent (seed layout)', keys.legacyConsentKey(ts, '5511', 'c-1'), { PK: 'ADMIN#CONSENT', SK: `CONSENT#${tsMicros}#5511#c-1` }],
  ['customer demand reference', keys.customerDemandReferenceKey('5511', 'd-1'), { PK: 'CUSTOMER#5511', SK: 'DEMAND#d-1' }],
  ['customer auth reference', keys.customerAuthReferenceKey('5511', 'ab12'), { PK: 'CUSTOMER#5511', SK: 'AUTH#ab12' }],
  ['privacy salt', keys.privacySaltKey(), { PK: 'ADMIN#PRIVACY', SK: 'SALT' }],
  ['cursor signing key', keys.cursorSigningKey(), { PK: 'ADMIN#CURSOR', SK: 'KEY' }],
  ['inbox version', keys.inboxVersionKey(), { PK: 'ADMIN#INBOX', SK: 'VERSION' }],
  ['agent activity, on the customer\'s write shard', keys.agentActivityKey('5511'), { PK: `AGENT_ACTIVITY#${keys.writeShardOf('5511')}`, SK: 'VERSION' }],
  ['login grant', keys.loginGrantKey('ab12'), { PK: 'OPERATOR#AUTH', SK: 'LOGIN#ab12' }],
  ['operator session', keys.operatorSessionKey('ab12'), { PK: 'OPERATOR#AUTH', SK: 'SESSION#ab12' }],
  ['budget day', keys.customerBudgetKey('5511', ts), { PK: 'BUDGET#5511', SK: 'DAY#2026-03-10' }],
  ['pipeline budget day, on the customer\'s write shard', keys.pipelineBudgetKey('5511', ts), { PK: `PIPELINE_BUDGET#${keys.writeShardOf('5511')}`, SK: 'DAY#2026-03-10' }],
  ['pipeline budget day, the evaluation line', keys.pipelineBudgetEvaluationKey(ts), { PK: 'PIPELINE_BUDGET#evaluation', SK: 'DAY#2026-03-10' }],
  ['evaluation run of a prompt', keys.evaluationRunKey('system', '20260310-ab'), { PK: 'EVALUATION#RUN#system', SK: 'RUN#20260310-ab' }],
  ['customer CRM reference', keys.customerCrmSyncReferenceKey('5511', 's-1'), { PK: 'CUSTOMER#5511', SK: 'CRM_SYNC#s-1' }],
  ['write-shard backfill marker', keys.writeShardBackfillKey(), { PK: 'MIGRATION#KEY_LAYOUT', SK: `WRITE_SHARDS#${keys.WRITE_SHARDS}` }],
  ['message template', keys.messageTemplateKey('order_update', 'pt_BR'), { PK: 'ADMIN#TEMPLATES', SK: 'TEMPLATE#order_update#pt_BR' }],
  ['handoff report', keys.handoffReportKey(ts, 's-1'), { PK: 'REPORT#HANDOFF#2026-03-10', SK: `${tsMicros}#s-1` }],
  // The handoff's UTC day, however its instant is spelled: 01:00 in UTC+3 is the day before.
  ['handoff report, at an offset', keys.handoffReportKey('2026-03-10T01:00:00+03:00', 's-1'), { PK: 'REPORT#HANDOFF#2026-03-09', SK: '2026-03-09T22:00:00.000000Z#s-1' }],
];

const gsiInventory: [string, keys.Gsi1Key, { GSI1PK: string; GSI1SK: string }][] = [
  ['session by state', keys.sessionStateIndexKey('QUALIFYING', ts), { GSI1PK: 'STATE#QUALIFYING', GSI1SK: tsMicros }],
  ['CRM projection by status', keys.crmSyncStatusIndexKey('PENDING', ts, 's-1'), { GSI1PK: 'CRM_SYNC#PENDING', GSI1SK: `${tsMicros}#s-1` }],
  ['LLM message by day', keys.llmMessageIndexKey(ts, 'm-1'), { GSI1PK: 'LLM#2026-03-10', GSI1SK: `${tsMicros}#m-1` }],
  ['consent timeline', keys.consentTimelineIndexKey('5511', ts, 'c-1'), { GSI1PK: 'CONSENT#TIMELINE', GSI1SK: `${tsMicros}#5511#c-1` }],
  ['session by state, sharded', keys.shardedSessionStateIndexKey('QUALIFYING', ts, '5511'), { GSI1PK: `STATE#QUALIFYING#${keys.writeShardOf('5511')}`, GSI1SK: tsMicros }],
  ['LLM message by day, sharded', keys.shardedLlmMessageIndexKey(ts, 'm-1', '5511'), { GSI1PK: `LLM#2026-03-10#${keys.writeShardOf('5511')}`, GSI1SK: `${tsMicros}#m-1` }],
  ['priced message by day', keys.feeIndexKey(ts, '5511', `MSG#${tsMicros}#m-1`), { GSI1PK: `FEE#2026-03-10#${keys.writeShardOf('5511')}`, GSI1SK: `MSG#${tsMicros}#m-1` }],
];

/** The partition a key lies in, by the contract's names (IAM scopes each role by them). */
function partitionOf(partitions: typeof TABLE_PARTITIONS | typeof GSI1_PARTITIONS, value: string): string | undefined {
  const constant = Object.entries(partitions.constants).find(([, partition]) => partition === value);
  const prefix = Object.entries(partitions.prefixes).find(([, partition]) => value.startsWith(partition) && value.length > partition.length);
  return (constant ?? prefix)?.[0];
}

let table: TestTable;
let kit: DynamoKit;
beforeAll(async () => {
  table = await createTestTable('keys');
  kit = new DynamoKit({ tableName: table.name });
});
afterAll(() => table.drop());

test.each(inventory)('%s key matches the inventory and reads back after a write', async (name, key, expected) => {
  expect(key).toEqual(expected);
  await kit.put({ item: { ...key, written_as: name } });
  expect(await kit.get({ key, consistentRead: true })).toEqual({ ...expected, written_as: name });
});

test.each(gsiInventory)('%s index key matches the inventory and is queryable on GSI1', async (name, indexKey, expected) => {
  expect(indexKey).toEqual(expected);
  await kit.put({ item: { PK: `GSI-TEST#${name}`, SK: 'ITEM', ...indexKey } });
  const page = await kit.queryPage({
    indexName: keys.GSI1,
    keyCondition: '#pk = :pk AND #sk = :sk',
    names: { '#pk': keys.GSI1PK, '#sk': keys.GSI1SK },
    values: { ':pk': expected.GSI1PK, ':sk': expected.GSI1SK },
  });
  expect(page.items).toEqual([{ PK: `GSI-TEST#${name}`, SK: 'ITEM', ...expected }]);
});

test('every key lies in a partition the contract names, and every partition of the contract holds a key: a renamed prefix cannot leave IAM behind', () => {
  const tablePartitions = inventory.map(([name, key]) => [name, partitionOf(TABLE_PARTITIONS, key.PK)]);
  expect(tablePartitions.filter(([, partition]) => partition === undefined)).toEqual([]);
  const gsiPartitions = gsiInventory.map(([name, key]) => [name, partitionOf(GSI1_PARTITIONS, key.GSI1PK)]);
  expect(gsiPartitions.filter(([, partition]) => partition === undefined)).toEqual([]);
  const named = (partitions: typeof TABLE_PARTITIONS | typeof GSI1_PARTITIONS) => [...Object.keys(partitions.prefixes), ...Object.keys(partitions.constants)].sort();
  expect([...new Set(tablePartitions.map(([, partition]) => partition))].sort()).toEqual(named(TABLE_PARTITIONS));
  expect([...new Set(gsiPartitions.map(([, partition]) => partition))].sort()).toEqual(named(GSI1_PARTITIONS));
});

test('attribute names come from the pipeline contract', () => {
  expect([keys.PK, keys.SK, keys.GSI1, keys.GSI1PK, keys.GSI1SK, keys.TTL]).toEqual(['PK', 'SK', 'GSI1', 'GSI1PK', 'GSI1SK', 'ttl']);
});

test('a segment that is empty or carries the separator is refused, so identities never collide', () => {
  expect(() => keys.adminResourceVersionKey('a#b', 'c', 1)).toThrow(InvalidKeySegmentError);
  expect(() => keys.sessionKey('', 's')).toThrow(InvalidKeySegmentError);
  expect(() => keys.messageKey('5511', ts, 'x#y')).toThrow(InvalidKeySegmentError);
  expect(() => keys.adminResourceVersionKey('prompt', 'greeting', 0)).toThrow(InvalidKeySegmentError);
  expect(() => keys.adminResourceVersionKey('prompt', 'greeting', 1_000_000)).toThrow(InvalidKeySegmentError);
  expect(() => keys.messageKeyFromRef({ customerId: '5511', sortKey: 'SESSION#other' })).toThrow(InvalidKeySegmentError);
  // Hashed segments accept anything: the digest cannot contain the separator.
  expect(keys.inboundReceiptKey('5511', 'odd#id').SK).toBe(`INBOUND#${sha('odd#id')}`);
});

test('sort keys with timestamps order chronologically whatever spelling the instant came in', () => {
  const spellings = ['2026-03-10T09:00:00-03:00', '2026-03-10T12:00:00.000001Z', '2026-03-10T12:00:00.5+00:00', '2026-03-10T11:59:59.999Z'];
  const sortKeys = spellings.map((spelling) => keys.messageKey('5511', spelling, 'm').SK);
  expect([...sortKeys].sort()).toEqual([sortKeys[3], sortKeys[0], sortKeys[1], sortKeys[2]]);
  expect(keys.messageKeyFromRef({ customerId: '5511', sortKey: sortKeys[0] })).toEqual({ PK: 'SESSION#5511', SK: sortKeys[0] });
});
