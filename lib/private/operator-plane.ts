import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import type { HandoffTexts } from '../contract/handoff-texts';
import { HANDOFF_TEXT_MAX_CHARACTERS, LINK_PLACEHOLDER, misplacesLink, OPERATOR_DEFAULTS, OPERATOR_ENV, RUNTIME_ENV, TABLE_SCHEMA } from '../contract';
import {
  OPERATOR_DEAD_LETTER_ACTIONS,
  OPERATOR_QUERY_ACTIONS,
  OPERATOR_TABLE_ACTIONS,
  SWEEPER_TABLE_ACTIONS,
  TABLE_KEY_ACTIONS,
  viaServiceCondition,
  WEBHOOK_QUEUE_ACTIONS,
} from './permissions';
import type { PipelineFunctionFactory } from './function-factory';
import type { WhatsAppChannelBinding } from './whatsapp-channel-binding';

/** The operator plane's props with defaults applied and checks passed. Internal. */
export interface OperatorPlaneSettings {
  readonly adminPhoneNumbers: readonly string[];
  readonly timeZone: string;
  readonly handoffRenotifyAfter: Duration;
  readonly customerRenotifyAfter: Duration;
  /** Only the texts the consumer set; the runtime has the defaults. */
  readonly handoffTexts: HandoffTexts;
}

/** The sweeper runs every minute: a shorter wait would be rounded up anyway. */
const SWEEP_INTERVAL = Duration.minutes(1);
const MAX_WAIT = Duration.hours(24);
const PLANE_ONLY_PROPS = ['timeZone', 'handoffRenotifyAfter', 'customerRenotifyAfter', 'handoffTexts'] as const;

const ADMIN_PHONE = /^\d{8,15}$/;

/** `undefined` when the plane is off (no `adminPhoneNumbers`); throws on any unusable value. */
export function resolveOperatorPlaneSettings(constructPath: string, props: AgentPipelineProps): OperatorPlaneSettings | undefined {
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${constructPath}': ${problem}`);
  };
  const timeZone = props.timeZone ?? OPERATOR_DEFAULTS.timeZone;
  if (!isTimeZone(timeZone)) fail(`timeZone '${timeZone}' is not an IANA time zone such as 'America/Sao_Paulo' or 'Europe/Lisbon'.`);
  if (props.adminPhoneNumbers === undefined) {
    const stray = PLANE_ONLY_PROPS.filter((prop) => props[prop] !== undefined);
    if (stray.length > 0) fail(`${stray.join(', ')} only apply to the operator plane; set adminPhoneNumbers to turn the plane on, or remove them.`);
    return undefined;
  }
  if (props.adminPhoneNumbers.length === 0) fail('adminPhoneNumbers is empty: name at least one admin phone, or leave it out to keep the operator plane off.');
  const invalid = props.adminPhoneNumbers.filter((phone) => !ADMIN_PHONE.test(phone));
  if (invalid.length > 0) {
    fail(`adminPhoneNumbers must be WhatsApp phones of 8 to 15 digits with country code and no '+' or spaces (e.g. '5511912345678'); got ${invalid.map((phone) => `'${phone}'`).join(', ')}.`);
  }
  const handoffRenotifyAfter = props.handoffRenotifyAfter ?? Duration.seconds(OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds);
  const customerRenotifyAfter = props.customerRenotifyAfter ?? Duration.seconds(OPERATOR_DEFAULTS.customerRenotifyAfterSeconds);
  for (const [name, wait] of [['handoffRenotifyAfter', handoffRenotifyAfter], ['customerRenotifyAfter', customerRenotifyAfter]] as const) {
    if (wait.isUnresolved()) continue;
    if (wait.toSeconds() < SWEEP_INTERVAL.toSeconds() || wait.toSeconds() > MAX_WAIT.toSeconds()) {
      fail(`${name} must be from 1 minute (the sweeper runs every minute) to 24 hours; got ${wait.toSeconds()} s.`);
    }
  }
  const handoffTexts = props.handoffTexts ?? {};
  for (const [name, text] of Object.entries(handoffTexts)) {
    if (text === undefined) continue;
    if (typeof text !== 'string' || text.trim() === '' || text.length > HANDOFF_TEXT_MAX_CHARACTERS) fail(`handoffTexts.${name} must be non-blank text of at most ${HANDOFF_TEXT_MAX_CHARACTERS} characters.`);
    if (name === 'operatorNotification' && misplacesLink(text)) fail(`handoffTexts.${name}: the console link goes last; put ${LINK_PLACEHOLDER} at the end of the text, or leave it out.`);
  }
  return { adminPhoneNumbers: [...new Set(props.adminPhoneNumbers)], timeZone, handoffRenotifyAfter, customerRenotifyAfter, handoffTexts };
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

export interface OperatorPlaneContext {
  readonly settings: OperatorPlaneSettings;
  readonly table: dynamodb.ITable;
  /** The pipeline's channel, which the operator and the sweeper send on. */
  readonly channel: Pick<WhatsAppChannelBinding, 'senderEnvironment' | 'grantSend'>;
  readonly orchestrator: lambda.Function;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly encryptionKey?: kms.IKey;
  /** Where the schedule is created (the pipeline construct). */
  readonly scope: Construct;
  /** The pipeline's function factory, which also holds the environment every function shares. */
  readonly functions: PipelineFunctionFactory;
}

export interface OperatorPlaneResources {
  readonly operatorFunction: lambda.Function;
  readonly operatorFunctionUrl: lambda.FunctionUrl;
  /** The Function URL (ending in `/`); login links are `{consoleUrl}login#{token}`. */
  readonly consoleUrl: string;
  readonly handoffSweeperFunction: lambda.Function;
  readonly handoffSweeperSchedule: events.Rule;
}

/**
 * The operator function behind its own Function URL (auth NONE: the function authenticates every
 * call by its session cookie and CSRF token), with table and secret access only, and the
 * orchestrator told where the console is. The URL belongs to the operator function, so the
 * orchestrator depending on it creates no cycle.
 */
export function buildOperatorPlane(context: OperatorPlaneContext): OperatorPlaneResources {
  const { settings, table, channel, functions } = context;
  const sharedEnvironment: Record<string, string> = { [RUNTIME_ENV.tableName]: table.tableName, ...channel.senderEnvironment, ...functions.commonEnvironment };
  const planeEnvironment: Record<string, string> = {
    [OPERATOR_ENV.adminPhoneNumbers]: settings.adminPhoneNumbers.join(','),
    [OPERATOR_ENV.timeZone]: settings.timeZone,
  };
  const handoffEnvironment: Record<string, string> = {
    [OPERATOR_ENV.handoffRenotifyAfterSeconds]: String(settings.handoffRenotifyAfter.toSeconds()),
    [OPERATOR_ENV.customerRenotifyAfterSeconds]: String(settings.customerRenotifyAfter.toSeconds()),
    ...(Object.keys(settings.handoffTexts).length > 0 ? { [OPERATOR_ENV.handoffTexts]: JSON.stringify(settings.handoffTexts) } : {}),
  };
  const operatorFunction = functions.createFunction('Operator', {
    description: `Operator console and API of ${sharedEnvironment[RUNTIME_ENV.serviceName]}: sign-in, human inbox, admin`,
    memorySize: OPERATOR_DEFAULTS.operatorMemorySize,
    timeout: Duration.seconds(OPERATOR_DEFAULTS.operatorTimeoutSeconds),
    environment: {
      ...sharedEnvironment,
      ...planeEnvironment,
      [RUNTIME_ENV.turnQueueUrl]: context.queue.queueUrl,
      [OPERATOR_ENV.deadLetterQueueUrl]: context.deadLetterQueue.queueUrl,
    },
  });
  const operatorFunctionUrl = operatorFunction.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
  // A Function URL ends in '/'; the runtime trims it when it builds links.
  const consoleUrl = operatorFunctionUrl.url;

  const index = `${table.tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`;
  operatorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...OPERATOR_TABLE_ACTIONS], resources: [table.tableArn] }));
  operatorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...OPERATOR_QUERY_ACTIONS], resources: [table.tableArn, index] }));
  channel.grantSend(operatorFunction);
  // The admin's dead-letter redrive: read and remove records, send them back to the turn queue.
  operatorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...OPERATOR_DEAD_LETTER_ACTIONS], resources: [context.deadLetterQueue.queueArn] }));
  operatorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...WEBHOOK_QUEUE_ACTIONS], resources: [context.queue.queueArn] }));
  if (context.encryptionKey) {
    // Table and queues share the key: the table actions cover sending and receiving encrypted messages.
    operatorFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...TABLE_KEY_ACTIONS], resources: [context.encryptionKey.keyArn], conditions: viaServiceCondition('dynamodb', 'sqs') }),
    );
  }

  const consoleEnvironment = { ...planeEnvironment, ...handoffEnvironment, [OPERATOR_ENV.consoleUrl]: consoleUrl };
  for (const [name, value] of Object.entries(consoleEnvironment)) {
    context.orchestrator.addEnvironment(name, value);
  }

  const handoffSweeperFunction = functions.createFunction('HandoffSweeper', {
    description: `Handoff sweeper of ${sharedEnvironment[RUNTIME_ENV.serviceName]}: re-notifies operators about waiting conversations, reminds customers once`,
    memorySize: 256,
    timeout: Duration.seconds(50),
    environment: { ...sharedEnvironment, ...consoleEnvironment },
  });
  handoffSweeperFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...SWEEPER_TABLE_ACTIONS], resources: [table.tableArn] }));
  handoffSweeperFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...OPERATOR_QUERY_ACTIONS], resources: [table.tableArn, index] }));
  channel.grantSend(handoffSweeperFunction);
  if (context.encryptionKey) {
    handoffSweeperFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...TABLE_KEY_ACTIONS], resources: [context.encryptionKey.keyArn], conditions: viaServiceCondition('dynamodb') }));
  }
  const handoffSweeperSchedule = new events.Rule(context.scope, 'HandoffSweeperSchedule', {
    description: 'Runs the handoff sweeper every minute',
    schedule: events.Schedule.rate(SWEEP_INTERVAL),
    // A missed minute is made up by the next sweep; a retried one could only duplicate work.
    targets: [new targets.LambdaFunction(handoffSweeperFunction, { retryAttempts: 0 })],
  });
  return { operatorFunction, operatorFunctionUrl, consoleUrl, handoffSweeperFunction, handoffSweeperSchedule };
}
