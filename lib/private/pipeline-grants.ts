import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { MEDIA_DEFAULTS, TABLE_SCHEMA } from '../contract';
import {
  DEAD_LETTER_ACTIONS,
  type GrantedPartition,
  indexPartitionPatterns,
  indexPartitionsOf,
  leadingKeysCondition,
  MEDIA_ATTACH_ACTIONS,
  MEDIA_ERASE_ACTIONS,
  MEDIA_KEY_ACTIONS,
  MEDIA_LIST_ACTIONS,
  MEDIA_STORE_ACTIONS,
  type PipelineFeatures,
  type PipelineRole,
  QUEUE_CONSUME_ACTIONS,
  QUEUE_SEND_ACTIONS,
  STACK_OUTPUT_READ_ACTIONS,
  TRANSCRIPTION_DELETE_ACTIONS,
  TRANSCRIPTION_JOB_ACTIONS,
  TRANSCRIPTION_LIST_ACTIONS,
  TRANSCRIPTION_START_ACTIONS,
  TABLE_ACTIONS,
  type TableAction,
  tableActionsOf,
  tablePartitionPatterns,
} from './permissions';
import { type KeyService, QUEUE_CONSUMER_KEY_ACTIONS, QUEUE_PRODUCER_KEY_ACTIONS, TABLE_KEY_ACTIONS, TABLE_KEY_READ_ACTIONS, viaServiceCondition } from './key-permissions';
import { acknowledgePrincipalFinding } from './nag-acknowledgements';
import type { WhatsAppChannelBinding } from './whatsapp-channel-binding';

/**
 * The pipeline's table, turn queue, dead-letter queue and key: what its functions and the package's
 * commands are granted access to. Each resource's own key is granted (`ITable.encryptionKey`,
 * `IQueue.encryptionMasterKey`): `encryptionKey` for what the construct creates, whatever key (or
 * none) the consumer's own table and queues have.
 */
export interface PipelineResources {
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly encryptionKey?: kms.IKey;
}

/**
 * What the grants a pipeline offers other principals are built from (`grantRedrive`,
 * `grantCustomerDataRights`, `grantReadData`): its resources and the features that are on. An
 * imported pipeline has these too.
 */
export interface PipelineDataSources extends PipelineResources {
  readonly features: PipelineFeatures;
  /** The media bucket, when `media` is on. */
  readonly mediaBucket?: s3.IBucket;
  /** `media.transcription` is on: the orchestrator transcribes voice notes. */
  readonly transcribesVoiceNotes?: boolean;
}

/** What the functions' grants are built from: the data sources and the channel the functions receive and send on. */
export interface PipelineGrantsSources extends PipelineDataSources {
  readonly channel: Pick<WhatsAppChannelBinding, 'grantReceive' | 'grantSend' | 'grantMediaDownload' | 'grantSendMedia'>;
}

/**
 * The grants a pipeline offers principals that are not its functions: the package's commands and a
 * consumer's own roles. Built from resources only, so an imported pipeline offers them as well.
 */
export class PipelineDataGrants {
  private keylessTable?: dynamodb.ITable;

  constructor(protected readonly sources: PipelineDataSources) {}

  /**
   * Erasing and exporting one customer's data: the operator function's privacy calls, or the
   * commands when the ARN of the pipeline's stack is given, which also drop the customer's
   * dead-lettered turns.
   */
  public grantCustomerData(grantee: iam.IGrantable, stackArn?: string): iam.Grant {
    const commands = stackArn === undefined ? [] : [stackOutputs(grantee, stackArn), ...this.deadLetterRecords(grantee)];
    return combine([...commands, this.table(grantee, 'customerData'), ...this.media(grantee, MEDIA_ERASE_ACTIONS, MEDIA_LIST_ACTIONS), ...this.transcriptionJobs(grantee, 'cleanup'), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

  /** The redrive command, on the pipeline in the stack `stackArn` names. */
  public grantRedrive(grantee: iam.IGrantable, stackArn: string): iam.Grant {
    return combine([stackOutputs(grantee, stackArn), this.table(grantee, 'redrive'), ...this.deadLetters(grantee), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

  /**
   * aws-cdk-lib's read (or read-write) grant on the table and its indexes, for a role of the
   * consumer's (`AgentPipeline.grantReadData`), with the key only through DynamoDB: the grant is
   * made on a view of the table that knows no key, and the key's actions are added with the condition.
   */
  public grantTableData(grantee: iam.IGrantable, access: 'read' | 'readWrite'): iam.Grant {
    this.keylessTable ??= dynamodb.Table.fromTableAttributes(this.sources.table, 'WithoutKey', {
      tableArn: this.sources.table.tableArn,
      globalIndexes: [TABLE_SCHEMA.gsi1.indexName],
    });
    const table = access === 'read' ? this.keylessTable.grantReadData(grantee) : this.keylessTable.grantReadWriteData(grantee);
    return combine([table, ...this.tableKey(grantee, access === 'read' ? TABLE_KEY_READ_ACTIONS : TABLE_KEY_ACTIONS)]);
  }

  /**
   * The role's table statements: one per group of actions that reach the same partitions, each
   * limited to them by `dynamodb:LeadingKeys`; and Query on GSI1 limited to the index partitions
   * the role lists.
   */
  protected table(grantee: iam.IGrantable, ...roles: PipelineRole[]): iam.Grant {
    const { table, features } = this.sources;
    const partitionsByAction = new Map<TableAction, Set<GrantedPartition>>();
    for (const role of roles) {
      for (const [partition, actions] of tableActionsOf(role, features)) {
        for (const action of actions) partitionsByAction.set(action, (partitionsByAction.get(action) ?? new Set()).add(partition));
      }
    }
    const actionsByPartitions = new Map<string, { actions: TableAction[]; partitions: GrantedPartition[] }>();
    for (const action of Object.values(TABLE_ACTIONS)) {
      const partitions = [...(partitionsByAction.get(action) ?? [])];
      if (partitions.length === 0) continue;
      const group = actionsByPartitions.get(partitions.join()) ?? { actions: [], partitions };
      group.actions.push(action);
      actionsByPartitions.set(partitions.join(), group);
    }
    const grants = [...actionsByPartitions.values()].map(({ actions, partitions }) =>
      iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [table.tableArn], conditions: leadingKeysCondition(tablePartitionPatterns(partitions)) }),
    );
    const indexPartitions = [...new Set(roles.flatMap((role) => indexPartitionsOf(role, features)))];
    if (indexPartitions.length > 0) {
      grants.push(
        iam.Grant.addToPrincipal({
          grantee,
          actions: [TABLE_ACTIONS.query],
          resourceArns: [`${table.tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`],
          conditions: leadingKeysCondition(indexPartitionPatterns(indexPartitions)),
        }),
      );
    }
    return combine(grants);
  }

  /**
   * `objectActions` on the media prefix and `bucketActions` on the bucket, listing only under the
   * prefix; the bucket's customer managed key only through S3. None when media is off.
   */
  protected media(grantee: iam.IGrantable, objectActions: readonly string[], bucketActions: readonly string[] = []): iam.Grant[] {
    const bucket = this.sources.mediaBucket;
    if (bucket === undefined) return [];
    const grants = [iam.Grant.addToPrincipal({ grantee, actions: [...objectActions], resourceArns: [bucket.arnForObjects(`${MEDIA_DEFAULTS.keyPrefix}*`)] })];
    if (bucketActions.length > 0) {
      grants.push(iam.Grant.addToPrincipal({ grantee, actions: [...bucketActions], resourceArns: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': `${MEDIA_DEFAULTS.keyPrefix}*` } } }));
    }
    const key = bucket.encryptionKey;
    if (key !== undefined) grants.push(keyGrant(grantee, key, 's3', MEDIA_KEY_ACTIONS));
    acknowledgePrincipalFinding(grantee, {
      id: 'AwsSolutions-IAM5',
      onResource: bucket.arnForObjects(`${MEDIA_DEFAULTS.keyPrefix}*`),
      reason: "Object keys name the customer and the message, which only the turn knows: the statement is limited to the pipeline's own bucket and its media prefix.",
    });
    return grants;
  }

  /**
   * The transcription jobs, none unless `media.transcription` is on. The turn starts one (on `*`:
   * the action has no resource type) and reads and deletes the ones it names; the idle sweep and
   * the erasure list them (on `*` too) and delete the ended ones. Reads and deletes stay under the
   * job-name prefix (`voice-`).
   */
  protected transcriptionJobs(grantee: iam.IGrantable, use: 'turn' | 'cleanup'): iam.Grant[] {
    if (this.sources.transcribesVoiceNotes !== true) return [];
    const jobs = Stack.of(this.sources.table).formatArn({ service: 'transcribe', resource: 'transcription-job', resourceName: `${MEDIA_DEFAULTS.transcriptionJobPrefix}*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    acknowledgePrincipalFinding(grantee, {
      id: 'AwsSolutions-IAM5',
      appliesTo: 'Resource::*',
      reason:
        use === 'turn'
          ? 'transcribe:StartTranscriptionJob has no resource type in the Service Authorization Reference: it can only be granted on *. The jobs it starts are read and deleted under the job-name prefix only.'
          : 'transcribe:ListTranscriptionJobs has no resource type in the Service Authorization Reference: it can only be granted on *. It lists names, statuses and dates, never a transcript; the jobs are deleted under the job-name prefix only.',
    });
    acknowledgePrincipalFinding(grantee, {
      id: 'AwsSolutions-IAM5',
      onResource: jobs,
      reason: "Each voice note gets its own job, named by the customer's pseudonym and a hash of its object, which only the turn knows: the statement is limited to the pipeline's job-name prefix.",
    });
    const [unscoped, onJobs] = use === 'turn' ? [TRANSCRIPTION_START_ACTIONS, TRANSCRIPTION_JOB_ACTIONS] : [TRANSCRIPTION_LIST_ACTIONS, TRANSCRIPTION_DELETE_ACTIONS];
    return [iam.Grant.addToPrincipal({ grantee, actions: [...unscoped], resourceArns: ['*'] }), iam.Grant.addToPrincipal({ grantee, actions: [...onJobs], resourceArns: [jobs] })];
  }

  protected turnQueue(grantee: iam.IGrantable, actions: readonly string[]): iam.Grant {
    return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [this.sources.queue.queueArn] });
  }

  /** The admin's redrive: read, hold and remove dead-letter records (decrypting them), send them back to the turn queue (encrypting them). */
  protected deadLetters(grantee: iam.IGrantable): iam.Grant[] {
    const { queue, deadLetterQueue } = this.sources;
    return [
      this.deadLetterActions(grantee),
      ...this.queueKeys(grantee, [
        [queue, QUEUE_PRODUCER_KEY_ACTIONS],
        [deadLetterQueue, QUEUE_CONSUMER_KEY_ACTIONS],
      ]),
      this.turnQueue(grantee, QUEUE_SEND_ACTIONS),
    ];
  }

  /** Read, hold and remove dead-letter records, with Decrypt on the dead-letter queue's key through SQS. */
  private deadLetterRecords(grantee: iam.IGrantable): iam.Grant[] {
    return [this.deadLetterActions(grantee), ...this.queueKeys(grantee, [[this.sources.deadLetterQueue, QUEUE_CONSUMER_KEY_ACTIONS]])];
  }

  private deadLetterActions(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({ grantee, actions: [...DEAD_LETTER_ACTIONS], resourceArns: [this.sources.deadLetterQueue.queueArn] });
  }

  /** `actions` on the table's customer managed key, only through DynamoDB; none without one. */
  protected tableKey(grantee: iam.IGrantable, actions: readonly string[]): iam.Grant[] {
    const key = this.sources.table.encryptionKey;
    return key === undefined ? [] : [keyGrant(grantee, key, 'dynamodb', actions)];
  }

  /**
   * The actions each queue needs on its customer managed key, only through SQS: one statement per
   * key, so queues that share a key share it (by ARN: an imported queue refers to its key anew);
   * none for queues without one.
   */
  protected queueKeys(grantee: iam.IGrantable, needs: readonly (readonly [sqs.IQueue, readonly string[]])[]): iam.Grant[] {
    const needsByKeyArn = new Map<string, { key: kms.IKey; actions: Set<string> }>();
    for (const [queue, actions] of needs) {
      const key = queue.encryptionMasterKey;
      if (key === undefined) continue;
      const need = needsByKeyArn.get(key.keyArn) ?? { key, actions: new Set<string>() };
      actions.forEach((action) => need.actions.add(action));
      needsByKeyArn.set(key.keyArn, need);
    }
    return [...needsByKeyArn.values()].map(({ key, actions }) => keyGrant(grantee, key, 'sqs', [...actions]));
  }
}

/**
 * Every permission of the pipeline's roles, one method per role, the way
 * `QueueBase.grantConsumeMessages` bundles a queue's actions with its key: the role's table actions
 * per partition (`dynamodb:LeadingKeys`, from `ROLE_TABLE_ACCESS`), its GSI1 queries by index
 * partition, its queues, its channel, and the customer managed key always through the service that
 * uses it (`kms:ViaService`).
 */
export class PipelineGrants extends PipelineDataGrants {
  constructor(private readonly withChannel: PipelineGrantsSources) {
    super(withChannel);
  }

  /** The webhook or End User Messaging inbound function: registers and dispatches each message. */
  public grantInbound(grantee: lambda.IFunction): iam.Grant {
    this.withChannel.channel.grantReceive(grantee);
    return combine([this.table(grantee, 'inbound'), this.turnQueue(grantee, QUEUE_SEND_ACTIONS), ...this.tableKey(grantee, TABLE_KEY_ACTIONS), ...this.queueKeys(grantee, [[this.sources.queue, QUEUE_PRODUCER_KEY_ACTIONS]])]);
  }

  /** The orchestrator: its turns on the table, sending on the channel, downloading attachments with media on, and what its event source mapping polls the turn queue with. */
  public grantTurns(grantee: lambda.IFunction): iam.Grant {
    this.withChannel.channel.grantSend(grantee);
    if (this.sources.features.media) this.withChannel.channel.grantMediaDownload(grantee);
    return combine([this.table(grantee, 'turns'), ...this.media(grantee, MEDIA_STORE_ACTIONS), ...this.transcriptionJobs(grantee, 'turn'), this.turnQueue(grantee, QUEUE_CONSUME_ACTIONS), ...this.tableKey(grantee, TABLE_KEY_ACTIONS), ...this.queueKeys(grantee, [[this.sources.queue, QUEUE_CONSUMER_KEY_ACTIONS]])]);
  }

  /**
   * The operator function: its console and API (the attachments an operator sends included), and
   * the API's privacy calls (the customer-data role's table access, merged into the same statements).
   */
  public grantOperatorPlane(grantee: lambda.IFunction): iam.Grant {
    this.withChannel.channel.grantSend(grantee);
    if (this.sources.mediaBucket !== undefined) this.withChannel.channel.grantSendMedia(grantee);
    return combine([
      this.table(grantee, 'operatorPlane', 'customerData'),
      ...this.media(grantee, [...MEDIA_ERASE_ACTIONS, ...MEDIA_ATTACH_ACTIONS], MEDIA_LIST_ACTIONS),
      ...this.transcriptionJobs(grantee, 'cleanup'),
      ...this.deadLetters(grantee),
      ...this.tableKey(grantee, TABLE_KEY_ACTIONS),
    ]);
  }

  /** The handoff sweeper. */
  public grantSweeper(grantee: lambda.IFunction): iam.Grant {
    this.withChannel.channel.grantSend(grantee);
    return combine([this.table(grantee, 'sweeper'), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

  /** The idle sweeper: the channel only when it re-engages customers who went quiet; the ended transcription jobs with `media.transcription`. */
  public grantIdleSweeper(grantee: lambda.IFunction): iam.Grant {
    if (this.sources.features.reengagement) this.withChannel.channel.grantSend(grantee);
    return combine([this.table(grantee, 'idleSweeper'), ...this.transcriptionJobs(grantee, 'cleanup'), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

  /** The evaluator: its runs' customers, the prompts and suite, the runs, the budget's evaluation line (its agent's calls come with the agent backend). */
  public grantEvaluator(grantee: lambda.IFunction): iam.Grant {
    return combine([this.table(grantee, 'evaluator'), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

  /** The CRM sync worker (its target's permissions come with `CrmTarget.bind`). */
  public grantCrmWorker(grantee: iam.IGrantable): iam.Grant {
    return combine([this.table(grantee, 'crmWorker'), ...this.tableKey(grantee, TABLE_KEY_ACTIONS)]);
  }

}

function keyGrant(grantee: iam.IGrantable, key: kms.IKey, service: KeyService, actions: readonly string[]): iam.Grant {
  return iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [key.keyArn], conditions: viaServiceCondition(service) });
}

/**
 * The package's commands find the pipeline's table and queues in its stack's outputs. A stack that
 * imports the pipeline knows its stack by name only (`stack/<name>/*`), hence the acknowledgement.
 */
function stackOutputs(grantee: iam.IGrantable, stackArn: string): iam.Grant {
  const grant = iam.Grant.addToPrincipal({ grantee, actions: [...STACK_OUTPUT_READ_ACTIONS], resourceArns: [stackArn] });
  if (stackArn.endsWith('/*')) {
    acknowledgePrincipalFinding(grantee, {
      id: 'AwsSolutions-IAM5',
      onResource: stackArn,
      reason: "A stack's ARN ends with the id CloudFormation gave it at creation, which a stack importing the pipeline cannot know: the statement names the pipeline's stack by name, for DescribeStacks only.",
    });
  }
  return grant;
}

function combine(grants: readonly iam.Grant[]): iam.Grant {
  return grants.reduce((all, grant) => all.combine(grant));
}
