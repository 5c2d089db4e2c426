/**
 * How the repositories write and read the keys every customer writes (the inbox by state, the LLM
 * day index) in each phase of the move to write shards (`KeyLayout`, docs/DESIGN.md#write-shards):
 *
 * 1. `SEED`: the original layout, one partition per state and per day. The default.
 * 2. `MIGRATING`: new writes carry the sharded key; readers fan out over the seed partition AND every
 *    shard, so nothing is missed whatever the backfill has moved, until the backfill's completion
 *    marker is found — then they read the shards only.
 * 3. `SHARDED`: the later release, once the backfill reported complete everywhere: shards only, no
 *    marker lookup.
 *
 * A GSI1 item holds one GSI1PK, so it cannot carry the seed key and the sharded key at once; reading
 * both layouts during the migration is what keeps the phases safe instead.
 */
import { KeyLayout } from '../../../../lib/contract/key-layout';
import type { Clock } from '../../ports/clock';
import type { DynamoKit } from './dynamo-kit';
import { allWriteShards, writeShardBackfillKey } from './keys';

/** The layout a name (`seed`, `migrating` or `sharded`) names, as a command line gives it. */
export function parseKeyLayout(value: string): KeyLayout {
  const layout = Object.values(KeyLayout).find((candidate) => candidate === value.trim());
  if (!layout) throw new RangeError(`Unknown key layout "${value}": use one of ${Object.values(KeyLayout).join(', ')}`);
  return layout;
}

/** Attributes of the backfill's completion marker. */
export const BackfillMarkerAttribute = { completedAt: 'completed_at', moved: 'moved_items', llmDays: 'llm_days' } as const;

/** A missing marker is looked up again after this long: the backfill may complete at any time. */
const MARKER_RECHECK_MS = 60_000;

/** What one repository call writes and which partitions it reads. */
export class KeyLayoutPolicy {
  private completed = false;
  private checkedAt = -Infinity;

  constructor(
    readonly layout: KeyLayout,
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  get writesShards(): boolean {
    return this.layout !== KeyLayout.SEED;
  }

  /** Whether readers still query the seed partitions: always in `seed`, until the backfill completed in `migrating`. */
  async readsSeedPartitions(): Promise<boolean> {
    if (this.layout !== KeyLayout.MIGRATING) return this.layout === KeyLayout.SEED;
    if (this.completed) return false;
    const now = this.clock.now().getTime();
    if (now - this.checkedAt >= MARKER_RECHECK_MS) {
      const marker = await this.kit.get({ key: writeShardBackfillKey(), consistentRead: true });
      this.completed = marker?.[BackfillMarkerAttribute.completedAt] !== undefined;
      this.checkedAt = now;
    }
    return !this.completed;
  }

  /** The partitions a list reads now: the seed partition and/or every write shard of it. */
  async partitionsToRead(seedPartition: string, shardPartition: (shard: number) => string): Promise<string[]> {
    const seed = (await this.readsSeedPartitions()) ? [seedPartition] : [];
    return this.layout === KeyLayout.SEED ? seed : [...seed, ...allWriteShards().map(shardPartition)];
  }
}
