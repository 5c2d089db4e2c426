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
  agentFunctionName: 'AGENT_FUNCTION_NAME',
  maxReceiveCount: 'MAX_RECEIVE_COUNT',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
} as const;

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
