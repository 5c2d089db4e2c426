import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS, deliveryFailureMetric, inboundOutcomeMetric } from '../../../lib/contract';
import { admitInboundTurns } from '../domain/inbound-admission';
import type { InboundTurn } from '../domain/inbound-turn';
import type { Clock } from '../ports/clock';
import type { RecordDeliveryStatuses, RecordedStatuses, ReportedStatus } from './record-delivery-status';
import type { BusinessEcho } from '../domain/business-echo';
import type { TemplateStatusUpdate } from '../domain/whatsapp-template';
import type { RecordBusinessEchoes } from './record-business-echoes';
import type { RecordStandbyMessages } from './record-standby-messages';
import type { MessageTemplates } from './message-templates';
import type { RegisterInboundTurns } from './register-inbound';

/** A notification of Meta's, parsed (from the webhook's verified body or from End User Messaging's event). */
export interface InboundNotification {
  readonly turns: readonly InboundTurn[];
  /** Delivery statuses of the business's own messages: receipts, never turns. */
  readonly statuses: readonly ReportedStatus[];
  /** Changes of the account's templates (`message_template_status_update`). */
  readonly templateStatusUpdates?: readonly TemplateStatusUpdate[];
  /** What the business sent from the WhatsApp Business app on a coexistence number (`smb_message_echoes`). */
  readonly echoes?: readonly BusinessEcho[];
  /** Customer messages while another app holds the thread (`standby`): recorded, never answered. */
  readonly standby?: readonly InboundTurn[];
  /** Thread control changes (`messaging_handovers`): counted. */
  readonly handovers?: number;
  /** Entries of other webhook fields or message kinds that are not customer turns. */
  readonly ignored: number;
  /** Parts Meta signed that could not be read: counted, never a reason to refuse the notification. */
  readonly unreadable: number;
}

/** What records the messages of a number shared with the WhatsApp Business app (docs/DESIGN.md#coexistence). */
export interface CoexistenceRecorders {
  readonly echoes: Pick<RecordBusinessEchoes, 'execute'>;
  readonly standby: Pick<RecordStandbyMessages, 'execute'>;
}

export interface InboundNotificationDependencies {
  readonly registerInbound: RegisterInboundTurns;
  readonly recordStatuses: RecordDeliveryStatuses;
  readonly clock: Clock;
  readonly metrics: Metrics;
  /** The business numbers this pipeline answers for; other numbers' messages are dropped and counted. @default every number */
  readonly businessPhoneNumberIds?: ReadonlySet<string>;
  /** Where template status changes are applied; without it they are counted and dropped. */
  readonly templates?: Pick<MessageTemplates, 'applyStatusUpdate'>;
  /** Where echoes and standby messages are recorded; without it they are counted and dropped. */
  readonly coexistence?: CoexistenceRecorders;
}

/** What became of one notification, for the handler's log line. */
export interface InboundNotificationSummary {
  readonly turns: number;
  readonly statuses: number;
  readonly receipts: Omit<RecordedStatuses, 'failures' | 'metaFees'>;
  /** Meta's fees of the messages these statuses priced first, in US dollars (an estimate). */
  readonly metaFeesUsd: number;
  /** Template status changes applied to a stored template. */
  readonly templateStatusesApplied: number;
  /** Echoes written to a history, and the conversations they handed to people. */
  readonly echoes: { readonly recorded: number; readonly paused: number };
  readonly standbyRecorded: number;
  readonly handovers: number;
  readonly ignored: number;
  readonly unreadable: number;
  readonly droppedForeignNumber: number;
  readonly droppedStale: number;
  readonly outcomes: Record<string, number>;
}

/**
 * The part of the inbound protocol both channels share once Meta's notification is parsed — from
 * the webhook's verified body or from End User Messaging's event: admission, the registering use
 * case, the delivery receipts, and the metrics. Rejects when a registration fails, so the delivery is retried (Meta's
 * retry of a non-200 answer, or Lambda's retry of the SNS event); every step is idempotent.
 */
export async function registerInboundNotification(parsed: InboundNotification, deps: InboundNotificationDependencies): Promise<InboundNotificationSummary> {
  const { metrics } = deps;
  metrics.addMetric(CUSTOM_METRICS.inboundReceived, MetricUnit.Count, parsed.turns.length);
  metrics.addMetric(CUSTOM_METRICS.statusesReceived, MetricUnit.Count, parsed.statuses.length);
  if (parsed.unreadable > 0) metrics.addMetric(CUSTOM_METRICS.inboundUnreadable, MetricUnit.Count, parsed.unreadable);
  const admission = admitInboundTurns(parsed.turns, { businessPhoneNumberIds: deps.businessPhoneNumberIds, now: deps.clock.now() });
  metrics.addMetric(CUSTOM_METRICS.inboundForeignNumberDropped, MetricUnit.Count, admission.foreignNumber);
  metrics.addMetric(CUSTOM_METRICS.inboundStaleDropped, MetricUnit.Count, admission.stale);
  let templateStatusesApplied = 0;
  for (const update of parsed.templateStatusUpdates ?? []) if (await deps.templates?.applyStatusUpdate(update)) templateStatusesApplied++;
  metrics.addMetric(CUSTOM_METRICS.templateStatusUpdates, MetricUnit.Count, templateStatusesApplied);
  const coexistence = await recordCoexistence(parsed, deps);
  const results = await deps.registerInbound.execute(admission.admitted);
  const { failures, metaFees, ...receipts } = await deps.recordStatuses.execute(parsed.statuses);
  metrics.addMetric(CUSTOM_METRICS.deliveryStatusRecorded, MetricUnit.Count, receipts.recorded + receipts.settled);
  metrics.addMetric(CUSTOM_METRICS.deliveryStatusIgnored, MetricUnit.Count, receipts.notOurs + receipts.unchanged);
  metrics.addMetric(CUSTOM_METRICS.deliveryOutcomeSettled, MetricUnit.Count, receipts.settled);
  metrics.addMetric(CUSTOM_METRICS.deliveryFailed, MetricUnit.Count, failures.length);
  for (const reason of failures) metrics.addMetric(deliveryFailureMetric(reason), MetricUnit.Count, 1);
  const metaFeesUsd = metaFees.reduce((sum, fee) => sum + (fee.usd ?? 0), 0);
  if (metaFees.length > 0) metrics.addMetric(CUSTOM_METRICS.metaFeesUsd, MetricUnit.NoUnit, metaFeesUsd);
  const unpriced = metaFees.filter((fee) => fee.usd === undefined).length;
  if (unpriced > 0) metrics.addMetric(CUSTOM_METRICS.metaMessagesUnpriced, MetricUnit.Count, unpriced);
  const outcomes: Record<string, number> = {};
  for (const { outcome } of results) {
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    metrics.addMetric(inboundOutcomeMetric(outcome), MetricUnit.Count, 1);
  }
  return {
    turns: parsed.turns.length,
    statuses: parsed.statuses.length,
    receipts,
    metaFeesUsd,
    templateStatusesApplied,
    ...coexistence,
    ignored: parsed.ignored,
    unreadable: parsed.unreadable,
    droppedForeignNumber: admission.foreignNumber,
    droppedStale: admission.stale,
    outcomes,
  };
}

/**
 * Echoes and standby messages, admitted like customer messages (this pipeline's numbers, within the
 * receipt retention), recorded before the customer messages of the same notification are registered,
 * so a message after an echo already finds the conversation with people.
 */
async function recordCoexistence(parsed: InboundNotification, deps: InboundNotificationDependencies): Promise<Pick<InboundNotificationSummary, 'echoes' | 'standbyRecorded' | 'handovers'>> {
  const { metrics } = deps;
  const policy = { businessPhoneNumberIds: deps.businessPhoneNumberIds, now: deps.clock.now() };
  const echoes = admitInboundTurns(parsed.echoes ?? [], policy).admitted;
  const standby = admitInboundTurns(parsed.standby ?? [], policy).admitted;
  const recorded = deps.coexistence === undefined || echoes.length === 0 ? { recorded: 0, paused: 0 } : await deps.coexistence.echoes.execute(echoes);
  const standbyRecorded = deps.coexistence === undefined || standby.length === 0 ? 0 : await deps.coexistence.standby.execute(standby);
  const handovers = parsed.handovers ?? 0;
  if (echoes.length > 0) {
    metrics.addMetric(CUSTOM_METRICS.businessEchoesRecorded, MetricUnit.Count, recorded.recorded);
    metrics.addMetric(CUSTOM_METRICS.conversationsPausedFromPhone, MetricUnit.Count, recorded.paused);
  }
  if (standby.length > 0) metrics.addMetric(CUSTOM_METRICS.inboundStandbyRecorded, MetricUnit.Count, standbyRecorded);
  if (handovers > 0) metrics.addMetric(CUSTOM_METRICS.messagingHandovers, MetricUnit.Count, handovers);
  return { echoes: recorded, standbyRecorded, handovers };
}
