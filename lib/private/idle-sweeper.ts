import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { IDLE_SWEEP_DEFAULTS, RUNTIME_ENV } from '../contract';
import { acceptFinding, SCHEDULE_WITHOUT_DEAD_LETTERS } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';

const MIN_IDLE_TIMEOUT = Duration.hours(IDLE_SWEEP_DEFAULTS.minIdleTimeoutHours);
const MAX_IDLE_TIMEOUT = Duration.days(IDLE_SWEEP_DEFAULTS.maxIdleTimeoutDays);

/** `conversationIdleTimeout`, defaulted and checked, so a wrong value fails the synth instead of closing conversations at the wrong time. */
export function resolveConversationIdleTimeout(path: string, props: Pick<AgentPipelineProps, 'conversationIdleTimeout'>): Duration {
  const timeout = props.conversationIdleTimeout ?? Duration.hours(IDLE_SWEEP_DEFAULTS.idleTimeoutHours);
  if (!timeout.isUnresolved() && (timeout.toSeconds() < MIN_IDLE_TIMEOUT.toSeconds() || timeout.toSeconds() > MAX_IDLE_TIMEOUT.toSeconds())) {
    throw new Error(
      `AgentPipeline at '${path}': conversationIdleTimeout must be from 1 hour (Duration.hours(1)) to 30 days (Duration.days(30)); got ${timeout.toSeconds()} s. ` +
        `It counts from the conversation's last message; the default is Duration.hours(${IDLE_SWEEP_DEFAULTS.idleTimeoutHours}).`,
    );
  }
  return timeout;
}

export interface IdleSweeperContext {
  readonly scope: Construct;
  readonly table: dynamodb.ITable;
  readonly idleTimeout: Duration;
  /** The pipeline's function factory, which also holds the environment every function shares. */
  readonly functions: PipelineFunctionFactory;
}

export interface IdleSweeperResources {
  readonly sweeperFunction: lambda.Function;
  readonly schedule: events.Rule;
}

/**
 * The idle sweeper: a function an EventBridge rule runs every 15 minutes, as the handoff sweeper
 * and the CRM worker are run (a fixed rate needs none of Scheduler's features, and a rule no extra
 * role). A conversation is closed within 15 minutes of its timeout; overlapping runs are safe, since
 * every close is conditioned on the session as read.
 */
export function buildIdleSweeper(context: IdleSweeperContext): IdleSweeperResources {
  const { table, functions } = context;
  const environment: Record<string, string> = {
    [RUNTIME_ENV.tableName]: table.tableName,
    ...functions.commonEnvironment,
    [RUNTIME_ENV.conversationIdleTimeoutSeconds]: String(context.idleTimeout.toSeconds()),
  };
  const sweeperFunction = functions.createFunction('IdleSweeper', {
    description: `Idle sweeper of ${environment[RUNTIME_ENV.serviceName]}: closes the conversations the agent serves that went quiet, so their retention starts`,
    memorySize: 256,
    timeout: Duration.seconds(IDLE_SWEEP_DEFAULTS.sweeperTimeoutSeconds),
    environment,
  });
  const schedule = new events.Rule(context.scope, 'IdleSweeperSchedule', {
    description: `Runs the idle sweeper every ${IDLE_SWEEP_DEFAULTS.scheduleMinutes} minutes`,
    schedule: events.Schedule.rate(Duration.minutes(IDLE_SWEEP_DEFAULTS.scheduleMinutes)),
    // A missed run is made up by the next one: idle sessions wait in the index, not in the event.
    targets: [new targets.LambdaFunction(sweeperFunction, { retryAttempts: 0 })],
  });
  acceptFinding(schedule, 'EventBusDLQ', SCHEDULE_WITHOUT_DEAD_LETTERS);
  return { sweeperFunction, schedule };
}
