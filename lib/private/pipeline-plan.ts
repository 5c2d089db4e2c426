import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { type AgentOptions, type ChannelOptions, type CrmSyncOptions, type DeploymentOptions, type DeploymentPlan, type MediaOptions, type OperatorPlaneOptions, writeDeploymentPlan } from '../contract';
import type { ReengagementProps } from '../message-templates';
import type { PipelineSettings } from './pipeline-settings';

/** What the construct's plan is written from: its checked props, and what its resources and its props' binds told it. */
export interface PlanSources {
  readonly settings: PipelineSettings;
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly retention: NonNullable<DeploymentOptions['retention']>;
  /** The channel's share (`WhatsAppChannel._bind`). */
  readonly channel: ChannelOptions;
  /** The agent backend's share (`AgentBackend.bind`). */
  readonly agent: AgentOptions;
  /** The media bucket's share, with media on. */
  readonly media?: MediaOptions;
  /** The operator plane's share, with the plane on. */
  readonly operatorPlane?: OperatorPlaneOptions;
  readonly idleTimeout: Duration;
  readonly reengagement?: ReengagementProps;
  /** The CRM target's share (`CrmTarget.bind`), with `crmSync`. */
  readonly crmSync?: CrmSyncOptions;
}

/** What each of the construct's functions is told, through the plan's one writer (lib/contract/plan-writer.ts). */
export function pipelinePlan(sources: PlanSources): DeploymentPlan {
  const { settings, media, operatorPlane, reengagement, crmSync } = sources;
  const budget = settings.pipelineBudget;
  return writeDeploymentPlan({
    ...settings.simpleSettings,
    resources: { tableName: sources.table.tableName, turnQueueUrl: sources.queue.queueUrl, deadLetterQueueUrl: sources.deadLetterQueue.queueUrl },
    // One Powertools service per deployment: Powertools logs add the function name themselves.
    observability: { serviceName: settings.names.table, metricsNamespace: settings.serviceName, logLevel: settings.logLevel, tracing: settings.tracing },
    retention: sources.retention,
    channel: sources.channel,
    agent: sources.agent,
    ...(settings.customerBudget && { customerBudget: settings.customerBudget }),
    // The alarm's share is the construct's; the functions need the budget and its reply.
    ...(budget && { pipelineBudget: { agentTokensPerDay: budget.agentTokensPerDay, ...(budget.reply !== undefined && { reply: budget.reply }) } }),
    ...(media && { media }),
    ...(operatorPlane && { operatorPlane }),
    visibilityTimeoutSeconds: settings.visibilityTimeout.toSeconds(),
    idleTimeoutMs: sources.idleTimeout.toMilliseconds(),
    ...(reengagement && { reengagement: { template: { name: reengagement.template.name, language: reengagement.template.language }, afterMs: reengagement.after.toMilliseconds() } }),
    ...(crmSync && { crmSync }),
  });
}
