import { CrmSyncStatus } from '../../domain/crm-sync';
import { SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import { crmSyncFromItem } from './codecs/crm-sync-codec';
import { messageFromItem } from './codecs/message-codec';
import { sessionFromItem } from './codecs/session-codec';
import type { DynamoKit, Item } from './dynamo-kit';
import { BackfillMarkerAttribute } from './key-layout';
import {
  crmSyncStatusPartition,
  ENTITY_TYPE,
  EntityType,
  GSI1,
  GSI1PK,
  GSI1SK,
  llmDayPartition,
  PK,
  sessionIndexKey,
  sessionStatePartition,
  shardedCrmSyncStatusIndexKey,
  shardedLlmMessageIndexKey,
  SK,
  writeShardBackfillKey,
} from './keys';
import { conditionally } from './repository-support';

const DAY_MS = 24 * 60 * 60 * 1000;
const PAGE_SIZE = 100;

export interface WriteShardBackfillOptions {
  /** How many UTC days of the LLM day index, today included, are moved. @default 30 */
  readonly llmDays?: number;
}

export interface WriteShardBackfillReport {
  /** Items this run moved to their write shard. */
  readonly moved: number;
  /** Items a concurrent writer moved (or rewrote) between this run's read and its update. */
  readonly movedConcurrently: number;
  /** Items still under a seed partition after the run: non-zero while a deployment still writes the seed layout. */
  readonly remaining: number;
  /** True when nothing was left and the completion marker was written; readers then switch to the shards. */
  readonly complete: boolean;
}

interface SeedPartition {
  readonly partition: string;
  readonly entityType: string;
  /** The sharded GSI1 key of an item of this partition. */
  readonly shardedKey: (item: Item) => Record<string, string>;
}

/**
 * Moves every item of the seed layout (GSI1 `STATE#{state}`, `LLM#{day}`, `CRM_SYNC#{status}`) to its write shard, then
 * checks that the seed partitions are empty and, only then, writes the completion marker that
 * switches `migrating` readers to the shards. Run it after every function runs the `migrating`
 * layout (a seed-layout writer would keep refilling the seed partitions, and the run reports it).
 * Idempotent: each move is conditional on the item still holding the seed key it was read with.
 */
export async function backfillWriteShards(kit: DynamoKit, clock: Clock, options: WriteShardBackfillOptions = {}): Promise<WriteShardBackfillReport> {
  const llmDays = options.llmDays ?? 30;
  if (!Number.isInteger(llmDays) || llmDays < 1) throw new RangeError(`llmDays must be a positive whole number of days, got ${llmDays}`);
  const today = clock.now().getTime();
  const partitions: SeedPartition[] = [
    ...Object.values(SessionState).map((state) => ({
      partition: sessionStatePartition(state),
      entityType: EntityType.session,
      shardedKey: (item: Item) => sessionIndexKey(sessionFromItem(item), true),
    })),
    ...Array.from({ length: llmDays }, (_, daysAgo) => ({
      partition: llmDayPartition(new Date(today - daysAgo * DAY_MS)),
      entityType: EntityType.message,
      shardedKey: (item: Item) => {
        const message = messageFromItem(item);
        return shardedLlmMessageIndexKey(message.timestamp, message.messageId, message.customerId);
      },
    })),
    // Before the marker, or `migrating` readers would stop reading rows the worker has yet to send.
    ...Object.values(CrmSyncStatus).map((status) => ({
      partition: crmSyncStatusPartition(status),
      entityType: EntityType.crmSync,
      shardedKey: (item: Item) => {
        const row = crmSyncFromItem(item);
        return shardedCrmSyncStatusIndexKey(row.status, row.nextAttemptAt, row.sessionId, row.customerId);
      },
    })),
  ];

  let moved = 0;
  let movedConcurrently = 0;
  for (const seed of partitions) {
    for await (const item of seedItems(kit, seed)) {
      const target = seed.shardedKey(item);
      const done = await conditionally(() =>
        kit.update({
          key: { [PK]: String(item[PK]), [SK]: String(item[SK]) },
          update: 'SET #gsi1pk = :pk, #gsi1sk = :sk',
          condition: '#gsi1pk = :seedPk AND #gsi1sk = :seedSk',
          names: { '#gsi1pk': GSI1PK, '#gsi1sk': GSI1SK },
          values: { ':pk': target[GSI1PK], ':sk': target[GSI1SK], ':seedPk': item[GSI1PK], ':seedSk': item[GSI1SK] },
        }),
      );
      if (done) moved += 1;
      else movedConcurrently += 1;
    }
  }

  let remaining = 0;
  for (const seed of partitions) for await (const _item of seedItems(kit, seed)) remaining += 1;
  const complete = remaining === 0;
  if (complete) {
    await kit.put({
      item: {
        ...writeShardBackfillKey(),
        [BackfillMarkerAttribute.completedAt]: isoMicros(clock.now()),
        [BackfillMarkerAttribute.moved]: moved,
        [BackfillMarkerAttribute.llmDays]: llmDays,
      },
    });
  }
  return { moved, movedConcurrently, remaining, complete };
}

async function* seedItems(kit: DynamoKit, seed: SeedPartition): AsyncGenerator<Item> {
  let cursor: string | undefined;
  do {
    const page = await kit.queryPage({
      indexName: GSI1,
      keyCondition: '#gsi1pk = :pk',
      filter: '#type = :type',
      names: { '#gsi1pk': GSI1PK, '#type': ENTITY_TYPE },
      values: { ':pk': seed.partition, ':type': seed.entityType },
      limit: PAGE_SIZE,
      cursor,
    });
    yield* page.items;
    cursor = page.cursor;
  } while (cursor !== undefined);
}
