/**
 * The single table's schema, the partition prefixes IAM scopes by, and the physical resource names.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/** Key schema of the single table (docs/DESIGN.md#data-model). */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  timeToLiveAttribute: 'ttl',
} as const;

/**
 * Partition-key prefixes of the per-customer partitions (the rest of the key is the customer id).
 * The key builders use them, and the construct scopes IAM with them (`dynamodb:LeadingKeys`), so
 * a renamed prefix cannot leave a function without access to its own items.
 */
export const CUSTOMER_PARTITION_PREFIXES = {
  /** Sessions, the active-session pointer and the message history. */
  session: 'SESSION#',
  /** Inbound receipts, the latest-inbound marker and the legacy debounce items ("debounce" is the seed's name). */
  inbound: 'DEBOUNCE#',
  /** The customer's budget counts. */
  budget: 'BUDGET#',
} as const;

/** Partition-key prefix of a session's CRM projection row (the rest of the key is the session id). */
export const CRM_SYNC_PARTITION_PREFIX = 'CRM_SYNC#';

/**
 * Partition-key prefix of the pipeline-wide daily token count (the rest of the key is its write
 * shard): the orchestrator alone adds to it and reads it.
 */
export const PIPELINE_BUDGET_PARTITION_PREFIX = 'PIPELINE_BUDGET#';

/** Physical resource names, derived as in the original template. */
export function physicalNames(serviceName: string, environment: string) {
  return {
    table: `${serviceName}-${environment}`,
    // "debounce" is the original design's name for the turn queue; renaming a deployed queue would replace it.
    queue: `${serviceName}-debounce-${environment}.fifo`,
    deadLetterQueue: `${serviceName}-debounce-dlq-${environment}.fifo`,
  };
}

