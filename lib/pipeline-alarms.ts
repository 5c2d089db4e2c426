import type * as sns from 'aws-cdk-lib/aws-sns';

/** How urgent an alarm of the pipeline is: it decides which topic the alarm notifies. */
export enum AlarmSeverity {
  /** Customers go unanswered, or a turn waits for a redrive: someone should look now. */
  CRITICAL = 'critical',
  /** Something degrades, heals by itself or waits for a person: it can wait for working hours. */
  WARNING = 'warning',
}

/**
 * How one alarm of the pipeline evaluates and whom it notifies. Every alarm but `dailyCost` (whose
 * periods are days) evaluates one-minute periods and fires when its metric is above `threshold` in
 * `datapointsToAlarm` of the last `evaluationPeriods` periods. A field left out keeps the alarm's own default (each field of
 * `PipelineAlarmOverrides` documents it).
 */
export interface AlarmTuning {
  /**
   * The value the metric must exceed, in the metric's unit: a count per minute for counts, seconds
   * for `oldestMessageAge` and `oldestHandoffWaiting`, milliseconds for the `*Duration` alarms, model
   * tokens for `pipelineBudgetNear`, US dollars for `dailyCost`. Wins over `alarmThresholds`, `oldestMessageAgeAlarmThreshold`
   * and `pipelineBudget.alarmAtShareOfBudget`. At least 0.
   *
   * @default - the alarm's default, or the threshold those props give it
   */
  readonly threshold?: number;

  /**
   * How many periods the alarm looks back over: one-minute periods (1 to 1440, a day), except
   * `dailyCost`'s, which are days (1 to 7).
   *
   * @default - the alarm's default, raised to `datapointsToAlarm` when that is larger
   */
  readonly evaluationPeriods?: number;

  /**
   * How many of those periods must be above the threshold for the alarm to fire (1 to
   * `evaluationPeriods`).
   *
   * @default - the alarm's default, lowered to `evaluationPeriods` when that is smaller
   */
  readonly datapointsToAlarm?: number;

  /**
   * Whether the alarm notifies anyone. `false` keeps the alarm (its state still shows on the
   * dashboard and in `alarms`, and its `*Alarm` property stays) but disables its actions, so it
   * notifies no topic.
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Which topic the alarm notifies: `PipelineAlarmOptions.criticalTopic` or `warningTopic`.
   *
   * @default - the alarm's default
   */
  readonly severity?: AlarmSeverity;
}

/**
 * Tuning of single alarms, one field per alarm id (the name of its `*Alarm` property without
 * `Alarm`). The tuning of an alarm the pipeline does not create (e.g. `modelThrottles` without
 * Bedrock) is refused at synth, with the list of the alarms it creates. Each field's default is
 * the alarm's severity, threshold and `datapointsToAlarm` of `evaluationPeriods` minutes.
 */
export interface PipelineAlarmOverrides {
  /**
   * Turns in the dead-letter queue (`deadLetterQueueAlarm`).
   *
   * @default - critical, above `alarmThresholds.deadLetterQueueMessages` (0) in 1 of 1 minutes
   */
  readonly deadLetterQueue?: AlarmTuning;

  /**
   * The age of the oldest turn in the queue, in seconds (`oldestMessageAgeAlarm`).
   *
   * @default - critical, above `oldestMessageAgeAlarmThreshold` (600 s) in 1 of 1 minutes
   */
  readonly oldestMessageAge?: AlarmTuning;

  /**
   * Webhook crashes and timeouts (`webhookErrorsAlarm`).
   *
   * @default - critical, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly webhookErrors?: AlarmTuning;

  /**
   * Webhook throttles; Meta retries (`webhookThrottlesAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionThrottles` (0) in 3 of 5 minutes
   */
  readonly webhookThrottles?: AlarmTuning;

  /**
   * The webhook's p99 duration, in milliseconds (`webhookDurationAlarm`).
   *
   * @default - warning, above `alarmThresholds.durationShareOfTimeout` (80 %) of its timeout in 3 of 5 minutes
   */
  readonly webhookDuration?: AlarmTuning;

  /**
   * Webhook answers with a 5xx status; Meta retries (`webhookServerErrorsAlarm`).
   *
   * @default - critical, above `alarmThresholds.webhookServerErrors` (0) in 3 of 5 minutes
   */
  readonly webhookServerErrors?: AlarmTuning;

  /**
   * Webhook POSTs refused for their signature (`webhookSignatureRejectedAlarm`). A scanner's burst
   * of unsigned POSTs stays below the default; a wrong app secret on a busy number does not.
   *
   * @default - warning, above `alarmThresholds.webhookSignatureRejections` (5) in 5 of 5 minutes
   */
  readonly webhookSignatureRejected?: AlarmTuning;

  /**
   * Orchestrator crashes and timeouts (`orchestratorErrorsAlarm`).
   *
   * @default - critical, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly orchestratorErrors?: AlarmTuning;

  /**
   * Orchestrator throttles, which count towards the dead-letter queue (`orchestratorThrottlesAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionThrottles` (0) in 1 of 1 minutes
   */
  readonly orchestratorThrottles?: AlarmTuning;

  /**
   * The orchestrator's p99 duration, in milliseconds (`orchestratorDurationAlarm`).
   *
   * @default - warning, above `alarmThresholds.durationShareOfTimeout` (80 %) of its timeout in 3 of 5 minutes
   */
  readonly orchestratorDuration?: AlarmTuning;

  /**
   * Turns that failed on their last receive (`turnFailedPermanentlyAlarm`).
   *
   * @default - critical, above `alarmThresholds.permanentTurnFailures` (0) in 1 of 1 minutes
   */
  readonly turnFailedPermanently?: AlarmTuning;

  /**
   * Turns answered with the fallback text (`turnFallbackAlarm`).
   *
   * @default - warning, above `alarmThresholds.turnsAnsweredWithFallback` (0) in 1 of 1 minutes
   */
  readonly turnFallback?: AlarmTuning;

  /**
   * Replies whose delivery could not be confirmed (`replyOutcomeUnknownAlarm`).
   *
   * @default - warning, above `alarmThresholds.replyOutcomesUnknown` (0) in 1 of 1 minutes
   */
  readonly replyOutcomeUnknown?: AlarmTuning;

  /**
   * Messages WhatsApp accepted and then reported it could not deliver (`deliveryFailedAlarm`).
   *
   * @default - warning, above `alarmThresholds.deliveryFailures` (0) in 1 of 1 minutes
   */
  readonly deliveryFailed?: AlarmTuning;

  /**
   * Attachments that could not be downloaded on the turn's last attempt; only with `media` on (`mediaDownloadFailedAlarm`).
   *
   * @default - warning, above 0 in 1 of 1 minutes
   */
  readonly mediaDownloadFailed?: AlarmTuning;

  /**
   * Throttled requests to the table (`tableThrottlesAlarm`).
   *
   * @default - warning, above `alarmThresholds.tableThrottledRequests` (0) in 3 of 5 minutes
   */
  readonly tableThrottles?: AlarmTuning;

  /**
   * Bedrock throttling the model; only with `AgentBackend.bedrock()` (`modelThrottlesAlarm`).
   *
   * @default - warning, above `alarmThresholds.modelThrottles` (0) in 3 of 5 minutes
   */
  readonly modelThrottles?: AlarmTuning;

  /**
   * Calls of the agent to the consumer's tools that the model was told failed; only with
   * `AgentTool`s (`toolCallsFailedAlarm`).
   *
   * @default - warning, above 0 in 3 of 5 minutes
   */
  readonly toolCallsFailed?: AlarmTuning;

  /**
   * Idle sweeper crashes and timeouts; the next run catches up (`idleSweeperErrorsAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly idleSweeperErrors?: AlarmTuning;

  /**
   * CRM sync worker crashes and timeouts; only with `crmSync` (`crmSyncErrorsAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly crmSyncErrors?: AlarmTuning;

  /**
   * Conversations BLOCKED in the CRM sync; only with `crmSync` (`crmSyncBlockedAlarm`).
   *
   * @default - warning, above `alarmThresholds.crmSyncBlockedRows` (0) in 1 of 1 minutes
   */
  readonly crmSyncBlocked?: AlarmTuning;

  /**
   * Conversations UNCERTAIN in the CRM sync; only with `crmSync` (`crmSyncUncertainAlarm`).
   *
   * @default - warning, above `alarmThresholds.crmSyncUncertainRows` (0) in 1 of 1 minutes
   */
  readonly crmSyncUncertain?: AlarmTuning;

  /**
   * Operator function crashes and timeouts: the console fails; only with the operator plane
   * (`operatorErrorsAlarm`).
   *
   * @default - critical, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly operatorErrors?: AlarmTuning;

  /**
   * Handoff sweeper crashes and timeouts; the next run catches up; only with the operator plane
   * (`handoffSweeperErrorsAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly handoffSweeperErrors?: AlarmTuning;

  /**
   * Seconds the longest-waiting customer has waited for a person; only with the operator plane
   * (`oldestHandoffWaitingAlarm`).
   *
   * @default - warning, above `alarmThresholds.handoffWaitingMinutes` (30 min) in 1 of 1 minutes
   */
  readonly oldestHandoffWaiting?: AlarmTuning;

  /**
   * Evaluator function crashes and timeouts: a prompt evaluation started in the console ends as not
   * finished and the CLI's `eval --stack` fails; only with the operator plane (`evaluatorErrorsAlarm`).
   *
   * @default - warning, above `alarmThresholds.functionErrors` (0) in 1 of 1 minutes
   */
  readonly evaluatorErrors?: AlarmTuning;

  /**
   * End User Messaging events waiting in the inbound dead-letter queue; only with End User
   * Messaging (`inboundDeadLetterQueueAlarm`).
   *
   * @default - critical, above `alarmThresholds.deadLetterQueueMessages` (0) in 1 of 1 minutes
   */
  readonly inboundDeadLetterQueue?: AlarmTuning;

  /**
   * End User Messaging events refused for their origin; only with End User Messaging
   * (`inboundEnvelopeRefusedAlarm`).
   *
   * @default - warning, above `alarmThresholds.inboundEnvelopesRefused` (0) in 1 of 1 minutes
   */
  readonly inboundEnvelopeRefused?: AlarmTuning;

  /**
   * The model tokens used today nearing the daily budget; only with `pipelineBudget`
   * (`pipelineBudgetNearAlarm`).
   *
   * @default - warning, above `pipelineBudget.alarmAtShareOfBudget` (80 %) of the budget in 1 of 1 minutes
   */
  readonly pipelineBudgetNear?: AlarmTuning;

  /**
   * Turns refused because the daily budget is spent; only with `pipelineBudget`
   * (`pipelineBudgetRefusalsAlarm`).
   *
   * @default - critical, above 0 in 1 of 1 minutes
   */
  readonly pipelineBudgetRefusals?: AlarmTuning;

  /**
   * The pipeline's estimated cost of the last day above `alarms.dailyCostUsd`, in US dollars; only
   * with that prop (`dailyCostAlarm`). Its periods are days: `evaluationPeriods` counts days (at most 7).
   *
   * @default - warning, above `alarms.dailyCostUsd` in 1 of 1 days
   */
  readonly dailyCost?: AlarmTuning;
}

/**
 * Names, topics and tuning of the pipeline's alarms. The alarms come in two severities, each sent
 * to its own topic (both default to `alarmTopic`), so that the on-call is paged only when customers
 * go unanswered. docs/OPERATIONS.md ("Alarms") lists every alarm with its id and defaults.
 */
export interface PipelineAlarmOptions {
  /**
   * The first part of every alarm name: alarms are named `${alarmNamePrefix}-${alarmId}` (e.g.
   * `orders-prod-deadLetterQueue`). Alarm names are unique per account and Region, so two
   * pipelines there need different prefixes. Printable ASCII.
   *
   * @default - the stack name and the construct's path in the stack, joined by hyphens (e.g. `MyStack-Pipeline`)
   */
  readonly alarmNamePrefix?: string;

  /**
   * SNS topic the critical alarms notify on ALARM and back to OK: customers go unanswered, or
   * turns wait for a redrive.
   *
   * @default - `alarmTopic`; without it, the critical alarms have no actions
   */
  readonly criticalTopic?: sns.ITopic;

  /**
   * SNS topic the warning alarms notify on ALARM and back to OK: the pipeline degrades, or
   * something waits for a person in working hours.
   *
   * @default - `alarmTopic`; without it, the warning alarms have no actions
   */
  readonly warningTopic?: sns.ITopic;

  /**
   * Creates `dailyCostAlarm`, which fires when the pipeline's estimated cost of a day exceeds this
   * many US dollars: Meta's fees of the messages it sent (`MetaFeesUsd`, priced from Meta's statuses
   * at the packaged rate table) plus the model's tokens (`AgentCostUsd`, at the packaged model
   * prices), summed over a one-day period. An estimate for catching a runaway day, never a bill:
   * the console's reports use the admin's prices; AWS's own charges are not in it.
   *
   * @default - no cost alarm
   */
  readonly dailyCostUsd?: number;

  /**
   * Threshold, periods, severity or disabling of single alarms, by alarm id.
   *
   * @default - every alarm with its defaults
   */
  readonly overrides?: PipelineAlarmOverrides;
}
