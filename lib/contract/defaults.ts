/**
 * Defaults the construct documents as its @default values and the runtime falls back to, so both agree.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */
import type { HandoffTexts } from './handoff-texts';
import { handoffTextsOf, localePreset } from './locale-presets';

/** The texts of the default locale (pt-BR), which the defaults below quote. */
const DEFAULT_TEXTS = localePreset().texts;

/** Queue and function values pinned by the design (docs/DESIGN.md). */
export const PIPELINE_DEFAULTS = {
  /** Names the metrics' namespace and, with the environment, the Powertools service; never a physical name unless `ResourceNames.seed()`. */
  serviceName: 'agent-pipeline',
  queueVisibilityTimeoutSeconds: 120,
  queueRetentionSeconds: 345_600,
  queueDeliveryDelaySeconds: 0,
  deadLetterQueueRetentionSeconds: 1_209_600,
  maxReceiveCount: 3,
  orchestratorTimeoutSeconds: 90,
  /** The burst settle wait: about the pause between the quick messages of one thought, far below the turn budget. */
  burstSettleMs: 2_000,
  orchestratorBatchSize: 1,
  webhookMemorySize: 512,
  orchestratorMemorySize: 512,
  /** Meta Graph API root the sender posts to unless the consumer overrides it. */
  whatsAppApiBaseUrl: 'https://graph.facebook.com/v23.0',
  /** Meta API version End User Messaging Social passes the message through (`metaApiVersion`). */
  endUserMessagingMetaApiVersion: 'v20.0',
} as const;

/** The longest burst settle wait (`burstSettle`): a burst is answered within three of them, whatever the turn budget. */
export const BURST_SETTLE_MAX_MS = 10_000;

/**
 * Defaults of the per-customer cost guards (docs/RELIABILITY.md#security): the construct documents
 * them as its `@default`s and the runtime falls back to them, so both always agree.
 */
export const COST_GUARD_DEFAULTS = {
  /** A person rarely sends more than a few turns a minute (bursts are merged into one turn). */
  turnsPerMinute: 8,
  turnsPerHour: 60,
  /** About 25 to 50 long turns of a Bedrock model with a 50-message history. */
  agentTokensPerDay: 250_000,
  /** Of the default locale; a pipeline's `locale` gives its own. */
  overBudgetReply: DEFAULT_TEXTS.customerOverBudgetReply,
  /** About 6,000 tokens of history: enough for the conversation, bounded whatever its messages hold. */
  historyMaxCharacters: 24_000,
  orchestratorMaxConcurrency: 20,
} as const;

/**
 * Defaults of the pipeline-wide daily token budget (`pipelineBudget`, off unless set): the construct
 * documents them as its `@default`s and the runtime falls back to them.
 */
export const PIPELINE_BUDGET_DEFAULTS = {
  /** The budget alarm fires once the day's use is above this share of the budget. */
  alarmAtShareOfBudget: 0.8,
  /** Of the default locale; a pipeline's `locale` gives its own. */
  overBudgetReply: DEFAULT_TEXTS.pipelineOverBudgetReply,
  /**
   * How often each orchestrator instance reads the day's total (one BatchGetItem of its shards); in
   * between it adds its own turns' tokens. So the budget is enforced within this many seconds of
   * the other instances' turns: the day may overrun it by what they spend in that time.
   */
  totalRefreshSeconds: 30,
} as const;

/** The CRM sync worker's schedule and timeout: a run stops taking rows well before the timeout. */
export const CRM_SYNC_DEFAULTS = {
  scheduleMinutes: 1,
  workerTimeoutSeconds: 120,
} as const;

/** When an idle conversation the agent serves is closed (`conversationIdleTimeout`), and the idle sweeper's schedule. */
export const IDLE_SWEEP_DEFAULTS = {
  /** After the last activity: a customer-service day. */
  idleTimeoutHours: 24,
  minIdleTimeoutHours: 1,
  maxIdleTimeoutDays: 30,
  scheduleMinutes: 15,
  /** A run stops closing well before it (its deadline), and the next run goes on. */
  sweeperTimeoutSeconds: 300,
} as const;

/**
 * What the customer is told when the agent cannot answer, in the default locale: the construct
 * documents them as the `@default`s of `fallbackText` and `deadlineFallbackText`; a pipeline's
 * `locale` gives its own.
 */
export const FALLBACK_TEXT_DEFAULTS = {
  /** A turn failed for good (every receive, or a failure no retry can fix) and no person takes the conversation. */
  turnFailed: DEFAULT_TEXTS.turnFailed,
  /** The agent had nothing to say: the turn's deadline came before any text, or the model answered none. */
  agentDeadline: DEFAULT_TEXTS.agentDeadline,
} as const;

/** The `@default` of `unsupportedMessageText`: a message of a type the pipeline cannot read, answered once per conversation instead of by the agent. */
export const UNSUPPORTED_MESSAGE_TEXT_DEFAULT = DEFAULT_TEXTS.unsupportedMessage;

/** The longest fallback text the construct accepts: one WhatsApp text message. */
export const FALLBACK_TEXT_MAX_CHARACTERS = 4096;

/**
 * Defaults of the media bucket (`media`): the construct documents them as its `@default`s and the
 * orchestrator falls back to them. The types are the ones Meta's Cloud API accepts on WhatsApp.
 */
export const MEDIA_DEFAULTS = {
  /** Meta's limit for audio and video; images are at most 5 MiB and documents 100 MiB there. */
  maxBytes: 16 * 1024 * 1024,
  /** The largest `maxBytes` a deployment may set: Meta's document limit. */
  maxBytesLimit: 100 * 1024 * 1024,
  /** Where every object lives in the bucket; the grants name this prefix only. */
  keyPrefix: 'media/',
  /** How long a turn waits for a voice note's transcript (`media.transcription.maxWait`), unless half the orchestrator's timeout is shorter. */
  transcriptionMaxWaitSeconds: 30,
  /** Between two reads of a transcription job's state. */
  transcriptionPollIntervalMs: 2_000,
  /** Every transcription job's name starts so (the rest is a hash of the object key, naming no customer); the grants name this prefix only. */
  transcriptionJobPrefix: 'voice-',
  allowedMimeTypes: [
    'image/jpeg',
    'image/png',
    'image/webp',
    'video/mp4',
    'video/3gpp',
    'audio/aac',
    'audio/amr',
    'audio/mpeg',
    'audio/mp4',
    'audio/ogg',
    'application/pdf',
    'text/plain',
    'application/msword',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.ms-excel',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.ms-powerpoint',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
} as const;

/** How long closed conversations and demands are kept (docs/PRIVACY.md). */
export const RETENTION_DEFAULTS = {
  /** A closed session and its messages, counted from the close. */
  conversationDays: 365,
  /** An out-of-portfolio demand, counted from when it was recorded. */
  demandDays: 730,
} as const;

/** The operator plane's defaults. */
export const OPERATOR_DEFAULTS = {
  /**
   * IANA zone whose midnight ends login links, operator sessions and availability, for the pt-BR
   * locale only: operators work in Brazil unless configured otherwise. With another locale the
   * construct asks for `timeZone` (a language does not tell where its speakers work).
   */
  timeZone: 'America/Sao_Paulo',
  handoffRenotifyAfterSeconds: 300,
  customerRenotifyAfterSeconds: 600,
  operatorTimeoutSeconds: 15,
  operatorMemorySize: 512,
  /** Bounds what a flood of requests to the public console URL can take from the account's concurrency. */
  operatorReservedConcurrency: 10,
} as const;

/** The evaluator function's (docs/EVALUATION.md): it plays a whole suite, twice, one run at a time. */
export const EVALUATOR_DEFAULTS = {
  /** Lambda's longest: a run of the console plays the suite against the current prompt and the draft. */
  timeoutSeconds: 900,
  /** One run at a time: a second waits in Lambda's asynchronous queue instead of doubling the model's load. */
  reservedConcurrency: 1,
  /**
   * How long a run may wait in that queue before Lambda drops it (it is not retried): a run the
   * operator function started is reported as not finished once this and the timeout have passed.
   */
  maxEventAgeSeconds: 3_600,
} as const;

/**
 * The texts the operator plane sends when a conversation goes to people, in the default locale,
 * unless the construct's `handoffTexts` or the admin's `handoff_texts` setting replaces them
 * (`HandoffTexts` documents each); a pipeline's `locale` gives its own.
 */
export const DEFAULT_HANDOFF_TEXTS: Required<HandoffTexts> = handoffTextsOf(DEFAULT_TEXTS);

/** Where a text the pipeline sends puts a link of ours (the console URL, a login link). */
export const LINK_PLACEHOLDER = '{link}';

/**
 * Whether `text` puts {@link LINK_PLACEHOLDER} anywhere but at its very end, the one place the
 * link may stand (a genuine notice always ends with it; see the operators' part of the README).
 */
export function misplacesLink(text: string): boolean {
  const trimmed = text.trimEnd();
  const at = trimmed.indexOf(LINK_PLACEHOLDER);
  return at !== -1 && at !== trimmed.length - LINK_PLACEHOLDER.length;
}

// In modules of their own, so the console takes them without the locale presets this one reads.
export { AGENT_STAGE_LIMITS } from './agent-stage-limits';
export { AGENT_TOOL_LIMITS } from './agent-tool-limits';
export { DEFAULT_SYSTEM_PROMPT } from './default-system-prompt';
export { AVAILABILITY_TTL_BOUNDS, HANDOFF_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_NAMES, SYSTEM_PROMPT_MAX_CHARACTERS } from './operator-setting-limits';
export { MODEL_PRICE_DEFAULTS, MODEL_PRICE_LIMITS, PROMPT_CACHE_PRICE_FACTORS, type ModelPrice } from './model-price-defaults';
