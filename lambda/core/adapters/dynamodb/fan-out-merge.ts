import type { FanOutPage, Item, QueryRequest } from './dynamo-kit-requests';
import { type ShardPosition, START } from './page-cursor';

/** One page of one query: its items, and where it goes on (absent: it is read to its end). */
export type QueryFrom = (request: QueryRequest, exclusiveStartKey: Item | undefined) => Promise<{ readonly items: Item[]; readonly lastEvaluatedKey?: Item }>;

/** Code-unit order, which is DynamoDB's byte order for the ASCII keys this table uses. */
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One page over several queries of one list (its write shards), merged in sort-key order, newest
 * first when asked, from where each query stands (`starts`). The queries are read in parallel
 * through `queryFrom`, at most a page from each per round; each query's position afterwards is
 * exactly after the last item this page took from it — nothing is skipped or handed out twice,
 * whatever the page size — or `null` once it is read to its end.
 */
export async function mergeFanOutPage(requests: readonly QueryRequest[], page: FanOutPage, starts: readonly ShardPosition[], queryFrom: QueryFrom): Promise<{ readonly items: Item[]; readonly positions: ShardPosition[] }> {
  const shards = starts.map((start, index) => ({ request: requests[index], start, next: start, buffer: [] as Item[], lastTaken: undefined as Item | undefined }));
  const keyOf = (item: Item): Item => Object.fromEntries(page.keyAttributes.map((name) => [name, item[name]]));
  const direction = page.newestFirst ? -1 : 1;
  // Ties on the sort key are broken by the item's key, so the merge order is total and stable.
  const compare = (a: Item, b: Item) => direction * [page.sortAttribute, ...page.keyAttributes].reduce((order, name) => order || compareStrings(String(a[name]), String(b[name])), 0);
  const taken: Item[] = [];
  while (taken.length < page.limit) {
    // A filtered query may return an empty page that is not the end: read on until every shard that
    // is not exhausted has its next item at hand, so the smallest head is truly the next item.
    let starving = shards.filter((shard) => shard.buffer.length === 0 && shard.next !== null);
    while (starving.length > 0) {
      await Promise.all(
        starving.map(async (shard) => {
          const { items, lastEvaluatedKey } = await queryFrom({ ...shard.request, limit: page.limit, newestFirst: page.newestFirst }, shard.next === START ? undefined : shard.next!);
          shard.buffer = items;
          shard.next = lastEvaluatedKey ?? null;
        }),
      );
      starving = starving.filter((shard) => shard.buffer.length === 0 && shard.next !== null);
    }
    const heads = shards.filter((shard) => shard.buffer.length > 0);
    if (heads.length === 0) break;
    const first = heads.reduce((best, shard) => (compare(shard.buffer[0], best.buffer[0]) < 0 ? shard : best));
    const item = first.buffer.shift()!;
    first.lastTaken = keyOf(item);
    taken.push(item);
  }
  return { items: taken, positions: shards.map((shard): ShardPosition => (shard.buffer.length > 0 ? (shard.lastTaken ?? shard.start) : shard.next)) };
}
