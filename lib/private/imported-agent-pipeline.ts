import { Arn, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AgentPipelineAttributes } from '../agent-pipeline-attributes';
import { AgentPipelineBase } from '../agent-pipeline-base';
import { PIPELINE_DEFAULTS, TABLE_SCHEMA } from '../contract';
import { COMMAND_FEATURES } from './permissions';
import { PipelineDataGrants } from './pipeline-grants';
import { PipelineMetrics } from './pipeline-metrics';
import { checkName, deploymentNameOf } from './pipeline-settings';

/**
 * A pipeline deployed elsewhere (`AgentPipeline.fromPipelineAttributes()`): references to its
 * resources, and the grants and metrics of `AgentPipelineBase` built from them. Creates nothing
 * but the references.
 */
export class ImportedAgentPipeline extends AgentPipelineBase {
  public readonly table: dynamodb.ITable;
  public readonly queue: sqs.IQueue;
  public readonly deadLetterQueue: sqs.IQueue;
  public readonly webhookFunction: lambda.IFunction;
  public readonly orchestratorFunction: lambda.IFunction;
  public readonly serviceName: string;
  public readonly environment: string;
  public readonly encryptionKey?: kms.IKey;
  public readonly mediaBucket?: s3.IBucket;
  /** @internal */
  protected readonly _metrics: PipelineMetrics;
  /** @internal */
  protected readonly _grants: PipelineDataGrants;
  private readonly stackName?: string;

  constructor(scope: Construct, id: string, attrs: AgentPipelineAttributes) {
    super(scope, id);
    const fail = (problem: string): never => {
      throw new Error(`AgentPipeline.fromPipelineAttributes at '${this.node.path}': ${problem}`);
    };
    this.serviceName = attrs.serviceName ?? PIPELINE_DEFAULTS.serviceName;
    this.environment = attrs.environment;
    checkName(fail, 'environment', this.environment);
    checkName(fail, 'serviceName', this.serviceName);
    checkArn(fail, 'tableArn', attrs.tableArn, ARN_SHAPES.table);
    checkArn(fail, 'queueArn', attrs.queueArn, ARN_SHAPES.fifoQueue);
    checkArn(fail, 'deadLetterQueueArn', attrs.deadLetterQueueArn, ARN_SHAPES.fifoQueue);
    checkArn(fail, 'webhookFunctionArn', attrs.webhookFunctionArn, ARN_SHAPES.function);
    checkArn(fail, 'orchestratorFunctionArn', attrs.orchestratorFunctionArn, ARN_SHAPES.function);
    if (attrs.transcribesVoiceNotes === true && attrs.mediaBucketName === undefined) {
      fail('transcribesVoiceNotes needs mediaBucketName: voice notes are transcribed from the media bucket (the MediaBucketName output).');
    }

    const key = attrs.encryptionKey;
    this.encryptionKey = key;
    this.table = dynamodb.Table.fromTableAttributes(this, 'Table', { tableArn: attrs.tableArn, encryptionKey: key, globalIndexes: [TABLE_SCHEMA.gsi1.indexName] });
    this.queue = sqs.Queue.fromQueueAttributes(this, 'TurnQueue', { queueArn: attrs.queueArn, keyArn: key?.keyArn, fifo: true });
    this.deadLetterQueue = sqs.Queue.fromQueueAttributes(this, 'DeadLetterQueue', { queueArn: attrs.deadLetterQueueArn, keyArn: key?.keyArn, fifo: true });
    this.webhookFunction = lambda.Function.fromFunctionArn(this, 'WebhookFunction', attrs.webhookFunctionArn);
    this.orchestratorFunction = lambda.Function.fromFunctionArn(this, 'OrchestratorFunction', attrs.orchestratorFunctionArn);
    this.mediaBucket = attrs.mediaBucketName === undefined ? undefined : s3.Bucket.fromBucketAttributes(this, 'MediaBucket', { bucketName: attrs.mediaBucketName, encryptionKey: key });
    this.stackName = attrs.stackName;
    this._grants = new PipelineDataGrants({
      table: this.table,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      encryptionKey: key,
      mediaBucket: this.mediaBucket,
      transcribesVoiceNotes: attrs.transcribesVoiceNotes,
      features: COMMAND_FEATURES,
    });
    this._metrics = new PipelineMetrics(this.serviceName, deploymentNameOf(this.serviceName, this.environment), this.table, this.queue);
  }

  /**
   * The pipeline's stack by name, in the account and Region of its table: CloudFormation appends
   * to a stack's ARN an id that only the stack itself knows.
   *
   * @internal
   */
  protected _commandsStackArn(grant: string): string {
    if (this.stackName === undefined) {
      throw new Error(
        `AgentPipeline.fromPipelineAttributes at '${this.node.path}': ${grant} needs stackName, the name of the stack that deployed the pipeline, ` +
          'whose outputs the commands read: add it to the attributes.',
      );
    }
    const table = Token.isUnresolved(this.table.tableArn) ? undefined : Arn.split(this.table.tableArn, ArnFormat.SLASH_RESOURCE_NAME);
    return Stack.of(this).formatArn({
      service: 'cloudformation',
      resource: 'stack',
      resourceName: `${this.stackName}/*`,
      region: table?.region,
      account: table?.account,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }
}

interface ArnShape {
  readonly what: string;
  readonly service: string;
  /** The part after the account. */
  readonly resource: RegExp;
  readonly example: string;
}

const ARN_SHAPES = {
  table: { what: 'a DynamoDB table', service: 'dynamodb', resource: /^table\/[\w.-]{3,255}$/, example: 'table/<TableName>' },
  fifoQueue: { what: 'a FIFO queue', service: 'sqs', resource: /^[\w-]{1,75}\.fifo$/, example: '<QueueName>.fifo' },
  function: { what: 'a Lambda function', service: 'lambda', resource: /^function:[\w-]{1,64}(:[\w$-]+)?$/, example: 'function:<FunctionName>' },
} satisfies Record<string, ArnShape>;

/** A literal `arn` must have `shape`; tokens (another stack's values) pass. */
function checkArn(fail: (problem: string) => never, label: string, arn: string, shape: ArnShape): void {
  if (Token.isUnresolved(arn)) return;
  const parts = /^arn:[\w-]+:([\w-]+):[\w-]*:\d{12}:(.+)$/.exec(arn);
  if (parts === null || parts[1] !== shape.service || !shape.resource.test(parts[2])) {
    fail(`${label} '${arn}' is not the ARN of ${shape.what}: expected arn:<partition>:${shape.service}:<region>:<account>:${shape.example}.`);
  }
}
