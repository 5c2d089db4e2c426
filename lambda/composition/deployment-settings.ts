import type { CRM_TARGET_KINDS, Locale, SimpleSettingsOf } from '../../lib/contract';
import type { AgentSettings } from '../core/adapters/agent/agent-backend';
import type { KeyLayout } from '../../lib/contract/key-layout';
import type { ObservabilityConfig } from '../core/adapters/observability/powertools';
import type { EndUserMessagingEventSource } from '../core/adapters/whatsapp/end-user-messaging-event';
import type { WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import type { CustomerBudgetSettings } from '../core/application/customer-budget-gate';
import type { IdleSweepSettings } from '../core/application/close-idle-conversations';
import type { HandoffSettings } from '../core/application/operator/handoff-lifecycle';
import type { PipelineBudgetSettings } from '../core/application/pipeline-token-budget';
import type { ReengagementSettings } from '../core/application/reengage-quiet-customers';
import type { MediaLimits } from '../core/domain/media-limits';
import type { RetentionPolicy } from '../core/domain/privacy';

// Each function's settings as the runtime uses them: what read-settings.ts makes of what the function
// was told (lib/contract/deployment-plan.ts says which settings each one gets).

/** What every function reads: the table, and how every one of them must write it. */
export interface SharedSettings {
  readonly tableName: string;
  /** Powertools' service name and metrics namespace. */
  readonly observability: ObservabilityConfig;
  /** The write-shard migration phase: every function of a deployment writes and reads the same layout. */
  readonly keyLayout: KeyLayout;
  /** The texts every function sends and the opt-out words the inbound functions route and the orchestrator records. */
  readonly locale: Locale;
  /** Session writes carry the CRM projection (`crmSync`): every function that writes sessions must agree. */
  readonly crmSyncEnabled: boolean;
  /** How long closed conversations and demands live: whichever function closes a session or records a demand sets the TTL. */
  readonly retention: RetentionPolicy;
}

export interface WebhookSettings extends SharedSettings {
  /** The FIFO turn queue the inbound functions dispatch to. */
  readonly turnQueueUrl: string;
  /** The Cloud API's WhatsApp secret, whose app secret and verify token the webhook checks. */
  readonly whatsAppSecretArn: string;
  /** The business numbers served; messages to any other number of the Meta app are dropped. `undefined`: every number. */
  readonly businessPhoneNumberIds?: readonly string[];
  /** Templates are synced (`messageTemplates.businessAccountId`): Meta's template status notifications are applied to them. */
  readonly applyTemplateStatusUpdates?: boolean;
}

/**
 * The linked numbers are the business numbers served: events of any other number are dropped.
 * Events that do not come from the deployment's topic, account, numbers and WABAs are refused.
 */
export interface EndUserMessagingInboundSettings extends SharedSettings, Pick<WebhookSettings, 'turnQueueUrl' | 'applyTemplateStatusUpdates'> {
  readonly businessPhoneNumberIds: readonly string[];
  readonly eventSource: EndUserMessagingEventSource;
}

/**
 * What the turn path reads, wherever it runs: the evaluator's settings, and so a part of the
 * orchestrator's (whose settings the local evaluation passes as they are).
 */
export interface EvaluatorSettings extends SharedSettings, Omit<SimpleSettingsOf<'evaluator'>, keyof SharedSettings> {
  /** Where replies go out: the Cloud API (secret, Graph API root) or End User Messaging (linked numbers). */
  readonly whatsApp: WhatsAppChannelConfig;
  readonly agent: AgentSettings;
  /** The system prompt the construct set on a single agent, if any: adopted as the prompt resource's next version. */
  readonly deployedSystemPrompt?: string;
  /** The pipeline-wide daily token budget and its reply; `undefined`: none (`pipelineBudget` unset). */
  readonly pipelineBudget?: PipelineBudgetSettings;
}

export interface OrchestratorSettings extends EvaluatorSettings, Omit<SimpleSettingsOf<'orchestrator'>, keyof SharedSettings> {
  /** Per-customer turn and token limits and the over-budget reply. */
  readonly customerBudget: CustomerBudgetSettings;
  /** Present when `adminPhoneNumbers` turned the operator plane on. */
  readonly operatorPlane?: OperatorPlaneSettings;
  /** The media bucket and what it keeps; `undefined`: attachments stay their placeholder text (`media.enabled` false). */
  readonly media?: MediaSettings;
}

export interface OperatorSettings extends SharedSettings, Pick<OrchestratorSettings, 'whatsApp' | 'media'> {
  /** The turn queue, which the admin's redrive sends back to. */
  readonly turnQueueUrl: string;
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  readonly deadLetterQueueUrl: string;
  readonly operatorPlane: OperatorAccessSettings;
  /** The evaluator function, invoked asynchronously to play an evaluation run an admin started. */
  readonly evaluatorFunctionName: string;
}

export interface HandoffSweeperSettings extends SharedSettings, Pick<OrchestratorSettings, 'whatsApp'> {
  readonly operatorPlane: OperatorPlaneSettings;
}

export interface CrmSyncSettings extends SharedSettings {
  readonly crmTarget: CrmTargetConfig;
}

export interface IdleSweeperSettings extends SharedSettings {
  /** When a conversation the agent serves is closed. */
  readonly idleSweep: IdleSweepSettings;
  /** With `media.transcription`: after how long the sweeper deletes ended transcription jobs (the turn budget); `undefined`: no jobs to sweep. */
  readonly transcriptionJobsSweep?: { readonly afterMs: number };
  /** With `reengagement`, the sweeper also sends the re-engagement template on the channel. */
  readonly reengagement?: ReengagementSettings & { readonly whatsApp: WhatsAppChannelConfig };
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

/** Where the worker sends projections, as the construct's `CrmTarget` put it. */
export type CrmTargetConfig =
  | { readonly kind: typeof CRM_TARGET_KINDS.function; readonly functionName: string }
  | { readonly kind: typeof CRM_TARGET_KINDS.webhook; readonly url: string; readonly secretArn: string };
