import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { AgentPipelineAttributes, IAgentPipeline } from './agent-pipeline-attributes';
import { AgentPipelineBase } from './agent-pipeline-base';
import type { AgentPipelineProps } from './agent-pipeline-props';
import { refuseOverridesOfAbsentAlarms } from './private/alarm-settings';
import { checkDeployLimits } from './private/deploy-limits';
import { ImportedAgentPipeline } from './private/imported-agent-pipeline';
import { assemblePipeline } from './private/pipeline-assembly';
import type { PipelineGrants } from './private/pipeline-grants';
import type { PipelineMetrics } from './private/pipeline-metrics';
import { alarmProperties, createPipelineAlarms, createPipelineDashboard, type PipelineAlarmProperties } from './private/pipeline-observability';

/**
 * A WhatsApp AI-agent pipeline: Meta's webhook lands on a Lambda Function URL (or an API Gateway
 * REST API behind AWS WAF, `webhookFrontDoor`), which records each
 * message durably in a single DynamoDB table and dispatches it through an SQS FIFO queue (one
 * message group per customer) to an orchestrator function that runs the agent and replies through
 * the WhatsApp Cloud API, latest message wins. Failed turns end in a dead-letter queue; every way a
 * message can stall raises an alarm (docs/RELIABILITY.md maps each to what to do), and a dashboard
 * shows traffic, latency, replies, failures and tokens.
 *
 * @example
 * import { App, Stack } from 'aws-cdk-lib';
 * import { AgentBackend, AgentPipeline } from 'cdk-whatsapp-agent-pipeline';
 *
 * const app = new App();
 * const stack = new Stack(app, 'WhatsAppAgent-prod', { env: { account: '123456789012', region: 'us-east-1' } });
 *
 * const pipeline = new AgentPipeline(stack, 'Agent', {
 *   environment: 'prod',
 *   agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
 *   // The Meta phone number id this pipeline answers.
 *   phoneNumberIds: ['106540352242922'],
 *   // Turns the operator console on; these phones are its admins.
 *   adminPhoneNumbers: ['5511912345678'],
 * });
 */
export class AgentPipeline extends AgentPipelineBase {
  /**
   * References a pipeline deployed by another stack or app, to grant its commands to a role, read
   * its metrics or alarm on them there: the result offers the `grant*` and `metric*` methods of
   * a pipeline created here, and creates nothing.
   *
   * @param scope the construct the reference belongs to
   * @param id construct id, unique within `scope`
   * @param attrs what identifies the pipeline: its environment, table, queues and functions
   */
  public static fromPipelineAttributes(scope: Construct, id: string, attrs: AgentPipelineAttributes): IAgentPipeline {
    return new ImportedAgentPipeline(scope, id, attrs);
  }

  /** The `serviceName` of the pipeline (`agent-pipeline` unless set): the namespace of its custom metrics. */
  public readonly serviceName: string;
  /** The `environment` of the pipeline. */
  public readonly environment: string;
  /**
   * `encryptionKey`, which encrypts the table, the queues and the media bucket the construct creates.
   *
   * @default - none without `encryptionKey`
   */
  public readonly encryptionKey?: kms.IKey;
  /** The single table (`PK`/`SK`, `GSI1`, TTL `ttl`): created, or `existingTable`. */
  public readonly table: dynamodb.ITable;
  /** The FIFO turn queue between the webhook and the orchestrator: created, or `existingTurnQueue`. */
  public readonly queue: sqs.IQueue;
  /** The FIFO dead-letter queue that receives turns that failed `maxReceiveCount` times: created, or the consumer's. */
  public readonly deadLetterQueue: sqs.IQueue;
  /**
   * The function that receives WhatsApp's events: behind the webhook URL (Cloud API), or subscribed
   * to the event topic (End User Messaging). The `webhook*` alarms watch it.
   */
  public readonly webhookFunction: lambda.Function;
  /** The function that consumes the queue and runs each turn. */
  public readonly orchestratorFunction: lambda.Function;
  /**
   * The alias the webhook's Function URL invokes, when `functionAlias` is set.
   *
   * @default - none without `functionAlias`
   */
  public readonly webhookAlias?: lambda.Alias;
  /**
   * The alias the queue's event source mapping invokes, when `functionAlias` is set.
   *
   * @default - none without `functionAlias`
   */
  public readonly orchestratorAlias?: lambda.Alias;
  /**
   * The webhook's Function URL. Its auth type is NONE because Meta cannot sign requests with
   * AWS credentials; the handler authenticates every POST by its `X-Hub-Signature-256` HMAC.
   *
   * @default - none with End User Messaging, which has no public URL, nor with the API Gateway `webhookFrontDoor`
   */
  public readonly webhookFunctionUrl?: lambda.FunctionUrl;
  /**
   * The REST API in front of the webhook, with `WebhookFrontDoor.apiGateway()`.
   *
   * @default - none with the Function URL front door or End User Messaging
   */
  public readonly webhookApi?: apigateway.RestApi;
  /**
   * ARN of the regional WAF web ACL associated with `webhookApi`'s stage (created, or the one passed in).
   *
   * @default - none without `WebhookFrontDoor.apiGateway()`
   */
  public readonly webhookWebAclArn?: string;
  /**
   * The callback URL to register in the Meta app's WhatsApp webhook configuration.
   *
   * @default - none with End User Messaging
   */
  public readonly webhookUrl?: string;
  /**
   * The secret with the WhatsApp credentials (created or the one passed in).
   *
   * @default - none with End User Messaging, which needs no Meta credentials
   */
  public readonly whatsAppSecret?: secretsmanager.ISecret;
  /**
   * The SNS topic End User Messaging Social publishes the WhatsApp Business Account's events to
   * (created or the one passed in); its ARN is the event destination to set.
   *
   * @default - none with the Cloud API
   */
  public readonly eventTopic?: sns.ITopic;
  /**
   * End User Messaging events whose registration still failed after Lambda's retries (each one a
   * customer message not yet registered): replay them by publishing them to the event topic again.
   *
   * @default - none with the Cloud API
   */
  public readonly inboundDeadLetterQueue?: sqs.Queue;
  /**
   * The bucket the attachments customers send are kept in (under `media/`): created, or
   * `media.existingBucket`.
   *
   * @default - none when `media.enabled` is false
   */
  public readonly mediaBucket?: s3.IBucket;
  /** The operator function (console and operator API), when `adminPhoneNumbers` turned the plane on. */
  public readonly operatorFunction?: lambda.Function;
  /**
   * The operator function's Function URL. Its auth type is NONE: the function authenticates every
   * API call by its session cookie (and CSRF token for changes); sessions start from a WhatsApp link.
   * With `consoleFrontDoor` it is AWS_IAM, and only the console's distribution may call it.
   */
  public readonly operatorFunctionUrl?: lambda.FunctionUrl;
  /** The CloudFront distribution in front of the console, with `consoleFrontDoor`. @default - none without `consoleFrontDoor` */
  public readonly consoleDistribution?: cloudfront.Distribution;
  /** Where operators sign in (the operator Function URL, or the console's distribution), when the plane is on. */
  public readonly consoleUrl?: string;
  /** The function the schedule runs every minute to re-notify operators and remind customers, when the plane is on. */
  public readonly handoffSweeperFunction?: lambda.Function;
  /**
   * The function that plays the scenario suite through the turn path, sending nothing: the console's
   * gate invokes it for a prompt draft, `eval <dir> --stack` with your AWS credentials (docs/EVALUATION.md).
   *
   * @default - only with the operator plane (`adminPhoneNumbers`)
   */
  public readonly evaluatorFunction?: lambda.IFunction;
  /** The function a schedule runs every 15 minutes to close the conversations the agent serves once `conversationIdleTimeout` passed. */
  public readonly idleSweeperFunction: lambda.Function;
  /**
   * The function a schedule runs every minute to publish new projections to the CRM.
   *
   * @default - only with `crmSync`
   */
  public readonly crmSyncFunction?: lambda.Function;

  // The alarms, in the order of their definitions (pipeline-alarm-definitions.ts): each property is
  // its alarm's id and `Alarm`, set with the others in the constructor, which checks that none is missing.
  /** Messages visible in the dead-letter queue: a turn failed for good. */
  public readonly deadLetterQueueAlarm!: cloudwatch.Alarm;
  /** The oldest message in the turn queue is older than the threshold: turns are stuck. */
  public readonly oldestMessageAgeAlarm!: cloudwatch.Alarm;
  /** The webhook function crashed or timed out (its handled failures are `webhookServerErrorsAlarm`). */
  public readonly webhookErrorsAlarm!: cloudwatch.Alarm;
  /** The webhook function was throttled (Meta retries, but replies are delayed). */
  public readonly webhookThrottlesAlarm!: cloudwatch.Alarm;
  /** The webhook's p99 duration is close to its timeout. */
  public readonly webhookDurationAlarm!: cloudwatch.Alarm;
  /** The webhook answered 5xx: table, queue or secret unavailable (Meta retries). */
  public readonly webhookServerErrorsAlarm!: cloudwatch.Alarm;
  /** The webhook refused a signature: a wrong or unfilled app secret refuses every Meta delivery. */
  public readonly webhookSignatureRejectedAlarm!: cloudwatch.Alarm;
  /** The orchestrator function crashed or timed out (turn failures are reported per record). */
  public readonly orchestratorErrorsAlarm!: cloudwatch.Alarm;
  /** The orchestrator function was throttled. */
  public readonly orchestratorThrottlesAlarm!: cloudwatch.Alarm;
  /** The orchestrator's p99 duration is close to its timeout. */
  public readonly orchestratorDurationAlarm!: cloudwatch.Alarm;
  /** A turn failed on its last receive: its messages go to the dead-letter queue (with the operator plane, to people instead). */
  public readonly turnFailedPermanentlyAlarm!: cloudwatch.Alarm;
  /** The agent failed in a way no retry fixes (invalid output, a refusing model): the customer got the fallback text. */
  public readonly turnFallbackAlarm!: cloudwatch.Alarm;
  /** A reply's delivery to WhatsApp could not be confirmed. */
  public readonly replyOutcomeUnknownAlarm!: cloudwatch.Alarm;
  /** WhatsApp reported a message it accepted as failed (not delivered): the customer never got it. */
  public readonly deliveryFailedAlarm!: cloudwatch.Alarm;
  /**
   * An attachment a customer sent could not be downloaded on the turn's last attempt: its message went on as text with a note.
   *
   * @default - only with `media` on
   */
  public readonly mediaDownloadFailedAlarm?: cloudwatch.Alarm;
  /** Requests to the table were throttled. */
  public readonly tableThrottlesAlarm!: cloudwatch.Alarm;
  /**
   * Bedrock throttled the model.
   *
   * @default - only with `AgentBackend.bedrock()`
   */
  public readonly modelThrottlesAlarm?: cloudwatch.Alarm;
  /** Calls of the agent to your tools keep failing: the model answers without them. @default - only with `AgentTool`s */
  public readonly toolCallsFailedAlarm?: cloudwatch.Alarm;
  /** The idle sweeper crashed or timed out: idle conversations stay open (and out of retention) until a run succeeds. */
  public readonly idleSweeperErrorsAlarm!: cloudwatch.Alarm;
  /**
   * The CRM sync worker crashed or timed out; due projections wait for its next run.
   *
   * @default - only with `crmSync`
   */
  public readonly crmSyncErrorsAlarm?: cloudwatch.Alarm;
  /**
   * Conversations are BLOCKED in the CRM sync (refused by the CRM, or out of attempts).
   *
   * @default - only with `crmSync`
   */
  public readonly crmSyncBlockedAlarm?: cloudwatch.Alarm;
  /**
   * Conversations are UNCERTAIN in the CRM sync (a create may or may not have happened).
   *
   * @default - only with `crmSync`
   */
  public readonly crmSyncUncertainAlarm?: cloudwatch.Alarm;
  /**
   * The operator function (console and operator API) crashed or timed out.
   *
   * @default - only with the operator plane (`adminPhoneNumbers`)
   */
  public readonly operatorErrorsAlarm?: cloudwatch.Alarm;
  /**
   * The handoff sweeper crashed or timed out: waiting conversations are not re-notified.
   *
   * @default - only with the operator plane (`adminPhoneNumbers`)
   */
  public readonly handoffSweeperErrorsAlarm?: cloudwatch.Alarm;
  /**
   * A customer has waited for a person longer than `alarmThresholds.handoffWaitingMinutes`.
   *
   * @default - only with the operator plane (`adminPhoneNumbers`)
   */
  public readonly oldestHandoffWaitingAlarm?: cloudwatch.Alarm;
  /**
   * The evaluator function crashed or timed out: the console's prompt evaluation ends as not
   * finished, so its draft cannot pass the gate, and `eval --stack` fails.
   *
   * @default - only with the operator plane (`adminPhoneNumbers`)
   */
  public readonly evaluatorErrorsAlarm?: cloudwatch.Alarm;
  /**
   * The model tokens used today are above `pipelineBudget.alarmAtShareOfBudget` of the daily
   * pipeline budget: once it is spent, the agent answers nobody until 00:00 UTC.
   *
   * @default - only with `pipelineBudget`
   */
  public readonly pipelineBudgetNearAlarm?: cloudwatch.Alarm;
  /** The daily pipeline budget is spent: turns are refused with its reply, no model call. @default - only with `pipelineBudget` */
  public readonly pipelineBudgetRefusalsAlarm?: cloudwatch.Alarm;
  /**
   * An End User Messaging event failed the inbound function on every retry and waits in
   * `inboundDeadLetterQueue`: its messages are not registered.
   *
   * @default - only with `WhatsAppChannel.endUserMessaging()`
   */
  public readonly inboundDeadLetterQueueAlarm?: cloudwatch.Alarm;
  /**
   * The End User Messaging inbound function refused an event: from another topic or account, of
   * another WABA, or with a header and a Meta entry that disagree.
   *
   * @default - only with `WhatsAppChannel.endUserMessaging()`
   */
  public readonly inboundEnvelopeRefusedAlarm?: cloudwatch.Alarm;
  /**
   * The estimated cost of a day (Meta's fees and the model's tokens) is above `alarms.dailyCostUsd`.
   *
   * @default - only with `alarms.dailyCostUsd`
   */
  public readonly dailyCostAlarm?: cloudwatch.Alarm;
  /** Every alarm above, for bulk wiring. */
  public readonly alarms: cloudwatch.IAlarm[];
  /** The operators' dashboard. @default - none when `dashboard` is false */
  public readonly dashboard?: cloudwatch.Dashboard;

  /** @internal */
  protected readonly _metrics: PipelineMetrics;
  /** @internal */
  protected readonly _grants: PipelineGrants;

  /**
   * @param scope the stack (or construct) the pipeline belongs to
   * @param id construct id, unique within `scope`
   * @param props environment, agent backend and optional settings; validated before anything is created
   */
  constructor(scope: Construct, id: string, props: AgentPipelineProps) {
    super(scope, id);
    checkDeployLimits(this);
    const pipeline = assemblePipeline(this, props);
    this._grants = pipeline.grants;
    this._metrics = pipeline.metrics;
    this.serviceName = pipeline.settings.serviceName;
    this.environment = pipeline.settings.environment;
    this.encryptionKey = props.encryptionKey;
    this.table = pipeline.table;
    this.queue = pipeline.queue;
    this.deadLetterQueue = pipeline.deadLetterQueue;
    this.mediaBucket = pipeline.mediaBucket;
    this.webhookFunction = pipeline.webhookFunction;
    this.webhookAlias = pipeline.webhookAlias;
    this.webhookFunctionUrl = pipeline.webhookFunctionUrl;
    this.webhookApi = pipeline.webhookApi;
    this.webhookWebAclArn = pipeline.webhookWebAclArn;
    this.webhookUrl = pipeline.webhookUrl;
    this.whatsAppSecret = pipeline.whatsAppSecret;
    this.eventTopic = pipeline.eventTopic;
    this.inboundDeadLetterQueue = pipeline.inboundDeadLetterQueue;
    this.orchestratorFunction = pipeline.orchestratorFunction;
    this.orchestratorAlias = pipeline.orchestratorAlias;
    this.operatorFunction = pipeline.operatorFunction;
    this.operatorFunctionUrl = pipeline.operatorFunctionUrl;
    this.consoleDistribution = pipeline.consoleDistribution;
    this.consoleUrl = pipeline.consoleUrl;
    this.handoffSweeperFunction = pipeline.handoffSweeperFunction;
    this.evaluatorFunction = pipeline.evaluatorFunction;
    this.idleSweeperFunction = pipeline.idleSweeperFunction;
    this.crmSyncFunction = pipeline.crmSyncFunction;

    const observed = { ...pipeline, scope: this };
    const alarms = createPipelineAlarms(observed);
    refuseOverridesOfAbsentAlarms(this, pipeline.alarmSettings.overridden, alarms);
    Object.assign(this, alarmProperties(alarms) satisfies Pick<AgentPipeline, keyof PipelineAlarmProperties>);
    this.alarms = alarms.all;
    this.dashboard = pipeline.settings.dashboard ? createPipelineDashboard(observed, alarms) : undefined;
  }

  /** @internal */
  protected _commandsStackArn(): string {
    return Stack.of(this).stackId;
  }
}
