import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CUSTOM_METRICS, type CustomMetricName, WHATSAPP_CHANNEL_KINDS } from '../contract';
import { acceptFinding } from './accepted-findings';
import type { PipelineMetrics } from './pipeline-metrics';
import { ALARM_PERIOD, type PipelineSettings } from './pipeline-settings';

/**
 * Alarms and dashboard of the pipeline, built from its resources and settings. Internal: the
 * construct exposes the results as public properties and `metric*` methods.
 */

/** What the builders read from the pipeline. */
export interface ObservedPipeline {
  readonly scope: Construct;
  readonly settings: PipelineSettings;
  readonly webhookFunction: lambda.Function;
  readonly orchestratorFunction: lambda.Function;
  readonly deadLetterQueue: sqs.IQueue;
  readonly metrics: PipelineMetrics;
  /** Present when the agent is a Bedrock model. */
  readonly bedrockModelId?: string;
  /** Present when `crmSync` is set. */
  readonly crmSyncFunction?: lambda.Function;
  readonly idleSweeperFunction: lambda.Function;
  /** Present with the operator plane. */
  readonly operatorFunction?: lambda.Function;
  /** Present with the operator plane. */
  readonly handoffSweeperFunction?: lambda.Function;
  /** Present on the End User Messaging channel: events the inbound function failed on every retry. */
  readonly inboundDeadLetterQueue?: sqs.IQueue;
  readonly alarmAction?: cloudwatch.IAlarmAction;
}

export interface PipelineAlarms {
  readonly deadLetterQueue: cloudwatch.Alarm;
  readonly oldestMessageAge: cloudwatch.Alarm;
  readonly webhookErrors: cloudwatch.Alarm;
  readonly webhookThrottles: cloudwatch.Alarm;
  readonly webhookDuration: cloudwatch.Alarm;
  readonly webhookServerErrors: cloudwatch.Alarm;
  readonly webhookSignatureRejected: cloudwatch.Alarm;
  readonly orchestratorErrors: cloudwatch.Alarm;
  readonly orchestratorThrottles: cloudwatch.Alarm;
  readonly orchestratorDuration: cloudwatch.Alarm;
  readonly turnFailedPermanently: cloudwatch.Alarm;
  readonly turnFallback: cloudwatch.Alarm;
  readonly replyOutcomeUnknown: cloudwatch.Alarm;
  readonly deliveryFailed: cloudwatch.Alarm;
  readonly tableThrottles: cloudwatch.Alarm;
  readonly modelThrottles?: cloudwatch.Alarm;
  readonly idleSweeperErrors: cloudwatch.Alarm;
  readonly crmSyncErrors?: cloudwatch.Alarm;
  readonly crmSyncBlocked?: cloudwatch.Alarm;
  readonly crmSyncUncertain?: cloudwatch.Alarm;
  readonly operatorErrors?: cloudwatch.Alarm;
  readonly handoffSweeperErrors?: cloudwatch.Alarm;
  readonly oldestHandoffWaiting?: cloudwatch.Alarm;
  readonly inboundDeadLetterQueue?: cloudwatch.Alarm;
  readonly inboundEnvelopeRefused?: cloudwatch.Alarm;
  readonly pipelineBudgetNear?: cloudwatch.Alarm;
  readonly pipelineBudgetRefusals?: cloudwatch.Alarm;
  /** Every alarm above, in creation order. */
  readonly all: cloudwatch.Alarm[];
}

/** Every way a message can stall, as an alarm wired to the alarm action if any. */
export function createPipelineAlarms(pipeline: ObservedPipeline): PipelineAlarms {
  const { settings, metrics, webhookFunction, orchestratorFunction } = pipeline;
  const { names, maxReceiveCount, oldestMessageAgeAlarmThreshold, alarmThresholds: thresholds } = settings;
  const all: cloudwatch.Alarm[] = [];
  const alarm = (
    id: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    description: string,
    // No data means no traffic, not a failure (these metrics are sparse).
    treatMissingData = cloudwatch.TreatMissingData.NOT_BREACHING,
  ): cloudwatch.Alarm => {
    const created = new cloudwatch.Alarm(pipeline.scope, id, {
      metric,
      threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      treatMissingData,
      alarmDescription: `${description} Runbook: docs/RELIABILITY.md, alarm ${id}.`,
    });
    if (pipeline.alarmAction) {
      created.addAlarmAction(pipeline.alarmAction);
      created.addOkAction(pipeline.alarmAction);
    } else {
      acceptFinding(created, 'CloudWatchAlarmAction', 'No alarmTopic was given: the alarms show on the dashboard and in pipeline.alarms for the app to wire. Pass alarmTopic to be notified.');
    }
    all.push(created);
    return created;
  };
  const custom = (name: CustomMetricName) => metrics.custom(name);
  const errorsAlarm = (id: string, fn: lambda.Function, description: string) => alarm(id, fn.metricErrors({ period: ALARM_PERIOD }), thresholds.functionErrors, description);
  const durationAlarm = (id: string, fn: lambda.Function, timeout: Duration, role: string) => {
    const thresholdMs = Math.round(timeout.toMilliseconds() * thresholds.durationShareOfTimeout);
    return alarm(
      id,
      fn.metricDuration({ statistic: 'p99', period: ALARM_PERIOD }),
      thresholdMs,
      `The ${role} of ${names.table} runs close to its ${timeout.toSeconds()} s timeout (p99 above ${thresholdMs} ms); timed-out invocations are retried or fail.`,
    );
  };

  const alarms = {
    deadLetterQueue: alarm(
      'DeadLetterQueueAlarm',
      metrics.messagesVisible(pipeline.deadLetterQueue),
      thresholds.deadLetterQueueMessages,
      `A turn of ${names.table} failed ${maxReceiveCount} times and is in ${names.deadLetterQueue}: inspect it, fix the cause, redrive it.`,
    ),
    oldestMessageAge: alarm(
      'OldestMessageAgeAlarm',
      metrics.oldestMessageAge(),
      oldestMessageAgeAlarmThreshold.toSeconds(),
      `A message in ${names.queue} is older than ${oldestMessageAgeAlarmThreshold.toSeconds()} s: the orchestrator is not keeping up or keeps failing.`,
    ),
    webhookErrors: errorsAlarm('WebhookErrorsAlarm', webhookFunction, `The webhook of ${names.table} crashed or timed out; Meta retries failed deliveries.`),
    webhookThrottles: alarm(
      'WebhookThrottlesAlarm',
      webhookFunction.metricThrottles({ period: ALARM_PERIOD }),
      thresholds.functionThrottles,
      `The webhook of ${names.table} was throttled; Meta retries, replies are delayed.`,
    ),
    webhookDuration: durationAlarm('WebhookDurationAlarm', webhookFunction, webhookFunction.timeout ?? Duration.seconds(3), 'webhook'),
    webhookServerErrors: alarm(
      'WebhookServerErrorsAlarm',
      custom(CUSTOM_METRICS.webhookServerError),
      thresholds.webhookServerErrors,
      `The webhook of ${names.table} answered 5xx: the table, the queue or the secret is unavailable. Meta retries for up to 7 days.`,
    ),
    webhookSignatureRejected: alarm(
      'WebhookSignatureRejectedAlarm',
      custom(CUSTOM_METRICS.webhookSignatureRejected),
      thresholds.webhookSignatureRejections,
      `The webhook of ${names.table} refused a signature: the app secret in the WhatsApp secret is wrong or still REPLACE_ME, so Meta's deliveries are refused.`,
    ),
    orchestratorErrors: errorsAlarm('OrchestratorErrorsAlarm', orchestratorFunction, `The orchestrator of ${names.table} crashed or timed out; the turn is retried until it reaches the dead-letter queue.`),
    orchestratorThrottles: alarm(
      'OrchestratorThrottlesAlarm',
      orchestratorFunction.metricThrottles({ period: ALARM_PERIOD }),
      thresholds.functionThrottles,
      `The orchestrator of ${names.table} was throttled; throttled receives count towards the dead-letter queue.`,
    ),
    orchestratorDuration: durationAlarm('OrchestratorDurationAlarm', orchestratorFunction, settings.orchestratorTimeout, 'orchestrator'),
    turnFailedPermanently: alarm(
      'TurnFailedPermanentlyAlarm',
      custom(CUSTOM_METRICS.turnFailedPermanently),
      thresholds.permanentTurnFailures,
      `A turn of ${names.table} failed on its last receive: the messages go to the dead-letter queue (with the operator plane, the conversation went to people with the fallback text instead).`,
    ),
    turnFallback: alarm(
      'TurnFallbackAlarm',
      custom(CUSTOM_METRICS.turnFallback),
      thresholds.turnsAnsweredWithFallback,
      `The agent of ${names.table} failed in a way no retry fixes (invalid output, a refusing model, an invalid request): the customer got the fallback text instead of an answer.`,
    ),
    replyOutcomeUnknown: alarm(
      'ReplyOutcomeUnknownAlarm',
      custom(CUSTOM_METRICS.replyOutcomeUnknown),
      thresholds.replyOutcomesUnknown,
      `A reply of ${names.table} may not have reached WhatsApp (timeout or cut connection); the retry may send it twice.`,
    ),
    deliveryFailed: alarm(
      'DeliveryFailedAlarm',
      custom(CUSTOM_METRICS.deliveryFailed),
      thresholds.deliveryFailures,
      `WhatsApp reported messages of ${names.table} it could not deliver (a failed status; DeliveryFailed_<class> says why): the customer never got them. A closed 24-hour window (window-closed) needs a template from the console.`,
    ),
    tableThrottles: alarm(
      'TableThrottlesAlarm',
      metrics.tableThrottledRequests(),
      thresholds.tableThrottledRequests,
      `Requests to ${names.table} were throttled.`,
    ),
    modelThrottles:
      pipeline.bedrockModelId === undefined
        ? undefined
        : alarm(
            'ModelThrottlesAlarm',
            metrics.modelThrottles(pipeline.bedrockModelId),
            thresholds.modelThrottles,
            `Bedrock throttled calls of ${names.table} to ${pipeline.bedrockModelId}: turns are retried and may reach the dead-letter queue. Request a quota increase or use a cross-Region profile.`,
          ),
    idleSweeperErrors: errorsAlarm('IdleSweeperErrorsAlarm', pipeline.idleSweeperFunction, `The idle sweeper of ${names.table} crashed or timed out: idle conversations stay open, and out of their retention, until a run succeeds.`),
    ...(pipeline.crmSyncFunction ? crmSyncAlarms(pipeline.crmSyncFunction) : {}),
    ...(pipeline.operatorFunction && pipeline.handoffSweeperFunction ? operatorPlaneAlarms(pipeline.operatorFunction, pipeline.handoffSweeperFunction) : {}),
    ...(settings.pipelineBudget ? pipelineBudgetAlarms(settings.pipelineBudget) : {}),
    inboundDeadLetterQueue:
      pipeline.inboundDeadLetterQueue === undefined
        ? undefined
        : alarm(
            'InboundDeadLetterQueueAlarm',
            metrics.messagesVisible(pipeline.inboundDeadLetterQueue),
            thresholds.deadLetterQueueMessages,
            `End User Messaging events of ${names.table} failed on every retry of the inbound function, or SNS could not deliver them, and wait in its dead-letter queue: the customer messages in them are not registered. Fix the cause, then publish their messages to the event topic again (registration is idempotent).`,
          ),
    inboundEnvelopeRefused:
      settings.channel.kind !== WHATSAPP_CHANNEL_KINDS.endUserMessaging
        ? undefined
        : alarm(
            'InboundEnvelopeRefusedAlarm',
            custom(CUSTOM_METRICS.inboundEnvelopeRefused),
            thresholds.inboundEnvelopesRefused,
            `The End User Messaging inbound function of ${names.table} refused an event: it came from another topic or account, of another WABA, or its header and its Meta entry disagree. Someone may be publishing forged events to the topic, or the function is subscribed to a topic it should not be.`,
          ),
  };
  return { ...alarms, all };

  /**
   * The day's use nearing the pipeline's budget (a gauge of each turn: its maximum; a quiet minute
   * keeps the alarm's state, since the use stays where it was), and the first refused turns.
   */
  function pipelineBudgetAlarms(budget: NonNullable<PipelineSettings['pipelineBudget']>) {
    const near = Math.floor(budget.agentTokensPerDay * budget.alarmAtShareOfBudget);
    return {
      pipelineBudgetNear: alarm(
        'PipelineBudgetNearAlarm',
        metrics.custom(CUSTOM_METRICS.pipelineAgentTokensToday, { statistic: 'Maximum' }),
        near,
        `The model tokens ${names.table} used today are above ${near} of its daily pipeline budget of ${budget.agentTokensPerDay}: once it is spent, no customer is answered by the agent until 00:00 UTC.`,
        cloudwatch.TreatMissingData.IGNORE,
      ),
      pipelineBudgetRefusals: alarm(
        'PipelineBudgetRefusalsAlarm',
        custom(CUSTOM_METRICS.turnOverPipelineBudget),
        0,
        `The daily pipeline budget of ${names.table} (${budget.agentTokensPerDay} model tokens) is spent: turns are refused with the budget's reply, no customer is answered by the agent until 00:00 UTC.`,
      ),
    };
  }

  /** The human side: the console and its API, the sweep that re-notifies people, and the customer waiting longest for one. */
  function operatorPlaneAlarms(operator: lambda.Function, sweeper: lambda.Function) {
    const waitingSeconds = thresholds.handoffWaitingMinutes * 60;
    return {
      operatorErrors: errorsAlarm('OperatorErrorsAlarm', operator, `The operator function of ${names.table} crashed or timed out: the console and the operator API fail for people answering customers.`),
      handoffSweeperErrors: errorsAlarm('HandoffSweeperErrorsAlarm', sweeper, `The handoff sweeper of ${names.table} crashed or timed out: waiting conversations are not re-notified to operators nor their customers reminded.`),
      oldestHandoffWaiting: alarm(
        'OldestHandoffWaitingAlarm',
        metrics.custom(CUSTOM_METRICS.oldestHandoffWaitingSeconds, { statistic: 'Maximum' }),
        waitingSeconds,
        `A customer of ${names.table} has waited more than ${thresholds.handoffWaitingMinutes} min for a person (AWAITING_HUMAN, unclaimed): claim the conversation in the console.`,
        // The sweeper measures every minute: a minute without a measurement keeps the alarm's state.
        cloudwatch.TreatMissingData.IGNORE,
      ),
    };
  }

  /** The worker's own failures, and the rows that wait for a person (gauges the worker emits each run). */
  function crmSyncAlarms(worker: lambda.Function) {
    const rows = (name: CustomMetricName) => metrics.custom(name, { statistic: 'Maximum' });
    return {
      crmSyncErrors: errorsAlarm('CrmSyncErrorsAlarm', worker, `The CRM sync worker of ${names.table} crashed or timed out; due projections wait for the next run.`),
      crmSyncBlocked: alarm(
        'CrmSyncBlockedAlarm',
        rows(CUSTOM_METRICS.crmSyncBlockedRows),
        thresholds.crmSyncBlockedRows,
        `Conversations of ${names.table} are BLOCKED in the CRM sync: the CRM refused them or kept failing. Fix the cause, then retry them from the console's CRM view.`,
      ),
      crmSyncUncertain: alarm(
        'CrmSyncUncertainAlarm',
        rows(CUSTOM_METRICS.crmSyncUncertainRows),
        thresholds.crmSyncUncertainRows,
        `Conversations of ${names.table} are UNCERTAIN in the CRM sync: a create may or may not have reached the CRM. Check the CRM, then resolve or retry them from the console's CRM view.`,
      ),
    };
  }
}

const WIDGET_WIDTH = 12;
const WIDGET_HEIGHT = 6;

/** The operators' view: traffic, latency, replies, failures, queues, tokens, guards, CRM sync, throttles, alarm states. */
export function createPipelineDashboard(pipeline: ObservedPipeline, alarms: PipelineAlarms): cloudwatch.Dashboard {
  const { settings, metrics, webhookFunction, orchestratorFunction } = pipeline;
  const custom = (name: CustomMetricName, label: string, statistic = 'Sum') => metrics.custom(name, { label, statistic, period: Duration.minutes(5) });
  const fiveMinutes = { period: Duration.minutes(5) };
  const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
    new cloudwatch.GraphWidget({ title, left, right, width: WIDGET_WIDTH, height: WIDGET_HEIGHT });

  const dashboard = new cloudwatch.Dashboard(pipeline.scope, 'Dashboard', {
    dashboardName: settings.names.table,
    defaultInterval: Duration.hours(3),
  });
  const throttles = [
    webhookFunction.metricThrottles({ ...fiveMinutes, label: 'Webhook' }),
    orchestratorFunction.metricThrottles({ ...fiveMinutes, label: 'Orchestrator' }),
    metrics.tableThrottledRequests(),
    ...(pipeline.bedrockModelId === undefined ? [] : [metrics.modelThrottles(pipeline.bedrockModelId, { ...fiveMinutes, label: 'Bedrock model' })]),
  ];
  dashboard.addWidgets(
    graph('Traffic', [
      custom(CUSTOM_METRICS.inboundReceived, 'Customer messages received'),
      webhookFunction.metricInvocations({ ...fiveMinutes, label: 'Webhook requests' }),
      orchestratorFunction.metricInvocations({ ...fiveMinutes, label: 'Turns started' }),
    ]),
    graph(
      'Turn latency',
      [custom(CUSTOM_METRICS.agentLatency, 'Agent p50 (ms)', 'p50'), custom(CUSTOM_METRICS.agentLatency, 'Agent p99 (ms)', 'p99')],
      [orchestratorFunction.metricDuration({ ...fiveMinutes, statistic: 'p99', label: 'Orchestrator p99 (ms)' })],
    ),
  );
  dashboard.addWidgets(
    graph('Replies', [
      custom(CUSTOM_METRICS.turnAnswered, 'Answered'),
      custom(CUSTOM_METRICS.replyRefused, 'Refused by WhatsApp'),
      custom(CUSTOM_METRICS.replyOutcomeUnknown, 'Outcome unknown'),
    ]),
    graph('Failures', [
      custom(CUSTOM_METRICS.webhookServerError, 'Webhook 5xx'),
      custom(CUSTOM_METRICS.webhookSignatureRejected, 'Signatures rejected'),
      custom(CUSTOM_METRICS.turnFailedPermanently, 'Turns failed for good'),
      custom(CUSTOM_METRICS.turnFallback, 'Turns answered with the fallback text'),
      webhookFunction.metricErrors({ ...fiveMinutes, label: 'Webhook errors' }),
      orchestratorFunction.metricErrors({ ...fiveMinutes, label: 'Orchestrator errors' }),
    ]),
  );
  dashboard.addWidgets(
    graph('Dead-letter queue and queue age', [metrics.messagesVisible(pipeline.deadLetterQueue)], [metrics.oldestMessageAge()]),
    graph(
      'Agent tokens',
      [custom(CUSTOM_METRICS.agentInputTokens, 'Input tokens'), custom(CUSTOM_METRICS.agentOutputTokens, 'Output tokens')],
      settings.pipelineBudget ? [custom(CUSTOM_METRICS.pipelineAgentTokensToday, `Today, of ${settings.pipelineBudget.agentTokensPerDay} (pipeline budget)`, 'Maximum')] : [],
    ),
  );
  const crmSync = pipeline.crmSyncFunction;
  dashboard.addWidgets(
    graph('Refused and dropped', [
      custom(CUSTOM_METRICS.turnOverBudget, 'Turns over a customer budget'),
      ...(settings.pipelineBudget ? [custom(CUSTOM_METRICS.turnOverPipelineBudget, 'Turns over the pipeline budget')] : []),
      custom(CUSTOM_METRICS.inboundForeignNumberDropped, 'Messages to another business number'),
      custom(CUSTOM_METRICS.inboundStaleDropped, 'Replayed (stale) messages'),
      ...(settings.channel.kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging
        ? [custom(CUSTOM_METRICS.inboundEnvelopeMalformed, 'Malformed End User Messaging events'), custom(CUSTOM_METRICS.inboundEnvelopeRefused, 'Refused End User Messaging events')]
        : []),
    ]),
    ...(crmSync === undefined
      ? []
      : [
          graph(
            'CRM sync',
            [custom(CUSTOM_METRICS.crmSyncSent, 'Revisions accepted'), custom(CUSTOM_METRICS.crmSyncRetrying, 'Sends to retry'), crmSync.metricErrors({ ...fiveMinutes, label: 'Worker errors' })],
            [custom(CUSTOM_METRICS.crmSyncBlockedRows, 'Blocked rows', 'Maximum'), custom(CUSTOM_METRICS.crmSyncUncertainRows, 'Uncertain rows', 'Maximum')],
          ),
        ]),
  );
  const { operatorFunction, handoffSweeperFunction } = pipeline;
  if (operatorFunction && handoffSweeperFunction) {
    dashboard.addWidgets(
      graph(
        'Handoffs',
        [custom(CUSTOM_METRICS.handoffsWaiting, 'Conversations waiting for a person', 'Maximum'), custom(CUSTOM_METRICS.turnHandedOff, 'Handed to people when the agent failed')],
        [custom(CUSTOM_METRICS.oldestHandoffWaitingSeconds, 'Longest wait (s)', 'Maximum')],
      ),
      graph('Operator plane errors', [
        operatorFunction.metricErrors({ ...fiveMinutes, label: 'Operator function errors' }),
        custom(CUSTOM_METRICS.operatorRequestFailed, 'Operator API 500s'),
        handoffSweeperFunction.metricErrors({ ...fiveMinutes, label: 'Handoff sweeper errors' }),
      ]),
    );
  }
  dashboard.addWidgets(
    graph('Throttles', throttles),
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: alarms.all, width: WIDGET_WIDTH, height: WIDGET_HEIGHT }),
  );
  return dashboard;
}
