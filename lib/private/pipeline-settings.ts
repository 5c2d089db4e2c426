import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import type { AlarmThresholds } from '../alarm-thresholds';
import { LogLevel } from '../log-level';
import type { CustomerBudget } from '../customer-budget';
import type { PipelineBudget } from '../pipeline-budget';
import { KeyLayout } from '../contract/key-layout';
import { COST_GUARD_DEFAULTS, FALLBACK_TEXT_MAX_CHARACTERS, PIPELINE_BUDGET_DEFAULTS, PIPELINE_DEFAULTS, physicalNames } from '../contract';
import { resolveChannel } from './channel-settings';
import type { ChannelSettings } from './whatsapp-channel-binding';

/** The construct's props with every default applied and every check passed. Internal. */
export interface PipelineSettings {
  readonly environment: string;
  readonly names: ReturnType<typeof physicalNames>;
  readonly serviceName: string;
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  readonly orchestratorTimeout: Duration;
  readonly visibilityTimeout: Duration;
  readonly maxReceiveCount: number;
  readonly queueRetentionPeriod: Duration;
  readonly deadLetterQueueRetentionPeriod: Duration;
  readonly logRetention: logs.RetentionDays;
  readonly webhookMemorySize: number;
  readonly orchestratorMemorySize: number;
  readonly orchestratorMaxConcurrency: number;
  /** The WhatsApp channel with the Cloud API props. */
  readonly channel: ChannelSettings;
  readonly webhookReservedConcurrency?: number;
  readonly oldestMessageAgeAlarmThreshold: Duration;
  readonly alarmThresholds: Required<AlarmThresholds>;
  readonly dashboard: boolean;
  readonly logLevel: LogLevel;
  readonly tracing: boolean;
  readonly keyLayout: KeyLayout;
  /** The budget fields the consumer set (the runtime applies the same defaults to the rest); undefined when none. */
  readonly customerBudget?: CustomerBudget;
  /** The pipeline-wide budget with its alarm share resolved; undefined when off. */
  readonly pipelineBudget?: PipelineBudget & { readonly alarmAtShareOfBudget: number };
  /** Undefined: the runtime's default. */
  readonly agentHistoryMaxCharacters?: number;
  /** The texts the consumer set (undefined: the runtime's defaults, `FALLBACK_TEXT_DEFAULTS`). */
  readonly fallbackText?: string;
  readonly deadlineFallbackText?: string;
}

const DEFAULT_ALARM_THRESHOLDS: Required<AlarmThresholds> = {
  webhookServerErrors: 0,
  webhookSignatureRejections: 0,
  permanentTurnFailures: 0,
  replyOutcomesUnknown: 0,
  deliveryFailures: 0,
  deadLetterQueueMessages: 0,
  functionErrors: 0,
  functionThrottles: 0,
  durationShareOfTimeout: 0.8,
  tableThrottledRequests: 0,
  modelThrottles: 0,
  crmSyncBlockedRows: 0,
  crmSyncUncertainRows: 0,
  inboundEnvelopesRefused: 0,
  handoffWaitingMinutes: 30,
  turnsAnsweredWithFallback: 0,
};

/** Lowercase letters, digits and inner hyphens: valid in SQS and DynamoDB names, and readable. */
const NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const SQS_QUEUE_NAME_MAX_LENGTH = 80;
const DYNAMODB_TABLE_NAME_MAX_LENGTH = 255;
/** Characters the derived names add around serviceName + environment (the DLQ name is the longest). */
const EMPTY_NAMES = physicalNames('', '');
/** serviceName.length + environment.length must fit the tightest of the physical name limits. */
const MAX_NAME_BUDGET = Math.min(
  SQS_QUEUE_NAME_MAX_LENGTH - Math.max(EMPTY_NAMES.queue.length, EMPTY_NAMES.deadLetterQueue.length),
  DYNAMODB_TABLE_NAME_MAX_LENGTH - EMPTY_NAMES.table.length,
);

const SQS_MIN_RETENTION = Duration.seconds(60);
const SQS_MAX_RETENTION = Duration.days(14);
const SQS_MAX_VISIBILITY_TIMEOUT = Duration.hours(12);
const LAMBDA_MAX_TIMEOUT = Duration.minutes(15);
/** Period of every alarm of the pipeline. */
export const ALARM_PERIOD = Duration.minutes(1);
const SUPPORTED_REMOVAL_POLICIES = [RemovalPolicy.RETAIN, RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE, RemovalPolicy.DESTROY];

/** Applies the defaults and throws on any configuration that could not deploy or would misbehave. */
export function resolvePipelineSettings(constructPath: string, props: AgentPipelineProps): PipelineSettings {
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${constructPath}': ${problem}`);
  };
  if (!props.agentBackend) {
    fail('agentBackend is required: use AgentBackend.bedrock(), AgentBackend.fromFunction() or, for development only, AgentBackend.scripted().');
  }

  const serviceName = props.serviceName ?? PIPELINE_DEFAULTS.serviceName;
  const environment = props.environment;
  checkName(fail, 'environment', environment);
  checkName(fail, 'serviceName', serviceName);
  if (!Token.isUnresolved(serviceName) && !Token.isUnresolved(environment) && serviceName.length + environment.length > MAX_NAME_BUDGET) {
    fail(
      `serviceName '${serviceName}' and environment '${environment}' are ${serviceName.length + environment.length} characters together; ` +
        `at most ${MAX_NAME_BUDGET} fit in the dead-letter queue name '${physicalNames(serviceName, environment).deadLetterQueue}' ` +
        `(SQS allows ${SQS_QUEUE_NAME_MAX_LENGTH}). Shorten one of them.`,
    );
  }

  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
  const deletionProtection = props.deletionProtection ?? true;
  if (!SUPPORTED_REMOVAL_POLICIES.includes(removalPolicy)) {
    fail(`removalPolicy ${removalPolicy} is not supported by DynamoDB tables and SQS queues; use RETAIN, RETAIN_ON_UPDATE_OR_DELETE or DESTROY.`);
  }
  if (removalPolicy === RemovalPolicy.DESTROY && deletionProtection) {
    fail(
      'removalPolicy DESTROY conflicts with deletionProtection true (its default): CloudFormation could never delete the table. ' +
        'For a disposable stack set deletionProtection: false as well; otherwise keep the default RETAIN.',
    );
  }

  const orchestratorTimeout = props.orchestratorTimeout ?? Duration.seconds(PIPELINE_DEFAULTS.orchestratorTimeoutSeconds);
  const visibilityTimeout = props.visibilityTimeout ?? Duration.seconds(PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds);
  checkDuration(fail, 'orchestratorTimeout', orchestratorTimeout, Duration.seconds(1), LAMBDA_MAX_TIMEOUT);
  checkDuration(fail, 'visibilityTimeout', visibilityTimeout, Duration.seconds(0), SQS_MAX_VISIBILITY_TIMEOUT);
  if (isResolved(orchestratorTimeout, visibilityTimeout) && visibilityTimeout.toSeconds() <= orchestratorTimeout.toSeconds()) {
    fail(
      `visibilityTimeout (${visibilityTimeout.toSeconds()} s) must be greater than orchestratorTimeout (${orchestratorTimeout.toSeconds()} s): ` +
        'otherwise SQS hands a message to a second orchestrator while the first is still working on it, and Lambda rejects the event source. ' +
        'Raise visibilityTimeout (AWS recommends at least 6 × the function timeout) or lower orchestratorTimeout.',
    );
  }

  const maxReceiveCount = props.maxReceiveCount ?? PIPELINE_DEFAULTS.maxReceiveCount;
  checkInteger(fail, 'maxReceiveCount', maxReceiveCount, 1, 1000);

  const queueRetentionPeriod = props.queueRetentionPeriod ?? Duration.seconds(PIPELINE_DEFAULTS.queueRetentionSeconds);
  const deadLetterQueueRetentionPeriod =
    props.deadLetterQueueRetentionPeriod ?? Duration.seconds(PIPELINE_DEFAULTS.deadLetterQueueRetentionSeconds);
  checkDuration(fail, 'queueRetentionPeriod', queueRetentionPeriod, SQS_MIN_RETENTION, SQS_MAX_RETENTION);
  checkDuration(fail, 'deadLetterQueueRetentionPeriod', deadLetterQueueRetentionPeriod, SQS_MIN_RETENTION, SQS_MAX_RETENTION);
  // SQS keeps a message's original enqueue time when it moves it to the DLQ, so a shorter DLQ
  // retention would delete failed turns before anyone could look at them.
  if (isResolved(queueRetentionPeriod, deadLetterQueueRetentionPeriod) && deadLetterQueueRetentionPeriod.toSeconds() < queueRetentionPeriod.toSeconds()) {
    fail(
      `deadLetterQueueRetentionPeriod (${deadLetterQueueRetentionPeriod.toSeconds()} s) is shorter than queueRetentionPeriod ` +
        `(${queueRetentionPeriod.toSeconds()} s): messages would expire in the dead-letter queue before they could be inspected. ` +
        'Make the dead-letter queue retention at least as long as the queue retention.',
    );
  }

  const oldestMessageAgeAlarmThreshold = props.oldestMessageAgeAlarmThreshold ?? Duration.minutes(10);
  checkDuration(fail, 'oldestMessageAgeAlarmThreshold', oldestMessageAgeAlarmThreshold, ALARM_PERIOD, queueRetentionPeriod);

  const webhookMemorySize = props.webhookMemorySize ?? 512;
  const orchestratorMemorySize = props.orchestratorMemorySize ?? 512;
  checkInteger(fail, 'webhookMemorySize', webhookMemorySize, 128, 10240);
  checkInteger(fail, 'orchestratorMemorySize', orchestratorMemorySize, 128, 10240);
  const orchestratorMaxConcurrency = props.orchestratorMaxConcurrency ?? COST_GUARD_DEFAULTS.orchestratorMaxConcurrency;
  checkInteger(fail, 'orchestratorMaxConcurrency', orchestratorMaxConcurrency, 2, 1000);

  const alarmThresholds = { ...DEFAULT_ALARM_THRESHOLDS, ...definedFields(props.alarmThresholds ?? {}) };
  for (const [name, value] of Object.entries(alarmThresholds)) {
    if (name === 'durationShareOfTimeout') continue;
    if (!Token.isUnresolved(value) && !(Number.isFinite(value) && value >= 0)) fail(`alarmThresholds.${name} must be a count of 0 or more; got ${value}.`);
  }
  const share = alarmThresholds.durationShareOfTimeout;
  if (!Token.isUnresolved(share) && !(share > 0 && share <= 1)) {
    fail(`alarmThresholds.durationShareOfTimeout must be above 0 and at most 1 (e.g. 0.8 for 80 % of the timeout); got ${share}.`);
  }
  const logLevel = props.logLevel ?? LogLevel.INFO;
  if (!Object.values(LogLevel).includes(logLevel)) fail(`logLevel '${logLevel}' is not one of ${Object.values(LogLevel).join(', ')}.`);
  const keyLayout = props.keyLayout ?? KeyLayout.SEED;
  if (!Object.values(KeyLayout).includes(keyLayout)) {
    fail(`keyLayout '${keyLayout}' is not one of ${Object.values(KeyLayout).join(', ')}: use KeyLayout.SEED, KeyLayout.MIGRATING or KeyLayout.SHARDED.`);
  }
  if (props.webhookReservedConcurrency !== undefined) {
    checkInteger(fail, 'webhookReservedConcurrency', props.webhookReservedConcurrency, 1, 1000);
  }

  return {
    environment,
    names: physicalNames(serviceName, environment),
    channel: resolveChannel(fail, props),
    webhookReservedConcurrency: props.webhookReservedConcurrency,
    serviceName,
    removalPolicy,
    deletionProtection,
    orchestratorTimeout,
    visibilityTimeout,
    maxReceiveCount,
    queueRetentionPeriod,
    deadLetterQueueRetentionPeriod,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    webhookMemorySize,
    orchestratorMemorySize,
    orchestratorMaxConcurrency,
    oldestMessageAgeAlarmThreshold,
    alarmThresholds,
    dashboard: props.dashboard ?? true,
    logLevel,
    tracing: props.tracing ?? true,
    keyLayout,
    ...resolveCostGuards(fail, props),
    fallbackText: checkedFallbackText(fail, 'fallbackText', props.fallbackText),
    deadlineFallbackText: checkedFallbackText(fail, 'deadlineFallbackText', props.deadlineFallbackText),
  };
}

/** A text the customer reads as one WhatsApp message. */
function checkedFallbackText(fail: Fail, label: string, text: string | undefined): string | undefined {
  if (text !== undefined && !Token.isUnresolved(text) && (text.trim() === '' || text.length > FALLBACK_TEXT_MAX_CHARACTERS)) {
    fail(`${label} must be a non-blank text of at most ${FALLBACK_TEXT_MAX_CHARACTERS} characters (one WhatsApp message); got ${text.length} characters. Shorten it, or leave it out for the default.`);
  }
  return text;
}

const MAX_OVER_BUDGET_REPLY_LENGTH = 1024;
const BUDGET_LIMIT_MAXIMA = { turnsPerMinute: 10_000, turnsPerHour: 100_000, agentTokensPerDay: 1_000_000_000 } as const;
const PIPELINE_TOKENS_PER_DAY_MAXIMUM = 1_000_000_000_000;

function resolveCostGuards(fail: Fail, props: AgentPipelineProps): Pick<PipelineSettings, 'customerBudget' | 'pipelineBudget' | 'agentHistoryMaxCharacters'> {
  const budget = definedFields(props.customerBudget ?? {});
  for (const [name, max] of Object.entries(BUDGET_LIMIT_MAXIMA) as [keyof typeof BUDGET_LIMIT_MAXIMA, number][]) {
    const value = budget[name];
    if (value !== undefined) checkInteger(fail, `customerBudget.${name}`, value, 1, max);
  }
  const perMinute = budget.turnsPerMinute ?? COST_GUARD_DEFAULTS.turnsPerMinute;
  const perHour = budget.turnsPerHour ?? COST_GUARD_DEFAULTS.turnsPerHour;
  if (!Token.isUnresolved(perMinute) && !Token.isUnresolved(perHour) && perMinute > perHour) {
    fail(`customerBudget.turnsPerMinute (${perMinute}) is more than turnsPerHour (${perHour}): the hour would refuse what the minute allows. Lower turnsPerMinute or raise turnsPerHour.`);
  }
  checkBudgetReply(fail, 'customerBudget.reply', budget.reply);
  if (props.agentHistoryMaxCharacters !== undefined) checkInteger(fail, 'agentHistoryMaxCharacters', props.agentHistoryMaxCharacters, 1_000, 200_000);
  return { customerBudget: Object.keys(budget).length === 0 ? undefined : budget, pipelineBudget: resolvePipelineBudget(fail, props.pipelineBudget), agentHistoryMaxCharacters: props.agentHistoryMaxCharacters };
}

function resolvePipelineBudget(fail: Fail, props: PipelineBudget | undefined): PipelineSettings['pipelineBudget'] {
  if (props === undefined) return undefined;
  const budget = definedFields(props);
  if (budget.agentTokensPerDay === undefined) fail('pipelineBudget.agentTokensPerDay is required: the model tokens all customers together may use per UTC day.');
  checkInteger(fail, 'pipelineBudget.agentTokensPerDay', budget.agentTokensPerDay!, 1, PIPELINE_TOKENS_PER_DAY_MAXIMUM);
  const share = budget.alarmAtShareOfBudget ?? PIPELINE_BUDGET_DEFAULTS.alarmAtShareOfBudget;
  if (!Token.isUnresolved(share) && !(share > 0 && share <= 1)) {
    fail(`pipelineBudget.alarmAtShareOfBudget must be above 0 and at most 1 (e.g. 0.8 to be warned at 80 % of the budget); got ${share}.`);
  }
  checkBudgetReply(fail, 'pipelineBudget.reply', budget.reply);
  return { agentTokensPerDay: budget.agentTokensPerDay!, alarmAtShareOfBudget: share, ...(budget.reply === undefined ? {} : { reply: budget.reply }) };
}

function checkBudgetReply(fail: Fail, label: string, reply: string | undefined): void {
  if (reply !== undefined && !Token.isUnresolved(reply) && (reply.trim() === '' || reply.length > MAX_OVER_BUDGET_REPLY_LENGTH)) {
    fail(`${label} must be a text of 1 to ${MAX_OVER_BUDGET_REPLY_LENGTH} characters (a WhatsApp message the customer reads); got ${reply.length}.`);
  }
}

/** A struct without its undefined fields, so spreading it keeps the defaults (jsii passes absent fields as undefined). */
function definedFields<T extends object>(struct: T): Partial<T> {
  return Object.fromEntries(Object.entries(struct).filter(([, value]) => value !== undefined)) as Partial<T>;
}

type Fail = (problem: string) => never;

function checkName(fail: Fail, label: string, value: string): void {
  if (!Token.isUnresolved(value) && !NAME_PATTERN.test(value)) {
    fail(
      `${label} '${value}' cannot be part of the table and queue names: use lowercase letters, digits and inner hyphens ` +
        "(for example 'prod' or 'staging-2').",
    );
  }
}

export function checkInteger(fail: Fail, label: string, value: number, min: number, max: number): void {
  if (!Token.isUnresolved(value) && (!Number.isInteger(value) || value < min || value > max)) {
    fail(`${label} must be a whole number from ${min} to ${max}; got ${value}.`);
  }
}

function checkDuration(fail: Fail, label: string, value: Duration, min: Duration, max: Duration): void {
  if (isResolved(value, min, max) && (value.toSeconds() < min.toSeconds() || value.toSeconds() > max.toSeconds())) {
    fail(`${label} must be from ${min.toSeconds()} s to ${max.toSeconds()} s; got ${value.toSeconds()} s.`);
  }
}

function isResolved(...durations: Duration[]): boolean {
  return durations.every((duration) => !duration.isUnresolved());
}
