/**
 * The settings document: what a function is told besides its environment, written at synth into
 * its asset beside the handler (`settings.json`), so it has no size limit and costs no call at cold
 * start. Every setting a function gets is present in its document (`null` where the deployment
 * turned the feature off): the runtime's reader has no defaults, and refuses a document that lacks
 * one. CDK-free. Internal: not part of the jsii API.
 */
import type { HandoffTexts } from './handoff-texts';
import type { ConversationMemorySettings } from './conversation-memory';
import { KeyLayout } from './key-layout';
import type { KnowledgeBaseSettings } from './knowledge-base';
import { Locale } from './locale';
import type { LocaleText } from './locale-presets';
import type { AGENT_BACKEND_KINDS, CRM_TARGET_KINDS, WHATSAPP_CHANNEL_KINDS } from './environment';
import { BURST_SETTLE_MAX_MS, COST_GUARD_DEFAULTS, FALLBACK_TEXT_MAX_CHARACTERS, PIPELINE_DEFAULTS } from './defaults';

/** The name of the document in each function's asset. */
export const SETTINGS_DOCUMENT_FILE = 'settings.json';

/** The functions of a pipeline, by the names their bundles, roles and principals share. */
export const PIPELINE_FUNCTIONS = ['webhook', 'eum-inbound', 'orchestrator', 'operator', 'handoff-sweeper', 'idle-sweeper', 'crm-sync', 'evaluator'] as const;
export type PipelineFunction = (typeof PIPELINE_FUNCTIONS)[number];

const EVERY_FUNCTION = PIPELINE_FUNCTIONS;
/** The functions that play turns: the orchestrator, and the evaluator, which plays scenarios through the same turn path. */
const TURN_PATH = ['orchestrator', 'evaluator'] as const satisfies readonly PipelineFunction[];

/**
 * Settings that are one value, declared once: the construct checks its prop of the same name
 * against the declaration, the plan's writer applies the default, and the runtime's reader checks
 * the document against it again. A setting of this kind needs no code of its own anywhere else:
 * declare it here, give the construct the prop, and use it in the functions that get it.
 */
export const SIMPLE_SETTINGS = {
  /** The write-shard migration phase: every function that writes or lists sessions writes and reads the same layout. */
  keyLayout: {
    kind: 'choice',
    values: Object.values(KeyLayout),
    hint: 'use KeyLayout.SEED, KeyLayout.MIGRATING or KeyLayout.SHARDED',
    default: KeyLayout.SHARDED,
    functions: EVERY_FUNCTION,
  },
  /** The texts every function sends and the opt-out words the inbound functions route and the orchestrator records. */
  locale: { kind: 'choice', values: Object.values(Locale), hint: 'use Locale.PT_BR, Locale.EN or Locale.ES', default: Locale.PT_BR, functions: EVERY_FUNCTION },
  /** The turn queue's redrive count: the receive that reaches it is the turn's last attempt. */
  maxReceiveCount: { kind: 'count', min: 1, max: 1000, default: PIPELINE_DEFAULTS.maxReceiveCount, functions: ['orchestrator'] },
  /** How long a turn waits for the customer to go quiet before the agent is asked (milliseconds; 0: no wait): the construct's `burstSettle`. */
  burstSettleMs: { kind: 'count', min: 0, max: BURST_SETTLE_MAX_MS, default: PIPELINE_DEFAULTS.burstSettleMs, functions: ['orchestrator'] },
  /** Characters of history the agent is shown. */
  agentHistoryMaxCharacters: { kind: 'count', min: 1_000, max: 200_000, default: COST_GUARD_DEFAULTS.historyMaxCharacters, functions: TURN_PATH },
  /** What the customer is told when a turn fails for good and no person takes the conversation. */
  fallbackText: { kind: 'text', maxCharacters: FALLBACK_TEXT_MAX_CHARACTERS, about: 'one WhatsApp message', default: 'turnFailed', functions: TURN_PATH },
  /** What an agent answers when it has nothing better to say (the deadline came first, or no text). */
  deadlineFallbackText: { kind: 'text', maxCharacters: FALLBACK_TEXT_MAX_CHARACTERS, about: 'one WhatsApp message', default: 'agentDeadline', functions: TURN_PATH },
  /** What the customer is told, once per conversation, about a message of a type the pipeline cannot read. */
  unsupportedMessageText: { kind: 'text', maxCharacters: FALLBACK_TEXT_MAX_CHARACTERS, about: 'one WhatsApp message', default: 'unsupportedMessage', functions: TURN_PATH },
} as const satisfies Readonly<Record<string, SimpleSettingDeclaration>>;

/** How a simple setting is checked and what it defaults to. */
export type SimpleSettingDeclaration = (
  | { readonly kind: 'choice'; readonly values: readonly string[]; readonly hint: string; readonly default: string }
  | { readonly kind: 'count'; readonly min: number; readonly max: number; readonly default: number }
  /** A text the customer reads; its default is the pipeline locale's text of that name. */
  | { readonly kind: 'text'; readonly maxCharacters: number; readonly about: string; readonly default: LocaleText }
) & { readonly functions: readonly PipelineFunction[] };

export type SimpleSettingName = keyof typeof SIMPLE_SETTINGS;

/** The value a simple setting holds. */
export type SimpleSettingValue<N extends SimpleSettingName> = (typeof SIMPLE_SETTINGS)[N] extends { readonly kind: 'choice'; readonly values: readonly (infer V)[] }
  ? V
  : (typeof SIMPLE_SETTINGS)[N] extends { readonly kind: 'count' }
    ? number
    : string;

/** The simple settings function `F` gets, by name (of several functions, those every one of them gets). */
export type SimpleSettingsOf<F extends PipelineFunction> = {
  readonly [N in SimpleSettingName as [F] extends [(typeof SIMPLE_SETTINGS)[N]['functions'][number]] ? N : never]: SimpleSettingValue<N>;
};

/** A phone number linked to End User Messaging Social, by Meta's id and the service's. */
export interface LinkedPhoneNumber {
  readonly metaPhoneNumberId: string;
  /** `phone-number-id-…`. */
  readonly originationPhoneNumberId: string;
}

/** A WhatsApp template as WhatsApp Manager names it. */
export interface TemplateName {
  readonly name: string;
  readonly language: string;
}

/** How a function that sends reaches WhatsApp; the Cloud API's secret and Graph API root are in its environment. */
export type WhatsAppChannelSettings =
  | { readonly kind: typeof WHATSAPP_CHANNEL_KINDS.cloudApi; readonly businessAccountId: string | null }
  | {
      readonly kind: typeof WHATSAPP_CHANNEL_KINDS.endUserMessaging;
      readonly phoneNumbers: readonly LinkedPhoneNumber[];
      readonly metaApiVersion: string;
      readonly businessAccountId: string | null;
    };

/** The Converse `inferenceConfig` (maxTokens, temperature, topP, stopSequences), as the construct checked it. */
export interface InferenceSettings {
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stopSequences?: readonly string[];
}

/** One agent; its model, guardrail or function name is in the environment (or the stage's variables). */
export type SingleAgentDocument =
  | {
      readonly backend: typeof AGENT_BACKEND_KINDS.bedrock;
      /** Seeded as a version of the admin prompt resource. */
      readonly systemPrompt: string | null;
      readonly inferenceConfig: InferenceSettings | null;
      /** `null`: as the model table of prompt-caching.ts says. */
      readonly promptCaching: boolean | null;
      readonly guardrail: boolean;
      /** The knowledge base the agent searches (its id is in the environment); `null`: none. */
      readonly knowledgeBase: KnowledgeBaseSettings | null;
      /** How older history folds into the session's summary; `null`: never (the window slides). */
      readonly memory: ConversationMemorySettings | null;
      /** The consumer's tools, when there are any; each one's function is in `AGENT_TOOL_FUNCTIONS`. */
      readonly tools?: readonly ConsumerToolDocument[];
    }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.lambda; readonly contractVersion: number }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted };

/** A consumer tool as the model is told it (`AgentTool.fromFunction()`). */
export interface ConsumerToolDocument {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly sideEffects: boolean;
  readonly timeoutMs: number;
}

export type AgentDocument =
  | SingleAgentDocument
  | { readonly backend: typeof AGENT_BACKEND_KINDS.stages; readonly entry: string; readonly maxHandoversPerTurn: number; readonly stages: Readonly<Record<string, SingleAgentDocument>> };

/** Every setting a document may hold; each function's holds the ones deployment-plan.ts gives it. */
export type SettingsDocument = { readonly [N in SimpleSettingName]: SimpleSettingValue<N> } & {
  /** Session writes carry the CRM projection (`crmSync`): every function that writes sessions must agree. */
  readonly crmSyncEnabled: boolean;
  /** Whichever function closes a session or records a demand sets the TTL. */
  readonly retention: { readonly conversationSeconds: number; readonly demandSeconds: number };
  /** Templates are synced (`messageTemplates.businessAccountId`): the inbound functions apply Meta's template status notifications. */
  readonly applyTemplateStatusUpdates: boolean;
  /** The linked numbers the End User Messaging inbound function serves, and the WABAs it takes events of (`null`: any of the account). */
  readonly endUserMessagingInbound: { readonly phoneNumbers: readonly LinkedPhoneNumber[]; readonly wabaIds: readonly string[] | null };
  readonly whatsApp: WhatsAppChannelSettings;
  readonly agent: AgentDocument;
  readonly customerBudget: { readonly turnsPerMinute: number; readonly turnsPerHour: number; readonly agentTokensPerDay: number; readonly reply: string };
  readonly pipelineBudget: { readonly agentTokensPerDay: number; readonly reply: string } | null;
  /** Who may sign in; `null` on the orchestrator without the operator plane. */
  readonly operatorAccess: { readonly adminPhoneNumbers: readonly string[]; readonly timeZone: string } | null;
  /** The deploy-time admins' names by phone: the console's alone (the other functions' notifications name customers). */
  readonly adminDisplayNames: Readonly<Record<string, string>>;
  /** How handoffs reach operators; the console's URL is in the environment. `null` without the operator plane. */
  readonly handoffs: {
    readonly texts: Required<HandoffTexts>;
    readonly renotifyOperatorsAfterMs: number;
    readonly remindCustomerAfterMs: number;
    readonly operatorNoticeTemplate: TemplateName | null;
  } | null;
  /** The limits attachments are kept within, and the voice notes' transcription; the bucket is in the environment. `null`: media off. */
  readonly media: {
    readonly maxBytes: number;
    readonly allowedMimeTypes: readonly string[];
    readonly transcription: { readonly languageCode: string; readonly maxWaitMs: number; readonly pollIntervalMs: number } | null;
  } | null;
  readonly idleSweep: { readonly idleTimeoutMs: number };
  /**
   * With `media.transcription`: the turn budget (the queue's receives × its visibility timeout),
   * after which the idle sweeper deletes the transcription jobs that ended; `null`: no jobs to sweep.
   */
  readonly transcriptionJobsSweep: { readonly afterMs: number } | null;
  /** The template a customer who went quiet is sent once, and the channel it goes on; `null`: off. */
  readonly reengagement: { readonly template: TemplateName; readonly afterMs: number; readonly whatsApp: WhatsAppChannelSettings } | null;
  /** Where the CRM sync worker sends; the function's name, or the webhook's URL and secret, are in the environment. */
  readonly crmTarget: { readonly kind: (typeof CRM_TARGET_KINDS)[keyof typeof CRM_TARGET_KINDS] };
};
