import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AlarmSeverity, PipelineAlarmOverrides } from '../pipeline-alarms';
import type { PipelineMetrics } from './pipeline-metrics';
import type { PipelineSettings } from './pipeline-settings';

/**
 * What the alarms and the dashboard are built from: the pipeline's resources and settings, and the
 * alarm settings with their defaults applied. Internal.
 */

/** What the builders read from the pipeline. */
export interface ObservedPipeline {
  readonly scope: Construct;
  readonly settings: PipelineSettings;
  readonly webhookFunction: lambda.Function;
  readonly orchestratorFunction: lambda.Function;
  readonly deadLetterQueue: sqs.IQueue;
  readonly metrics: PipelineMetrics;
  /** Present when the agent is a Bedrock model. */
  readonly bedrockModelId?: string;
  /** Present when `crmSync` is set. */
  readonly crmSyncFunction?: lambda.Function;
  readonly idleSweeperFunction: lambda.Function;
  /** Present with the operator plane. */
  readonly operatorFunction?: lambda.Function;
  /** Present with the operator plane. */
  readonly handoffSweeperFunction?: lambda.Function;
  /** Present with the operator plane: the prompt gate's runs and the CLI's `eval --stack` play on it. */
  readonly evaluatorFunction?: lambda.Function;
  /** Present on the End User Messaging channel: events the inbound function failed on every retry. */
  readonly inboundDeadLetterQueue?: sqs.IQueue;
  /** The orchestrator downloads attachments: `media` is on (on either channel). */
  readonly downloadsMedia: boolean;
  /** The agent, or one of its stages, calls tools of the consumer (`AgentTool`). */
  readonly callsConsumerTools: boolean;
  readonly alarmSettings: AlarmSettings;
}

/** One alarm's tuning with its defaults applied; `threshold` stays undefined when the alarm's own (from the pipeline) applies. */
export interface AlarmTuningSettings {
  readonly threshold?: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly enabled: boolean;
  readonly severity: AlarmSeverity;
}

/** The `alarms` and dashboard props with every default applied and every check passed. Internal: `resolveAlarmSettings` makes them. */
export interface AlarmSettings {
  readonly namePrefix: string;
  /** The action of each severity that has a topic. */
  readonly actions: { readonly [severity in AlarmSeverity]?: cloudwatch.IAlarmAction };
  readonly tunings: { readonly [id in keyof PipelineAlarmOverrides]-?: AlarmTuningSettings };
  /** The alarms `alarms.overrides` names, each of which the pipeline must create. */
  readonly overridden: readonly (keyof PipelineAlarmOverrides)[];
  readonly dashboardName: string;
  /** `alarms.dailyCostUsd`: the daily-cost alarm's threshold, when there is one. */
  readonly dailyCostUsd?: number;
}
