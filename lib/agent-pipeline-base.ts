import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { IAgentPipeline } from './agent-pipeline-attributes';
import { CUSTOM_METRICS } from './contract';
import type { PipelineDataGrants } from './private/pipeline-grants';
import type { PipelineMetrics } from './private/pipeline-metrics';

/**
 * What an agent pipeline offers besides its resources: the `grant*` methods that let other
 * principals work with it, and the `metric*` methods its alarms and dashboard read, alike for a
 * pipeline created here (`AgentPipeline`) and one referenced with
 * `AgentPipeline.fromPipelineAttributes()`.
 */
export abstract class AgentPipelineBase extends Construct implements IAgentPipeline {
  /** The single table (`PK`/`SK`, `GSI1`, TTL `ttl`). */
  public abstract readonly table: dynamodb.ITable;
  /** The FIFO turn queue between the webhook and the orchestrator. */
  public abstract readonly queue: sqs.IQueue;
  /** The FIFO dead-letter queue that receives turns that failed `maxReceiveCount` times. */
  public abstract readonly deadLetterQueue: sqs.IQueue;
  /** The function that receives WhatsApp's events. */
  public abstract readonly webhookFunction: lambda.IFunction;
  /** The function that consumes the turn queue and runs each turn. */
  public abstract readonly orchestratorFunction: lambda.IFunction;
  /** The `serviceName` of the pipeline: the namespace of its custom metrics. */
  public abstract readonly serviceName: string;
  /** The `environment` of the pipeline. */
  public abstract readonly environment: string;
  /**
   * The customer managed key of the table, the queues and the media bucket.
   *
   * @default - none
   */
  public abstract readonly encryptionKey?: kms.IKey;
  /**
   * The bucket of the attachments customers send.
   *
   * @default - none when the pipeline keeps no attachments
   */
  public abstract readonly mediaBucket?: s3.IBucket;
  /** @internal */
  protected abstract readonly _metrics: PipelineMetrics;
  /** @internal */
  protected abstract readonly _grants: PipelineDataGrants;

  /**
   * The ARN of the stack whose outputs the package's commands read, for the grant named `grant`.
   *
   * @internal
   */
  protected abstract _commandsStackArn(grant: string): string;

  /**
   * Lets `grantee` read the whole table and its index (e.g. a reporting function), and use the
   * customer managed key, when there is one, through DynamoDB only.
   *
   * @param grantee the principal to grant to: a role, a user or a function
   */
  public grantReadData(grantee: iam.IGrantable): iam.Grant {
    return this._grants.grantTableData(grantee, 'read');
  }

  /**
   * Lets `grantee` read and write the whole table and its index (e.g. an admin back office), and
   * use the customer managed key, when there is one, through DynamoDB only.
   *
   * @param grantee the principal to grant to: a role, a user or a function
   */
  public grantReadWriteData(grantee: iam.IGrantable): iam.Grant {
    return this._grants.grantTableData(grantee, 'readWrite');
  }

  /**
   * Lets `grantee` run the redrive command (`npx cdk-whatsapp-agent-pipeline redrive --stack …`,
   * see docs/RELIABILITY.md): read the stack's outputs, receive, hold and delete dead-letter
   * records, send them back to the turn queue, and read and restore the customers' records in the
   * table (plus the customer managed key, when there is one). Typically an operator's role.
   *
   * @param grantee the principal to grant to: a role, a user or a function
   */
  public grantRedrive(grantee: iam.IGrantable): iam.Grant {
    return this._grants.grantRedrive(grantee, this._commandsStackArn('grantRedrive'));
  }

  /**
   * Lets `grantee` run the `erase-customer` and `export-customer` commands
   * (`npx cdk-whatsapp-agent-pipeline erase-customer --stack … --customer …`, see docs/PRIVACY.md):
   * read the stack's outputs, query the customer's partitions, read what their references name,
   * delete all of it in batches (an operator's sign-in items one by one), drop the customer's
   * records from the dead-letter queue, list and delete their attachments in the media bucket, and
   * keep the erasure's pseudonym salt and audit event (plus the customer managed key, through
   * DynamoDB, SQS and S3 only, when there is one). Typically the role
   * of whoever answers data subject requests.
   *
   * @param grantee the principal to grant to: a role, a user or a function
   */
  public grantCustomerDataRights(grantee: iam.IGrantable): iam.Grant {
    return this._grants.grantCustomerData(grantee, this._commandsStackArn('grantCustomerDataRights'));
  }

  /**
   * Messages visible in the dead-letter queue (maximum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricDeadLetterQueueMessages(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.messagesVisible(this.deadLetterQueue, props);
  }

  /**
   * Age in seconds of the oldest message in the turn queue (maximum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricOldestMessageAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.oldestMessageAge(props);
  }

  /**
   * Customer messages the webhook accepted (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricInboundReceived(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.inboundReceived, props);
  }

  /**
   * Webhook answers with a 5xx status: table, queue or secret unavailable (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricWebhookServerErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.webhookServerError, props);
  }

  /**
   * Webhook POSTs refused for a missing or invalid signature (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricWebhookSignatureRejected(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.webhookSignatureRejected, props);
  }

  /**
   * Turns whose reply was sent (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricTurnsAnswered(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.turnAnswered, props);
  }

  /**
   * Turns that failed on their last receive and went to the dead-letter queue (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricTurnsFailedPermanently(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.turnFailedPermanently, props);
  }

  /**
   * Turns answered with the fallback text at once because the agent failed in a way no retry fixes
   * (invalid output, a refusing model), without the operator plane (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricTurnsAnsweredWithFallback(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.turnFallback, props);
  }

  /**
   * Conversations waiting for a person, as the handoff sweeper counts them each minute (maximum
   * over 1 minute unless overridden). Emitted only with the operator plane.
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricHandoffsWaiting(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.handoffsWaiting, { statistic: 'Maximum', ...props });
  }

  /**
   * Seconds the longest-waiting conversation has waited for a person, as the handoff sweeper
   * measures it each minute (maximum over 1 minute unless overridden). Emitted only with the operator plane.
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricOldestHandoffWaitingSeconds(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.oldestHandoffWaitingSeconds, { statistic: 'Maximum', ...props });
  }

  /**
   * Replies WhatsApp refused for good, e.g. the 24-hour window closed (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricRepliesRefused(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.replyRefused, props);
  }

  /**
   * Replies whose delivery to WhatsApp could not be confirmed (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricReplyOutcomeUnknown(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.replyOutcomeUnknown, props);
  }

  /**
   * Messages WhatsApp reported it could not deliver, any reason (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricDeliveryFailed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.deliveryFailed, props);
  }

  /**
   * Milliseconds the agent took per turn (p99 over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricAgentLatency(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.agentLatency, { statistic: 'p99', ...props });
  }

  /**
   * CRM sync rows BLOCKED, as the worker counts them each run (maximum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricCrmSyncBlockedRows(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.crmSyncBlockedRows, { statistic: 'Maximum', ...props });
  }

  /**
   * CRM sync rows UNCERTAIN, as the worker counts them each run (maximum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricCrmSyncUncertainRows(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.crmSyncUncertainRows, { statistic: 'Maximum', ...props });
  }

  /**
   * Model input tokens (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricAgentInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.agentInputTokens, props);
  }

  /**
   * Model output tokens (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricAgentOutputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.agentOutputTokens, props);
  }

  /**
   * Input tokens the agent read from Bedrock's prompt cache, billed at a tenth of the input price (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricAgentCacheReadInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.agentCacheReadInputTokens, props);
  }

  /**
   * Input tokens the agent wrote to Bedrock's prompt cache, billed at 1.25 times the input price for Claude models (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricAgentCacheWriteInputTokens(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.agentCacheWriteInputTokens, props);
  }

  /**
   * Turns refused by a customer's budget: answered with the budget's reply, no model call (sum over 1 minute unless overridden).
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricTurnsOverBudget(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.turnOverBudget, props);
  }

  /**
   * Turns refused because the daily pipeline budget was spent: answered with its reply, no model
   * call (sum over 1 minute unless overridden). Emitted only with `pipelineBudget`.
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricTurnsOverPipelineBudget(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.turnOverPipelineBudget, props);
  }

  /**
   * The model tokens the whole pipeline used today (UTC), as the orchestrator instances know them:
   * a gauge emitted with each turn, read as its maximum over 1 minute unless overridden. Approximate
   * by up to 30 seconds of the other instances' turns. Emitted only with `pipelineBudget`.
   *
   * @param props overrides of the metric's period, statistic, label or other options
   */
  public metricPipelineAgentTokensToday(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this._metrics.custom(CUSTOM_METRICS.pipelineAgentTokensToday, { statistic: 'Maximum', ...props });
  }

  /**
   * Throttled requests to the table, summed over the operations the pipeline issues. Each term is
   * `FILL(…, 0)`: DynamoDB publishes ThrottledRequests only when something is throttled, and a plain
   * sum of series with gaps would have no value whenever a single operation was quiet.
   *
   * @param props overrides of the expression's period, label or other options
   */
  public metricTableThrottledRequests(props?: cloudwatch.MathExpressionOptions): cloudwatch.IMetric {
    return this._metrics.tableThrottledRequests(props);
  }

  /**
   * The pipeline's estimated cost in US dollars, summed over a day unless overridden: Meta's fees of
   * the messages it sent (priced from Meta's statuses at the packaged rate table) plus the model's
   * tokens (at the packaged model prices). What `dailyCostAlarm` watches; an estimate, never a bill.
   *
   * @param props overrides of the expression's period, label or other options
   */
  public metricEstimatedCost(props?: cloudwatch.MathExpressionOptions): cloudwatch.IMetric {
    return this._metrics.estimatedCost(props);
  }
}
