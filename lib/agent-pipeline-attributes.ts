import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/**
 * An agent pipeline, created here (`AgentPipeline`) or deployed by another stack or app and
 * referenced with `AgentPipeline.fromPipelineAttributes()`: what other stacks may use of it, its
 * resources, the grants that let principals work with it and the metrics its alarms read. Each
 * method is documented on `AgentPipelineBase`, which implements it.
 */
export interface IAgentPipeline extends IConstruct {
  /** The single table (`PK`/`SK`, `GSI1`, TTL `ttl`). */
  readonly table: dynamodb.ITable;
  /** The FIFO turn queue between the webhook and the orchestrator. */
  readonly queue: sqs.IQueue;
  /** The FIFO dead-letter queue of the turns that failed `maxReceiveCount` times. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The function that receives WhatsApp's events (the webhook, or the End User Messaging inbound function). */
  readonly webhookFunction: lambda.IFunction;
  /** The function that consumes the turn queue and runs each turn. */
  readonly orchestratorFunction: lambda.IFunction;
  /** The `serviceName` the pipeline was deployed with: the namespace of its custom metrics. */
  readonly serviceName: string;
  /** The `environment` the pipeline was deployed with, e.g. `prod`. */
  readonly environment: string;
  /**
   * The customer managed key of the table, the queues and the media bucket.
   *
   * @default - none: they are encrypted with AWS owned or managed keys
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * The bucket of the attachments customers send (under `media/`).
   *
   * @default - none: the pipeline keeps no attachments
   */
  readonly mediaBucket?: s3.IBucket;

  /** Read access to the whole table and its index (`AgentPipelineBase.grantReadData`). @param grantee the principal to grant to */
  grantReadData(grantee: iam.IGrantable): iam.Grant;
  /** Read and write access to the whole table and its index (`AgentPipelineBase.grantReadWriteData`). @param grantee the principal to grant to */
  grantReadWriteData(grantee: iam.IGrantable): iam.Grant;
  /** What the `redrive` command needs (`AgentPipelineBase.grantRedrive`). @param grantee the principal to grant to */
  grantRedrive(grantee: iam.IGrantable): iam.Grant;
  /** What the `erase-customer` and `export-customer` commands need (`AgentPipelineBase.grantCustomerDataRights`). @param grantee the principal to grant to */
  grantCustomerDataRights(grantee: iam.IGrantable): iam.Grant;

  /** Messages visible in the dead-letter queue. @param props overrides of the metric's options */
  metricDeadLetterQueueMessages(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Age in seconds of the oldest message in the turn queue. @param props overrides of the metric's options */
  metricOldestMessageAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Customer messages the webhook accepted. @param props overrides of the metric's options */
  metricInboundReceived(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Webhook answers with a 5xx status. @param props overrides of the metric's options */
  metricWebhookServerErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Webhook POSTs refused for their signature. @param props overrides of the metric's options */
  metricWebhookSignatureRejected(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Turns whose reply was sent. @param props overrides of the metric's options */
  metricTurnsAnswered(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Turns that went to the dead-letter queue. @param props overrides of the metric's options */
  metricTurnsFailedPermanently(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Turns answered with the fallback text. @param props overrides of the metric's options */
  metricTurnsAnsweredWithFallback(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Conversations waiting for a person. @param props overrides of the metric's options */
  metricHandoffsWaiting(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Seconds the longest-waiting conversation has waited for a person. @param props overrides of the metric's options */
  metricOldestHandoffWaitingSeconds(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Replies WhatsApp refused for good. @param props overrides of the metric's options */
  metricRepliesRefused(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Replies whose delivery could not be confirmed. @param props overrides of the metric's options */
  metricReplyOutcomeUnknown(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Messages WhatsApp reported it could not deliver. @param props overrides of the metric's options */
  metricDeliveryFailed(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Milliseconds the agent took per turn. @param props overrides of the metric's options */
  metricAgentLatency(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** CRM sync rows BLOCKED. @param props overrides of the metric's options */
  metricCrmSyncBlockedRows(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** CRM sync rows UNCERTAIN. @param props overrides of the metric's options */
  metricCrmSyncUncertainRows(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Model input tokens. @param props overrides of the metric's options */
  metricAgentInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Model output tokens. @param props overrides of the metric's options */
  metricAgentOutputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Input tokens read from Bedrock's prompt cache. @param props overrides of the metric's options */
  metricAgentCacheReadInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Input tokens written to Bedrock's prompt cache. @param props overrides of the metric's options */
  metricAgentCacheWriteInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Turns refused by a customer's budget. @param props overrides of the metric's options */
  metricTurnsOverBudget(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Turns refused because the daily pipeline budget was spent. @param props overrides of the metric's options */
  metricTurnsOverPipelineBudget(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** The model tokens the whole pipeline used today (UTC). @param props overrides of the metric's options */
  metricPipelineAgentTokensToday(props?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Throttled requests to the table. @param props overrides of the expression's options */
  metricTableThrottledRequests(props?: cloudwatch.MathExpressionOptions): cloudwatch.IMetric;
}

/**
 * What another stack needs to know of a deployed pipeline to reference it with
 * `AgentPipeline.fromPipelineAttributes()`. In the same app, pass the pipeline's own values
 * (`pipeline.table.tableArn`…, CloudFormation exports them); from another app, the pipeline
 * stack's outputs and resources name them.
 */
export interface AgentPipelineAttributes {
  /** The `environment` the pipeline was deployed with, e.g. `prod`. */
  readonly environment: string;

  /**
   * The `serviceName` the pipeline was deployed with: with `environment`, it names the series of
   * the pipeline's custom metrics.
   *
   * @default 'agent-pipeline'
   */
  readonly serviceName?: string;

  /** ARN of the pipeline's table (the table its `TableName` output names). */
  readonly tableArn: string;

  /** ARN of the FIFO turn queue (ends in `.fifo`). */
  readonly queueArn: string;

  /** ARN of the FIFO dead-letter queue (ends in `.fifo`). */
  readonly deadLetterQueueArn: string;

  /** ARN of the function that receives WhatsApp's events (the webhook, or the End User Messaging inbound function). */
  readonly webhookFunctionArn: string;

  /** ARN of the orchestrator function. */
  readonly orchestratorFunctionArn: string;

  /**
   * The pipeline's `encryptionKey`, which encrypts its table, queues and media bucket: the grants
   * give its use, through those services only.
   *
   * @default - none: the pipeline was deployed without `encryptionKey`
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * Name of the media bucket (the pipeline stack's `MediaBucketName` output):
   * `grantCustomerDataRights` lets the erasure reach the customer's attachments there. Media is on
   * by default, so leave it out only for a pipeline deployed with `media: { enabled: false }`.
   *
   * @default - none: the pipeline keeps no attachments
   */
  readonly mediaBucketName?: string;

  /**
   * Whether the pipeline transcribes voice notes (`media.transcription`; its stack has the
   * `TranscriptionJobPrefix` output): `grantCustomerDataRights` then lets the erasure delete the
   * customer's transcription jobs.
   *
   * @default false
   */
  readonly transcribesVoiceNotes?: boolean;

  /**
   * Name of the stack that deployed the pipeline: the package's commands read its outputs, so
   * `grantRedrive` and `grantCustomerDataRights` need it.
   *
   * @default - none: `grantRedrive` and `grantCustomerDataRights` refuse, naming this attribute
   */
  readonly stackName?: string;
}
