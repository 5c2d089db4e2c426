import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import type { ReengagementProps } from '../message-templates';
import { type FunctionSettings, IDLE_SWEEP_DEFAULTS } from '../contract';
import { acceptFinding, SCHEDULE_WITHOUT_DEAD_LETTERS } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';
import { namesTemplate } from './operator-plane';

const MIN_IDLE_TIMEOUT = Duration.hours(IDLE_SWEEP_DEFAULTS.minIdleTimeoutHours);
const MAX_IDLE_TIMEOUT = Duration.days(IDLE_SWEEP_DEFAULTS.maxIdleTimeoutDays);
const SWEEP_PERIOD = Duration.minutes(IDLE_SWEEP_DEFAULTS.scheduleMinutes);

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

/**
 * `messageTemplates.reengagement`, checked against the idle timeout: the sweeper's runs are 15
 * minutes apart, so one must fall after the last message, and one between the re-engagement and the close.
 */
export function resolveReengagement(path: string, reengagement: ReengagementProps | undefined, idleTimeout: Duration): ReengagementProps | undefined {
  if (reengagement === undefined) return undefined;
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${path}': messageTemplates.reengagement.${problem}`);
  };
  if (!namesTemplate(reengagement.template)) fail(`template must name a template as WhatsApp Manager shows it: a lower_case_name and a language code such as 'pt_BR'.`);
  const { after } = reengagement;
  if (after.isUnresolved() || idleTimeout.isUnresolved()) return reengagement;
  const latest = idleTimeout.toSeconds() - SWEEP_PERIOD.toSeconds();
  if (after.toSeconds() < SWEEP_PERIOD.toSeconds() || after.toSeconds() > latest) {
    fail(
      `after must be from 15 minutes to conversationIdleTimeout minus 15 minutes (${latest} s), so the re-engagement comes before the close; got ${after.toSeconds()} s. ` +
        'Shorten it, or lengthen conversationIdleTimeout.',
    );
  }
  return reengagement;
}

export interface IdleSweeperContext {
  readonly scope: Construct;
  /** What the plan tells the sweeper (the idle timeout, and the re-engagement with its channel). */
  readonly told: FunctionSettings;
  /** The pipeline's function factory. */
  readonly functions: PipelineFunctionFactory;
  /** `${serviceName}-${environment}`, which the description names. */
  readonly deploymentName: string;
}

export interface IdleSweeperResources {
  readonly sweeperFunction: lambda.Function;
  readonly schedule: events.Rule;
}

/**
 * The idle sweeper: a function an EventBridge rule runs every 15 minutes, as the handoff sweeper
 * and the CRM worker are run (a fixed rate needs none of Scheduler's features, and a rule no extra
 * role). A conversation is closed within 15 minutes of its timeout; overlapping runs are safe, since
 * every close is conditioned on the session as read. With the re-engagement it also sends on the
 * channel, so its plan tells it the channel (and it is granted the send). With
 * `media.transcription` it deletes the transcription jobs that ended once no turn reads them again:
 * of the functions on a schedule, the one every deployment has, and whose runs are retention.
 */
export function buildIdleSweeper(context: IdleSweeperContext): IdleSweeperResources {
  const sweeperFunction = context.functions.createFunction('IdleSweeper', {
    description: `Idle sweeper of ${context.deploymentName}: closes the conversations the agent serves that went quiet, so their retention starts`,
    memorySize: 256,
    timeout: Duration.seconds(IDLE_SWEEP_DEFAULTS.sweeperTimeoutSeconds),
    settings: context.told,
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
