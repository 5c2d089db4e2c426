import { randomBytes } from 'node:crypto';
import type { CustomerDataRepository, CustomerInventory, CustomerRecord } from '../../ports/customer-data';
import { referencedKeys } from './customer-references';
import type { DynamoKit, Item, QueryRequest } from './dynamo-kit';
import {
  budgetPartition,
  crmSyncKey,
  customerPartition,
  ENTITY_TYPE,
  EntityType,
  inboundPartition,
  KEY_ATTRIBUTES,
  legacyConsentListPrefix,
  PK,
  privacySaltKey,
  sessionPartition,
  SK,
  type TableKey,
} from './keys';
import { conditionally, IF_ABSENT, KEY_NAMES } from './repository-support';

const PAGE = 500;

/**
 * Finds a customer's items by key: the four partitions named after the customer (`CUSTOMER#`,
 * `SESSION#`, `DEBOUNCE#`, `BUDGET#`), what their references name (demands, CRM rows, sign-ins),
 * the CRM row of each session still stored (rows written before their references existed), and
 * their consent events in the seed's layout (a filtered Query of that one partition: the only read
 * here that touches other customers' items, which the newer layout avoids).
 */
export class DynamoCustomerDataRepository implements CustomerDataRepository {
  constructor(private readonly kit: DynamoKit) {}

  async inventory(customerId: string, options: { readonly contents?: boolean } = {}): Promise<CustomerInventory> {
    const own = [
      ...(await this.queryAll(partitionQuery(customerPartition(customerId)))),
      ...(await this.queryAll(partitionQuery(sessionPartition(customerId)))),
      ...(await this.queryAll(partitionQuery(inboundPartition(customerId)))),
      ...(await this.queryAll(partitionQuery(budgetPartition(customerId)))),
      ...(await this.queryAll(legacyConsentQuery(customerId))),
    ];
    // A CRM row is found both through its reference and through its session: a batch takes each key once.
    const dependentKeys = distinctKeys(
      own.flatMap((item) => [
        ...referencedKeys(item),
        ...(item[ENTITY_TYPE] === EntityType.session && typeof item.session_id === 'string' ? [crmSyncKey(item.session_id)] : []),
      ]),
    );
    const dependents = options.contents
      ? (await this.kit.batchGet(dependentKeys, { consistentRead: true })).map((item) => toRecord(item, true))
      : dependentKeys.map((key) => ({ kind: kindOfKey(key), key }));
    return { dependents, anchors: own.map((item) => toRecord(item, options.contents === true)) };
  }

  async remove(records: readonly CustomerRecord[]): Promise<void> {
    if (records.length > 0) await this.kit.batchWrite(records.map((record) => ({ delete: record.key })));
  }

  async pseudonymSalt(): Promise<string> {
    const stored = await this.kit.get({ key: privacySaltKey(), consistentRead: true });
    if (typeof stored?.salt === 'string') return stored.salt;
    const salt = randomBytes(32).toString('hex');
    // Two first erasures at once: one salt wins and both use it.
    if (await conditionally(() => this.kit.put({ item: { ...privacySaltKey(), [ENTITY_TYPE]: EntityType.privacySalt, salt }, ...IF_ABSENT }))) return salt;
    return this.pseudonymSalt();
  }

  private async queryAll(request: QueryRequest): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.kit.queryPage({ ...request, cursor });
      items.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== undefined);
    return items;
  }
}

const partitionQuery = (partition: string): QueryRequest => ({
  keyCondition: '#pk = :pk',
  names: { '#pk': KEY_NAMES['#pk'] },
  values: { ':pk': partition },
  consistentRead: true,
  limit: PAGE,
});

const legacyConsentQuery = (customerId: string): QueryRequest => ({
  keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
  filter: '#phone = :phone',
  names: { ...KEY_NAMES, '#phone': 'phone_number' },
  values: { ':pk': legacyConsentListPrefix().partition, ':prefix': legacyConsentListPrefix().sortKeyPrefix, ':phone': customerId },
  consistentRead: true,
  limit: PAGE,
});

function toRecord(item: Item, withAttributes: boolean): CustomerRecord {
  const key: TableKey = { [PK]: String(item[PK]), [SK]: String(item[SK]) };
  const kind = typeof item[ENTITY_TYPE] === 'string' ? (item[ENTITY_TYPE] as string) : kindOfKey(key);
  if (!withAttributes) return { kind, key };
  return { kind, key, attributes: Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name))) };
}

function distinctKeys(keys: readonly TableKey[]): TableKey[] {
  return [...new Map(keys.map((key) => [`${key[PK]}\u0000${key[SK]}`, key])).values()];
}

/** Rows written before entity types existed are named by their key. */
function kindOfKey(key: TableKey): string {
  return `${key[PK].split('#')[0]}#${key[SK].split('#')[0]}`.toLowerCase();
}
