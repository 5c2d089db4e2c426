import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { CUSTOM_METRICS, WHATSAPP_CHANNEL_KINDS } from '../contract';
import { AlarmSeverity, type PipelineAlarmOverrides } from '../pipeline-alarms';
import {
  type AlarmWatch,
  crmRowsWatch,
  customCountWatch,
  durationWatch,
  errorsWatch,
  FIRST_MINUTE,
  FIVE_OF_FIVE_MINUTES,
  ONE_DAY,
  THREE_OF_FIVE_MINUTES,
  throttlesWatch,
} from './alarm-watches';
import type { ObservedPipeline } from './observed-pipeline';

/** One alarm: its defaults, and what it watches. */
export interface AlarmDefinition {
  readonly severity: AlarmSeverity;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  /** The length of one period: what `evaluationPeriods` counts. @default ALARM_PERIOD (a minute) */
  readonly period?: Duration;
  /** Undefined when the pipeline has nothing for the alarm to watch (e.g. no CRM sync). */
  readonly watch: (pipeline: ObservedPipeline) => AlarmWatch | undefined;
}

/**
 * Every alarm of the pipeline by its id, in creation order: its default severity and periods, and
 * what it watches (alarm-watches.ts). Internal: pipeline-observability.ts builds them. Adding an alarm
 * is an entry here, a field of `PipelineAlarmOverrides` and its `*Alarm` property on the construct
 * (agent-pipeline.ts): the compiler asks for all three.
 */
export const PIPELINE_ALARMS = {
  deadLetterQueue: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: ({ settings, metrics, deadLetterQueue }) => ({
      metric: metrics.messagesVisible(deadLetterQueue),
      threshold: settings.alarmThresholds.deadLetterQueueMessages,
      describe: () => `A turn of ${settings.names.table} failed ${settings.maxReceiveCount} times and is in ${settings.names.deadLetterQueue}: inspect it, fix the cause, redrive it.`,
    }),
  },
  oldestMessageAge: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: ({ settings, metrics }) => ({
      metric: metrics.oldestMessageAge(),
      threshold: settings.oldestMessageAgeAlarmThreshold.toSeconds(),
      describe: (seconds) => `A message in ${settings.names.queue} is older than ${seconds} s: the orchestrator is not keeping up or keeps failing.`,
    }),
  },
  webhookErrors: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: (pipeline) => errorsWatch(pipeline.webhookFunction, pipeline, `The webhook of ${pipeline.settings.names.table} crashed or timed out; Meta retries failed deliveries.`),
  },
  webhookThrottles: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: (pipeline) => throttlesWatch(pipeline.webhookFunction, pipeline, `The webhook of ${pipeline.settings.names.table} was throttled; Meta retries, replies are delayed.`),
  },
  webhookDuration: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: (pipeline) => durationWatch(pipeline.webhookFunction, pipeline.webhookFunction.timeout ?? Duration.seconds(3), 'webhook', pipeline),
  },
  webhookServerErrors: {
    severity: AlarmSeverity.CRITICAL,
    ...THREE_OF_FIVE_MINUTES,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.webhookServerError,
        pipeline.settings.alarmThresholds.webhookServerErrors,
        pipeline,
        `The webhook of ${pipeline.settings.names.table} answered 5xx: the table, the queue or the secret is unavailable. Meta retries for up to 7 days.`,
      ),
  },
  webhookSignatureRejected: {
    severity: AlarmSeverity.WARNING,
    ...FIVE_OF_FIVE_MINUTES,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.webhookSignatureRejected,
        pipeline.settings.alarmThresholds.webhookSignatureRejections,
        pipeline,
        `The webhook of ${pipeline.settings.names.table} refuses signatures minute after minute: the app secret in the WhatsApp secret is wrong or still REPLACE_ME, so Meta's deliveries are refused (a scanner's unsigned POSTs stop sooner).`,
      ),
  },
  orchestratorErrors: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      errorsWatch(pipeline.orchestratorFunction, pipeline, `The orchestrator of ${pipeline.settings.names.table} crashed or timed out; the turn is retried until it reaches the dead-letter queue.`),
  },
  orchestratorThrottles: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      throttlesWatch(pipeline.orchestratorFunction, pipeline, `The orchestrator of ${pipeline.settings.names.table} was throttled; throttled receives count towards the dead-letter queue.`),
  },
  orchestratorDuration: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: (pipeline) => durationWatch(pipeline.orchestratorFunction, pipeline.settings.orchestratorTimeout, 'orchestrator', pipeline),
  },
  turnFailedPermanently: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.turnFailedPermanently,
        pipeline.settings.alarmThresholds.permanentTurnFailures,
        pipeline,
        `A turn of ${pipeline.settings.names.table} failed on its last receive: the messages go to the dead-letter queue (with the operator plane, the conversation went to people with the fallback text instead).`,
      ),
  },
  turnFallback: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.turnFallback,
        pipeline.settings.alarmThresholds.turnsAnsweredWithFallback,
        pipeline,
        `The agent of ${pipeline.settings.names.table} failed in a way no retry fixes (invalid output, a refusing model, an invalid request): the customer got the fallback text instead of an answer.`,
      ),
  },
  replyOutcomeUnknown: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.replyOutcomeUnknown,
        pipeline.settings.alarmThresholds.replyOutcomesUnknown,
        pipeline,
        `A reply of ${pipeline.settings.names.table} may not have reached WhatsApp (timeout or cut connection); the retry may send it twice.`,
      ),
  },
  deliveryFailed: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      customCountWatch(
        CUSTOM_METRICS.deliveryFailed,
        pipeline.settings.alarmThresholds.deliveryFailures,
        pipeline,
        `WhatsApp reported messages of ${pipeline.settings.names.table} it could not deliver (a failed status; DeliveryFailed_<class> says why): the customer never got them. A closed 24-hour window (window-closed) needs a template from the console.`,
      ),
  },
  mediaDownloadFailed: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.downloadsMedia
        ? customCountWatch(
            CUSTOM_METRICS.mediaDownloadFailed,
            0,
            pipeline,
            `Attachments customers sent to ${pipeline.settings.names.table} could not be downloaded on the turn's last attempt: their messages went on as text with a note. Check the orchestrator's media_download_failed log lines (the Graph API and its token, or End User Messaging's GetWhatsAppMessageMedia; the bucket).`,
          )
        : undefined,
  },
  tableThrottles: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: ({ settings, metrics }) => ({
      metric: metrics.tableThrottledRequests(),
      threshold: settings.alarmThresholds.tableThrottledRequests,
      describe: () => `Requests to ${settings.names.table} were throttled.`,
    }),
  },
  modelThrottles: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: ({ settings, metrics, bedrockModelId }) =>
      bedrockModelId === undefined
        ? undefined
        : {
            metric: metrics.modelThrottles(bedrockModelId),
            threshold: settings.alarmThresholds.modelThrottles,
            describe: () =>
              `Bedrock throttled calls of ${settings.names.table} to ${bedrockModelId}: turns are retried and may reach the dead-letter queue. Request a quota increase or use a cross-Region profile.`,
          },
  },
  toolCallsFailed: {
    severity: AlarmSeverity.WARNING,
    ...THREE_OF_FIVE_MINUTES,
    watch: (pipeline) =>
      pipeline.callsConsumerTools
        ? customCountWatch(
            CUSTOM_METRICS.toolCallsFailed,
            0,
            pipeline,
            `Calls of ${pipeline.settings.names.table}'s agent to your tools keep failing (unavailable, timed out, refused, malformed or too large): the model is told and answers without them. The orchestrator's turn_processed log lines name the tool and its outcome; check that tool's function.`,
          )
        : undefined,
  },
  idleSweeperErrors: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      errorsWatch(
        pipeline.idleSweeperFunction,
        pipeline,
        `The idle sweeper of ${pipeline.settings.names.table} crashed or timed out: idle conversations stay open, and out of their retention, until a run succeeds.`,
      ),
  },
  crmSyncErrors: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.crmSyncFunction &&
      errorsWatch(pipeline.crmSyncFunction, pipeline, `The CRM sync worker of ${pipeline.settings.names.table} crashed or timed out; due projections wait for the next run.`),
  },
  crmSyncBlocked: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.crmSyncFunction &&
      crmRowsWatch(
        CUSTOM_METRICS.crmSyncBlockedRows,
        pipeline.settings.alarmThresholds.crmSyncBlockedRows,
        pipeline,
        `Conversations of ${pipeline.settings.names.table} are BLOCKED in the CRM sync: the CRM refused them or kept failing. Fix the cause, then retry them from the console's CRM view.`,
      ),
  },
  crmSyncUncertain: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.crmSyncFunction &&
      crmRowsWatch(
        CUSTOM_METRICS.crmSyncUncertainRows,
        pipeline.settings.alarmThresholds.crmSyncUncertainRows,
        pipeline,
        `Conversations of ${pipeline.settings.names.table} are UNCERTAIN in the CRM sync: a create may or may not have reached the CRM. Check the CRM, then resolve or retry them from the console's CRM view.`,
      ),
  },
  operatorErrors: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.operatorFunction &&
      errorsWatch(pipeline.operatorFunction, pipeline, `The operator function of ${pipeline.settings.names.table} crashed or timed out: the console and the operator API fail for people answering customers.`),
  },
  handoffSweeperErrors: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.handoffSweeperFunction &&
      errorsWatch(
        pipeline.handoffSweeperFunction,
        pipeline,
        `The handoff sweeper of ${pipeline.settings.names.table} crashed or timed out: waiting conversations are not re-notified to operators nor their customers reminded.`,
      ),
  },
  oldestHandoffWaiting: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    // The handoff sweeper measures it.
    watch: (pipeline) =>
      pipeline.handoffSweeperFunction && {
        metric: pipeline.metrics.custom(CUSTOM_METRICS.oldestHandoffWaitingSeconds, { statistic: 'Maximum' }),
        threshold: pipeline.settings.alarmThresholds.handoffWaitingMinutes * 60,
        describe: (seconds: number) =>
          `A customer of ${pipeline.settings.names.table} has waited more than ${seconds / 60} min for a person (AWAITING_HUMAN, unclaimed): claim the conversation in the console.`,
        // The sweeper measures every minute: a minute without a measurement keeps the alarm's state.
        treatMissingData: cloudwatch.TreatMissingData.IGNORE,
      },
  },
  evaluatorErrors: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.evaluatorFunction &&
      errorsWatch(
        pipeline.evaluatorFunction,
        pipeline,
        `The prompt evaluator of ${pipeline.settings.names.table} crashed or timed out: the prompt evaluation an admin started in the console ends as not finished, so its draft cannot pass the gate (only an override with a reason publishes it), and the CLI's eval --stack fails.`,
      ),
  },
  pipelineBudgetNear: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    // A gauge of each turn (its maximum): a quiet minute keeps the alarm's state, since the use stays where it was.
    watch: ({ settings: { pipelineBudget: budget, names }, metrics }) =>
      budget && {
        metric: metrics.custom(CUSTOM_METRICS.pipelineAgentTokensToday, { statistic: 'Maximum' }),
        threshold: Math.floor(budget.agentTokensPerDay * budget.alarmAtShareOfBudget),
        describe: (near: number) =>
          `The model tokens ${names.table} used today are above ${near} of its daily pipeline budget of ${budget.agentTokensPerDay}: once it is spent, no customer is answered by the agent until 00:00 UTC.`,
        treatMissingData: cloudwatch.TreatMissingData.IGNORE,
      },
  },
  pipelineBudgetRefusals: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: (pipeline, budget = pipeline.settings.pipelineBudget) =>
      budget &&
      customCountWatch(
        CUSTOM_METRICS.turnOverPipelineBudget,
        0,
        pipeline,
        `The daily pipeline budget of ${pipeline.settings.names.table} (${budget.agentTokensPerDay} model tokens) is spent: turns are refused with the budget's reply, no customer is answered by the agent until 00:00 UTC.`,
      ),
  },
  inboundDeadLetterQueue: {
    severity: AlarmSeverity.CRITICAL,
    ...FIRST_MINUTE,
    watch: ({ settings, metrics, inboundDeadLetterQueue }) =>
      inboundDeadLetterQueue && {
        metric: metrics.messagesVisible(inboundDeadLetterQueue),
        threshold: settings.alarmThresholds.deadLetterQueueMessages,
        describe: () =>
          `End User Messaging events of ${settings.names.table} failed on every retry of the inbound function, or SNS could not deliver them, and wait in its dead-letter queue: the customer messages in them are not registered. Fix the cause, then publish their messages to the event topic again (registration is idempotent).`,
      },
  },
  inboundEnvelopeRefused: {
    severity: AlarmSeverity.WARNING,
    ...FIRST_MINUTE,
    watch: (pipeline) =>
      pipeline.settings.channel.kind !== WHATSAPP_CHANNEL_KINDS.endUserMessaging
        ? undefined
        : customCountWatch(
            CUSTOM_METRICS.inboundEnvelopeRefused,
            pipeline.settings.alarmThresholds.inboundEnvelopesRefused,
            pipeline,
            `The End User Messaging inbound function of ${pipeline.settings.names.table} refused an event: it came from another topic or account, of another WABA, or its header and its Meta entry disagree. Someone may be publishing forged events to the topic, or the function is subscribed to a topic it should not be.`,
          ),
  },
  dailyCost: {
    severity: AlarmSeverity.WARNING,
    ...ONE_DAY,
    watch: ({ alarmSettings: { dailyCostUsd }, settings: { names }, metrics }) =>
      dailyCostUsd === undefined
        ? undefined
        : {
            metric: metrics.estimatedCost(),
            threshold: dailyCostUsd,
            describe: (usd: number) =>
              `The estimated cost of ${names.table} over a day is above US$ ${usd}: Meta's fees of the messages it sent and the model's tokens, at the packaged prices. The console's usage report says which conversations and models it went to.`,
          },
  },
} satisfies { readonly [id in keyof PipelineAlarmOverrides]-?: AlarmDefinition };

export type PipelineAlarmId = keyof typeof PIPELINE_ALARMS;
