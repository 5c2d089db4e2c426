import type { CustomerDataRepository, CustomerInventory, CustomerRecord } from '../../ports/customer-data';
import type { Clock } from '../../ports/clock';
import { referencedKeys } from './customer-references';
import { DynamoInboxVersion } from './inbox-version';
import type { DynamoKit, Item, QueryRequest } from './dynamo-kit';
import {
  budgetPartition,
  crmSyncKey,
  customerPartition,
  ENTITY_TYPE,
  EntityType,
  inboundPartition,
  isOperatorAuthKey,
  KEY_ATTRIBUTES,
  legacyConsentListPrefix,
  PK,
  privacySaltKey,
  sessionPartition,
  SK,
  type TableKey,
} from './keys';
import { KEY_NAMES, secretCreatedOnce } from './repository-support';

const PAGE = 500;

/** Bookkeeping that leads to the customer's items: erased with them, never exported. */
const REFERENCE_KINDS: readonly string[] = [EntityType.demandReference, EntityType.crmSyncReference, EntityType.authReference];
/** Sign-in links and console sessions: an export says when they were made and end, never their token hash or CSRF token. */
const SIGN_IN_KINDS: readonly string[] = [EntityType.loginGrant, EntityType.operatorSession];
const SIGN_IN_EXPORTED_ATTRIBUTES = ['created_at', 'expires_at'];

/**
 * Finds a customer's items by key: the four partitions named after the customer (`CUSTOMER#`,
 * `SESSION#`, `DEBOUNCE#`, `BUDGET#`), what their references name (demands, CRM rows, sign-ins),
 * the CRM row of each session still stored (rows written before their references existed), and
 * their consent events in the seed's layout (a filtered Query of that one partition: the only read
 * here that touches other customers' items, which the newer layout avoids).
 */
export class DynamoCustomerDataRepository implements CustomerDataRepository {
  /** Raised when a removal took a conversation out of the inbox. */
  private readonly inboxVersion: DynamoInboxVersion;

  constructor(
    private readonly kit: DynamoKit,
    clock: Clock,
  ) {
    this.inboxVersion = new DynamoInboxVersion(kit, clock);
  }

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
    if (!options.contents) return { dependents: dependentKeys.map((key) => ({ kind: kindOfKey(key), key })), anchors: own.map((item) => toRecord(item, false)) };
    const dependents = await this.kit.batchGet(dependentKeys, { consistentRead: true });
    return { dependents: dependents.map(toExportedRecord), anchors: own.filter((item) => !REFERENCE_KINDS.includes(String(item[ENTITY_TYPE]))).map(toExportedRecord) };
  }

  /**
   * Deletes in batches, except an operator's login grants and sessions: one DeleteItem each, since
   * BatchWriteItem would also let whoever erases write sign-ins, which only the functions that
   * issue them may (lib/private/permissions.ts).
   */
  async remove(records: readonly CustomerRecord[]): Promise<void> {
    const signIns = records.filter((record) => isOperatorAuthKey(record.key));
    const batched = records.filter((record) => !isOperatorAuthKey(record.key));
    if (batched.length > 0) await this.kit.batchWrite(batched.map((record) => ({ delete: record.key })));
    for (const signIn of signIns) await this.kit.delete({ key: signIn.key });
    // A conversation gone is a row gone from every inbox that lists it.
    if (records.some((record) => record.kind === EntityType.session)) await this.inboxVersion.raise();
  }

  pseudonymSalt(): Promise<string> {
    return secretCreatedOnce(this.kit, privacySaltKey(), EntityType.privacySalt, 'salt');
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

/** The item as an export shows it: a sign-in only with its times. */
function toExportedRecord(item: Item): CustomerRecord {
  const record = toRecord(item, true);
  if (!SIGN_IN_KINDS.includes(record.kind)) return record;
  return { ...record, attributes: Object.fromEntries(SIGN_IN_EXPORTED_ATTRIBUTES.flatMap((name) => (record.attributes?.[name] === undefined ? [] : [[name, record.attributes[name]]]))) };
}

function distinctKeys(keys: readonly TableKey[]): TableKey[] {
  return [...new Map(keys.map((key) => [`${key[PK]}\u0000${key[SK]}`, key])).values()];
}

/** Rows written before entity types existed are named by their key. */
function kindOfKey(key: TableKey): string {
  return `${key[PK].split('#')[0]}#${key[SK].split('#')[0]}`.toLowerCase();
}
