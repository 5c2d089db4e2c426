/** Small pieces every repository uses; deliberately not a base class. */
import { randomBytes } from 'node:crypto';
import { ConditionFailedError, type Page, type PageRequest } from '../../ports/repositories';
import { type DynamoKit, isTransactionConflict, type Item, type QueryPageResult, type QueryRequest } from './dynamo-kit';
import { ENTITY_TYPE, type EntityType, GSI1, GSI1PK, GSI1SK, PK, SK, type TableKey } from './keys';

/** Expression names of the primary key, for `#pk`/`#sk` in conditions and key conditions. */
export const KEY_NAMES = { '#pk': PK, '#sk': SK } as const;
export const ITEM_EXISTS = 'attribute_exists(#pk)';
export const ITEM_ABSENT = 'attribute_not_exists(#pk)';
/** Spread into a put: create the item only if it does not exist yet. */
export const IF_ABSENT = { condition: ITEM_ABSENT, names: { '#pk': PK } } as const;

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;

/**
 * A random secret of the deployment, stored under `key` the first time it is needed: of two first
 * uses at once, one put-if-absent wins and both return its value (hex of 32 random bytes).
 */
export async function secretCreatedOnce(kit: DynamoKit, key: TableKey, entityType: EntityType, attribute: string): Promise<string> {
  const stored = await kit.get({ key, consistentRead: true });
  if (typeof stored?.[attribute] === 'string') return stored[attribute];
  const secret = randomBytes(32).toString('hex');
  if (await conditionally(() => kit.put({ item: { ...key, [ENTITY_TYPE]: entityType, [attribute]: secret }, ...IF_ABSENT }))) return secret;
  return secretCreatedOnce(kit, key, entityType, attribute);
}

/** Runs a conditional write: `true` if it happened, `false` if its condition did not hold. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionFailedError) return false;
    throw error;
  }
}

/**
 * Re-runs an idempotent transaction that DynamoDB cancelled because a concurrent transaction
 * touched the same item; any other outcome (including a failed condition) is returned or thrown.
 */
export async function retryTransactionConflicts<T>(transaction: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

export function pageLimit(page: PageRequest | undefined): number {
  const limit = page?.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Page limit must be a positive integer, got ${limit}`);
  return Math.min(limit, MAX_PAGE_SIZE);
}

export function toPage<T>(result: QueryPageResult, decode: (item: Item) => T): Page<T> {
  const items = result.items.map(decode);
  return result.cursor === undefined ? { items } : { items, cursor: result.cursor };
}

/** A filter on the items' attributes, with its expression's names and values. */
export interface ItemFilter {
  readonly condition: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Item>;
}

/**
 * One page of the items of `entityType` in a GSI1 list held in `partitions`: a plain query while it
 * lives in one partition (the seed layout, whose cursors stay valid), a fan-out merged on GSI1SK
 * once it is spread over write shards. `sortKeyAtMost` keeps the items whose GSI1SK is at most it,
 * `where` those it holds for (a cursor of the list with one `where` does not verify with another).
 */
export function queryIndexPartitionsPage(
  kit: DynamoKit,
  list: { readonly partitions: readonly string[]; readonly entityType: EntityType; readonly sortKeyAtMost?: string; readonly where?: ItemFilter },
  page: PageRequest | undefined,
  options: { readonly newestFirst?: boolean } = {},
): Promise<QueryPageResult> {
  const { sortKeyAtMost: upTo, where } = list;
  const requests: QueryRequest[] = list.partitions.map((partition) => ({
    indexName: GSI1,
    keyCondition: upTo === undefined ? '#gsi1pk = :partition' : '#gsi1pk = :partition AND #gsi1sk <= :upTo',
    filter: where === undefined ? '#type = :type' : `#type = :type AND (${where.condition})`,
    names: { '#gsi1pk': GSI1PK, '#type': ENTITY_TYPE, ...(upTo === undefined ? {} : { '#gsi1sk': GSI1SK }), ...where?.names },
    values: { ':partition': partition, ':type': list.entityType, ...(upTo === undefined ? {} : { ':upTo': upTo }), ...where?.values },
  }));
  const limit = pageLimit(page);
  if (requests.length === 1) return kit.queryPage({ ...requests[0], limit, cursor: page?.cursor, newestFirst: options.newestFirst });
  return kit.queryFanOut(requests, { limit, cursor: page?.cursor, newestFirst: options.newestFirst, sortAttribute: GSI1SK, keyAttributes: [GSI1PK, GSI1SK, PK, SK] });
}

/** One page of a partition's items whose sort key starts with `prefix`. */
export function queryPrefixPage(
  kit: DynamoKit,
  prefix: { readonly partition: string; readonly sortKeyPrefix: string },
  page: PageRequest | undefined,
  options: { readonly newestFirst?: boolean; readonly consistentRead?: boolean } = {},
): Promise<QueryPageResult> {
  return kit.queryPage({
    keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
    names: KEY_NAMES,
    values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix },
    limit: pageLimit(page),
    cursor: page?.cursor,
    newestFirst: options.newestFirst,
    consistentRead: options.consistentRead,
  });
}
