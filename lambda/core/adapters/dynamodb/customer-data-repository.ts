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
/**
 * DeleteItems in flight at once: a customer's thousands of items go in seconds (npm run
 * bench:erasure), and far below what an on-demand table takes.
 */
const PARALLEL_DELETES = 16;

/** Bookkeeping that leads to the customer's items: erased with them, never exported. */
const REFERENCE_KINDS: readonly string[] = [EntityType.demandReference, EntityType.crmSyncReference, EntityType.authReference];
/** Sign-in links and console sessions: an export says when they were made and end, never their token hash or CSRF token. */
const SIGN_IN_KINDS: readonly string[] = [EntityType.loginGrant, EntityType.operatorSession];
const SIGN_IN_EXPORTED_ATTRIBUTES = ['created_at', 'expires_at'];
/**
 * What the customer's items say of the business's staff, which is theirs, not the customer's: the
 * phone of the operator who wrote a note, answered, holds the conversation, read it, or has the CRM
 * deal. An export names them `staff`; names stay (the customer saw them in the conversation).
 */
const STAFF_PHONES: Readonly<Record<string, readonly string[]>> = { operator_note: ['author_phone'], message: ['operator_phone'], session: ['assigned_to'] };
const STAFF = 'staff';

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
   * One DeleteItem per record, {@link PARALLEL_DELETES} at a time: BatchWriteItem would also let
   * whoever erases write items — IAM cannot tell its puts from its deletes — sign-ins included,
   * which only the functions that issue them may write (lib/private/permissions.ts).
   */
  async remove(records: readonly CustomerRecord[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < records.length) await this.kit.delete({ key: records[next++].key });
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_DELETES, records.length) }, worker));
    // A conversation gone is a row gone from every inbox that lists it.
    if (records.some((record) => record.kind === EntityType.session)) await this.inboxVersion.raise();
  }

  /**
   * The items of an evaluation's customer (keys.ts `evaluationCustomerId`): only the partitions
   * named after it, which are all an evaluation writes — it records no demand, no CRM row and no
   * sign-in, and reads no consent of the seed's layout — so its role needs nothing of anyone else's.
   */
  async evaluationCustomerItems(customerId: string): Promise<CustomerRecord[]> {
    const partitions = [sessionPartition(customerId), inboundPartition(customerId), customerPartition(customerId)];
    return (await Promise.all(partitions.map((partition) => this.queryAll(partitionQuery(partition))))).flat().map((item) => toRecord(item, false));
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

/** The item as an export shows it: a sign-in only with its times, staff named as such. */
function toExportedRecord(item: Item): CustomerRecord {
  const record = toRecord(item, true);
  const attributes = record.attributes ?? {};
  if (SIGN_IN_KINDS.includes(record.kind)) return { ...record, attributes: Object.fromEntries(SIGN_IN_EXPORTED_ATTRIBUTES.flatMap((name) => (attributes[name] === undefined ? [] : [[name, attributes[name]]]))) };
  const staffed: Record<string, unknown> = { ...attributes };
  for (const name of STAFF_PHONES[record.kind] ?? []) if (staffed[name] !== undefined) staffed[name] = STAFF;
  // Which operators opened the conversation, and when: the staff's own trail.
  if (record.kind === EntityType.session) delete staffed.seen_by;
  const deal = (attributes.desired as { deal?: Record<string, unknown> } | undefined)?.deal;
  if (record.kind === EntityType.crmSync && deal?.assignedTo !== undefined) staffed.desired = { ...(attributes.desired as object), deal: { ...deal, assignedTo: STAFF } };
  return { ...record, attributes: staffed };
}

function distinctKeys(keys: readonly TableKey[]): TableKey[] {
  return [...new Map(keys.map((key) => [`${key[PK]}\u0000${key[SK]}`, key])).values()];
}

/** Rows written before entity types existed are named by their key. */
function kindOfKey(key: TableKey): string {
  return `${key[PK].split('#')[0]}#${key[SK].split('#')[0]}`.toLowerCase();
}
