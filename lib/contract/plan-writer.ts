/**
 * The one writer of the deployment plan, and the one place its defaults are applied: from what a
 * deployment chose (deployment-options.ts) to what each of its functions is told. The construct
 * writes each function's share into its environment and its asset; the local runtime hands it to
 * the same readers a Lambda function goes through. CDK-free. Internal: not part of the jsii API.
 */
import { COST_GUARD_DEFAULTS, IDLE_SWEEP_DEFAULTS, MEDIA_DEFAULTS, OPERATOR_DEFAULTS, PIPELINE_DEFAULTS, RETENTION_DEFAULTS } from './defaults';
import { AGENT_STAGE_LIMITS } from './agent-stage-limits';
import { AGENT_TOOL_LIMITS } from './agent-tool-limits';
import { CONVERSATION_MEMORY_LIMITS } from './conversation-memory';
import { KNOWLEDGE_BASE_LIMITS } from './knowledge-base';
import type { AgentOptions, ChannelOptions, DeploymentOptions, SimpleSettingOptions, SingleAgentOptions } from './deployment-options';
import { type DeploymentPlan, documentSettingsOf, FUNCTION_VARIABLES, type FunctionSettings } from './deployment-plan';
import { AGENT_BACKEND_KINDS, CRM_TARGET_KINDS, RUNTIME_ENV, WHATSAPP_CHANNEL_KINDS } from './environment';
import { handoffTextsOf, localePreset } from './locale-presets';
import {
  type AgentDocument,
  type PipelineFunction,
  SIMPLE_SETTINGS,
  type SimpleSettingDeclaration,
  type SimpleSettingName,
  type SimpleSettingValue,
  type SettingsDocument,
  type SingleAgentDocument,
  type WhatsAppChannelSettings,
} from './settings-document';

const SECONDS_PER_DAY = 86_400;

/** What each function of the deployment is told. */
export function writeDeploymentPlan(options: DeploymentOptions): DeploymentPlan {
  const document = settingsOf(options);
  const environment = variablesOf(options);
  const told = <F extends PipelineFunction>(fn: F): FunctionSettings<F> => ({
    environment: variablesFor(fn, environment, options),
    document: Object.fromEntries(documentSettingsOf(fn).map((name) => [name, document[name]])) as FunctionSettings<F>['document'],
  });
  const inbound = options.channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi ? { webhook: told('webhook') } : { 'eum-inbound': told('eum-inbound') };
  return {
    ...inbound,
    'orchestrator': told('orchestrator'),
    ...(options.operatorPlane && { 'operator': told('operator'), 'handoff-sweeper': told('handoff-sweeper'), 'evaluator': told('evaluator') }),
    'idle-sweeper': told('idle-sweeper'),
    ...(options.crmSync && { 'crm-sync': told('crm-sync') }),
  };
}

/** A simple setting as the deployment chose it, else its default (a text's default is the locale's). */
export function simpleSettingOf<N extends SimpleSettingName>(options: SimpleSettingOptions, name: N): SimpleSettingValue<N> {
  const chosen = options[name];
  if (chosen !== undefined) return chosen as SimpleSettingValue<N>;
  const declaration: SimpleSettingDeclaration = SIMPLE_SETTINGS[name];
  if (declaration.kind !== 'text') return declaration.default as SimpleSettingValue<N>;
  return localePreset(options.locale ?? SIMPLE_SETTINGS.locale.default).texts[declaration.default] as SimpleSettingValue<N>;
}

/** Every setting of the deployment's documents, each function taking its own (deployment-plan.ts). */
function settingsOf(options: DeploymentOptions): Partial<SettingsDocument> {
  const { texts } = localePreset(simpleSettingOf(options, 'locale'));
  const simple = Object.fromEntries((Object.keys(SIMPLE_SETTINGS) as SimpleSettingName[]).map((name) => [name, simpleSettingOf(options, name)]));
  const { channel, operatorPlane: plane, media, reengagement } = options;
  const whatsApp = whatsAppOf(channel, plane?.businessAccountId);
  return {
    ...simple,
    crmSyncEnabled: options.crmSync !== undefined,
    retention: {
      conversationSeconds: options.retention?.conversationSeconds ?? RETENTION_DEFAULTS.conversationDays * SECONDS_PER_DAY,
      demandSeconds: options.retention?.demandSeconds ?? RETENTION_DEFAULTS.demandDays * SECONDS_PER_DAY,
    },
    applyTemplateStatusUpdates: plane?.businessAccountId !== undefined,
    ...(channel.kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging && { endUserMessagingInbound: { phoneNumbers: channel.phoneNumbers, wabaIds: channel.wabaIds ?? null } }),
    whatsApp,
    agent: agentDocumentOf(options.agent),
    customerBudget: {
      turnsPerMinute: options.customerBudget?.turnsPerMinute ?? COST_GUARD_DEFAULTS.turnsPerMinute,
      turnsPerHour: options.customerBudget?.turnsPerHour ?? COST_GUARD_DEFAULTS.turnsPerHour,
      agentTokensPerDay: options.customerBudget?.agentTokensPerDay ?? COST_GUARD_DEFAULTS.agentTokensPerDay,
      reply: options.customerBudget?.reply ?? texts.customerOverBudgetReply,
    },
    pipelineBudget: options.pipelineBudget ? { agentTokensPerDay: options.pipelineBudget.agentTokensPerDay, reply: options.pipelineBudget.reply ?? texts.pipelineOverBudgetReply } : null,
    operatorAccess: plane ? { adminPhoneNumbers: plane.adminPhoneNumbers, timeZone: plane.timeZone ?? OPERATOR_DEFAULTS.timeZone } : null,
    adminDisplayNames: plane?.adminDisplayNames ?? {},
    handoffs: plane
      ? {
          texts: { ...handoffTextsOf(texts), ...definedFields(plane.handoffTexts ?? {}) },
          renotifyOperatorsAfterMs: plane.renotifyOperatorsAfterMs ?? OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds * 1000,
          remindCustomerAfterMs: plane.remindCustomerAfterMs ?? OPERATOR_DEFAULTS.customerRenotifyAfterSeconds * 1000,
          operatorNoticeTemplate: plane.handoffNoticeTemplate ? { name: plane.handoffNoticeTemplate.name, language: plane.handoffNoticeTemplate.language } : null,
        }
      : null,
    media: media
      ? {
          maxBytes: media.maxBytes ?? MEDIA_DEFAULTS.maxBytes,
          allowedMimeTypes: media.allowedMimeTypes ?? [...MEDIA_DEFAULTS.allowedMimeTypes],
          transcription: media.transcription
            ? {
                languageCode: media.transcription.languageCode ?? localePreset(simpleSettingOf(options, 'locale')).transcriptionLanguageCode,
                maxWaitMs: media.transcription.maxWaitMs ?? MEDIA_DEFAULTS.transcriptionMaxWaitSeconds * 1000,
                pollIntervalMs: media.transcription.pollIntervalMs ?? MEDIA_DEFAULTS.transcriptionPollIntervalMs,
              }
            : null,
        }
      : null,
    idleSweep: { idleTimeoutMs: options.idleTimeoutMs ?? IDLE_SWEEP_DEFAULTS.idleTimeoutHours * 3_600_000 },
    transcriptionJobsSweep: media?.transcription ? { afterMs: media.transcription.sweepAfterMs ?? turnBudgetMs(options) } : null,
    reengagement: reengagement ? { template: { name: reengagement.template.name, language: reengagement.template.language }, afterMs: reengagement.afterMs, whatsApp } : null,
    ...(options.crmSync && { crmTarget: { kind: options.crmSync.kind } }),
  };
}

/** The longest a turn can be attempted for: the queue's receives × its visibility timeout. */
function turnBudgetMs(options: DeploymentOptions): number {
  return simpleSettingOf(options, 'maxReceiveCount') * (options.visibilityTimeoutSeconds ?? PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds) * 1000;
}

function whatsAppOf(channel: ChannelOptions, businessAccountId: string | undefined): WhatsAppChannelSettings {
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) return { kind: channel.kind, businessAccountId: businessAccountId ?? null };
  return { kind: channel.kind, phoneNumbers: channel.phoneNumbers, metaApiVersion: channel.metaApiVersion ?? PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion, businessAccountId: businessAccountId ?? null };
}

function agentDocumentOf(agent: AgentOptions): AgentDocument {
  if (agent.backend !== AGENT_BACKEND_KINDS.stages) return singleAgentDocumentOf(agent);
  return {
    backend: agent.backend,
    entry: agent.entry,
    maxHandoversPerTurn: agent.maxHandoversPerTurn ?? AGENT_STAGE_LIMITS.defaultMaxHandoversPerTurn,
    stages: Object.fromEntries(Object.entries(agent.stages).map(([name, stage]) => [name, singleAgentDocumentOf(stage)])),
  };
}

function singleAgentDocumentOf(agent: SingleAgentOptions): SingleAgentDocument {
  switch (agent.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return {
        backend: agent.backend,
        systemPrompt: agent.systemPrompt ?? null,
        inferenceConfig: agent.inferenceConfig ? definedFields(agent.inferenceConfig) : null,
        promptCaching: agent.promptCaching ?? null,
        guardrail: agent.guardrail !== undefined,
        knowledgeBase: agent.knowledgeBase
          ? { numberOfResults: agent.knowledgeBase.numberOfResults ?? KNOWLEDGE_BASE_LIMITS.defaultNumberOfResults, filter: agent.knowledgeBase.filter ?? null }
          : null,
        memory: agent.memory?.enabled === false ? null : { foldEveryTurns: agent.memory?.foldEveryTurns ?? CONVERSATION_MEMORY_LIMITS.defaultFoldEveryTurns, modelId: agent.memory?.modelId ?? null },
        ...(agent.tools !== undefined && agent.tools.length > 0 && { tools: agent.tools.map(({ functionName: _, timeoutMs, ...tool }) => ({ ...tool, timeoutMs: timeoutMs ?? AGENT_TOOL_LIMITS.defaultTimeoutMs })) }),
      };
    case AGENT_BACKEND_KINDS.lambda:
      return { backend: agent.backend, contractVersion: agent.contractVersion ?? 1 };
    case AGENT_BACKEND_KINDS.scripted:
      return { backend: agent.backend };
  }
}

/** Every variable of the deployment's functions; each function takes its own (deployment-plan.ts). */
function variablesOf(options: DeploymentOptions): Record<string, string | undefined> {
  const { resources, observability, channel, agent, crmSync } = options;
  return {
    [RUNTIME_ENV.tableName]: resources.tableName,
    [RUNTIME_ENV.turnQueueUrl]: resources.turnQueueUrl,
    [RUNTIME_ENV.deadLetterQueueUrl]: resources.deadLetterQueueUrl,
    [RUNTIME_ENV.serviceName]: observability.serviceName,
    [RUNTIME_ENV.metricsNamespace]: observability.metricsNamespace,
    [RUNTIME_ENV.logLevel]: observability.logLevel,
    // Powertools traces wherever Lambda does unless told otherwise.
    [RUNTIME_ENV.traceEnabled]: observability.tracing ? undefined : 'false',
    ...(channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi
      ? {
          [RUNTIME_ENV.whatsAppSecretArn]: channel.whatsAppSecretArn,
          [RUNTIME_ENV.whatsAppApiBaseUrl]: channel.apiBaseUrl ?? PIPELINE_DEFAULTS.whatsAppApiBaseUrl,
          [RUNTIME_ENV.businessPhoneNumberIds]: channel.phoneNumberIds?.join(','),
        }
      : { [RUNTIME_ENV.endUserMessagingEventTopicArn]: channel.eventTopicArn, [RUNTIME_ENV.endUserMessagingAccountId]: channel.accountId }),
    ...(agent.backend === AGENT_BACKEND_KINDS.stages
      ? // Names and ARNs hold no character JSON escapes, so a token's marker survives the JSON unchanged.
        { [RUNTIME_ENV.agentStageVariables]: JSON.stringify(Object.fromEntries(Object.entries(agent.stages).map(([name, stage]) => [name, singleAgentVariablesOf(stage)]))) }
      : singleAgentVariablesOf(agent)),
    [RUNTIME_ENV.mediaBucketName]: options.media?.bucketName,
    [RUNTIME_ENV.consoleUrl]: options.operatorPlane?.consoleUrl,
    [RUNTIME_ENV.evaluatorFunctionName]: options.operatorPlane?.evaluatorFunctionName,
    ...(crmSync?.kind === CRM_TARGET_KINDS.function && { [RUNTIME_ENV.crmFunctionName]: crmSync.functionName }),
    ...(crmSync?.kind === CRM_TARGET_KINDS.webhook && { [RUNTIME_ENV.crmWebhookUrl]: crmSync.url, [RUNTIME_ENV.crmWebhookSecretArn]: crmSync.secretArn }),
  };
}

/** What of an agent CloudFormation resolves: the model and guardrail it is granted, or its function. */
function singleAgentVariablesOf(agent: SingleAgentOptions): Record<string, string> {
  switch (agent.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return {
        [RUNTIME_ENV.bedrockModelId]: agent.modelId,
        ...(agent.guardrail && { [RUNTIME_ENV.bedrockGuardrailId]: agent.guardrail.identifier, [RUNTIME_ENV.bedrockGuardrailVersion]: agent.guardrail.version }),
        ...(agent.knowledgeBase && { [RUNTIME_ENV.bedrockKnowledgeBaseId]: agent.knowledgeBase.knowledgeBaseId }),
        // Tool names and function names hold neither `=` nor `,`.
        ...(agent.tools !== undefined && agent.tools.length > 0 && { [RUNTIME_ENV.agentToolFunctions]: agent.tools.map((tool) => `${tool.name}=${tool.functionName}`).join(',') }),
      };
    case AGENT_BACKEND_KINDS.lambda:
      return { [RUNTIME_ENV.agentFunctionName]: agent.functionName };
    case AGENT_BACKEND_KINDS.scripted:
      return {};
  }
}

/** The function's variables that are set; the idle sweeper sends, and so reads the channel's, only with the re-engagement. */
function variablesFor(fn: PipelineFunction, variables: Record<string, string | undefined>, options: DeploymentOptions): Record<string, string> {
  const sends = fn !== 'idle-sweeper' || options.reengagement !== undefined;
  const senderOnly: readonly string[] = [RUNTIME_ENV.whatsAppSecretArn, RUNTIME_ENV.whatsAppApiBaseUrl];
  const told = FUNCTION_VARIABLES[fn].filter((name) => sends || !senderOnly.includes(name));
  return Object.fromEntries(told.flatMap((name) => (variables[name] === undefined ? [] : [[name, variables[name]]])));
}

/** A struct without its undefined fields (jsii passes absent fields as undefined). */
export function definedFields<T extends object>(struct: T): Partial<T> {
  return Object.fromEntries(Object.entries(struct).filter(([, value]) => value !== undefined)) as Partial<T>;
}
