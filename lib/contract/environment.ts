/**
 * Environment variables the construct sets and the handlers read, and their enumerated values.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/** Environment variables the construct sets and the handlers read. */
export const RUNTIME_ENV = {
  tableName: 'DYNAMODB_TABLE',
  turnQueueUrl: 'TURN_QUEUE_URL',
  whatsAppSecretArn: 'WHATSAPP_SECRET_ARN',
  whatsAppApiBaseUrl: 'WHATSAPP_API_BASE_URL',
  businessPhoneNumberIds: 'WHATSAPP_PHONE_NUMBER_IDS',
  agentBackend: 'AGENT_BACKEND',
  bedrockModelId: 'BEDROCK_MODEL_ID',
  /** JSON of the Converse `inferenceConfig` (maxTokens, temperature, topP, stopSequences). */
  bedrockInferenceConfig: 'BEDROCK_INFERENCE_CONFIG',
  bedrockGuardrailId: 'BEDROCK_GUARDRAIL_ID',
  bedrockGuardrailVersion: 'BEDROCK_GUARDRAIL_VERSION',
  /** `true` or `false` when the construct sets `promptCaching`; absent: the model table of prompt-caching.ts decides. */
  bedrockPromptCaching: 'BEDROCK_PROMPT_CACHING',
  /** The system prompt set in the construct: seeded as a version of the admin prompt resource. */
  deployedSystemPrompt: 'AGENT_SYSTEM_PROMPT',
  agentFunctionName: 'AGENT_FUNCTION_NAME',
  /** `2` when `AgentBackend.fromFunction()` opted in to contract version 2 (attachments); absent: version 1. */
  agentFunctionContractVersion: 'AGENT_FUNCTION_CONTRACT_VERSION',
  /**
   * JSON of `AgentBackend.stages()` (with `AGENT_BACKEND=stages`): `{entry, maxHandoversPerTurn,
   * agents: {name: {…the stage's own variables: AGENT_BACKEND, BEDROCK_MODEL_ID, AGENT_SYSTEM_PROMPT…}}}`.
   */
  agentStages: 'AGENT_STAGES',
  maxReceiveCount: 'MAX_RECEIVE_COUNT',
  /** JSON of the per-customer budget: turnsPerMinute, turnsPerHour, agentTokensPerDay, reply. */
  customerBudget: 'CUSTOMER_BUDGET',
  /** JSON of the pipeline-wide daily budget, when `pipelineBudget` sets one: agentTokensPerDay, reply. */
  pipelineBudget: 'PIPELINE_BUDGET',
  agentHistoryMaxCharacters: 'AGENT_HISTORY_MAX_CHARACTERS',
  /** What the customer is told when a turn fails for good and no person takes the conversation. */
  fallbackText: 'FALLBACK_TEXT',
  /** What an agent answers when it has nothing better to say (the deadline came first, or no text). */
  deadlineFallbackText: 'AGENT_DEADLINE_FALLBACK_TEXT',
  /** What the customer is told, once per conversation, about a message of a type the pipeline cannot read. */
  unsupportedMessageText: 'UNSUPPORTED_MESSAGE_TEXT',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  /** `false` when the deployment turns tracing off; unset, Powertools traces wherever Lambda does. */
  traceEnabled: 'POWERTOOLS_TRACE_ENABLED',
  /** `true` on every function when `crmSync` is set: session writes carry the CRM projection. */
  crmSyncEnabled: 'CRM_SYNC_ENABLED',
  /** The CRM sync worker's target: a value of `CRM_TARGET_KINDS`. */
  crmTarget: 'CRM_TARGET',
  crmFunctionName: 'CRM_FUNCTION_NAME',
  crmWebhookUrl: 'CRM_WEBHOOK_URL',
  /** The secret whose whole value is the webhook's HMAC signing key. */
  crmWebhookSecretArn: 'CRM_WEBHOOK_SECRET_ARN',
  /**
   * The WhatsApp Business Account whose templates are synced: Meta's numeric id on the Cloud API,
   * the linked account's `waba-…` id on End User Messaging. Unset: no template sync.
   */
  whatsAppBusinessAccountId: 'WHATSAPP_BUSINESS_ACCOUNT_ID',
  /** Which WhatsApp channel the functions talk to: a value of `WHATSAPP_CHANNEL_KINDS`; unset means the Cloud API. */
  whatsAppChannel: 'WHATSAPP_CHANNEL',
  /** End User Messaging: `metaPhoneNumberId=phone-number-id-…` pairs, comma-separated. */
  endUserMessagingPhoneNumbers: 'EUM_PHONE_NUMBERS',
  /** End User Messaging: the `metaApiVersion` of every send. */
  endUserMessagingMetaApiVersion: 'EUM_META_API_VERSION',
  /** End User Messaging inbound: the event topic; deliveries from any other topic are refused. */
  endUserMessagingEventTopicArn: 'EUM_EVENT_TOPIC_ARN',
  /** End User Messaging inbound: the deployment's account; events of any other account are refused. */
  endUserMessagingAccountId: 'EUM_ACCOUNT_ID',
  /** End User Messaging inbound: Meta's WABA ids whose events are taken, comma-separated; unset means any WABA of the account. */
  endUserMessagingWabaIds: 'EUM_WABA_IDS',
  /**
   * The phase of the write-shard migration (docs/DESIGN.md#write-shards): `migrating` or `sharded`
   * on every function that reads or writes sessions and messages; unset means `seed`.
   */
  keyLayout: 'KEY_LAYOUT',
  /** Seconds a closed session and its messages are kept after the close. */
  conversationRetentionSeconds: 'CONVERSATION_RETENTION_SECONDS',
  /** Seconds an out-of-portfolio demand is kept after it was recorded. */
  demandRetentionSeconds: 'DEMAND_RETENTION_SECONDS',
  /**
   * The pipeline's `Locale` (`pt-BR`, `en`, `es`) on every function: the texts it sends, the opt-out
   * and opt-in words the inbound functions route and the orchestrator records, the console's
   * language; unset means `pt-BR`.
   */
  locale: 'PIPELINE_LOCALE',
  /** Idle sweeper: seconds after its last activity that a conversation the agent serves is closed. */
  conversationIdleTimeoutSeconds: 'CONVERSATION_IDLE_TIMEOUT_SECONDS',
  /** Idle sweeper: JSON `{name, language}` of the template a customer who went quiet is sent once; its presence turns the re-engagement on. */
  reengagementTemplate: 'REENGAGEMENT_TEMPLATE',
  /** Idle sweeper: seconds after its last activity that a quiet conversation is re-engaged. */
  reengagementAfterSeconds: 'REENGAGEMENT_AFTER_SECONDS',
  /** The media bucket, when `media` is on: its presence turns the download step on. */
  mediaBucketName: 'MEDIA_BUCKET_NAME',
  /** The largest attachment kept, in bytes. */
  mediaMaxBytes: 'MEDIA_MAX_BYTES',
  /** Comma-separated MIME types (or `family/*`) kept. */
  mediaAllowedMimeTypes: 'MEDIA_ALLOWED_MIME_TYPES',
  /** The language voice notes are transcribed in, when `media.transcription` is on: its presence turns the transcription step on. */
  mediaTranscriptionLanguageCode: 'MEDIA_TRANSCRIPTION_LANGUAGE_CODE',
  /** Seconds the turn waits for a voice note's transcript. */
  mediaTranscriptionMaxWaitSeconds: 'MEDIA_TRANSCRIPTION_MAX_WAIT_SECONDS',
  /**
   * Idle sweeper, with `media.transcription`: the turn budget in seconds (the queue's receives ×
   * its visibility timeout), after which it deletes the transcription jobs that ended. Its presence
   * turns the sweep of jobs on.
   */
  transcriptionJobsSweepAfterSeconds: 'TRANSCRIPTION_JOBS_SWEEP_AFTER_SECONDS',
} as const;

/** Values of `RUNTIME_ENV.whatsAppChannel`. */
export const WHATSAPP_CHANNEL_KINDS = {
  cloudApi: 'cloud-api',
  endUserMessaging: 'end-user-messaging',
} as const;

/** Values of `RUNTIME_ENV.crmTarget`. */
export const CRM_TARGET_KINDS = {
  function: 'function',
  webhook: 'webhook',
} as const;

/** Values of `RUNTIME_ENV.agentBackend`: which agent adapter the orchestrator wires in. */
export const AGENT_BACKEND_KINDS = {
  bedrock: 'bedrock',
  lambda: 'lambda',
  scripted: 'scripted',
  /** Named agents, each configured by its own variables inside `AGENT_STAGES`. */
  stages: 'stages',
} as const;


/** Environment variables of the operator plane (the orchestrator and the operator function read them). */
export const OPERATOR_ENV = {
  /** Comma-separated deploy-time admin phones; its presence turns the plane on. */
  adminPhoneNumbers: 'OPERATOR_ADMIN_PHONE_NUMBERS',
  /** JSON object of deploy-time admins' names by phone (the operator function's only; set when the deployment names any). */
  adminDisplayNames: 'OPERATOR_ADMIN_DISPLAY_NAMES',
  /** IANA zone whose midnight ends login links, operator sessions and availability. */
  timeZone: 'OPERATOR_TIME_ZONE',
  /** The operator function's URL, which the orchestrator puts in login links. */
  consoleUrl: 'CONSOLE_URL',
  /** JSON object of the deployment's handoff texts (the `handoff_texts` setting overrides them). */
  handoffTexts: 'HANDOFF_TEXTS',
  handoffRenotifyAfterSeconds: 'HANDOFF_RENOTIFY_AFTER_SECONDS',
  /** JSON `{name, language}` of the template a handoff notice goes as to an operator whose window is closed. */
  handoffNoticeTemplate: 'HANDOFF_NOTICE_TEMPLATE',
  customerRenotifyAfterSeconds: 'CUSTOMER_RENOTIFY_AFTER_SECONDS',
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
} as const;

/** The field of the scheduled event that runs the handoff sweeper as the template sync instead of a sweep. */
export const TEMPLATE_SYNC_EVENT_FIELD = 'syncTemplates';

/** Splits the comma-separated admin list the construct writes. */
export function parseAdminPhoneNumbers(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((phone) => phone.trim())
    .filter((phone) => phone !== '');
}
