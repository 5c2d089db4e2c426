import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CRM_TARGET_KINDS,
  type DocumentSettingOf,
  documentSettingsOf,
  HANDOFF_TEXT_NAMES,
  type PipelineFunction,
  RUNTIME_ENV,
  SETTINGS_DOCUMENT_FILE,
  type SimpleSettingName,
  simpleSettingNamesOf,
  type SimpleSettingsOf,
  WHATSAPP_CHANNEL_KINDS,
} from '../../lib/contract';
import { isOriginationPhoneNumberId } from '../core/adapters/whatsapp/end-user-messaging-sender';
import type { WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { isValidBusinessPhoneNumberId } from '../core/domain/inbound-admission';
import { isLanguageCode, isTemplateName, type TemplateRef } from '../core/domain/whatsapp-template';
import type {
  CrmSyncSettings,
  EndUserMessagingInboundSettings,
  EvaluatorSettings,
  HandoffSweeperSettings,
  IdleSweeperSettings,
  MediaSettings,
  OperatorPlaneSettings,
  OperatorSettings,
  OrchestratorSettings,
  SharedSettings,
  WebhookSettings,
} from './deployment-settings';
import { readAgent } from './read-agent-settings';
import { type Check, flag, listOf, nullable, oneOf, plainObject, recordOf, refusal, RuntimeConfigError, simpleSettingCheck, struct, text, textWhere, wholeNumber } from './settings-checks';

export { AgentConfigurationError, RuntimeConfigError } from './settings-checks';

// The one reader of what a function is told: its environment and its settings document, read once
// at cold start. It has no defaults: the plan's writer (lib/contract/plan-writer.ts) applied them,
// so a setting missing from the document, or a variable the document asks for, stops the cold start
// with an error naming it instead of failing on the first customer message.

/** What a function was told: the variables CloudFormation resolved, and the settings document written at synth. */
export interface FunctionTold {
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly document: unknown;
}

/** What this Lambda function was told: its environment, and the settings document beside its handler. */
export function toldToThisFunction(handlerDirectory: string, environment: NodeJS.ProcessEnv = process.env): FunctionTold {
  const file = path.join(handlerDirectory, SETTINGS_DOCUMENT_FILE);
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    throw new RuntimeConfigError(`The settings document ${file} is missing; the AgentPipeline construct writes it into the function's asset.`);
  }
  try {
    return { environment, document: JSON.parse(content) };
  } catch {
    throw new RuntimeConfigError(`The settings document ${file} is not JSON; the AgentPipeline construct writes it into the function's asset.`);
  }
}

export function readWebhookSettings(told: FunctionTold): WebhookSettings {
  const settings = new ToldSettings('webhook', told);
  return {
    ...sharedSettingsOf(settings),
    turnQueueUrl: settings.variable(RUNTIME_ENV.turnQueueUrl),
    whatsAppSecretArn: settings.variable(RUNTIME_ENV.whatsAppSecretArn),
    ...businessPhoneNumberIds(settings.optionalVariable(RUNTIME_ENV.businessPhoneNumberIds)),
    applyTemplateStatusUpdates: settings.setting('applyTemplateStatusUpdates', flag),
  };
}

export function readEndUserMessagingInboundSettings(told: FunctionTold): EndUserMessagingInboundSettings {
  const settings = new ToldSettings('eum-inbound', told);
  const { phoneNumbers, wabaIds } = settings.setting('endUserMessagingInbound', struct({ phoneNumbers: LINKED_NUMBERS, wabaIds: nullable(listOf(DIGITS, 1)) }));
  const linked = new Map(phoneNumbers.map((number) => [number.metaPhoneNumberId, number.originationPhoneNumberId]));
  return {
    ...sharedSettingsOf(settings),
    turnQueueUrl: settings.variable(RUNTIME_ENV.turnQueueUrl),
    businessPhoneNumberIds: [...linked.keys()],
    applyTemplateStatusUpdates: settings.setting('applyTemplateStatusUpdates', flag),
    eventSource: {
      topicArn: settings.variable(RUNTIME_ENV.endUserMessagingEventTopicArn),
      accountId: ACCOUNT_ID(settings.variable(RUNTIME_ENV.endUserMessagingAccountId), RUNTIME_ENV.endUserMessagingAccountId),
      phoneNumbers: linked,
      ...(wabaIds !== null && { wabaIds: new Set(wabaIds) }),
    },
  };
}

export function readOrchestratorSettings(told: FunctionTold): OrchestratorSettings {
  const settings = new ToldSettings('orchestrator', told);
  const operatorPlane = operatorPlaneOf(settings);
  const media = mediaOf(settings);
  return {
    ...turnPathSettingsOf(settings, sharedSettingsOf(settings)),
    customerBudget: settings.setting('customerBudget', struct({ turnsPerMinute: wholeNumber(), turnsPerHour: wholeNumber(), agentTokensPerDay: wholeNumber(), reply: text() })),
    ...(operatorPlane && { operatorPlane }),
    ...(media && { media }),
  };
}

export function readEvaluatorSettings(told: FunctionTold): EvaluatorSettings {
  const settings = new ToldSettings('evaluator', told);
  return turnPathSettingsOf(settings, sharedSettingsOf(settings));
}

/** What the orchestrator and the evaluator read alike, the turn path's settings, beside the function's shared ones. */
function turnPathSettingsOf<S extends SharedSettings & SimpleSettingsOf<'evaluator'>>(settings: ToldSettings<'orchestrator' | 'evaluator'>, shared: S): S & Pick<EvaluatorSettings, 'whatsApp' | 'agent' | 'deployedSystemPrompt' | 'pipelineBudget'> {
  const pipelineBudget = settings.setting('pipelineBudget', nullable(struct({ agentTokensPerDay: wholeNumber(), reply: text() })));
  return {
    ...shared,
    whatsApp: whatsAppOf(settings, settings.setting('whatsApp', WHATSAPP), 'whatsApp'),
    ...readAgent(settings.setting('agent', (value) => value), settings.environment, shared.deadlineFallbackText),
    ...(pipelineBudget !== null && { pipelineBudget }),
  };
}

export function readOperatorSettings(told: FunctionTold): OperatorSettings {
  const settings = new ToldSettings('operator', told);
  const access = settings.setting('operatorAccess', OPERATOR_ACCESS);
  const adminDisplayNames = settings.setting('adminDisplayNames', recordOf(text()));
  const media = mediaOf(settings);
  return {
    ...sharedSettingsOf(settings),
    whatsApp: whatsAppOf(settings, settings.setting('whatsApp', WHATSAPP), 'whatsApp'),
    turnQueueUrl: settings.variable(RUNTIME_ENV.turnQueueUrl),
    deadLetterQueueUrl: settings.variable(RUNTIME_ENV.deadLetterQueueUrl),
    operatorPlane: { ...access, ...(Object.keys(adminDisplayNames).length > 0 && { adminDisplayNames }) },
    evaluatorFunctionName: settings.variable(RUNTIME_ENV.evaluatorFunctionName),
    ...(media && { media }),
  };
}

export function readHandoffSweeperSettings(told: FunctionTold): HandoffSweeperSettings {
  const settings = new ToldSettings('handoff-sweeper', told);
  const operatorPlane = operatorPlaneOf(settings);
  if (operatorPlane === undefined) throw refusal('operatorAccess', 'is null, but the handoff sweeper exists only with the operator plane');
  return { ...sharedSettingsOf(settings), whatsApp: whatsAppOf(settings, settings.setting('whatsApp', WHATSAPP), 'whatsApp'), operatorPlane };
}

export function readIdleSweeperSettings(told: FunctionTold): IdleSweeperSettings {
  const settings = new ToldSettings('idle-sweeper', told);
  const reengagement = settings.setting('reengagement', nullable(struct({ template: TEMPLATE, afterMs: wholeNumber(), whatsApp: WHATSAPP })));
  const transcriptionJobsSweep = settings.setting('transcriptionJobsSweep', nullable(struct({ afterMs: wholeNumber() })));
  return {
    ...sharedSettingsOf(settings),
    idleSweep: settings.setting('idleSweep', struct({ idleTimeoutMs: wholeNumber() })),
    ...(transcriptionJobsSweep && { transcriptionJobsSweep }),
    ...(reengagement && { reengagement: { template: reengagement.template, afterMs: reengagement.afterMs, whatsApp: whatsAppOf(settings, reengagement.whatsApp, 'reengagement.whatsApp') } }),
  };
}

export function readCrmSyncSettings(told: FunctionTold): CrmSyncSettings {
  const settings = new ToldSettings('crm-sync', told);
  const { kind } = settings.setting('crmTarget', struct({ kind: oneOf(Object.values(CRM_TARGET_KINDS)) }));
  const crmTarget =
    kind === CRM_TARGET_KINDS.function
      ? { kind, functionName: settings.variable(RUNTIME_ENV.crmFunctionName) }
      : { kind, url: settings.variable(RUNTIME_ENV.crmWebhookUrl), secretArn: settings.variable(RUNTIME_ENV.crmWebhookSecretArn) };
  return { ...sharedSettingsOf(settings), crmTarget };
}

/** Each function's reader, by the function's name. */
export const SETTINGS_READERS = {
  'webhook': readWebhookSettings,
  'eum-inbound': readEndUserMessagingInboundSettings,
  'orchestrator': readOrchestratorSettings,
  'operator': readOperatorSettings,
  'handoff-sweeper': readHandoffSweeperSettings,
  'idle-sweeper': readIdleSweeperSettings,
  'crm-sync': readCrmSyncSettings,
  'evaluator': readEvaluatorSettings,
} as const satisfies Record<PipelineFunction, (told: FunctionTold) => SharedSettings>;

/** What every function reads, and every simple setting of the function (settings-document.ts declares which). */
function sharedSettingsOf<F extends PipelineFunction>(settings: ToldSettings<F>): SharedSettings & SimpleSettingsOf<F> {
  const simple = Object.fromEntries(simpleSettingNamesOf(settings.fn).map((name) => [name, settings.simple(name)]));
  return {
    tableName: settings.variable(RUNTIME_ENV.tableName),
    observability: { serviceName: settings.variable(RUNTIME_ENV.serviceName), metricsNamespace: settings.variable(RUNTIME_ENV.metricsNamespace) },
    ...(simple as SimpleSettingsOf<F> & Pick<SharedSettings, 'keyLayout' | 'locale'>),
    crmSyncEnabled: settings.setting('crmSyncEnabled', flag),
    retention: settings.setting('retention', struct({ conversationSeconds: wholeNumber(), demandSeconds: wholeNumber() })),
  };
}

/** One function's settings as told: its document holds exactly its settings (deployment-plan.ts), and each is checked as it is read. */
class ToldSettings<F extends PipelineFunction> {
  private readonly document: Readonly<Record<string, unknown>>;

  constructor(
    readonly fn: F,
    private readonly told: FunctionTold,
  ) {
    this.document = plainObject(told.document, `document of the ${fn} function`);
    const expected: readonly string[] = documentSettingsOf(fn);
    const missing = expected.find((name) => !Object.hasOwn(this.document, name));
    if (missing !== undefined) throw refusal(missing, `is missing from the ${fn} function's document`);
    const stranger = Object.keys(this.document).find((name) => !expected.includes(name));
    if (stranger !== undefined) throw refusal(stranger, `is not a setting of the ${fn} function`);
  }

  setting<T>(name: DocumentSettingOf<F>, check: Check<T>): T {
    return check(this.document[name], name);
  }

  /** A simple setting of this function, checked against its declaration (settings-document.ts). */
  simple(name: SimpleSettingName): unknown {
    return simpleSettingCheck(name)(this.document[name], name);
  }

  /** A variable the construct sets on this function. */
  variable(name: string): string {
    const value = this.optionalVariable(name);
    if (value === undefined) throw new RuntimeConfigError(`Environment variable ${name} is not set; the AgentPipeline construct sets it.`);
    return value;
  }

  optionalVariable(name: string): string | undefined {
    return this.told.environment[name]?.trim() || undefined;
  }

  get environment(): FunctionTold['environment'] {
    return this.told.environment;
  }
}

const DIGITS = textWhere((value) => /^\d+$/.test(value), 'digits');
const ACCOUNT_ID = textWhere((value) => /^\d{12}$/.test(value), 'an AWS account id');
const LINKED_NUMBERS = listOf(
  struct({
    metaPhoneNumberId: textWhere(isValidBusinessPhoneNumberId, "Meta's phone number id (digits)"),
    originationPhoneNumberId: textWhere(isOriginationPhoneNumberId, "End User Messaging's phone-number-id-…"),
  }),
  1,
);
const TEMPLATE: Check<TemplateRef> = struct({ name: textWhere(isTemplateName, 'a template name (lower_case)'), language: textWhere(isLanguageCode, 'a language code (pt_BR)') });
const WHATSAPP = (value: unknown, at: string) =>
  plainObject(value, at).kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging
    ? struct({ kind: oneOf([WHATSAPP_CHANNEL_KINDS.endUserMessaging]), phoneNumbers: LINKED_NUMBERS, metaApiVersion: text(), businessAccountId: nullable(text()) })(value, at)
    : struct({ kind: oneOf([WHATSAPP_CHANNEL_KINDS.cloudApi]), businessAccountId: nullable(text()) })(value, at);
const OPERATOR_ACCESS = struct({ adminPhoneNumbers: listOf(DIGITS, 1), timeZone: text() });
const HANDOFF_TEXTS = struct(Object.fromEntries(HANDOFF_TEXT_NAMES.map((name) => [name, text()])) as Record<(typeof HANDOFF_TEXT_NAMES)[number], Check<string>>);
// A delay of 0 is due at once (the local runtime's demos and tests); the construct sets a minute or more.
const HANDOFFS = struct({ texts: HANDOFF_TEXTS, renotifyOperatorsAfterMs: wholeNumber(0), remindCustomerAfterMs: wholeNumber(0), operatorNoticeTemplate: nullable(TEMPLATE) });
const MEDIA = struct({
  maxBytes: wholeNumber(),
  allowedMimeTypes: listOf(text(), 1),
  transcription: nullable(struct({ languageCode: text(), maxWaitMs: wholeNumber(), pollIntervalMs: wholeNumber() })),
});

/** Where replies go out; the Cloud API's secret and Graph API root are in the environment. */
function whatsAppOf(settings: ToldSettings<PipelineFunction>, channel: ReturnType<typeof WHATSAPP>, at: string): WhatsAppChannelConfig {
  const businessAccountId = channel.businessAccountId ?? undefined;
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return { kind: channel.kind, businessAccountId, whatsAppSecretArn: settings.variable(RUNTIME_ENV.whatsAppSecretArn), apiBaseUrl: settings.variable(RUNTIME_ENV.whatsAppApiBaseUrl) };
  }
  if (!('phoneNumbers' in channel)) throw refusal(at, 'has no phoneNumbers');
  return { kind: channel.kind, businessAccountId, phoneNumbers: new Map(channel.phoneNumbers.map((number) => [number.metaPhoneNumberId, number.originationPhoneNumberId])), metaApiVersion: channel.metaApiVersion };
}

/** The operator plane of the orchestrator and the sweeper: who may sign in, how handoffs reach them, and the console's URL; `undefined` when off. */
function operatorPlaneOf(settings: ToldSettings<'orchestrator' | 'handoff-sweeper'>): OperatorPlaneSettings | undefined {
  const access = settings.setting('operatorAccess', nullable(OPERATOR_ACCESS));
  const handoffs = settings.setting('handoffs', nullable(HANDOFFS));
  if (access === null && handoffs === null) return undefined;
  if (access === null || handoffs === null) throw refusal(access === null ? 'operatorAccess' : 'handoffs', 'is null while the rest of the operator plane is set');
  return {
    ...access,
    consoleUrl: settings.variable(RUNTIME_ENV.consoleUrl),
    texts: handoffs.texts,
    renotifyOperatorsAfterMs: handoffs.renotifyOperatorsAfterMs,
    remindCustomerAfterMs: handoffs.remindCustomerAfterMs,
    ...(handoffs.operatorNoticeTemplate !== null && { operatorNoticeTemplate: handoffs.operatorNoticeTemplate }),
  };
}

/** The media bucket and its limits; `undefined` with media off. */
function mediaOf(settings: ToldSettings<'orchestrator' | 'operator'>): MediaSettings | undefined {
  const media = settings.setting('media', nullable(MEDIA));
  if (media === null) return undefined;
  return {
    bucketName: settings.variable(RUNTIME_ENV.mediaBucketName),
    limits: { maxBytes: media.maxBytes, allowedMimeTypes: media.allowedMimeTypes },
    ...(media.transcription !== null && { transcription: media.transcription }),
  };
}

/** `WHATSAPP_PHONE_NUMBER_IDS`: comma-separated Meta phone number ids; unset means every number. */
function businessPhoneNumberIds(value: string | undefined): Pick<WebhookSettings, 'businessPhoneNumberIds'> {
  if (value === undefined) return {};
  const ids = value.split(',').map((id) => id.trim());
  const malformed = ids.filter((id) => !isValidBusinessPhoneNumberId(id));
  if (malformed.length > 0) {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.businessPhoneNumberIds} holds ${malformed.length} value(s) that are not Meta phone number ids (digits only).`);
  }
  return { businessPhoneNumberIds: ids };
}
