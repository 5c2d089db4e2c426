import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { KeyLayout } from './contract/key-layout';
import type { ResourceNames } from './resource-names';

/**
 * Where an `AgentPipeline` keeps its data: the table and the turn queues (created or yours), their
 * names, encryption, retention and removal, and the key layout the functions write.
 */
export interface PipelineStorageProps {
  /**
   * The physical names of the table, the turn queue and the dead-letter queue the pipeline creates:
   * `ResourceNames.generated()`, `ResourceNames.of({ tableName, turnQueueName, deadLetterQueueName })`
   * for a naming standard, or `ResourceNames.seed()` for the seed system's names (with
   * `serviceName: 'gogenetic-agent'`, its deployed resources). Explicit names are unique per account
   * and Region: a second pipeline with the same names cannot deploy there.
   *
   * @default ResourceNames.generated()
   */
  readonly resourceNames?: ResourceNames;

  /**
   * A table of yours to keep the pipeline's data in, instead of the one the construct creates. It
   * must have the pipeline's schema: partition key `PK` and sort key `SK` (strings), a global
   * secondary index `GSI1` with partition key `GSI1PK` and sort key `GSI1SK` (strings) projecting
   * all attributes, and TTL on `ttl`. A `dynamodb.Table` of the same app is checked at synth; an
   * imported table cannot be, so import it with `Table.fromTableAttributes({ tableArn,
   * globalIndexes: ['GSI1'], encryptionKey })`, giving its customer managed key if it has one: the
   * functions are granted the table's key (through DynamoDB only), not `encryptionKey`.
   * `removalPolicy`, `deletionProtection` and `resourceNames` do not apply to it.
   *
   * @default - a new table
   */
  readonly existingTable?: dynamodb.ITable;

  /**
   * A FIFO queue of yours to carry the turns between the webhook and the orchestrator, instead of
   * the one the construct creates. Its visibility timeout must be greater than
   * `orchestratorTimeout`, and its redrive policy must move failed turns to a FIFO dead-letter
   * queue: a `sqs.Queue` of the same app is checked at synth and brings its `deadLetterQueue`; for
   * an imported queue pass that dead-letter queue as `existingDeadLetterQueue` (import FIFO queues
   * whose ARN is a token with `fifo: true`, and give `keyArn` when they use a customer managed key)
   * and set `maxReceiveCount` to its redrive policy's count, by which the orchestrator tells a
   * turn's last receive. `visibilityTimeout` and `queueRetentionPeriod` configure only a queue the
   * construct creates.
   *
   * @default - a new FIFO queue
   */
  readonly existingTurnQueue?: sqs.IQueue;

  /**
   * A FIFO queue of yours for the turns that failed `maxReceiveCount` times: the turn queue the
   * construct creates redrives to it, or, with an imported `existingTurnQueue`, the queue its
   * redrive policy names. `deadLetterQueueRetentionPeriod` does not apply to it.
   *
   * @default - a new FIFO dead-letter queue (with a `sqs.Queue` as `existingTurnQueue`, its own)
   */
  readonly existingDeadLetterQueue?: sqs.IQueue;

  /**
   * Properties of the dead-letter queue the construct creates, over its defaults (FIFO, TLS only,
   * encrypted with `encryptionKey` or SQS managed keys, `deadLetterQueueRetentionPeriod`). It stays
   * FIFO. Not with `existingDeadLetterQueue` or `existingTurnQueue`.
   *
   * @default - the defaults above
   */
  readonly deadLetterQueueProps?: sqs.QueueProps;

  /**
   * What happens to the stateful resources (table, queues, log groups, the secret created by the
   * construct) when they leave the stack. Use `DESTROY` only for disposable stacks, together with
   * `deletionProtection: false`.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * DynamoDB deletion protection on the table. Must be `false` when `removalPolicy` is `DESTROY`.
   *
   * @default true
   */
  readonly deletionProtection?: boolean;

  /**
   * Customer managed KMS key for the data at rest: the table, both queues, the functions' log
   * groups and, when the construct creates it, the WhatsApp secret. Both functions are granted
   * exactly the key actions they need; CloudWatch Logs is allowed to use the key for this account's
   * log groups in this region (for an imported key, grant that in the key's own policy).
   *
   * @default - AWS managed keys: `aws/dynamodb` for the table, SQS managed SSE for the queues,
   * `aws/secretsmanager` for the secret; log groups encrypted by CloudWatch Logs' own keys
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * The turn queue's visibility timeout. Must be greater than `orchestratorTimeout`. AWS
   * recommends at least 6 × the function timeout so that retries after throttling do not burn
   * receives; the default keeps the original 120 s, which re-delivers a failed turn sooner.
   *
   * @default Duration.seconds(120)
   */
  readonly visibilityTimeout?: Duration;

  /**
   * How many times a message is received before SQS moves it to the dead-letter queue
   * (a whole number from 1 to 1000).
   *
   * @default 3
   */
  readonly maxReceiveCount?: number;

  /**
   * How long the turn queue keeps a message (60 s to 14 days).
   *
   * @default Duration.days(4)
   */
  readonly queueRetentionPeriod?: Duration;

  /**
   * How long the dead-letter queue keeps a message (60 s to 14 days). Must not be shorter than
   * `queueRetentionPeriod`: SQS keeps a message's original enqueue time when it dead-letters it.
   *
   * @default Duration.days(14)
   */
  readonly deadLetterQueueRetentionPeriod?: Duration;

  /**
   * How long a closed conversation (the session and its messages) is kept after it closed. Items
   * get a TTL when the session closes, and reads ignore them once it passes (DynamoDB deletes
   * expired items up to days late). See docs/PRIVACY.md.
   *
   * @default Duration.days(365)
   */
  readonly conversationRetention?: Duration;

  /**
   * How long an out-of-portfolio demand is kept after it was recorded. See docs/PRIVACY.md.
   *
   * @default Duration.days(730)
   */
  readonly demandRetention?: Duration;

  /**
   * An AWS Backup plan to add the table to: its own schedule and retention, a vault that can be
   * locked, copies to other Regions or accounts. The table always has point-in-time recovery (any
   * second of the last 35 days); a plan keeps backups longer or elsewhere. The selection's role is
   * AWS Backup's managed service role policy.
   *
   * @default - no backup plan: point-in-time recovery only
   */
  readonly backupPlan?: backup.IBackupPlan;

  /**
   * Which key layout the functions write and read: the phase of the move to write-sharded keys,
   * which lets one deployment take Meta's 1,000 messages a second without a hot partition.
   * Move an existing deployment in order, one deployment per step: `KeyLayout.MIGRATING` (writes the
   * sharded keys, reads both layouts), then run
   * `npx cdk-whatsapp-agent-pipeline backfill-shards --stack <stack name>` until it reports
   * complete, then `KeyLayout.SHARDED`. A new table starts on `KeyLayout.SHARDED`; a table that
   * holds the seed system's data (`existingTable`, or `ResourceNames.seed()` over retained
   * resources) must be deployed with `KeyLayout.SEED` first and then migrated. See `KeyLayout` and
   * docs/DESIGN.md#write-shards.
   *
   * @default KeyLayout.SHARDED
   */
  readonly keyLayout?: KeyLayout;
}
