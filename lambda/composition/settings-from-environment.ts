import {
  AGENT_BACKEND_KINDS,
  AGENT_STAGE_LIMITS,
  CRM_TARGET_KINDS,
  handoffTextsOf,
  type Locale,
  localePreset,
  MEDIA_DEFAULTS,
  OPERATOR_DEFAULTS,
  OPERATOR_ENV,
  parseAdminPhoneNumbers,
  parseLocale,
  PIPELINE_DEFAULTS,
  RUNTIME_ENV,
  WHATSAPP_CHANNEL_KINDS,
} from '../../lib/contract';
import type { AgentSettings, AgentStageSettings, AgentStagesSettings, BedrockAgentSettings, BedrockInferenceSettings, SingleAgentSettings } from '../core/adapters/agent/agent-backend';
import { LAMBDA_AGENT_MEDIA_CONTRACT_VERSION } from '../core/adapters/agent/agent-function-contract';
import type { KeyLayout } from '../../lib/contract/key-layout';
import { parseKeyLayout } from '../core/adapters/dynamodb/key-layout';
import type { ObservabilityConfig } from '../core/adapters/observability/powertools';
import { isOriginationPhoneNumberId } from '../core/adapters/whatsapp/end-user-messaging-sender';
import type { WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import type { CustomerBudgetSettings } from '../core/application/customer-budget-gate';
import type { PipelineBudgetSettings } from '../core/application/pipeline-token-budget';
import { isValidBusinessPhoneNumberId } from '../core/domain/inbound-admission';
import { handoffTextsFrom } from '../core/domain/operational-settings';
import { PipelineError } from '../core/domain/errors';
import { isLanguageCode, isTemplateName, type TemplateRef } from '../core/domain/whatsapp-template';
import {
  type CrmSyncSettings,
  type CrmTargetConfig,
  DEPLOYMENT_DEFAULTS,
  type EndUserMessagingInboundSettings,
  type HandoffSweeperSettings,
  type IdleSweeperSettings,
  type MediaSettings,
  type OperatorAccessSettings,
  type OperatorPlaneSettings,
  type OperatorSettings,
  type OrchestratorSettings,
  type SharedSettings,
  type TranscriptionSettings,
  type WebhookSettings,
} from './deployment-settings';

// The one reader of `process.env`. Each function reads the variables the construct sets for it,
// once, on its first invocation, and gets its part of the deployment's settings. A variable that is
// missing or holds a value the construct never writes stops the cold start with an error naming
// it, instead of failing on the first customer message.

type Environment = NodeJS.ProcessEnv;

/** A function's environment is missing a variable or holds an unusable value; thrown at cold start. */
export class RuntimeConfigError extends PipelineError {
  override readonly name: string = 'RuntimeConfigError';
  override readonly code: string = 'invalid_runtime_config';
  override readonly retryable = false;
}

/** The environment does not describe a usable agent backend. */
export class AgentConfigurationError extends RuntimeConfigError {
  override readonly name: string = 'AgentConfigurationError';
  override readonly code: string = 'invalid_agent_configuration';
}

export function readWebhookSettings(env: Environment = process.env): WebhookSettings {
  return {
    ...sharedSettings(env),
    turnQueueUrl: required(env, RUNTIME_ENV.turnQueueUrl),
    whatsAppSecretArn: required(env, RUNTIME_ENV.whatsAppSecretArn),
    businessPhoneNumberIds: businessPhoneNumberIds(env),
    ...syncsTemplates(env),
  };
}

export function readEndUserMessagingInboundSettings(env: Environment = process.env): EndUserMessagingInboundSettings {
  const phoneNumbers = endUserMessagingPhoneNumbers(env);
  return {
    ...sharedSettings(env),
    turnQueueUrl: required(env, RUNTIME_ENV.turnQueueUrl),
    businessPhoneNumberIds: [...phoneNumbers.keys()],
    ...syncsTemplates(env),
    eventSource: { topicArn: required(env, RUNTIME_ENV.endUserMessagingEventTopicArn), accountId: accountId(env), phoneNumbers, wabaIds: wabaIds(env) },
  };
}

export function readOrchestratorSettings(env: Environment = process.env): OrchestratorSettings {
  return {
    ...sharedSettings(env),
    whatsApp: whatsAppChannel(env),
    agent: agentSettingsFromEnvironment(env),
    maxReceiveCount: positiveWholeNumber(env, RUNTIME_ENV.maxReceiveCount) ?? DEPLOYMENT_DEFAULTS.maxReceiveCount,
    deployedSystemPrompt: optionalText(env, RUNTIME_ENV.deployedSystemPrompt),
    fallbackText: optionalText(env, RUNTIME_ENV.fallbackText),
    unsupportedMessageText: optionalText(env, RUNTIME_ENV.unsupportedMessageText),
    customerBudget: customerBudget(env),
    pipelineBudget: pipelineBudget(env),
    historyMaxCharacters: positiveWholeNumber(env, RUNTIME_ENV.agentHistoryMaxCharacters) ?? DEPLOYMENT_DEFAULTS.historyMaxCharacters,
    operatorPlane: operatorPlane(env),
    media: mediaSettings(env),
  };
}

/** The media bucket the construct names with `media` on; unset, there is none. */
function mediaSettings(env: Environment): MediaSettings | undefined {
  const bucketName = optionalText(env, RUNTIME_ENV.mediaBucketName);
  if (bucketName === undefined) return undefined;
  const allowed = optionalText(env, RUNTIME_ENV.mediaAllowedMimeTypes)?.split(',').map((type) => type.trim()).filter((type) => type !== '');
  return {
    bucketName,
    limits: { maxBytes: positiveWholeNumber(env, RUNTIME_ENV.mediaMaxBytes) ?? MEDIA_DEFAULTS.maxBytes, allowedMimeTypes: allowed ?? [...MEDIA_DEFAULTS.allowedMimeTypes] },
    transcription: transcriptionSettings(env),
  };
}

/** The transcription the construct turns on with `media.transcription`; unset, voice notes are not transcribed. */
function transcriptionSettings(env: Environment): TranscriptionSettings | undefined {
  const languageCode = optionalText(env, RUNTIME_ENV.mediaTranscriptionLanguageCode);
  if (languageCode === undefined) return undefined;
  const maxWaitSeconds = positiveWholeNumber(env, RUNTIME_ENV.mediaTranscriptionMaxWaitSeconds) ?? MEDIA_DEFAULTS.transcriptionMaxWaitSeconds;
  return { languageCode, maxWaitMs: maxWaitSeconds * 1000, pollIntervalMs: MEDIA_DEFAULTS.transcriptionPollIntervalMs };
}

export function readOperatorSettings(env: Environment = process.env): OperatorSettings {
  const adminPhoneNumbers = parseAdminPhoneNumbers(required(env, OPERATOR_ENV.adminPhoneNumbers));
  if (adminPhoneNumbers.length === 0) throw new RuntimeConfigError(`${OPERATOR_ENV.adminPhoneNumbers} names no admin phone`);
  return {
    ...sharedSettings(env),
    whatsApp: whatsAppChannel(env),
    turnQueueUrl: required(env, RUNTIME_ENV.turnQueueUrl),
    deadLetterQueueUrl: required(env, OPERATOR_ENV.deadLetterQueueUrl),
    operatorPlane: operatorAccess(env, adminPhoneNumbers),
    media: mediaSettings(env),
  };
}

export function readHandoffSweeperSettings(env: Environment = process.env): HandoffSweeperSettings {
  const plane = operatorPlane(env);
  if (plane === undefined) throw new RuntimeConfigError(`${OPERATOR_ENV.adminPhoneNumbers} and ${OPERATOR_ENV.consoleUrl} must be set; the AgentPipeline construct sets them with adminPhoneNumbers.`);
  return { ...sharedSettings(env), whatsApp: whatsAppChannel(env), operatorPlane: plane };
}

export function readCrmSyncSettings(env: Environment = process.env): CrmSyncSettings {
  return { ...sharedSettings(env), crmTarget: crmTarget(env) };
}

export function readIdleSweeperSettings(env: Environment = process.env): IdleSweeperSettings {
  const idleTimeoutSeconds = positiveWholeNumber(env, RUNTIME_ENV.conversationIdleTimeoutSeconds);
  const reengagement = reengagementOf(env);
  const sweepJobsAfterSeconds = positiveWholeNumber(env, RUNTIME_ENV.transcriptionJobsSweepAfterSeconds);
  return {
    ...sharedSettings(env),
    idleSweep: idleTimeoutSeconds === undefined ? DEPLOYMENT_DEFAULTS.idleSweep : { idleTimeoutMs: idleTimeoutSeconds * 1000 },
    ...(sweepJobsAfterSeconds === undefined ? {} : { transcriptionJobsSweep: { afterMs: sweepJobsAfterSeconds * 1000 } }),
    ...(reengagement ? { reengagement } : {}),
  };
}

/** The re-engagement, on when the construct names its template. */
function reengagementOf(env: Environment): IdleSweeperSettings['reengagement'] {
  const template = templateRef(env, RUNTIME_ENV.reengagementTemplate);
  if (template === undefined) return undefined;
  const afterSeconds = positiveWholeNumber(env, RUNTIME_ENV.reengagementAfterSeconds);
  if (afterSeconds === undefined) throw new RuntimeConfigError(`${RUNTIME_ENV.reengagementAfterSeconds} must be set with ${RUNTIME_ENV.reengagementTemplate}`);
  return { template, afterMs: afterSeconds * 1000, whatsApp: whatsAppChannel(env) };
}

/** Powertools' service name and metrics namespace; unset in local runs, which use the defaults. */
export function observabilityFromEnvironment(env: Environment): ObservabilityConfig {
  return { serviceName: env[RUNTIME_ENV.serviceName] || undefined, metricsNamespace: env[RUNTIME_ENV.metricsNamespace] || undefined };
}

/**
 * The write-shard migration phase the construct set (`keyLayout`); `seed` when unset (local runs,
 * deployments that never chose). An unknown value stops the cold start instead of writing a layout
 * no reader expects.
 */
export function keyLayoutFromEnvironment(env: Environment): KeyLayout {
  const value = env[RUNTIME_ENV.keyLayout]?.trim();
  if (!value) return DEPLOYMENT_DEFAULTS.keyLayout;
  try {
    return parseKeyLayout(value);
  } catch (error) {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.keyLayout}: ${(error as Error).message}. The AgentPipeline construct sets it from the keyLayout prop.`);
  }
}

/** The pipeline's locale (`locale`); the default one when unset. An unknown value stops the cold start instead of speaking a language nobody chose. */
export function localeFromEnvironment(env: Environment): Locale {
  const value = env[RUNTIME_ENV.locale]?.trim();
  if (!value) return DEPLOYMENT_DEFAULTS.locale;
  const locale = parseLocale(value);
  if (locale === undefined) throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.locale}="${value}" is not a locale the AgentPipeline construct sets (its locale prop).`);
  return locale;
}

/**
 * The agent settings in the environment the construct sets: `AGENT_BACKEND` picks the adapter,
 * `BEDROCK_MODEL_ID` or `AGENT_FUNCTION_NAME` configures it; `stages` reads each stage's own
 * variables from `AGENT_STAGES`.
 */
export function agentSettingsFromEnvironment(env: Environment): AgentSettings {
  return env[RUNTIME_ENV.agentBackend] === AGENT_BACKEND_KINDS.stages ? agentStagesFromEnvironment(env) : singleAgentFromEnvironment(env);
}

/** `orchestrator`: where the deadline fallback is set, the same for every stage. */
function singleAgentFromEnvironment(env: Environment, orchestrator: Environment = env): SingleAgentSettings {
  const backend = env[RUNTIME_ENV.agentBackend];
  const fallbackReply = optionalText(orchestrator, RUNTIME_ENV.deadlineFallbackText);
  const replacing = fallbackReply === undefined ? {} : { fallbackReply };
  switch (backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return { backend, modelId: requiredForAgent(env, RUNTIME_ENV.bedrockModelId, backend), ...bedrockExtras(env), ...replacing };
    case AGENT_BACKEND_KINDS.lambda:
      return { backend, functionName: requiredForAgent(env, RUNTIME_ENV.agentFunctionName, backend), ...agentFunctionContract(env), ...replacing };
    case AGENT_BACKEND_KINDS.scripted:
      return { backend };
    default: {
      const backends = Object.values(AGENT_BACKEND_KINDS).filter((kind) => kind !== AGENT_BACKEND_KINDS.stages).join(', ');
      throw new AgentConfigurationError(
        backend ? `${RUNTIME_ENV.agentBackend}="${backend}" is not an agent backend; use one of ${backends}` : `${RUNTIME_ENV.agentBackend} is not set; use one of ${backends}`,
      );
    }
  }
}

/** `AGENT_FUNCTION_CONTRACT_VERSION`: `2` opts the function in to attachments; a value the construct would never write fails the cold start. */
function agentFunctionContract(env: Environment): { readonly readsMedia?: true } {
  const value = env[RUNTIME_ENV.agentFunctionContractVersion]?.trim();
  if (!value) return {};
  if (value === LAMBDA_AGENT_MEDIA_CONTRACT_VERSION) return { readsMedia: true };
  throw new AgentConfigurationError(`${RUNTIME_ENV.agentFunctionContractVersion}="${value}" is not a contract version the AgentPipeline construct sets; it sets ${LAMBDA_AGENT_MEDIA_CONTRACT_VERSION} or nothing`);
}

/** `AGENT_STAGES`: a value the construct would never write (nested stages, a bad name, a missing entry) fails the cold start. */
function agentStagesFromEnvironment(env: Environment): AgentStagesSettings {
  const refuse = (problem: string) => new AgentConfigurationError(`${RUNTIME_ENV.agentStages} ${problem}`);
  const { entry, maxHandoversPerTurn, agents, ...unknown } = jsonObject(env, RUNTIME_ENV.agentStages, refuse) ?? {};
  if (Object.keys(unknown).length > 0) throw refuse(`has an unknown field "${Object.keys(unknown)[0]}"`);
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) throw refuse('needs an object "agents" of stage name to the stage\'s variables');
  const names = Object.keys(agents);
  if (names.length === 0 || names.length > AGENT_STAGE_LIMITS.maxStages) throw refuse(`needs 1 to ${AGENT_STAGE_LIMITS.maxStages} agents; got ${names.length}`);
  const badName = names.find((name) => !AGENT_STAGE_LIMITS.namePattern.test(name));
  if (badName !== undefined) throw refuse(`has a stage named "${badName}"; names match ${AGENT_STAGE_LIMITS.namePattern.source}`);
  if (typeof entry !== 'string' || !names.includes(entry)) throw refuse(`needs an "entry" naming one of its agents (${names.join(', ')})`);
  const hops = maxHandoversPerTurn ?? AGENT_STAGE_LIMITS.defaultMaxHandoversPerTurn;
  if (!Number.isInteger(hops) || (hops as number) < 0 || (hops as number) > AGENT_STAGE_LIMITS.maxHandoversPerTurn) {
    throw refuse(`has maxHandoversPerTurn ${String(hops)}; use a whole number from 0 to ${AGENT_STAGE_LIMITS.maxHandoversPerTurn}`);
  }
  const stages: Record<string, AgentStageSettings> = {};
  for (const [name, variables] of Object.entries(agents as Record<string, unknown>)) {
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables) || Object.values(variables).some((value) => typeof value !== 'string')) {
      throw refuse(`has agent "${name}" that is not an object of variable name to text`);
    }
    const stageEnv = variables as Environment;
    if (stageEnv[RUNTIME_ENV.agentBackend] === AGENT_BACKEND_KINDS.stages) throw refuse(`has agent "${name}" that is itself a set of stages`);
    const deployedSystemPrompt = stageEnv[RUNTIME_ENV.deployedSystemPrompt]?.trim();
    stages[name] = { agent: singleAgentFromEnvironment(stageEnv, env), ...(deployedSystemPrompt ? { deployedSystemPrompt } : {}) };
  }
  return { backend: AGENT_BACKEND_KINDS.stages, entry, maxHandoversPerTurn: hops as number, stages };
}

function sharedSettings(env: Environment): SharedSettings {
  return {
    tableName: required(env, RUNTIME_ENV.tableName),
    observability: observabilityFromEnvironment(env),
    keyLayout: keyLayoutFromEnvironment(env),
    locale: localeFromEnvironment(env),
    // `true` on every function that writes sessions when `crmSync` is set.
    crmSyncEnabled: env[RUNTIME_ENV.crmSyncEnabled] === 'true',
    retention: {
      conversationSeconds: positiveWholeNumber(env, RUNTIME_ENV.conversationRetentionSeconds) ?? DEPLOYMENT_DEFAULTS.retention.conversationSeconds,
      demandSeconds: positiveWholeNumber(env, RUNTIME_ENV.demandRetentionSeconds) ?? DEPLOYMENT_DEFAULTS.retention.demandSeconds,
    },
  };
}

/** A text the construct sets only when its prop replaces the default; blank counts as unset. */
function optionalText(env: Environment, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

/** A variable the construct always sets; its absence means the function was deployed by hand. */
function required(env: Environment, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new RuntimeConfigError(`Environment variable ${name} is not set; the AgentPipeline construct sets it.`);
  return value;
}

function positiveWholeNumber(env: Environment, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new RuntimeConfigError(`Environment variable ${name}="${raw}" is not a positive whole number.`);
  return value;
}

/** A JSON object the construct wrote; `undefined` when the variable is unset. */
function jsonObject(env: Environment, name: string, refuse = (problem: string): Error => new RuntimeConfigError(`Environment variable ${name} ${problem}.`)): Record<string, unknown> | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw refuse('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** A comma-separated list of Meta phone number ids; unset or empty means "every number". */
function businessPhoneNumberIds(env: Environment): readonly string[] | undefined {
  const value = env[RUNTIME_ENV.businessPhoneNumberIds]?.trim();
  if (!value) return undefined;
  const ids = value.split(',').map((id) => id.trim());
  const malformed = ids.filter((id) => !isValidBusinessPhoneNumberId(id));
  if (malformed.length > 0) {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.businessPhoneNumberIds} holds ${malformed.length} value(s) that are not Meta phone number ids (digits only).`);
  }
  return ids;
}

/** The channel the construct configured; without `WHATSAPP_CHANNEL`, the Cloud API (as before channels existed). */
/** The construct names the business account to the functions that sync templates or keep them current. */
function syncsTemplates(env: Environment): Pick<WebhookSettings, 'applyTemplateStatusUpdates'> {
  return env[RUNTIME_ENV.whatsAppBusinessAccountId]?.trim() ? { applyTemplateStatusUpdates: true } : {};
}

function whatsAppChannel(env: Environment): WhatsAppChannelConfig {
  const kind = env[RUNTIME_ENV.whatsAppChannel]?.trim() || WHATSAPP_CHANNEL_KINDS.cloudApi;
  const businessAccountId = env[RUNTIME_ENV.whatsAppBusinessAccountId]?.trim() || undefined;
  if (kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return {
      kind,
      businessAccountId,
      whatsAppSecretArn: required(env, RUNTIME_ENV.whatsAppSecretArn),
      apiBaseUrl: env[RUNTIME_ENV.whatsAppApiBaseUrl]?.trim() || PIPELINE_DEFAULTS.whatsAppApiBaseUrl,
    };
  }
  if (kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging) {
    return {
      kind,
      businessAccountId,
      phoneNumbers: endUserMessagingPhoneNumbers(env),
      metaApiVersion: env[RUNTIME_ENV.endUserMessagingMetaApiVersion]?.trim() || PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
    };
  }
  throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.whatsAppChannel}="${kind}" is not one of ${Object.values(WHATSAPP_CHANNEL_KINDS).join(', ')}.`);
}

/** `metaPhoneNumberId=phone-number-id-…` pairs, comma-separated, as the construct writes them. */
function endUserMessagingPhoneNumbers(env: Environment): ReadonlyMap<string, string> {
  const phoneNumbers = new Map<string, string>();
  for (const pair of required(env, RUNTIME_ENV.endUserMessagingPhoneNumbers).split(',')) {
    const [metaPhoneNumberId, originationPhoneNumberId, ...rest] = pair.split('=').map((part) => part.trim());
    if (rest.length > 0 || !isValidBusinessPhoneNumberId(metaPhoneNumberId ?? '') || !isOriginationPhoneNumberId(originationPhoneNumberId ?? '')) {
      throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.endUserMessagingPhoneNumbers} holds "${pair}", not metaPhoneNumberId=phone-number-id-….`);
    }
    phoneNumbers.set(metaPhoneNumberId, originationPhoneNumberId);
  }
  return phoneNumbers;
}

/** The deployment's account, twelve digits. */
function accountId(env: Environment): string {
  const value = required(env, RUNTIME_ENV.endUserMessagingAccountId);
  if (!/^\d{12}$/.test(value)) throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.endUserMessagingAccountId}="${value}" is not an AWS account id.`);
  return value;
}

/** Meta's WABA ids, comma-separated; unset: any WABA of the account. */
function wabaIds(env: Environment): ReadonlySet<string> | undefined {
  const value = env[RUNTIME_ENV.endUserMessagingWabaIds]?.trim();
  if (!value) return undefined;
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => !/^\d+$/.test(id))) throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.endUserMessagingWabaIds} holds values that are not Meta WABA ids (digits only).`);
  return new Set(ids);
}

function operatorAccess(env: Environment, adminPhoneNumbers: readonly string[]): OperatorAccessSettings {
  const adminDisplayNames = adminDisplayNamesOf(env);
  return { adminPhoneNumbers, timeZone: env[OPERATOR_ENV.timeZone]?.trim() || OPERATOR_DEFAULTS.timeZone, ...(adminDisplayNames && { adminDisplayNames }) };
}

/** The deploy-time admins' names by phone, as the construct checked them (a name must be text). */
function adminDisplayNamesOf(env: Environment): Record<string, string> | undefined {
  const names = jsonObject(env, OPERATOR_ENV.adminDisplayNames);
  if (names === undefined) return undefined;
  if (!Object.values(names).every((name) => typeof name === 'string')) throw new RuntimeConfigError(`Environment variable ${OPERATOR_ENV.adminDisplayNames} must map each admin phone to a name (text).`);
  return names as Record<string, string>;
}

/** `undefined` when the plane is off (no admins or no console URL in the environment). */
function operatorPlane(env: Environment): OperatorPlaneSettings | undefined {
  const adminPhoneNumbers = parseAdminPhoneNumbers(env[OPERATOR_ENV.adminPhoneNumbers]);
  const consoleUrl = env[OPERATOR_ENV.consoleUrl];
  if (adminPhoneNumbers.length === 0 || !consoleUrl) return undefined;
  const seconds = (name: string, fallback: number) => positiveWholeNumber(env, name) ?? fallback;
  return {
    ...operatorAccess(env, adminPhoneNumbers),
    consoleUrl,
    texts: handoffTextsFrom(jsonObject(env, OPERATOR_ENV.handoffTexts), handoffTextsOf(localePreset(localeFromEnvironment(env)).texts)),
    renotifyOperatorsAfterMs: seconds(OPERATOR_ENV.handoffRenotifyAfterSeconds, OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds) * 1000,
    remindCustomerAfterMs: seconds(OPERATOR_ENV.customerRenotifyAfterSeconds, OPERATOR_DEFAULTS.customerRenotifyAfterSeconds) * 1000,
    operatorNoticeTemplate: templateRef(env, OPERATOR_ENV.handoffNoticeTemplate),
  };
}

/** A template named by the construct: JSON `{name, language}`. */
function templateRef(env: Environment, name: string): TemplateRef | undefined {
  const fields = jsonObject(env, name);
  if (fields === undefined) return undefined;
  if (!isTemplateName(fields.name) || !isLanguageCode(fields.language)) {
    throw new RuntimeConfigError(`Environment variable ${name} must name a template: {"name": "lower_case_name", "language": "pt_BR"}.`);
  }
  return { name: fields.name, language: fields.language };
}

/** The budget JSON the construct writes; any field it leaves out keeps its default. */
function customerBudget(env: Environment): CustomerBudgetSettings {
  const fields = budgetFields(env, RUNTIME_ENV.customerBudget, ['turnsPerMinute', 'turnsPerHour', 'agentTokensPerDay']);
  return { ...DEPLOYMENT_DEFAULTS.customerBudget, reply: localePreset(localeFromEnvironment(env)).texts.customerOverBudgetReply, ...(fields as Partial<CustomerBudgetSettings> | undefined) };
}

/** The pipeline-wide budget JSON the construct writes with `pipelineBudget`; unset, there is none. */
function pipelineBudget(env: Environment): PipelineBudgetSettings | undefined {
  const fields = budgetFields(env, RUNTIME_ENV.pipelineBudget, ['agentTokensPerDay']);
  if (fields === undefined) return undefined;
  if (fields.agentTokensPerDay === undefined) throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.pipelineBudget} has no field agentTokensPerDay.`);
  return { reply: localePreset(localeFromEnvironment(env)).texts.pipelineOverBudgetReply, ...(fields as Pick<PipelineBudgetSettings, 'agentTokensPerDay'>) };
}

/** A budget's JSON: its `limits` as positive whole numbers and an optional non-empty `reply`, nothing else. */
function budgetFields(env: Environment, name: string, limits: readonly string[]): Record<string, unknown> | undefined {
  const refuse = (problem: string) => new RuntimeConfigError(`Environment variable ${name} ${problem}.`);
  const fields = jsonObject(env, name, refuse);
  if (fields === undefined) return undefined;
  for (const key of Object.keys(fields)) if (![...limits, 'reply'].includes(key)) throw refuse(`has an unknown field "${key}"`);
  for (const key of limits) {
    const value = fields[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) throw refuse(`field ${key} is not a positive whole number`);
  }
  if (fields.reply !== undefined && (typeof fields.reply !== 'string' || fields.reply.trim() === '')) throw refuse('field reply is not a non-empty text');
  return fields;
}

function crmTarget(env: Environment): CrmTargetConfig {
  const kind = required(env, RUNTIME_ENV.crmTarget);
  if (kind === CRM_TARGET_KINDS.function) return { kind, functionName: required(env, RUNTIME_ENV.crmFunctionName) };
  if (kind === CRM_TARGET_KINDS.webhook) return { kind, url: required(env, RUNTIME_ENV.crmWebhookUrl), secretArn: required(env, RUNTIME_ENV.crmWebhookSecretArn) };
  throw new RuntimeConfigError(`${RUNTIME_ENV.crmTarget} must be '${CRM_TARGET_KINDS.function}' or '${CRM_TARGET_KINDS.webhook}'; the AgentPipeline construct sets it from crmSync.`);
}

function requiredForAgent(env: Environment, name: string, backend: SingleAgentSettings['backend']): string {
  const value = env[name]?.trim();
  if (!value) throw new AgentConfigurationError(`${name} is required when ${RUNTIME_ENV.agentBackend}=${backend}`);
  return value;
}

const INFERENCE_FIELDS: Record<keyof BedrockInferenceSettings, (value: unknown) => boolean> = {
  maxTokens: (value) => Number.isInteger(value) && (value as number) >= 1,
  temperature: (value) => typeof value === 'number' && value >= 0 && value <= 1,
  topP: (value) => typeof value === 'number' && value >= 0 && value <= 1,
  stopSequences: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== ''),
};

/** Inference settings, guardrail and prompt caching; a value the construct would never write fails the cold start. */
function bedrockExtras(env: Environment): Pick<BedrockAgentSettings, 'inferenceConfig' | 'guardrail' | 'promptCaching'> {
  const guardrailId = env[RUNTIME_ENV.bedrockGuardrailId]?.trim();
  const guardrailVersion = env[RUNTIME_ENV.bedrockGuardrailVersion]?.trim();
  if (Boolean(guardrailId) !== Boolean(guardrailVersion)) {
    throw new AgentConfigurationError(`${RUNTIME_ENV.bedrockGuardrailId} and ${RUNTIME_ENV.bedrockGuardrailVersion} must be set together`);
  }
  const inferenceConfig = jsonObject(env, RUNTIME_ENV.bedrockInferenceConfig, (problem) => new AgentConfigurationError(`${RUNTIME_ENV.bedrockInferenceConfig} ${problem}`));
  for (const [field, value] of Object.entries(inferenceConfig ?? {})) {
    const isValid = Object.hasOwn(INFERENCE_FIELDS, field) ? INFERENCE_FIELDS[field as keyof BedrockInferenceSettings] : undefined;
    if (!isValid) throw new AgentConfigurationError(`${RUNTIME_ENV.bedrockInferenceConfig} has an unknown field "${field}"`);
    if (!isValid(value)) throw new AgentConfigurationError(`${RUNTIME_ENV.bedrockInferenceConfig} has an invalid ${field}`);
  }
  const promptCaching = env[RUNTIME_ENV.bedrockPromptCaching]?.trim();
  if (promptCaching && promptCaching !== 'true' && promptCaching !== 'false') throw new AgentConfigurationError(`${RUNTIME_ENV.bedrockPromptCaching} must be true or false`);
  return {
    ...(inferenceConfig ? { inferenceConfig: inferenceConfig as BedrockInferenceSettings } : {}),
    ...(guardrailId && guardrailVersion ? { guardrail: { identifier: guardrailId, version: guardrailVersion } } : {}),
    ...(promptCaching ? { promptCaching: promptCaching === 'true' } : {}),
  };
}
