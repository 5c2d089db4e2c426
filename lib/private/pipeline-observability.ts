import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { CUSTOM_METRICS, type CustomMetricName, WHATSAPP_CHANNEL_KINDS } from '../contract';
import { acceptFinding } from './accepted-findings';
import type { ObservedPipeline } from './observed-pipeline';
import { type AlarmDefinition, PIPELINE_ALARMS, type PipelineAlarmId } from './pipeline-alarm-definitions';

/**
 * Alarms and dashboard of the pipeline, built from its resources and settings (observed-pipeline.ts)
 * and the alarms' definitions (pipeline-alarm-definitions.ts). Internal: the construct exposes the
 * results as public properties and `metric*` methods.
 */

/** The alarms built, by id: the ones whose watch may find nothing are optional. */
export type PipelineAlarms = {
  readonly [id in PipelineAlarmId]: undefined extends ReturnType<(typeof PIPELINE_ALARMS)[id]['watch']> ? cloudwatch.Alarm | undefined : cloudwatch.Alarm;
} & {
  /** Every alarm, in creation order. */
  readonly all: cloudwatch.Alarm[];
};

/** The construct's `*Alarm` properties: each alarm built, as its id and `Alarm` (`deadLetterQueueAlarm`). */
export type PipelineAlarmProperties = { readonly [id in PipelineAlarmId as `${id}Alarm`]: PipelineAlarms[id] };

/** The alarms built as the construct's properties, absent ones included (as undefined). */
export function alarmProperties(alarms: PipelineAlarms): PipelineAlarmProperties {
  return Object.fromEntries((Object.keys(PIPELINE_ALARMS) as PipelineAlarmId[]).map((id) => [`${id}Alarm`, alarms[id]])) as PipelineAlarmProperties;
}

/** Every way a message can stall, as an alarm named, tuned and wired by the alarm settings. */
export function createPipelineAlarms(pipeline: ObservedPipeline): PipelineAlarms {
  const { namePrefix, actions, tunings } = pipeline.alarmSettings;
  const built: { [id in PipelineAlarmId]?: cloudwatch.Alarm } = {};
  const all: cloudwatch.Alarm[] = [];
  for (const [id, definition] of Object.entries(PIPELINE_ALARMS) as [PipelineAlarmId, AlarmDefinition][]) {
    const watch = definition.watch(pipeline);
    if (watch === undefined) continue;
    const tuning = tunings[id];
    const threshold = tuning.threshold ?? watch.threshold;
    const constructId = `${id.charAt(0).toUpperCase()}${id.slice(1)}Alarm`;
    const alarm = new cloudwatch.Alarm(pipeline.scope, constructId, {
      alarmName: `${namePrefix}-${id}`,
      metric: watch.metric,
      threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: tuning.evaluationPeriods,
      datapointsToAlarm: tuning.datapointsToAlarm,
      treatMissingData: watch.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      ...(tuning.enabled ? {} : { actionsEnabled: false }),
      alarmDescription: `${watch.describe(threshold)} Runbook: docs/RELIABILITY.md, alarm ${constructId}.`,
    });
    const action = actions[tuning.severity];
    if (!tuning.enabled) {
      acceptFinding(alarm, 'CloudWatchAlarmAction', `alarms.overrides.${id}.enabled is false: the alarm shows its state on the dashboard and in pipeline.alarms, and notifies nobody.`);
    } else if (action) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    } else {
      acceptFinding(alarm, 'CloudWatchAlarmAction', 'No alarmTopic was given: the alarms show on the dashboard and in pipeline.alarms for the app to wire. Pass alarmTopic to be notified.');
    }
    built[id] = alarm;
    all.push(alarm);
  }
  // Each alarm whose watch always finds something was built above.
  return { ...built, all } as PipelineAlarms;
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
    dashboardName: pipeline.alarmSettings.dashboardName,
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
      custom(CUSTOM_METRICS.inboundStaleDropped, 'Replayed (stale) messages'), custom(CUSTOM_METRICS.inboundUnreadable, 'Unreadable parts of signed notifications'),
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
  const { operatorFunction, handoffSweeperFunction, evaluatorFunction } = pipeline;
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
        ...(evaluatorFunction ? [evaluatorFunction.metricErrors({ ...fiveMinutes, label: 'Prompt evaluator errors' })] : []),
      ]),
    );
  }
  dashboard.addWidgets(
    graph('Estimated cost (USD per 5 minutes, packaged prices)', [
      custom(CUSTOM_METRICS.metaFeesUsd, "Meta's fees"),
      custom(CUSTOM_METRICS.agentCostUsd, 'Model tokens'),
    ]),
    graph('Throttles', throttles),
  );
  dashboard.addWidgets(
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: alarms.all, width: WIDGET_WIDTH, height: WIDGET_HEIGHT }),
  );
  return dashboard;
}
