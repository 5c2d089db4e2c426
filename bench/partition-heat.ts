/**
 * Partition-heat model: drives the real webhook and orchestrator handlers on DynamoDB Local with a
 * synthetic day of conversations, records every item each write touches (before and after images,
 * so GSI1 moves are seen), and extrapolates the peak write units per partition per second at the
 * given inbound rates. Prints the hottest base-table and GSI1 partitions with their share of the
 * ~1,000 WCU/s a partition takes. Not a test; the method is in docs/PERFORMANCE.md#partition-heat.
 *
 *   npx tsx bench/partition-heat.ts [customers=120] [layout=seed|migrating|sharded]
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DocumentOperation, type DynamoDocuments, SignedDynamoDocuments } from '../lambda/core/adapters/dynamodb/dynamodb-documents';
import { GSI1PK, GSI1SK, PK, SK } from '../lambda/core/adapters/dynamodb/keys';
import { parseKeyLayout } from '../lambda/core/adapters/dynamodb/key-layout';
import { StaticCredentialsProvider } from '../lambda/core/adapters/secrets/static-credentials-provider';
import { composeOrchestrator } from '../lambda/composition/orchestrator';
import { composeWebhook } from '../lambda/composition/webhook';
import { inProcessSettings, postToWebhook, runTurn, withInProcessPipeline } from './in-process-pipeline';
import { newWamid, textMessageNotification } from '../local/runtime/meta-notification';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const PARTITION_WCU_LIMIT = 1_000;
const RATES = [80, 250, 1_000];
/**
 * A customer's own partitions (SESSION#…, DEBOUNCE#…) are bounded by how fast one person writes,
 * not by the pipeline's rate: one message a second per customer is already far above human typing.
 */
const CUSTOMER_PEAK_MESSAGES_PER_SECOND = 1;

type Item = Record<string, unknown>;

/** DynamoDB's item size rule, closely enough for write units: attribute names plus values. */
function itemBytes(item: Item | undefined): number {
  if (!item) return 0;
  const size = (value: unknown): number => {
    if (value === null || value === undefined || typeof value === 'boolean') return 1;
    if (typeof value === 'string') return Buffer.byteLength(value);
    if (typeof value === 'number') return Math.ceil(String(value).length / 2) + 1;
    if (value instanceof Uint8Array) return value.length;
    if (value instanceof Set) return [...value].reduce((sum: number, v) => sum + size(v), 0);
    if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + size(v) + 1, 0);
    return 3 + Object.entries(value as Item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + size(v) + 1, 0);
  };
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + size(value), 0);
}

const writeUnits = (item: Item | undefined) => Math.max(1, Math.ceil(itemBytes(item) / 1024));

interface Heat {
  units: number;
  readonly customers: Set<string>;
}

/** Write units per partition (table and GSI1), attributed to the customer whose message caused them. */
class HeatLedger {
  readonly partitions = new Map<string, Heat>();
  readonly messagesPerCustomer = new Map<string, number>();
  customer = '';

  private add(partition: string, units: number): void {
    const heat = this.partitions.get(partition) ?? { units: 0, customers: new Set<string>() };
    heat.units += units;
    heat.customers.add(this.customer);
    this.partitions.set(partition, heat);
  }

  /** One item written: the table pays for the larger image (twice in a transaction), GSI1 for each key it touches. */
  record(before: Item | undefined, after: Item | undefined, transactional: boolean): void {
    const image = after ?? before;
    if (!image) return;
    this.add(`table ${String(image[PK])}`, writeUnits(itemBytes(before) > itemBytes(after) ? before : after) * (transactional ? 2 : 1));
    const oldIndexKey = before?.[GSI1PK] === undefined ? undefined : `${String(before[GSI1PK])}\0${String(before[GSI1SK])}`;
    const newIndexKey = after?.[GSI1PK] === undefined ? undefined : `${String(after[GSI1PK])}\0${String(after[GSI1SK])}`;
    if (oldIndexKey !== undefined && oldIndexKey !== newIndexKey) this.add(`GSI1 ${String(before![GSI1PK])}`, writeUnits(before));
    if (newIndexKey !== undefined) this.add(`GSI1 ${String(after![GSI1PK])}`, writeUnits(after));
  }

  /** A write refused by its condition still costs the table its units, and the index nothing. */
  recordRefused(existing: Item | undefined, key: Item, transactional: boolean): void {
    this.add(`table ${String((existing ?? key)[PK])}`, writeUnits(existing) * (transactional ? 2 : 1));
  }
}

interface WrittenItem {
  readonly key: Item;
  readonly transactional: boolean;
}

/** The items a call of the table's API writes, by key. */
function writtenItems(operation: DocumentOperation, input: unknown): WrittenItem[] {
  const keyOf = (item: Item): Item => ({ [PK]: item[PK], [SK]: item[SK] });
  const call = input as { Item?: Item; Key?: Item; TransactItems?: { Put?: { Item?: Item }; Update?: { Key?: Item }; Delete?: { Key?: Item } }[] };
  if (operation === 'PutItem') return [{ key: keyOf(call.Item!), transactional: false }];
  if (operation === 'UpdateItem' || operation === 'DeleteItem') return [{ key: call.Key!, transactional: false }];
  if (operation === 'TransactWriteItems') {
    return (call.TransactItems ?? []).flatMap((action) => {
      if (action.Put) return [{ key: keyOf(action.Put.Item!), transactional: true }];
      if (action.Update) return [{ key: action.Update.Key!, transactional: true }];
      if (action.Delete) return [{ key: action.Delete.Key!, transactional: true }];
      return [];
    });
  }
  return [];
}

/**
 * Wraps every table client's `call` (the kit's only door to DynamoDB) to read each written item
 * before and after the write. The bench runs one message at a time, so the images are exact.
 */
function instrumentDocumentClients(ledger: HeatLedger): void {
  const call = SignedDynamoDocuments.prototype.call as (this: DynamoDocuments, operation: DocumentOperation, input: unknown) => Promise<unknown>;
  const tableOf = (input: unknown): string | undefined => {
    const request = input as { TableName?: string; TransactItems?: { Put?: { TableName?: string }; Update?: { TableName?: string }; Delete?: { TableName?: string }; ConditionCheck?: { TableName?: string } }[] };
    const first = request.TransactItems?.[0];
    return request.TableName ?? first?.Put?.TableName ?? first?.Update?.TableName ?? first?.Delete?.TableName ?? first?.ConditionCheck?.TableName;
  };
  (SignedDynamoDocuments.prototype as { call: unknown }).call = async function (this: DynamoDocuments, operation: DocumentOperation, input: unknown) {
    const written = writtenItems(operation, input);
    if (written.length === 0) return call.call(this, operation, input);
    const tableName = tableOf(input)!;
    const read = async (key: Item) => ((await call.call(this, 'GetItem', { TableName: tableName, Key: key, ConsistentRead: true })) as { Item?: Item }).Item;
    const before = await Promise.all(written.map((item) => read(item.key)));
    try {
      const result = await call.call(this, operation, input);
      const after = await Promise.all(written.map((item) => read(item.key)));
      written.forEach((item, i) => ledger.record(before[i], after[i], item.transactional));
      return result;
    } catch (error) {
      written.forEach((item, i) => ledger.recordRefused(before[i], item.key, item.transactional));
      throw error;
    }
  };
}

/**
 * One customer's conversation of the synthetic day. Every customer qualifies; one in ten asks for a
 * service the business does not offer; one in five asks for a human (and stays in the inbox); the
 * rest are closed by the agent.
 */
function conversation(index: number): string[] {
  return [
    'Olá, bom dia',
    '#dado segmento=varejo #dado cidade=Campinas',
    index % 10 === 0 ? 'Vocês fazem #fora instalação de painel solar' : 'Quais são os preços?',
    'Pode me mandar mais detalhes?',
    index % 5 === 0 ? 'Quero falar com uma pessoa #humano' : 'Obrigado, era isso #fim',
  ];
}

function report(ledger: HeatLedger, layout: string): void {
  const totalMessages = [...ledger.messagesPerCustomer.values()].reduce((a, b) => a + b, 0);
  const rows = [...ledger.partitions].map(([partition, heat]) => {
    const customerLocal = heat.customers.size === 1;
    const [customer] = heat.customers;
    const perMessage = heat.units / (customerLocal ? ledger.messagesPerCustomer.get(customer)! : totalMessages);
    const perSecond = (rate: number) => perMessage * (customerLocal ? CUSTOMER_PEAK_MESSAGES_PER_SECOND : rate);
    return { partition, customerLocal, writers: heat.customers.size, perMessage, perSecond };
  });
  rows.sort((a, b) => b.perSecond(RATES[RATES.length - 1]) - a.perSecond(RATES[RATES.length - 1]));
  // One line per kind of customer partition: the busiest customer stands for all of them.
  const seen = new Set<string>();
  const shown = rows.filter((row) => {
    const kind = row.customerLocal ? row.partition.replace(/#[^#]*\d{6,}[^#]*/, '#{customer}') : row.partition;
    if (seen.has(kind)) return false;
    seen.add(kind);
    return true;
  });
  const percent = (wcu: number) => `${((100 * wcu) / PARTITION_WCU_LIMIT).toFixed(1)} %`;
  console.log(`\nKey layout: ${layout}; ${ledger.messagesPerCustomer.size} customers, ${totalMessages} inbound messages, ${ledger.partitions.size} partitions written`);
  console.log(`Peak WCU/s per partition (share of ${PARTITION_WCU_LIMIT} WCU/s) at ${RATES.join(' / ')} inbound messages/s:`);
  console.log(`${'partition'.padEnd(44)} ${'writers'.padStart(8)} ${'WCU/msg'.padStart(8)}  ${RATES.map((rate) => `@${rate}`.padStart(20)).join('')}`);
  for (const row of shown.slice(0, 16)) {
    const name = row.customerLocal ? `${row.partition.replace(/#[^#]*\d{6,}[^#]*/, '#{customer}')} (one customer)` : row.partition;
    const cells = RATES.map((rate) => `${row.perSecond(rate).toFixed(0)} (${percent(row.perSecond(rate))})`.padStart(20)).join('');
    console.log(`${name.padEnd(44)} ${String(row.writers).padStart(8)} ${row.perMessage.toFixed(3).padStart(8)}  ${cells}`);
  }
  const hottest = rows[0];
  console.log(`\nHottest partition at ${RATES[RATES.length - 1]} msg/s: ${hottest.partition} at ${percent(hottest.perSecond(RATES[RATES.length - 1]))} of its limit`);
}

async function main(): Promise<void> {
  const customers = Number(process.argv[2] ?? 120);
  const layout = parseKeyLayout(process.argv[3] ?? 'seed');
  const ledger = new HeatLedger();
  instrumentDocumentClients(ledger);
  await withInProcessPipeline('heat', async (pipeline) => {
    const settings = inProcessSettings(pipeline, { keyLayout: layout });
    const ports = { credentials: new StaticCredentialsProvider(pipeline.credentials), logger: new Logger({ logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'bench' }) };
    const webhook = composeWebhook(settings, ports);
    const orchestrator = composeOrchestrator(settings, ports);

    for (let index = 0; index < customers; index++) {
      const customerId = `55119${String(70_000_000 + index)}`;
      ledger.customer = customerId;
      for (const text of conversation(index)) {
        const messageId = newWamid();
        await postToWebhook(webhook, pipeline.credentials.appSecret, JSON.stringify(textMessageNotification([{ from: customerId, text, messageId }])));
        if (await runTurn(orchestrator, customerId, messageId)) throw new Error(`turn failed for ${customerId}`);
        ledger.messagesPerCustomer.set(customerId, (ledger.messagesPerCustomer.get(customerId) ?? 0) + 1);
      }
    }
    report(ledger, layout);
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
