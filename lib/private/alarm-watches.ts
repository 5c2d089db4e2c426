import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { CustomMetricName } from '../contract';
import type { ObservedPipeline } from './observed-pipeline';
import { ESTIMATED_COST_PERIOD } from './pipeline-metrics';
import { ALARM_PERIOD } from './pipeline-settings';

/**
 * The parts the alarms of pipeline-alarm-definitions.ts are made of: how long a failure must last,
 * and what each kind of alarm watches in a pipeline (a function's errors, throttles or duration, a
 * custom count or gauge). Internal.
 */

/** What one alarm watches in a pipeline. */
export interface AlarmWatch {
  readonly metric: cloudwatch.IMetric;
  /** The threshold the pipeline's settings give it, unless its tuning sets one. */
  readonly threshold: number;
  /** What happened and what it costs, for the threshold in force. */
  readonly describe: (threshold: number) => string;
  /**
   * @default NOT_BREACHING: no data means no traffic, not a failure (these metrics are sparse)
   */
  readonly treatMissingData?: cloudwatch.TreatMissingData;
}

/** A failure that is not retried away: the first minute counts. */
export const FIRST_MINUTE = { evaluationPeriods: 1, datapointsToAlarm: 1 } as const;
/** Something that retries or heals by itself: it must last most of five minutes. */
export const THREE_OF_FIVE_MINUTES = { evaluationPeriods: 5, datapointsToAlarm: 3 } as const;
/** Noise from outside (a scanner's burst): only a steady rate for five minutes counts. */
export const FIVE_OF_FIVE_MINUTES = { evaluationPeriods: 5, datapointsToAlarm: 5 } as const;
/** A sum that only means something over a whole day (a cost). */
export const ONE_DAY = { evaluationPeriods: 1, datapointsToAlarm: 1, period: ESTIMATED_COST_PERIOD } as const;

/** A function's crashes and timeouts (Lambda's `Errors`; the failures it handles are its own metrics). */
export const errorsWatch = (fn: lambda.Function, { settings }: ObservedPipeline, description: string): AlarmWatch => ({
  metric: fn.metricErrors({ period: ALARM_PERIOD }),
  threshold: settings.alarmThresholds.functionErrors,
  describe: () => description,
});
export const throttlesWatch = (fn: lambda.Function, { settings }: ObservedPipeline, description: string): AlarmWatch => ({
  metric: fn.metricThrottles({ period: ALARM_PERIOD }),
  threshold: settings.alarmThresholds.functionThrottles,
  describe: () => description,
});
export const durationWatch = (fn: lambda.Function, timeout: Duration, role: string, { settings }: ObservedPipeline): AlarmWatch => ({
  metric: fn.metricDuration({ statistic: 'p99', period: ALARM_PERIOD }),
  threshold: Math.round(timeout.toMilliseconds() * settings.alarmThresholds.durationShareOfTimeout),
  describe: (thresholdMs) =>
    `The ${role} of ${settings.names.table} runs close to its ${timeout.toSeconds()} s timeout (p99 above ${thresholdMs} ms); timed-out invocations are retried or fail.`,
});
export const customCountWatch = (name: CustomMetricName, threshold: number, { metrics }: ObservedPipeline, description: string): AlarmWatch => ({
  metric: metrics.custom(name),
  threshold,
  describe: () => description,
});
/** A gauge the worker emits each run (its maximum); a minute without a run is no news. */
export const crmRowsWatch = (name: CustomMetricName, threshold: number, { metrics }: ObservedPipeline, description: string): AlarmWatch => ({
  metric: metrics.custom(name, { statistic: 'Maximum' }),
  threshold,
  describe: () => description,
});
