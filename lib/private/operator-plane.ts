import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import type { ConsoleFrontDoor } from '../console-front-door';
import type { MessageTemplateRef, MessageTemplatesProps } from '../message-templates';
import type { HandoffTexts } from '../contract/handoff-texts';
import { type ChannelOptions, DEFAULT_LOCALE, type FunctionSettings, HANDOFF_TEXT_MAX_CHARACTERS, LINK_PLACEHOLDER, misplacesLink, OPERATOR_DEFAULTS, type OperatorPlaneOptions, TEMPLATE_SYNC_EVENT_FIELD, WHATSAPP_CHANNEL_KINDS } from '../contract';
import { acceptFinding, acceptPublicUrl, SCHEDULE_WITHOUT_DEAD_LETTERS } from './accepted-findings';
import { buildConsoleDistribution } from './console-distribution';
import type { PipelineFunctionFactory } from './function-factory';
import { END_USER_MESSAGING_TEMPLATE_READ_ACTIONS } from './permissions';
import { checkInteger } from './pipeline-settings';

/** The operator plane's props with defaults applied and checks passed. Internal. */
export interface OperatorPlaneSettings {
  readonly adminPhoneNumbers: readonly string[];
  /** Trimmed; empty when the deployment names no admin. */
  readonly adminDisplayNames: Readonly<Record<string, string>>;
  readonly timeZone: string;
  readonly handoffRenotifyAfter: Duration;
  readonly customerRenotifyAfter: Duration;
  /** Only the texts the consumer set; the runtime has the defaults. */
  readonly handoffTexts: HandoffTexts;
  readonly reservedConcurrency: number;
  /** Undefined: the console is served by the function's own public URL. */
  readonly frontDoor?: ConsoleFrontDoor;
  readonly templates: TemplateSettings;
}

/** `messageTemplates`, checked. */
interface TemplateSettings {
  readonly businessAccountId?: string;
  readonly syncInterval: Duration;
  readonly handoffNoticeTemplate?: MessageTemplateRef;
}

/** Meta's numeric WABA id (the Cloud API channel reads it through the Graph API). */
const META_BUSINESS_ACCOUNT_ID = /^\d{1,32}$/;
/** End User Messaging's id of the linked account (`waba-…`); the part after the prefix is the resource name in its ARN. */
const LINKED_BUSINESS_ACCOUNT_ID = /^waba-([0-9a-zA-Z]{1,100})$/;

/** The sweeper runs every minute: a shorter wait would be rounded up anyway. */
const SWEEP_INTERVAL = Duration.minutes(1);
const MAX_WAIT = Duration.hours(24);
const PLANE_ONLY_PROPS = ['adminDisplayNames', 'timeZone', 'handoffRenotifyAfter', 'customerRenotifyAfter', 'handoffTexts', 'operatorReservedConcurrency', 'consoleFrontDoor', 'messageTemplates'] as const;
const DEFAULT_TEMPLATE_SYNC_INTERVAL = Duration.hours(6);
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const TEMPLATE_LANGUAGE = /^[a-z]{2,3}(_[A-Za-z]{2,4})?$/;
/** Lambda keeps 100 of an account's concurrency (1,000 unless raised) unreserved. */
const MAX_OPERATOR_RESERVED_CONCURRENCY = 900;

const ADMIN_PHONE = /^\d{8,15}$/;
/** As long as the console's operators list lets an admin name someone. */
export const MAX_ADMIN_NAME_CHARACTERS = 60;

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
  // São Paulo is the pt-BR preset's zone; English or Spanish is spoken on every continent.
  if (props.timeZone === undefined && (props.locale ?? DEFAULT_LOCALE) !== DEFAULT_LOCALE) {
    fail(`timeZone is required with locale '${props.locale}': set the IANA zone of the operators' working day, such as 'Europe/London', 'America/New_York' or 'America/Mexico_City'.`);
  }
  if (props.adminPhoneNumbers.length === 0) fail('adminPhoneNumbers is empty: name at least one admin phone, or leave it out to keep the operator plane off.');
  const invalid = props.adminPhoneNumbers.filter((phone) => !ADMIN_PHONE.test(phone));
  if (invalid.length > 0) {
    fail(`adminPhoneNumbers must be WhatsApp phones of 8 to 15 digits with country code and no '+' or spaces (e.g. '5511912345678'); got ${invalid.map((phone) => `'${phone}'`).join(', ')}.`);
  }
  const adminDisplayNames = resolveAdminDisplayNames(fail, props.adminPhoneNumbers, props.adminDisplayNames ?? {});
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
  const reservedConcurrency = props.operatorReservedConcurrency ?? OPERATOR_DEFAULTS.operatorReservedConcurrency;
  checkInteger(fail, 'operatorReservedConcurrency', reservedConcurrency, 1, MAX_OPERATOR_RESERVED_CONCURRENCY);
  const frontDoor = props.consoleFrontDoor;
  if (frontDoor && ((frontDoor.domainNames?.length ?? 0) > 0) !== (frontDoor.certificate !== undefined)) {
    fail('consoleFrontDoor.domainNames and consoleFrontDoor.certificate go together: CloudFront serves its own names only with their certificate (in us-east-1).');
  }
  const templates = resolveTemplateSettings(fail, props.messageTemplates ?? {});
  return { adminPhoneNumbers: [...new Set(props.adminPhoneNumbers)], adminDisplayNames, timeZone, handoffRenotifyAfter, customerRenotifyAfter, handoffTexts, reservedConcurrency, frontDoor, templates };
}

function resolveAdminDisplayNames(fail: (problem: string) => never, adminPhoneNumbers: readonly string[], names: Readonly<Record<string, string>>): Record<string, string> {
  const strangers = Object.keys(names).filter((phone) => !adminPhoneNumbers.includes(phone));
  if (strangers.length > 0) fail(`adminDisplayNames names ${strangers.map((phone) => `'${phone}'`).join(', ')}, not in adminPhoneNumbers: name only the admins this deployment lists, by the same phone.`);
  const trimmed = Object.entries(names).map(([phone, name]) => [phone, typeof name === 'string' ? name.trim() : ''] as const);
  const unusable = trimmed.filter(([, name]) => name === '' || [...name].length > MAX_ADMIN_NAME_CHARACTERS).map(([phone]) => `'${phone}'`);
  if (unusable.length > 0) fail(`adminDisplayNames must give each admin a name of 1 to ${MAX_ADMIN_NAME_CHARACTERS} characters; fix the names of ${unusable.join(', ')}.`);
  return Object.fromEntries(trimmed);
}

function resolveTemplateSettings(fail: (problem: string) => never, props: MessageTemplatesProps): TemplateSettings {
  const { businessAccountId, handoffNoticeTemplate } = props;
  if (businessAccountId !== undefined && !META_BUSINESS_ACCOUNT_ID.test(businessAccountId) && !LINKED_BUSINESS_ACCOUNT_ID.test(businessAccountId)) {
    fail(`messageTemplates.businessAccountId must be Meta's numeric WhatsApp Business Account id (Cloud API) or the linked account's 'waba-…' id (End User Messaging); got '${businessAccountId}'.`);
  }
  if (props.syncInterval !== undefined && businessAccountId === undefined) fail('messageTemplates.syncInterval needs messageTemplates.businessAccountId: without an account there is nothing to sync.');
  const syncInterval = props.syncInterval ?? DEFAULT_TEMPLATE_SYNC_INTERVAL;
  if (!syncInterval.isUnresolved() && (syncInterval.toSeconds() < Duration.hours(1).toSeconds() || syncInterval.toSeconds() > Duration.days(7).toSeconds())) {
    fail(`messageTemplates.syncInterval must be from 1 hour to 7 days; got ${syncInterval.toSeconds()} s.`);
  }
  if (handoffNoticeTemplate !== undefined && !namesTemplate(handoffNoticeTemplate)) {
    fail(`messageTemplates.handoffNoticeTemplate must name a template as WhatsApp Manager shows it: a lower_case_name and a language code such as 'pt_BR'.`);
  }
  return { businessAccountId, syncInterval, handoffNoticeTemplate };
}

/**
 * The account id's form must be the channel's: Meta's numeric id for the Graph API, End User
 * Messaging's `waba-…` id for its template API. The linked account's resource name, on End User Messaging.
 */
function linkedBusinessAccount(context: OperatorPlaneContext, businessAccountId: string | undefined): string | undefined {
  if (businessAccountId === undefined) return undefined;
  const endUserMessaging = context.channel.kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging;
  const linked = LINKED_BUSINESS_ACCOUNT_ID.exec(businessAccountId);
  if (endUserMessaging && !linked) {
    throw new Error(`AgentPipeline at '${context.scope.node.path}': with End User Messaging, messageTemplates.businessAccountId is the linked account's id in End User Messaging ('waba-…', the console's WhatsApp business accounts page), not Meta's numeric id.`);
  }
  if (!endUserMessaging && linked) {
    throw new Error(`AgentPipeline at '${context.scope.node.path}': messageTemplates.businessAccountId '${businessAccountId}' is an End User Messaging id; the Cloud API channel reads the templates with the Graph API and needs Meta's numeric WhatsApp Business Account id.`);
  }
  return linked?.[1];
}

/** Whether `ref` names a template as WhatsApp Manager shows it: a lower_case_name and a language code such as 'pt_BR'. */
export function namesTemplate(ref: MessageTemplateRef): boolean {
  return TEMPLATE_NAME.test(ref.name) && TEMPLATE_LANGUAGE.test(ref.language);
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

/** What the functions are told of the plane (all but the names the plane's functions give: the console's URL, the evaluator's). */
export function operatorPlaneOptions(settings: OperatorPlaneSettings): Omit<OperatorPlaneOptions, 'consoleUrl' | 'evaluatorFunctionName'> {
  const { templates } = settings;
  return {
    adminPhoneNumbers: settings.adminPhoneNumbers,
    adminDisplayNames: settings.adminDisplayNames,
    timeZone: settings.timeZone,
    handoffTexts: settings.handoffTexts,
    renotifyOperatorsAfterMs: settings.handoffRenotifyAfter.toMilliseconds(),
    remindCustomerAfterMs: settings.customerRenotifyAfter.toMilliseconds(),
    ...(templates.handoffNoticeTemplate && { handoffNoticeTemplate: { name: templates.handoffNoticeTemplate.name, language: templates.handoffNoticeTemplate.language } }),
    ...(templates.businessAccountId !== undefined && { businessAccountId: templates.businessAccountId }),
  };
}

export interface OperatorPlaneContext {
  readonly settings: OperatorPlaneSettings;
  /** The pipeline's channel, which the operator and the sweeper send on. */
  readonly channel: ChannelOptions;
  /** What the plan tells the operator function and the handoff sweeper. */
  readonly told: { readonly operator: FunctionSettings; readonly handoffSweeper: FunctionSettings };
  /** Where the schedule is created (the pipeline construct). */
  readonly scope: Construct;
  /** The pipeline's function factory. */
  readonly functions: PipelineFunctionFactory;
  /** `${serviceName}-${environment}`, which the descriptions name. */
  readonly deploymentName: string;
}

export interface OperatorPlaneResources {
  readonly operatorFunction: lambda.Function;
  readonly operatorFunctionUrl: lambda.FunctionUrl;
  /** With `consoleFrontDoor`: the CloudFront distribution in front of the URL. */
  readonly consoleDistribution?: cloudfront.Distribution;
  /** The Function URL, or the distribution's (ending in `/`); login links are `{consoleUrl}login#{token}`. */
  readonly consoleUrl: string;
  readonly handoffSweeperFunction: lambda.Function;
  readonly handoffSweeperSchedule: events.Rule;
  /** With `messageTemplates.businessAccountId`: the sweeper's run that reads the account's templates. */
  readonly templateSyncSchedule?: events.Rule;
}

/**
 * The operator function behind its own Function URL — auth NONE (the function authenticates every
 * call by its session cookie and CSRF token), or AWS_IAM behind the console's CloudFront
 * distribution — and the handoff sweeper; the pipeline grants both functions their roles
 * (pipeline-grants.ts). The console's URL belongs to the operator function, so the orchestrator
 * and the sweeper, whose plans carry it, depending on it creates no cycle.
 */
export function buildOperatorPlane(context: OperatorPlaneContext): OperatorPlaneResources {
  const { settings, functions, told } = context;
  const { businessAccountId } = settings.templates;
  const linkedAccount = linkedBusinessAccount(context, businessAccountId);
  const { deploymentName } = context;
  const operatorFunction = functions.createFunction('Operator', {
    description: `Operator console and API of ${deploymentName}: sign-in, human inbox, admin`,
    memorySize: OPERATOR_DEFAULTS.operatorMemorySize,
    timeout: Duration.seconds(OPERATOR_DEFAULTS.operatorTimeoutSeconds),
    // Its URL is public: a flood must not take the concurrency the webhook and the orchestrator need.
    reservedConcurrentExecutions: settings.reservedConcurrency,
    settings: told.operator,
  });
  const { frontDoor } = settings;
  const operatorFunctionUrl = operatorFunction.addFunctionUrl({ authType: frontDoor ? lambda.FunctionUrlAuthType.AWS_IAM : lambda.FunctionUrlAuthType.NONE });
  const consoleDistribution = frontDoor && buildConsoleDistribution(context.scope, operatorFunctionUrl, frontDoor);
  if (!consoleDistribution) {
    acceptPublicUrl(
      operatorFunction,
      "Browsers cannot sign requests with AWS credentials: the operator function authenticates every API call by its session cookie (and every change by its CSRF token), and operatorReservedConcurrency caps it. consoleFrontDoor makes the URL CloudFront's alone.",
    );
  }
  // A Function URL ends in '/', and so does the distribution's; the runtime trims it when it builds links.
  const consoleUrl = consoleDistribution ? `https://${frontDoor?.domainNames?.[0] ?? consoleDistribution.distributionDomainName}/` : operatorFunctionUrl.url;

  const handoffSweeperFunction = functions.createFunction('HandoffSweeper', {
    description: `Handoff sweeper of ${deploymentName}: re-notifies operators about waiting conversations, reminds customers once`,
    memorySize: 256,
    timeout: Duration.seconds(50),
    settings: told.handoffSweeper,
  });
  const handoffSweeperSchedule = new events.Rule(context.scope, 'HandoffSweeperSchedule', {
    description: 'Runs the handoff sweeper every minute',
    schedule: events.Schedule.rate(SWEEP_INTERVAL),
    // A missed minute is made up by the next sweep; a retried one could only duplicate work.
    targets: [new targets.LambdaFunction(handoffSweeperFunction, { retryAttempts: 0 })],
  });
  acceptFinding(handoffSweeperSchedule, 'EventBusDLQ', SCHEDULE_WITHOUT_DEAD_LETTERS);
  const templateSyncSchedule =
    businessAccountId === undefined
      ? undefined
      : new events.Rule(context.scope, 'TemplateSyncSchedule', {
          description: 'Reads the WhatsApp Business Account\'s message templates into the table',
          schedule: events.Schedule.rate(settings.templates.syncInterval),
          targets: [new targets.LambdaFunction(handoffSweeperFunction, { retryAttempts: 0, event: events.RuleTargetInput.fromObject({ [TEMPLATE_SYNC_EVENT_FIELD]: true }) })],
        });
  if (templateSyncSchedule) acceptFinding(templateSyncSchedule, 'EventBusDLQ', SCHEDULE_WITHOUT_DEAD_LETTERS);
  if (linkedAccount !== undefined) {
    // The sweeper syncs on the schedule, the operator function when an admin asks: both read the account, nothing else.
    const wabaArn = Stack.of(context.scope).formatArn({ service: 'social-messaging', resource: 'waba', resourceName: linkedAccount, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    for (const fn of [operatorFunction, handoffSweeperFunction]) fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...END_USER_MESSAGING_TEMPLATE_READ_ACTIONS], resources: [wabaArn] }));
  }
  return { operatorFunction, operatorFunctionUrl, consoleDistribution, consoleUrl, handoffSweeperFunction, handoffSweeperSchedule, templateSyncSchedule };
}
