import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { acceptFinding, SCHEDULE_WITHOUT_DEAD_LETTERS } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';
import { CRM_SYNC_DEFAULTS, type FunctionSettings } from '../contract';

export interface CrmSyncWorkerContext {
  /** What the plan tells the worker; its role was bound to the CRM target already. */
  readonly told: FunctionSettings;
  readonly scope: Construct;
  /** The pipeline's function factory. */
  readonly functions: PipelineFunctionFactory;
  /** `${serviceName}-${environment}`, which the description names. */
  readonly deploymentName: string;
}

export interface CrmSyncWorkerResources {
  readonly workerFunction: lambda.Function;
  readonly schedule: events.Rule;
  readonly timeout: Duration;
}

/**
 * The CRM sync worker: a function an EventBridge rule runs every minute. A rule rather than an
 * EventBridge Scheduler schedule because a fixed one-minute rate needs none of Scheduler's
 * features (time zones, one-off runs, flexible windows), a rule needs no extra role, and the
 * handoff sweeper already runs the same way. Overlapping runs are safe: each row is claimed by
 * compare-and-set before it is sent.
 */
export function buildCrmSyncWorker(context: CrmSyncWorkerContext): CrmSyncWorkerResources {
  const timeout = Duration.seconds(CRM_SYNC_DEFAULTS.workerTimeoutSeconds);
  const workerFunction = context.functions.createFunction('CrmSync', {
    description: `CRM sync worker of ${context.deploymentName}: publishes each conversation's new commercial projection to the CRM`,
    memorySize: 256,
    timeout,
    settings: context.told,
  });
  const schedule = new events.Rule(context.scope, 'CrmSyncSchedule', {
    description: 'Runs the CRM sync worker every minute',
    schedule: events.Schedule.rate(Duration.minutes(CRM_SYNC_DEFAULTS.scheduleMinutes)),
    // A missed minute is made up by the next run; rows wait in the table, not in the event.
    targets: [new targets.LambdaFunction(workerFunction, { retryAttempts: 0 })],
  });
  acceptFinding(schedule, 'EventBusDLQ', SCHEDULE_WITHOUT_DEAD_LETTERS);
  return { workerFunction, schedule, timeout };
}
