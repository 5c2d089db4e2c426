/**
 * The custom metrics the functions emit and the construct's alarms, dashboard and metric helpers read.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

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

