import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import type { ReengagementProps } from '../message-templates';
import { IDLE_SWEEP_DEFAULTS, RUNTIME_ENV } from '../contract';
import { acceptFinding, SCHEDULE_WITHOUT_DEAD_LETTERS } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';
import type { PipelineSettings } from './pipeline-settings';
import { namesTemplate } from './operator-plane';
import type { WhatsAppChannelBinding } from './whatsapp-channel-binding';

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
  readonly table: dynamodb.ITable;
  readonly idleTimeout: Duration;
  /** With `messageTemplates.reengagement` (checked): the template, and the channel's sender environment. */
  readonly reengagement?: { readonly props: ReengagementProps; readonly channel: Pick<WhatsAppChannelBinding, 'senderEnvironment'> };
  /** The pipeline's function factory, which also holds the environment every function shares. */
  readonly functions: PipelineFunctionFactory;
  /**
   * With `media.transcription`: the queue whose receives × visibility timeout are the turn budget,
   * after which the sweeper deletes the transcription jobs that ended (no attempt reads them again).
   */
  readonly transcriptionJobs?: Pick<PipelineSettings, 'visibilityTimeout' | 'maxReceiveCount'>;
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
 * channel, so it reads the channel's sender environment (and is granted the send). With
 * `media.transcription` it deletes the transcription jobs that ended once no turn reads them again:
 * of the functions on a schedule, the one every deployment has, and whose runs are retention.
 */
export function buildIdleSweeper(context: IdleSweeperContext): IdleSweeperResources {
  const { table, functions } = context;
  const environment: Record<string, string> = {
    [RUNTIME_ENV.tableName]: table.tableName,
    ...functions.commonEnvironment,
    [RUNTIME_ENV.conversationIdleTimeoutSeconds]: String(context.idleTimeout.toSeconds()),
    ...(context.reengagement ? reengagementEnvironment(context.reengagement.props, context.reengagement.channel) : {}),
    ...(context.transcriptionJobs ? { [RUNTIME_ENV.transcriptionJobsSweepAfterSeconds]: String(context.transcriptionJobs.visibilityTimeout.toSeconds() * context.transcriptionJobs.maxReceiveCount) } : {}),
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

function reengagementEnvironment(props: ReengagementProps, channel: Pick<WhatsAppChannelBinding, 'senderEnvironment'>): Record<string, string> {
  return {
    ...channel.senderEnvironment,
    [RUNTIME_ENV.reengagementTemplate]: JSON.stringify({ name: props.template.name, language: props.template.language }),
    [RUNTIME_ENV.reengagementAfterSeconds]: String(props.after.toSeconds()),
  };
}
