/**
 * Alarm thresholds: each alarm fires when its metric is ABOVE the threshold in `datapointsToAlarm`
 * of its `evaluationPeriods` one-minute periods (`PipelineAlarmOverrides` gives each alarm's). Counts
 * are per minute. A field shared by several alarms (e.g. `functionErrors`) moves them all;
 * `alarms.overrides` moves one.
 */
export interface AlarmThresholds {
  /**
   * Webhook answers with a 5xx status (table, queue or secret unavailable); Meta retries them.
   *
   * @default 0
   */
  readonly webhookServerErrors?: number;

  /**
   * Webhook POSTs with a missing or invalid signature. A wrong or unfilled app secret refuses every
   * Meta delivery, minute after minute; an internet scanner's burst of unsigned POSTs is short.
   * With the alarm's default of 5 of 5 minutes, the default lets a burst pass.
   *
   * @default 5
   */
  readonly webhookSignatureRejections?: number;

  /**
   * Turns that failed on their last receive and went to the dead-letter queue.
   *
   * @default 0
   */
  readonly permanentTurnFailures?: number;

  /**
   * Replies whose delivery could not be confirmed (timeout or cut-off connection to WhatsApp).
   *
   * @default 0
   */
  readonly replyOutcomesUnknown?: number;

  /**
   * Messages WhatsApp accepted and then reported it could not deliver (a `failed` delivery status:
   * the 24-hour window closed, an undeliverable number, Meta's marketing limits).
   *
   * @default 0
   */
  readonly deliveryFailures?: number;

  /**
   * Messages visible in the dead-letter queue.
   *
   * @default 0
   */
  readonly deadLetterQueueMessages?: number;

  /**
   * Errors of each function (crashes, timeouts), per function.
   *
   * @default 0
   */
  readonly functionErrors?: number;

  /**
   * Throttled invocations of each function, per function.
   *
   * @default 0
   */
  readonly functionThrottles?: number;

  /**
   * The p99 duration of each function, as a share of its timeout (above 0, at most 1).
   *
   * @default 0.8
   */
  readonly durationShareOfTimeout?: number;

  /**
   * Throttled requests to the table.
   *
   * @default 0
   */
  readonly tableThrottledRequests?: number;

  /**
   * Throttled calls to the Bedrock model (`AWS/Bedrock` `InvocationThrottles`); only with
   * `AgentBackend.bedrock()`.
   *
   * @default 0
   */
  readonly modelThrottles?: number;

  /**
   * Conversations BLOCKED in the CRM sync (the CRM refused them or kept failing) that a person must
   * retry; only with `crmSync`. Raise it if a few blocked rows are routine for your CRM.
   *
   * @default 0
   */
  readonly crmSyncBlockedRows?: number;

  /**
   * Conversations UNCERTAIN in the CRM sync (a create may or may not have reached the CRM) that a
   * person must check; only with `crmSync`.
   *
   * @default 0
   */
  readonly crmSyncUncertainRows?: number;

  /**
   * End User Messaging events the inbound function refused per minute (another topic, account or
   * WABA, or a header and an entry that disagree): a forgery attempt or a wrong subscription.
   *
   * @default 0
   */
  readonly inboundEnvelopesRefused?: number;

  /**
   * Minutes the longest-waiting conversation may wait for a person before the alarm fires (the
   * handoff sweeper measures it every minute); only with the operator plane. A customer waiting
   * unclaimed this long has been told a person will answer.
   *
   * @default 30
   */
  readonly handoffWaitingMinutes?: number;

  /**
   * Turns answered with the fallback text at once because the agent failed in a way no retry can
   * fix (invalid output, a refusing model, an invalid request), without the operator plane.
   *
   * @default 0
   */
  readonly turnsAnsweredWithFallback?: number;
}
