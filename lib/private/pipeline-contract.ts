/**
 * The values the construct synthesizes AND the runtime relies on, in one place: the construct,
 * the Lambda handlers and the local runtime all read them from here, so a local table or queue
 * can never drift from the deployed one. Internal: not part of the jsii API.
 */

/** Key schema of the single table (docs/DESIGN.md#data-model). */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  timeToLiveAttribute: 'ttl',
} as const;

/**
 * Partition-key prefixes of the per-customer partitions (the rest of the key is the customer id).
 * The key builders use them, and the construct scopes IAM with them (`dynamodb:LeadingKeys`), so
 * a renamed prefix cannot leave a function without access to its own items.
 */
export const CUSTOMER_PARTITION_PREFIXES = {
  /** Sessions, the active-session pointer and the message history. */
  session: 'SESSION#',
  /** Inbound receipts, the latest-inbound marker and the legacy debounce items ("debounce" is the seed's name). */
  inbound: 'DEBOUNCE#',
  /** The customer's budget counts. */
  budget: 'BUDGET#',
} as const;

/** Partition-key prefix of a session's CRM projection row (the rest of the key is the session id). */
export const CRM_SYNC_PARTITION_PREFIX = 'CRM_SYNC#';

/** Queue and function values pinned by the design (docs/DESIGN.md). */
export const PIPELINE_DEFAULTS = {
  serviceName: 'gogenetic-agent',
  queueVisibilityTimeoutSeconds: 120,
  queueRetentionSeconds: 345_600,
  queueDeliveryDelaySeconds: 0,
  deadLetterQueueRetentionSeconds: 1_209_600,
  maxReceiveCount: 3,
  orchestratorTimeoutSeconds: 90,
  orchestratorBatchSize: 1,
  /** Meta Graph API root the sender posts to unless the consumer overrides it. */
  whatsAppApiBaseUrl: 'https://graph.facebook.com/v23.0',
  /** Meta API version End User Messaging Social passes the message through (`metaApiVersion`). */
  endUserMessagingMetaApiVersion: 'v20.0',
} as const;

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
  overBudgetReply: 'Recebemos muitas mensagens suas em pouco tempo. Por favor, aguarde alguns minutos e escreva de novo.',
  /** About 6,000 tokens of history: enough for the conversation, bounded whatever its messages hold. */
  historyMaxCharacters: 24_000,
  orchestratorMaxConcurrency: 20,
} as const;

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
  /** The system prompt set in the construct: seeded as a version of the admin prompt resource. */
  deployedSystemPrompt: 'AGENT_SYSTEM_PROMPT',
  agentFunctionName: 'AGENT_FUNCTION_NAME',
  maxReceiveCount: 'MAX_RECEIVE_COUNT',
  /** JSON of the per-customer budget: turnsPerMinute, turnsPerHour, agentTokensPerDay, reply. */
  customerBudget: 'CUSTOMER_BUDGET',
  agentHistoryMaxCharacters: 'AGENT_HISTORY_MAX_CHARACTERS',
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
  /** Which WhatsApp channel the functions talk to: a value of `WHATSAPP_CHANNEL_KINDS`; unset means the Cloud API. */
  whatsAppChannel: 'WHATSAPP_CHANNEL',
  /** End User Messaging: `metaPhoneNumberId=phone-number-id-…` pairs, comma-separated. */
  endUserMessagingPhoneNumbers: 'EUM_PHONE_NUMBERS',
  /** End User Messaging: the `metaApiVersion` of every send. */
  endUserMessagingMetaApiVersion: 'EUM_META_API_VERSION',
  /**
   * The phase of the write-shard migration (docs/DESIGN.md#write-shards): `migrating` or `sharded`
   * on every function that reads or writes sessions and messages; unset means `seed`.
   */
  keyLayout: 'KEY_LAYOUT',
  /** Seconds a closed session and its messages are kept after the close. */
  conversationRetentionSeconds: 'CONVERSATION_RETENTION_SECONDS',
  /** Seconds an out-of-portfolio demand is kept after it was recorded. */
  demandRetentionSeconds: 'DEMAND_RETENTION_SECONDS',
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

/** The CRM sync worker's schedule and timeout: a run stops taking rows well before the timeout. */
export const CRM_SYNC_DEFAULTS = {
  scheduleMinutes: 1,
  workerTimeoutSeconds: 120,
} as const;

/**
 * The custom metrics the functions emit through Powertools (namespace `POWERTOOLS_METRICS_NAMESPACE`,
 * one dimension `service` = `POWERTOOLS_SERVICE_NAME`). The construct's alarms, dashboard and
 * `metric*` helpers read the same names, so a renamed metric cannot silently orphan an alarm.
 */
export const CUSTOM_METRICS = {
  /** Webhook: a notification was accepted; value = customer messages in it. */
  inboundReceived: 'InboundReceived',
  /** Webhook: answered 5xx (table, queue or secret unavailable); Meta retries. */
  webhookServerError: 'WebhookServerError',
  /** Webhook: a POST without a valid X-Hub-Signature-256 (wrong or unfilled app secret, or not Meta). */
  webhookSignatureRejected: 'WebhookSignatureRejected',
  /** Webhook: messages for a business number outside `phoneNumberIds`, answered 200 and dropped. */
  inboundForeignNumberDropped: 'InboundForeignNumberDropped',
  /** Webhook: messages older than the receipt retention (a replayed payload), answered 200 and dropped. */
  inboundStaleDropped: 'InboundStaleDropped',
  /** End User Messaging inbound: an SNS delivery that is not an End User Messaging event (dropped, never retried). */
  inboundEnvelopeMalformed: 'InboundEnvelopeMalformed',
  /** Orchestrator: the agent's reply was sent. */
  turnAnswered: 'Turn_answered',
  /** Orchestrator: a turn failed on the receive that sends it to the dead-letter queue. */
  turnFailedPermanently: 'TurnFailedPermanently',
  /** Orchestrator: WhatsApp refused a reply for good (e.g. the 24-hour window closed). */
  replyRefused: 'Turn_failed_permanent',
  /** Orchestrator: a reply send timed out or was cut off; it may or may not have reached the customer. */
  replyOutcomeUnknown: 'ReplyOutcomeUnknown',
  /** Orchestrator: milliseconds the agent took for one turn. */
  agentLatency: 'AgentLatency',
  /** Orchestrator: model input tokens of a turn (from Converse `usage`). */
  agentInputTokens: 'AgentInputTokens',
  /** Orchestrator: model output tokens of a turn (from Converse `usage`). */
  agentOutputTokens: 'AgentOutputTokens',
  /** CRM sync worker: revisions the CRM accepted in one run. */
  crmSyncSent: 'CrmSyncSent',
  /** CRM sync worker: sends the CRM asked to retry in one run. */
  crmSyncRetrying: 'CrmSyncRetrying',
  /** CRM sync worker: BLOCKED rows (the attempt budget ran out or the CRM refused), counted each run. */
  crmSyncBlockedRows: 'CrmSyncBlockedRows',
  /** CRM sync worker: UNCERTAIN rows (a create may or may not have happened), counted each run. */
  crmSyncUncertainRows: 'CrmSyncUncertainRows',
  /** Orchestrator: a turn refused by the customer's budget (answered with the over-budget reply, no model call). */
  turnOverBudget: 'TurnOverBudget',
} as const;

/**
 * The neutral system prompt the library ships: a starting point for any business, replaced by
 * `AgentBackend.bedrock({ systemPrompt })` or edited in the console.
 */
export const DEFAULT_SYSTEM_PROMPT =
  'You are the WhatsApp assistant of this business. Answer briefly, kindly and in the customer’s language; ' +
  'use only what you know from this conversation and never invent prices, dates or policies. ' +
  'Find out what the customer needs and record it with the qualification tool. ' +
  'Hand the conversation to a human when the customer asks for one, when the request is sensitive, or when you cannot help.';

/** Values of `RUNTIME_ENV.agentBackend`: which agent adapter the orchestrator wires in. */
export const AGENT_BACKEND_KINDS = {
  bedrock: 'bedrock',
  lambda: 'lambda',
  scripted: 'scripted',
} as const;

/**
 * Value the construct writes into the fields of a freshly created WhatsApp secret that only the
 * operator can supply (Meta issues them); the runtime can recognise an unfilled secret by it.
 */
export const WHATSAPP_SECRET_PLACEHOLDER = 'REPLACE_ME';

/** Keys of the JSON document stored in the WhatsApp secret. */
export const WHATSAPP_SECRET_FIELDS = {
  appSecret: 'appSecret',
  verifyToken: 'verifyToken',
  accessToken: 'accessToken',
} as const;

/**
 * Keys the WhatsApp secret may carry besides the required ones. `previousAppSecret`: during an app
 * secret rotation, the old secret, accepted on inbound signatures until it is removed.
 */
export const WHATSAPP_SECRET_OPTIONAL_FIELDS = {
  previousAppSecret: 'previousAppSecret',
} as const;

/** Physical resource names, derived as in the original template. */
export function physicalNames(serviceName: string, environment: string) {
  return {
    table: `${serviceName}-${environment}`,
    // "debounce" is the original design's name for the turn queue; renaming a deployed queue would replace it.
    queue: `${serviceName}-debounce-${environment}.fifo`,
    deadLetterQueue: `${serviceName}-debounce-dlq-${environment}.fifo`,
  };
}

/**
 * The CloudFormation outputs every pipeline adds to its stack, read by the package's command-line
 * tools (`npx cdk-whatsapp-agent-pipeline redrive --stack …`) instead of rebuilding names. The
 * output key is the pipeline's construct id (letters and digits only) followed by the suffix, e.g.
 * `PipelineDeadLetterQueueUrl` for `new AgentPipeline(stack, 'Pipeline', …)`. Renaming one breaks
 * deployed stacks' tools: these are public, documented names.
 */
export const STACK_OUTPUTS = {
  tableName: 'TableName',
  turnQueueUrl: 'TurnQueueUrl',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  webhookUrl: 'WebhookUrl',
  whatsAppSecretArn: 'WhatsAppSecretArn',
  /** Only when the operator plane is on. */
  consoleUrl: 'ConsoleUrl',
  /** Only on the End User Messaging channel (then there is no webhook URL nor WhatsApp secret). */
  eventTopicArn: 'EventTopicArn',
} as const;

/** The output key of `suffix` (a `STACK_OUTPUTS` value) for the pipeline with construct id `pipelineId`. */
export function stackOutputKey(pipelineId: string, suffix: string): string {
  return `${pipelineId.replace(/[^A-Za-z0-9]/g, '')}${suffix}`;
}
