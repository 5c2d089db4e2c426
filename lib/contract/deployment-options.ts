/**
 * What a deployment chose, as the plan's writer takes it: the construct fills it from its props
 * (every prop checked, tokens for the resources it creates), the local runtime from its options
 * (local names instead of tokens). Whatever is left out takes the default the writer applies, the
 * one place defaults are applied. CDK-free. Internal: not part of the jsii API.
 */
import type { HandoffTexts } from './handoff-texts';
import type { RetrievalFilter } from './knowledge-base';
import { AGENT_BACKEND_KINDS, type CRM_TARGET_KINDS, type WHATSAPP_CHANNEL_KINDS } from './environment';
import type { ConsumerToolDocument, InferenceSettings, LinkedPhoneNumber, SimpleSettingName, SimpleSettingValue, TemplateName } from './settings-document';

export interface DeploymentOptions extends SimpleSettingOptions {
  /** The table and the turn queues, by the names CloudFormation resolves. */
  readonly resources: { readonly tableName: string; readonly turnQueueUrl: string; readonly deadLetterQueueUrl: string };
  /** What Powertools reads: no default, since the construct documents its own and the local runtime has its own. */
  readonly observability: { readonly serviceName: string; readonly metricsNamespace: string; readonly logLevel: string; readonly tracing: boolean };
  /** How long a closed conversation and a demand are kept. */
  readonly retention?: { readonly conversationSeconds?: number; readonly demandSeconds?: number };
  readonly channel: ChannelOptions;
  readonly agent: AgentOptions;
  /** Per-customer limits and the over-budget reply; the locale's reply unless given. */
  readonly customerBudget?: { readonly turnsPerMinute?: number; readonly turnsPerHour?: number; readonly agentTokensPerDay?: number; readonly reply?: string };
  /** The pipeline-wide daily token budget; none unless given. */
  readonly pipelineBudget?: { readonly agentTokensPerDay: number; readonly reply?: string };
  /** The media bucket and its limits; media is off without it. */
  readonly media?: MediaOptions;
  /** The operator plane; off without it. */
  readonly operatorPlane?: OperatorPlaneOptions;
  /** The turn queue's visibility timeout: with `maxReceiveCount`, the turn budget no attempt outlives. */
  readonly visibilityTimeoutSeconds?: number;
  /** When the idle sweeper closes a conversation the agent serves. */
  readonly idleTimeoutMs?: number;
  /** The template a customer who went quiet is sent once; none unless given. */
  readonly reengagement?: { readonly template: TemplateName; readonly afterMs: number };
  /** Where the CRM sync worker sends; no worker and no projection without it. */
  readonly crmSync?: CrmSyncOptions;
}

/** The simple settings (settings-document.ts), each by its own name. */
export type SimpleSettingOptions = { readonly [N in SimpleSettingName]?: SimpleSettingValue<N> };

export type ChannelOptions =
  | {
      readonly kind: typeof WHATSAPP_CHANNEL_KINDS.cloudApi;
      readonly whatsAppSecretArn: string;
      /** Without a trailing slash. */
      readonly apiBaseUrl?: string;
      /** The Meta phone number ids the webhook serves; every number of the app unless given. */
      readonly phoneNumberIds?: readonly string[];
    }
  | {
      readonly kind: typeof WHATSAPP_CHANNEL_KINDS.endUserMessaging;
      readonly phoneNumbers: readonly LinkedPhoneNumber[];
      /** Any WABA of the account unless given. */
      readonly wabaIds?: readonly string[];
      readonly metaApiVersion?: string;
      readonly eventTopicArn: string;
      readonly accountId: string;
    };

export type SingleAgentOptions =
  | {
      readonly backend: typeof AGENT_BACKEND_KINDS.bedrock;
      readonly modelId: string;
      readonly systemPrompt?: string;
      readonly inferenceConfig?: InferenceSettings;
      readonly guardrail?: { readonly identifier: string; readonly version: string };
      readonly promptCaching?: boolean;
      /** Searched through Retrieve; the id is resolved by CloudFormation, the rest written into the document. */
      readonly knowledgeBase?: { readonly knowledgeBaseId: string; readonly numberOfResults?: number; readonly filter?: RetrievalFilter };
      /** On unless `enabled` is false. */
      readonly memory?: { readonly enabled?: boolean; readonly foldEveryTurns?: number; readonly modelId?: string };
      /** The consumer's tools, each with the function that answers it. */
      readonly tools?: readonly ConsumerToolOptions[];
    }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.lambda; readonly functionName: string; readonly contractVersion?: number }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted };

/** A consumer tool: what the model is told, and its function's name (a token in a deployment). */
export interface ConsumerToolOptions extends Omit<ConsumerToolDocument, 'timeoutMs'> {
  readonly functionName: string;
  readonly timeoutMs?: number;
}

export type AgentOptions =
  | SingleAgentOptions
  | { readonly backend: typeof AGENT_BACKEND_KINDS.stages; readonly entry: string; readonly maxHandoversPerTurn?: number; readonly stages: Readonly<Record<string, SingleAgentOptions>> };

/** The agent itself, or each of its stages. */
export function singleAgentsOf(agent: AgentOptions): readonly SingleAgentOptions[] {
  return agent.backend === AGENT_BACKEND_KINDS.stages ? Object.values(agent.stages) : [agent];
}

export interface MediaOptions {
  readonly bucketName: string;
  readonly maxBytes?: number;
  readonly allowedMimeTypes?: readonly string[];
  /** Voice notes are transcribed with it; not without. */
  readonly transcription?: {
    readonly languageCode?: string;
    readonly maxWaitMs?: number;
    readonly pollIntervalMs?: number;
    /** How old an ended job is when the idle sweeper deletes it; the turn budget unless given. */
    readonly sweepAfterMs?: number;
  };
}

export interface OperatorPlaneOptions {
  readonly adminPhoneNumbers: readonly string[];
  /** The operator function's URL, which the links in handoff notices and login messages open. */
  readonly consoleUrl: string;
  /** The evaluator function, which the operator function invokes to play the console's evaluation runs. */
  readonly evaluatorFunctionName: string;
  readonly adminDisplayNames?: Readonly<Record<string, string>>;
  readonly timeZone?: string;
  /** The texts that replace the locale's. */
  readonly handoffTexts?: HandoffTexts;
  readonly renotifyOperatorsAfterMs?: number;
  readonly remindCustomerAfterMs?: number;
  readonly handoffNoticeTemplate?: TemplateName;
  /** The WhatsApp Business Account whose templates are synced; none unless given. */
  readonly businessAccountId?: string;
}

export type CrmSyncOptions =
  | { readonly kind: typeof CRM_TARGET_KINDS.function; readonly functionName: string }
  | { readonly kind: typeof CRM_TARGET_KINDS.webhook; readonly url: string; readonly secretArn: string };
