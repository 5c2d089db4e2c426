import { COST_GUARD_DEFAULTS, type CRM_TARGET_KINDS, DEFAULT_LOCALE, IDLE_SWEEP_DEFAULTS, type Locale, PIPELINE_DEFAULTS } from '../../lib/contract';
import type { AgentSettings } from '../core/adapters/agent/agent-backend';
import { KeyLayout } from '../../lib/contract/key-layout';
import type { ObservabilityConfig } from '../core/adapters/observability/powertools';
import type { EndUserMessagingEventSource } from '../core/adapters/whatsapp/end-user-messaging-event';
import type { WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { DEFAULT_CUSTOMER_BUDGET, type CustomerBudgetSettings } from '../core/application/customer-budget-gate';
import type { IdleSweepSettings } from '../core/application/close-idle-conversations';
import type { HandoffSettings } from '../core/application/operator/handoff-lifecycle';
import type { PipelineBudgetSettings } from '../core/application/pipeline-token-budget';
import type { ReengagementSettings } from '../core/application/reengage-quiet-customers';
import type { MediaLimits } from '../core/domain/media-limits';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../core/domain/privacy';

/**
 * Everything the construct decides for the functions of one deployment, in the environment
 * variables it sets (lib/contract/environment.ts). Each function reads only its part, once
 * (settings-from-environment.ts); the local runtime builds the whole of it from its options.
 */
export interface DeploymentSettings {
  readonly tableName: string;
  /** Powertools' service name and metrics namespace. */
  readonly observability: ObservabilityConfig;
  /** The write-shard migration phase: every function of a deployment writes and reads the same layout. */
  readonly keyLayout: KeyLayout;
  /** Session writes carry the CRM projection (`crmSync`): every function that writes sessions must agree. */
  readonly crmSyncEnabled: boolean;
  /** How long closed conversations and demands live: whichever function closes a session or records a demand sets the TTL. */
  readonly retention: RetentionPolicy;
  /** The texts every function sends and the opt-out words the inbound functions route and the orchestrator records. */
  readonly locale: Locale;

  /** The FIFO turn queue: the inbound functions dispatch to it, the admin's redrive sends back to it. */
  readonly turnQueueUrl: string;
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  readonly deadLetterQueueUrl: string;
  /** The Cloud API's WhatsApp secret, whose app secret and verify token the webhook checks; none on End User Messaging. */
  readonly whatsAppSecretArn?: string;
  /** Templates are synced (`messageTemplates.businessAccountId`): the inbound functions apply Meta's template status notifications to them. */
  readonly applyTemplateStatusUpdates?: boolean;
  /** The business numbers served; messages to any other number of the Meta app are dropped. `undefined`: every number. */
  readonly businessPhoneNumberIds?: readonly string[];
  /** Where replies go out: the Cloud API (secret, Graph API root) or End User Messaging (linked numbers). */
  readonly whatsApp: WhatsAppChannelConfig;

  /** The agent backend the orchestrator wires in. */
  readonly agent: AgentSettings;
  /** The turn queue's redrive `maxReceiveCount`: the receive that reaches it is the final attempt. */
  readonly maxReceiveCount: number;
  /** The system prompt set in the construct, if any: adopted as the prompt resource's next version. */
  readonly deployedSystemPrompt?: string;
  /** What the customer is told when a turn fails for good and no person takes the conversation; `undefined`: the locale's text. */
  readonly fallbackText?: string;
  /** What the customer is told, once per conversation, about a message of a type the pipeline cannot read; `undefined`: the locale's text. */
  readonly unsupportedMessageText?: string;
  /** Per-customer turn and token limits and the over-budget reply. */
  readonly customerBudget: CustomerBudgetSettings;
  /** The pipeline-wide daily token budget and its reply; `undefined`: none (`pipelineBudget` unset). */
  readonly pipelineBudget?: PipelineBudgetSettings;
  /** Characters of history the agent is shown. */
  readonly historyMaxCharacters: number;
  /** When the idle sweeper closes a conversation the agent serves. */
  readonly idleSweep: IdleSweepSettings;
  /** With `media.transcription`: after how long the idle sweeper deletes ended transcription jobs (the turn budget); `undefined`: no jobs to sweep. */
  readonly transcriptionJobsSweep?: { readonly afterMs: number };

  /** The media bucket and what it keeps; `undefined`: attachments stay their placeholder text (`media.enabled` false). */
  readonly media?: MediaSettings;

  /** Present when `adminPhoneNumbers` turned the operator plane on. */
  readonly operatorPlane?: OperatorPlaneSettings;
  /** Where the CRM sync worker sends projections; present with `crmSync`. */
  readonly crmTarget?: CrmTargetConfig;
}

/**
 * The operator plane as the orchestrator and the sweeper get it: who may sign in, and how handoffs
 * reach operators (the console link, the texts, the re-notification delays).
 */
export interface OperatorPlaneSettings extends HandoffSettings {
  readonly adminPhoneNumbers: readonly string[];
}

/**
 * The operator plane as the operator function gets it: it serves the console, so it has no link to
 * itself, and it sends no handoff notifications.
 */
export interface OperatorAccessSettings extends Pick<OperatorPlaneSettings, 'adminPhoneNumbers' | 'timeZone'> {
  /** The deploy-time admins' names by phone. @default the admins go by their phone until the operators list names them */
  readonly adminDisplayNames?: Readonly<Record<string, string>>;
}

/** The media bucket, and the limits the orchestrator downloads within (the operator function erases and exports there). */
export interface MediaSettings {
  readonly bucketName: string;
  readonly limits: MediaLimits;
  /** Voice notes transcribed in the turn (`media.transcription`); `undefined`: they are described to the agent, which cannot hear them. */
  readonly transcription?: TranscriptionSettings;
}

/** How the orchestrator transcribes voice notes with Amazon Transcribe. */
export interface TranscriptionSettings {
  /** As Transcribe names it (`pt-BR`). */
  readonly languageCode: string;
  /** How long a turn waits for the transcript. */
  readonly maxWaitMs: number;
  /** Between two reads of the job's state. */
  readonly pollIntervalMs: number;
}

/** Where the worker sends projections, as the construct's `CrmTarget` put it in the environment. */
export type CrmTargetConfig =
  | { readonly kind: typeof CRM_TARGET_KINDS.function; readonly functionName: string }
  | { readonly kind: typeof CRM_TARGET_KINDS.webhook; readonly url: string; readonly secretArn: string };

/** What every function reads: the table, and how every one of them must write it. */
type Shared = 'tableName' | 'observability' | 'keyLayout' | 'crmSyncEnabled' | 'retention' | 'locale';
export type SharedSettings = Pick<DeploymentSettings, Shared>;

export type WebhookSettings = Pick<DeploymentSettings, Shared | 'turnQueueUrl' | 'businessPhoneNumberIds' | 'applyTemplateStatusUpdates'> & { readonly whatsAppSecretArn: string };
/**
 * The linked numbers are the business numbers served: events of any other number are dropped.
 * Events that do not come from the deployment's topic, account, numbers and WABAs are refused.
 */
export type EndUserMessagingInboundSettings = Pick<DeploymentSettings, Shared | 'turnQueueUrl' | 'applyTemplateStatusUpdates'> & {
  readonly businessPhoneNumberIds: readonly string[];
  readonly eventSource: EndUserMessagingEventSource;
};
export type OrchestratorSettings = Pick<
  DeploymentSettings,
  Shared | 'whatsApp' | 'agent' | 'maxReceiveCount' | 'deployedSystemPrompt' | 'fallbackText' | 'unsupportedMessageText' | 'customerBudget' | 'pipelineBudget' | 'historyMaxCharacters' | 'operatorPlane' | 'media'
>;
export type OperatorSettings = Pick<DeploymentSettings, Shared | 'whatsApp' | 'turnQueueUrl' | 'deadLetterQueueUrl' | 'media'> & { readonly operatorPlane: OperatorAccessSettings };
export type HandoffSweeperSettings = Pick<DeploymentSettings, Shared | 'whatsApp'> & { readonly operatorPlane: OperatorPlaneSettings };
export type CrmSyncSettings = SharedSettings & { readonly crmTarget: CrmTargetConfig };
/** With `reengagement`, the sweeper also sends the re-engagement template on the channel. */
export type IdleSweeperSettings = Pick<DeploymentSettings, Shared | 'idleSweep' | 'transcriptionJobsSweep'> & { readonly reengagement?: ReengagementSettings & { readonly whatsApp: WhatsAppChannelConfig } };

/**
 * What a deployment gets where the construct leaves a variable unset: the reader's fallbacks, and
 * the starting point of settings built in code (the local runtime, tests, benchmarks).
 */
export const DEPLOYMENT_DEFAULTS = {
  observability: {},
  keyLayout: KeyLayout.SEED,
  crmSyncEnabled: false,
  retention: DEFAULT_RETENTION,
  locale: DEFAULT_LOCALE,
  maxReceiveCount: PIPELINE_DEFAULTS.maxReceiveCount,
  customerBudget: DEFAULT_CUSTOMER_BUDGET,
  historyMaxCharacters: COST_GUARD_DEFAULTS.historyMaxCharacters,
  idleSweep: { idleTimeoutMs: IDLE_SWEEP_DEFAULTS.idleTimeoutHours * 3_600_000 },
} satisfies Partial<DeploymentSettings>;
