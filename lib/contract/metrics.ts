/**
 * The custom metrics the functions emit and the construct's alarms, dashboard and metric helpers read.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/**
 * How a turn ends (the orchestrator's turn report; `lambda/core/application/turn-settings.ts` says
 * what each means). Every turn counts one `Turn_<outcome>` metric: {@link turnOutcomeMetric}.
 */
export const TURN_OUTCOMES = [
  'answered',
  'resent',
  'superseded',
  'human_owned',
  'failed_permanent',
  'noop',
  'operator_command',
  'handed_off',
  'consent',
  'over_budget_told_already',
  'unsupported_told_already',
  'fallback',
  'maybe_sent',
  'outside_window',
  'burst_continued',
] as const;

export type TurnOutcome = (typeof TURN_OUTCOMES)[number];

/** The metric a turn with this outcome counts: `Turn_answered`, `Turn_failed_permanent`, … */
export function turnOutcomeMetric<Outcome extends TurnOutcome>(outcome: Outcome): `Turn_${Outcome}` {
  return `Turn_${outcome}`;
}

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
  /**
   * End User Messaging inbound: an event from another topic or account, of another WABA, naming a
   * linked number by another resource, or whose header and Meta entry disagree (refused, never retried).
   */
  inboundEnvelopeRefused: 'InboundEnvelopeRefused',
  /** Orchestrator: the agent's reply was sent. */
  turnAnswered: turnOutcomeMetric('answered'),
  /** Orchestrator: a turn failed on the receive that sends it to the dead-letter queue. */
  turnFailedPermanently: 'TurnFailedPermanently',
  /** Orchestrator: a turn's messages were parked and the customer got the fallback text as a notice (once per parked set). */
  failureNoticeSent: 'FailureNoticeSent',
  /** Orchestrator: the failure notice of parked messages could not be sent (best effort: the customer may have heard nothing). */
  failureNoticeFailed: 'FailureNoticeFailed',
  /** Orchestrator: a failure no retry can fix (bad agent output, a refusing model) was answered with the fallback text at once. */
  turnFallback: turnOutcomeMetric('fallback'),
  /** Orchestrator, with the operator plane: the agent failed for good and the conversation went to people with the fallback text. */
  turnHandedOff: turnOutcomeMetric('handed_off'),
  /** Orchestrator: WhatsApp refused a reply for good (e.g. the 24-hour window closed). */
  replyRefused: turnOutcomeMetric('failed_permanent'),
  /** Orchestrator: a reply send timed out or was cut off; it may or may not have reached the customer. */
  replyOutcomeUnknown: 'ReplyOutcomeUnknown',
  /**
   * Orchestrator: a reply an earlier attempt persisted (and may have sent before it died) no longer
   * answered the latest message: recorded `maybe_sent`, not sent again.
   */
  replyMaybeSent: turnOutcomeMetric('maybe_sent'),
  /**
   * Orchestrator: the customer's 24-hour window had closed when the turn would answer (a late
   * redrive, a backlog): no agent call, nothing sent, the conversation handed to people.
   */
  turnOutsideWindow: turnOutcomeMetric('outside_window'),
  /** Webhook and End User Messaging inbound: a status of Meta's recorded on the message it names (one write). */
  deliveryStatusRecorded: 'DeliveryStatusRecorded',
  /** Webhook and End User Messaging inbound: a status of an unknown message, a duplicate or an earlier status than recorded; nothing changed. */
  deliveryStatusIgnored: 'DeliveryStatusIgnored',
  /** Webhook and End User Messaging inbound: Meta could not deliver a message the pipeline sent (a `failed` status), any code. */
  deliveryFailed: 'DeliveryFailed',
  /** Webhook and End User Messaging inbound: a status settled a reply whose send outcome was unknown (`pending_send`, `maybe_sent`) as sent. */
  deliveryOutcomeSettled: 'DeliveryOutcomeSettled',
  /**
   * Webhook and End User Messaging inbound: Meta's fees, in US dollars, of the messages a
   * notification's statuses priced for the first time (each message once), at the packaged rate
   * table (lib/contract/meta-message-rates.ts): an estimate, never a bill.
   */
  metaFeesUsd: 'MetaFeesUsd',
  /** Webhook and End User Messaging inbound: messages Meta billed in a category the rate table has no rate for (left unpriced, never guessed). */
  metaMessagesUnpriced: 'MetaMessagesUnpriced',
  /** Orchestrator: an attachment was downloaded into the media bucket. */
  mediaDownloaded: 'MediaDownloaded',
  /** Orchestrator: an attachment was kept out on purpose (too large, a type not allowed); dimension `Reason`. */
  mediaRefused: 'MediaRefused',
  /** Orchestrator: an attachment could not be downloaded on the turn's last attempt; its message went on as text with a note. */
  mediaDownloadFailed: 'MediaDownloadFailed',
  /** Orchestrator: a voice note was transcribed; its transcript is what the agent and the history read. */
  voiceNoteTranscribed: 'VoiceNoteTranscribed',
  /** Orchestrator: a voice note went on without its transcript (the agent reads a note instead); dimension `Reason` (`failed`, `timed_out`, `unsupported_format`). */
  voiceNoteTranscriptionFailed: 'VoiceNoteTranscriptionFailed',
  /** Orchestrator: the agent's reply went with buttons, a list or a link button. */
  interactiveReplySent: 'InteractiveReplySent',
  /** Orchestrator: the agent's buttons, list or link button broke a WhatsApp limit and went as plain text (the options in it). */
  interactiveReplyFellBackToText: 'InteractiveReplyFellBackToText',
  /** Orchestrator: milliseconds the agent took for one turn. */
  agentLatency: 'AgentLatency',
  /** Orchestrator: model input tokens of a turn (from Converse `usage`). */
  agentInputTokens: 'AgentInputTokens',
  /** Orchestrator: model output tokens of a turn (from Converse `usage`). */
  agentOutputTokens: 'AgentOutputTokens',
  /** Orchestrator: input tokens of a turn read from the prompt cache (Converse `usage.cacheReadInputTokens`); only when caching is on. */
  agentCacheReadInputTokens: 'AgentCacheReadInputTokens',
  /** Orchestrator: input tokens of a turn written to the prompt cache (Converse `usage.cacheWriteInputTokens`); only when caching is on. */
  agentCacheWriteInputTokens: 'AgentCacheWriteInputTokens',
  /**
   * Orchestrator: the model cost of a turn, in US dollars, at the packaged model prices
   * (lib/contract/model-price-defaults.ts, prompt-cache tokens at their share); only for a model
   * those prices name: an estimate, never a bill.
   */
  agentCostUsd: 'AgentCostUsd',
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
  /** Orchestrator: a turn refused because the pipeline's daily token budget is spent (the budget's reply once a day per customer, no model call). */
  turnOverPipelineBudget: 'TurnOverPipelineBudget',
  /** Orchestrator, with a pipeline budget: the pipeline's model tokens of the UTC day as the instance knows them, with each turn (a gauge: read its maximum). */
  pipelineAgentTokensToday: 'PipelineAgentTokensToday',
  /**
   * Webhook and End User Messaging inbound: a part of a notification Meta signed that could not be
   * read (the whole body, a change, a message naming no customer, a status of the wrong shape):
   * counted and dropped, answered 200 so Meta does not send it again for days.
   */
  inboundUnreadable: 'InboundUnreadable',
  /** Webhook: a request answered 4xx (handshake refused, body too large, missing or invalid signature, wrong method). */
  webhookRejected: 'WebhookRejected',
  /** Webhook and End User Messaging inbound: delivery statuses in a notification (sent, delivered, read, failed). */
  statusesReceived: 'StatusesReceived',
  /** Inbound: a message registered and queued for the agent (also when a retry finished a half-done registration). */
  inboundDispatched: 'InboundDispatched',
  /** Inbound: a message already registered and dispatched (Meta's redelivery); nothing changed. */
  inboundDuplicates: 'InboundDuplicates',
  /** Inbound: a message for a session a human owns, put in their inbox instead of the agent's queue. */
  inboundRoutedToHuman: 'InboundRoutedToHuman',
  /** Inbound: a customer's reaction (or its removal), recorded on the message it reacts to; no turn. */
  inboundReactions: 'InboundReactions',
  /** Inbound: a customer's edit of a message still waiting for the agent, applied to it; no turn of its own. */
  inboundEdits: 'InboundEdits',
  /** Inbound: a customer deleted a message (WhatsApp Business app numbers): marked deleted, no longer read by the agent; no turn. */
  inboundRevokes: 'InboundRevokes',
  /** Inbound: a customer deleted a message the pipeline does not hold (too old, or never received); nothing changed. */
  inboundRevokesUnmatched: 'InboundRevokesUnmatched',
  /** Inbound (coexistence numbers): a message the business sent from the WhatsApp Business app, recorded in the customer's history (a redelivery's is not counted). */
  businessEchoesRecorded: 'BusinessEchoesRecorded',
  /** Inbound (coexistence numbers): a conversation the agent served, handed to people because the business answered from the WhatsApp Business app. */
  conversationsPausedFromPhone: 'ConversationsPausedFromPhone',
  /** Inbound: a customer message of the `standby` field (another app holds the thread), recorded in the history and not answered. */
  inboundStandbyRecorded: 'InboundStandbyRecorded',
  /** Inbound: a `messaging_handovers` change (thread control passed between apps); counted, nothing else. */
  messagingHandovers: 'MessagingHandovers',
  /** Inbound: Meta's template status changes applied to a stored template. */
  templateStatusUpdates: 'TemplateStatusUpdates',
  /** Orchestrator: a queue record whose body is not a dispatch message (logged and dropped). */
  badSqsBody: 'BadSqsBody',
  /** Orchestrator: model round trips of a turn. */
  agentIterations: 'AgentIterations',
  /** Orchestrator: consumer tool calls a turn made (replayed results not counted). */
  toolCalls: 'ToolCalls',
  /** Orchestrator: consumer tool calls the model was told failed (invalid input, malformed or too large result, unavailable); a business refusal is not one. */
  toolCallsFailed: 'ToolCallsFailed',
  /** Orchestrator: a tool with side effects called again under the key of an intent an earlier attempt left without a result (its outcome was unknown). */
  toolRecalls: 'ToolRecalledUnderSameKey',
  /** Orchestrator: a turn failed while sending its persisted reply (retried; the reply is not regenerated). */
  replySendFailed: 'ReplySendFailed',
  /** Orchestrator: a turn failed before its reply was sent (retried). */
  turnFailed: 'TurnFailed',
  /** Operator function: a sign-in link was redeemed. */
  operatorSignIn: 'OperatorSignIn',
  /** Operator function: a sign-in link was refused (wrong, used or expired). */
  operatorSignInRefused: 'OperatorSignInRefused',
  /** Operator function: an API call answered 500. */
  operatorRequestFailed: 'OperatorRequestFailed',
  /** Handoff sweeper: conversations waiting for a person, counted each run. */
  handoffsWaiting: 'HandoffsWaiting',
  /** Handoff sweeper: seconds the longest-waiting conversation has waited for a person, each run (0 when none waits). */
  oldestHandoffWaitingSeconds: 'OldestHandoffWaitingSeconds',
  /** Handoff sweeper: operator notifications and re-notifications sent in one run. */
  handoffNotifications: 'HandoffNotifications',
  /** Handoff sweeper: waiting customers reminded in one run. */
  handoffCustomerReminders: 'HandoffCustomerReminders',
  /** Handoff sweeper: template translations stored by a scheduled template sync. */
  templatesSynced: 'TemplatesSynced',
  /** Idle sweeper: conversations closed in one run because nobody wrote for `conversationIdleTimeout`. */
  conversationsClosedIdle: 'ConversationsClosedIdle',
  /** Idle sweeper: re-engagement templates sent in one run to customers who went quiet (`messageTemplates.reengagement`). */
  reengagementsSent: 'ReengagementsSent',
  /** Idle sweeper: 1 for a run whose re-engagement template is not stored, not approved, or takes values the pipeline cannot fill (a header, a button, more than the name), so nobody was re-engaged. */
  reengagementTemplateNotReady: 'ReengagementTemplateNotReady',
  /** Idle sweeper, with `media.transcription`: transcription jobs (the customers' words) deleted in one run, once no turn reads them again. */
  transcriptionJobsSwept: 'TranscriptionJobsSwept',
} as const;

/** Why Meta could not deliver a message (core/domain/delivery-receipt.ts says what each means). */
export const DELIVERY_FAILURE_CLASSES = ['window-closed', 'undeliverable', 'marketing-limit', 'unsupported-type', 'other'] as const;
export type DeliveryFailureClass = (typeof DELIVERY_FAILURE_CLASSES)[number];

/** The metric a `failed` status of this class counts besides `DeliveryFailed`: `DeliveryFailed_window-closed`, … */
export function deliveryFailureMetric<Class extends DeliveryFailureClass>(failureClass: Class): `DeliveryFailed_${Class}` {
  return `DeliveryFailed_${failureClass}`;
}

/** The name of any metric the functions emit. */
export type CustomMetricName = (typeof CUSTOM_METRICS)[keyof typeof CUSTOM_METRICS] | ReturnType<typeof deliveryFailureMetric>;

/**
 * What registering one inbound message can end in, and the metric each counts (a registration a
 * retry finished counts as dispatched). The register-inbound use case's outcome type is its keys.
 */
export const INBOUND_OUTCOME_METRICS = {
  dispatched: CUSTOM_METRICS.inboundDispatched,
  redispatched: CUSTOM_METRICS.inboundDispatched,
  duplicate: CUSTOM_METRICS.inboundDuplicates,
  human_inbox: CUSTOM_METRICS.inboundRoutedToHuman,
  reaction: CUSTOM_METRICS.inboundReactions,
  edited: CUSTOM_METRICS.inboundEdits,
  revoked: CUSTOM_METRICS.inboundRevokes,
  revoke_unmatched: CUSTOM_METRICS.inboundRevokesUnmatched,
} as const satisfies Record<string, CustomMetricName>;

export type InboundOutcome = keyof typeof INBOUND_OUTCOME_METRICS;

/** The metric an inbound message with this outcome counts. */
export function inboundOutcomeMetric(outcome: InboundOutcome): CustomMetricName {
  return INBOUND_OUTCOME_METRICS[outcome];
}

