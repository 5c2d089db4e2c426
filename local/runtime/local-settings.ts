import { AGENT_BACKEND_KINDS, CRM_TARGET_KINDS, handoffTextsOf, localePreset, MEDIA_DEFAULTS, OPERATOR_DEFAULTS, PIPELINE_DEFAULTS, RUNTIME_ENV, WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import { KeyLayout } from '../../lib/contract/key-layout';
import type { Locale } from '../../lib/contract/locale';
import { DEPLOYMENT_DEFAULTS, type DeploymentSettings, type OperatorAccessSettings, type OperatorPlaneSettings, type TranscriptionSettings } from '../../lambda/composition/deployment-settings';
import { agentSettingsFromEnvironment, keyLayoutFromEnvironment, localeFromEnvironment } from '../../lambda/composition/settings-from-environment';
import type { AgentSettings } from '../../lambda/core/adapters/agent/agent-backend';
import type { WhatsAppChannelConfig } from '../../lambda/core/adapters/whatsapp/whatsapp-channel';
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../fake-whatsapp/fake-end-user-messaging';
import { LOCAL_ORIGINATION_PHONE_NUMBER_ID } from './end-user-messaging-event';
import type { DeploymentVariant } from './function-principals';
import type { LocalPipelineOptions } from './local-pipeline-options';
import { LOCAL_BUSINESS } from './meta-notification';

/** The local deployment's secrets, which the functions read from the fake Secrets Manager as they read the deployed ones. */
export const LOCAL_SECRET_ARNS = {
  whatsApp: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-whatsapp',
  crmWebhook: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-crm-webhook',
} as const;

/** What the local pipeline created for its deployment: the table, the queues and the fakes' addresses. */
export interface LocalResources {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The fake Graph API (Cloud API channel). */
  readonly whatsAppApiBaseUrl: string;
  /** The fake Graph API's business account, whose templates the sync reads. */
  readonly whatsAppBusinessAccountId: string;
  /** The fake CRM's webhook, with `crmSync`. */
  readonly crmWebhookUrl?: string;
  /** The media bucket on the local S3 server, unless `media` is false. */
  readonly mediaBucketName?: string;
}

/** The local deployment's settings but its operator plane, whose console URL is known once the operator function serves it. */
export type LocalSettings = Omit<DeploymentSettings, 'operatorPlane'> & { readonly whatsAppSecretArn: string };

/**
 * The agent backend `AGENT_BACKEND` of `env` selects, else the scripted agent. Read before anything
 * starts, so a misconfigured backend fails first; not read when the options pass an agent.
 */
export function localAgentSettings(options: LocalPipelineOptions, env: NodeJS.ProcessEnv): AgentSettings {
  return options.agent === undefined && env[RUNTIME_ENV.agentBackend] ? agentSettingsFromEnvironment(env) : { backend: AGENT_BACKEND_KINDS.scripted };
}

/** Which deployment the options describe, as far as the functions' roles differ by it. */
export function localDeploymentVariant(options: LocalPipelineOptions, settings: Pick<LocalSettings, 'keyLayout'>): DeploymentVariant {
  return {
    channel: options.channel ?? WHATSAPP_CHANNEL_KINDS.cloudApi,
    operatorPlane: localOperatorAccess(options) !== undefined,
    crmSync: options.crmSync === undefined ? 'off' : 'webhook',
    keyLayoutMigration: settings.keyLayout === KeyLayout.MIGRATING,
    pipelineBudget: options.pipelineBudget !== undefined,
  };
}

/** The settings the construct would give a deployment with these options, on the local resources. */
export function localSettings(options: LocalPipelineOptions, env: NodeJS.ProcessEnv, agent: AgentSettings, resources: LocalResources): LocalSettings {
  const locale = options.locale ?? localeFromEnvironment(env);
  const { texts } = localePreset(locale);
  return {
    ...DEPLOYMENT_DEFAULTS,
    locale,
    tableName: resources.tableName,
    keyLayout: options.keyLayout ?? keyLayoutFromEnvironment(env),
    crmSyncEnabled: options.crmSync !== undefined,
    // With the operator plane the fake Graph API's account is synced, as deployed with messageTemplates.businessAccountId.
    applyTemplateStatusUpdates: localOperatorAccess(options) !== undefined,
    turnQueueUrl: resources.turnQueueUrl,
    deadLetterQueueUrl: resources.deadLetterQueueUrl,
    whatsAppSecretArn: LOCAL_SECRET_ARNS.whatsApp,
    whatsApp: localChannel(options, resources),
    agent,
    maxReceiveCount: options.queue?.maxReceiveCount ?? DEPLOYMENT_DEFAULTS.maxReceiveCount,
    customerBudget: { ...DEPLOYMENT_DEFAULTS.customerBudget, reply: texts.customerOverBudgetReply, ...options.customerBudget },
    idleSweep: { idleTimeoutMs: options.idleSweep?.idleTimeoutMs ?? DEPLOYMENT_DEFAULTS.idleSweep.idleTimeoutMs },
    transcriptionJobsSweep: options.transcription && resources.mediaBucketName !== undefined && options.media !== false ? { afterMs: transcriptionSweepAfterMs(options) } : undefined,
    pipelineBudget: options.pipelineBudget && { reply: texts.pipelineOverBudgetReply, ...options.pipelineBudget },
    media:
      resources.mediaBucketName === undefined || options.media === false
        ? undefined
        : { bucketName: resources.mediaBucketName, limits: { maxBytes: MEDIA_DEFAULTS.maxBytes, allowedMimeTypes: [...MEDIA_DEFAULTS.allowedMimeTypes], ...options.media }, transcription: localTranscription(options, locale) },
    crmTarget: resources.crmWebhookUrl === undefined ? undefined : { kind: CRM_TARGET_KINDS.webhook, url: resources.crmWebhookUrl, secretArn: LOCAL_SECRET_ARNS.crmWebhook },
  };
}

/** What the construct's `media.transcription` tells the orchestrator, when the options turn it on. */
function localTranscription({ transcription }: LocalPipelineOptions, locale: Locale): TranscriptionSettings | undefined {
  if (transcription === undefined) return undefined;
  return {
    languageCode: transcription.languageCode ?? localePreset(locale).transcriptionLanguageCode,
    maxWaitMs: transcription.maxWaitMs ?? MEDIA_DEFAULTS.transcriptionMaxWaitSeconds * 1000,
    pollIntervalMs: transcription.pollIntervalMs ?? MEDIA_DEFAULTS.transcriptionPollIntervalMs,
  };
}

/** The turn budget the construct gives the idle sweeper: the queue's receives × its visibility timeout. */
function transcriptionSweepAfterMs({ transcription, queue }: LocalPipelineOptions): number {
  const receives = queue?.maxReceiveCount ?? DEPLOYMENT_DEFAULTS.maxReceiveCount;
  return transcription?.sweepAfterMs ?? receives * (queue?.visibilityTimeoutSeconds ?? PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds) * 1000;
}

/** Who may sign in to the console, when `adminPhoneNumbers` turns the operator plane on. */
export function localOperatorAccess(options: LocalPipelineOptions): OperatorAccessSettings | undefined {
  if (options.adminPhoneNumbers === undefined || options.adminPhoneNumbers.length === 0) return undefined;
  return { adminPhoneNumbers: options.adminPhoneNumbers, timeZone: OPERATOR_DEFAULTS.timeZone, ...(options.adminDisplayNames && { adminDisplayNames: options.adminDisplayNames }) };
}

/** The whole operator plane, once the operator function serves the console at `consoleUrl`. */
export function localOperatorPlane(options: LocalPipelineOptions, access: OperatorAccessSettings, consoleUrl: string, locale: Locale): OperatorPlaneSettings {
  return {
    ...access,
    consoleUrl,
    texts: handoffTextsOf(localePreset(locale).texts),
    renotifyOperatorsAfterMs: options.handoffTimings?.renotifyOperatorsAfterMs ?? OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds * 1000,
    remindCustomerAfterMs: options.handoffTimings?.remindCustomerAfterMs ?? OPERATOR_DEFAULTS.customerRenotifyAfterSeconds * 1000,
    operatorNoticeTemplate: options.handoffNoticeTemplate,
  };
}

/** Replies go to the fake Graph API, directly or through the fake End User Messaging endpoint from the local linked number. */
function localChannel(options: LocalPipelineOptions, resources: LocalResources): WhatsAppChannelConfig {
  if (options.channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging) {
    return {
      kind: WHATSAPP_CHANNEL_KINDS.endUserMessaging,
      phoneNumbers: new Map([[LOCAL_BUSINESS.businessPhoneNumberId, LOCAL_ORIGINATION_PHONE_NUMBER_ID]]),
      metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
      businessAccountId: LOCAL_LINKED_BUSINESS_ACCOUNT_ID,
    };
  }
  return { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: LOCAL_SECRET_ARNS.whatsApp, apiBaseUrl: resources.whatsAppApiBaseUrl, businessAccountId: resources.whatsAppBusinessAccountId };
}
