/**
 * The environment variables of the pipeline's functions, and the enumerated values their settings
 * take. A function's environment holds only what CloudFormation resolves at deploy time (the names,
 * ARNs and URLs of resources) and what Powertools reads itself; every other setting is in the
 * function's settings document (deployment-plan.ts). CDK-free: the construct, the Lambda handlers,
 * the console and the local runtime import it alike. Internal: not part of the jsii API.
 */

/** Environment variables the construct sets and the handlers read. */
export const RUNTIME_ENV = {
  tableName: 'DYNAMODB_TABLE',
  turnQueueUrl: 'TURN_QUEUE_URL',
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  whatsAppSecretArn: 'WHATSAPP_SECRET_ARN',
  whatsAppApiBaseUrl: 'WHATSAPP_API_BASE_URL',
  /** Comma-separated Meta phone number ids the webhook serves; unset: every number of the Meta app. */
  businessPhoneNumberIds: 'WHATSAPP_PHONE_NUMBER_IDS',
  /** The Bedrock model id or inference profile of a Bedrock agent. */
  bedrockModelId: 'BEDROCK_MODEL_ID',
  bedrockGuardrailId: 'BEDROCK_GUARDRAIL_ID',
  bedrockGuardrailVersion: 'BEDROCK_GUARDRAIL_VERSION',
  /** The Bedrock knowledge base a Bedrock agent searches (`knowledgeBase.knowledgeBaseId`). */
  bedrockKnowledgeBaseId: 'BEDROCK_KNOWLEDGE_BASE_ID',
  /** The consumer's agent function (`AgentBackend.fromFunction()`). */
  agentFunctionName: 'AGENT_FUNCTION_NAME',
  /** The functions of a Bedrock agent's consumer tools (`AgentTool.fromFunction()`): `name=function,name=function`. */
  agentToolFunctions: 'AGENT_TOOL_FUNCTIONS',
  /**
   * With `AgentBackend.stages()`: JSON of each stage's own variables of those above (`{"qualify":
   * {"BEDROCK_MODEL_ID": "…"}, "register": {"AGENT_FUNCTION_NAME": "…"}}`); the rest of each stage
   * is in the settings document.
   */
  agentStageVariables: 'AGENT_STAGE_VARIABLES',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  /** `false` when the deployment turns tracing off; unset, Powertools traces wherever Lambda does. */
  traceEnabled: 'POWERTOOLS_TRACE_ENABLED',
  crmFunctionName: 'CRM_FUNCTION_NAME',
  crmWebhookUrl: 'CRM_WEBHOOK_URL',
  /** The secret whose whole value is the webhook's HMAC signing key. */
  crmWebhookSecretArn: 'CRM_WEBHOOK_SECRET_ARN',
  /** End User Messaging inbound: the event topic; deliveries from any other topic are refused. */
  endUserMessagingEventTopicArn: 'EUM_EVENT_TOPIC_ARN',
  /** End User Messaging inbound: the deployment's account; events of any other account are refused. */
  endUserMessagingAccountId: 'EUM_ACCOUNT_ID',
  /** The media bucket, when `media` is on. */
  mediaBucketName: 'MEDIA_BUCKET_NAME',
  /** The operator function's URL, which the orchestrator and the handoff sweeper put in links. */
  consoleUrl: 'CONSOLE_URL',
  /** The evaluator function, which the operator function invokes to play an evaluation run. */
  evaluatorFunctionName: 'EVALUATOR_FUNCTION_NAME',
} as const;

/** Values of the channel's `kind`. */
export const WHATSAPP_CHANNEL_KINDS = {
  cloudApi: 'cloud-api',
  endUserMessaging: 'end-user-messaging',
} as const;

/** Values of the CRM target's `kind`. */
export const CRM_TARGET_KINDS = {
  function: 'function',
  webhook: 'webhook',
} as const;

/** Values of the agent's `backend`: which agent adapter the orchestrator wires in. */
export const AGENT_BACKEND_KINDS = {
  bedrock: 'bedrock',
  lambda: 'lambda',
  scripted: 'scripted',
  /** Named agents, each configured as a single agent is. */
  stages: 'stages',
} as const;

/** The field of the scheduled event that runs the handoff sweeper as the template sync instead of a sweep. */
export const TEMPLATE_SYNC_EVENT_FIELD = 'syncTemplates';
