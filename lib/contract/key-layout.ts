/**
 * The phase of the move to write-sharded keys (docs/DESIGN.md#write-shards), set with the
 * `keyLayout` prop of an `AgentPipeline`.
 *
 * Keys every customer writes (the operator inbox by state, the day index of LLM messages) started
 * as one partition each, which caps a deployment well below Meta's 1,000 messages a second. The
 * sharded layout spreads each over several partitions. A table with data moves in three phases,
 * each a deployment, in this order:
 *
 * 1. Deploy `MIGRATING`: new writes carry the sharded keys, and list readers read both the old
 *    partitions and every shard, so nothing is missed whatever has been moved.
 * 2. Run `npx cdk-whatsapp-agent-pipeline backfill-shards --stack <stack name>`: it rewrites the
 *    existing items to the sharded keys and, once nothing is left, writes a completion marker.
 *    The readers of step 1 see the marker (within a minute) and switch to the shards only. It
 *    exits with 2 and writes no marker while seed-layout items remain: run it again.
 * 3. Deploy `SHARDED` once the backfill reported complete: shards only, old keys never written or read.
 *
 * A new deployment (empty table) can start directly on `SHARDED`. Do not go back to `SEED` after
 * `MIGRATING`: items written in the sharded layout would drop out of the lists until it is redeployed.
 */
export enum KeyLayout {
  /** The original layout: one partition per session state and per day. Nothing to migrate. */
  SEED = 'seed',
  /** Writes the sharded keys and reads both layouts until the backfill's completion marker exists. */
  MIGRATING = 'migrating',
  /** Sharded keys only. Deploy only after `backfill-shards` reported complete (or on an empty table). */
  SHARDED = 'sharded',
}
