import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS, TEMPLATE_SYNC_EVENT_FIELD } from '../../lib/contract';
import { messageTemplates } from '../core/adapters/dynamodb/dynamo-repositories';
import { createTemplateCatalog } from '../core/adapters/whatsapp/whatsapp-channel';
import { MessageTemplates, type TemplateSyncReport } from '../core/application/message-templates';
import type { SweepReport } from '../core/application/operator/handoff-lifecycle';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { HandoffSweeperSettings } from './deployment-settings';
import { composeOperatorPlane } from './operator-plane';

/** The scheduled event: the every-minute sweep's, or the template sync's (`{"syncTemplates": true}`). */
export type HandoffSweeperEvent = { readonly [TEMPLATE_SYNC_EVENT_FIELD]?: unknown } | undefined;
export type HandoffSweeperHandler = (event?: HandoffSweeperEvent) => Promise<SweepReport | TemplateSyncReport>;

export interface HandoffSweeperPorts extends FunctionPorts, SenderPorts {}

/** The sweeper's two scheduled runs. */
export interface HandoffSweeperRuns {
  sweep(): Promise<SweepReport>;
  syncTemplates(): Promise<TemplateSyncReport>;
}

/**
 * The handoff sweeper: one sweep of the handoff lifecycle per scheduled run, and the template sync
 * on its own schedule (the function already reads the table and the channel's secret).
 */
export function composeHandoffSweeper(settings: HandoffSweeperSettings, ports: HandoffSweeperPorts = {}): HandoffSweeperHandler {
  const runs = composeHandoffSweeperRuns(settings, ports);
  return (event) => (event?.[TEMPLATE_SYNC_EVENT_FIELD] === true ? runs.syncTemplates() : runs.sweep());
}

export function composeHandoffSweeperRuns(settings: HandoffSweeperSettings, ports: HandoffSweeperPorts = {}): HandoffSweeperRuns {
  const composed = composeFunction('handoff-sweeper', settings, ports);
  const { handoffs } = composeOperatorPlane(settings.operatorPlane, settings.locale, {
    ...composed,
    ...composeCustomerMessaging(settings.whatsApp, settings.locale, composed.table, ports),
  });
  const templates = new MessageTemplates({ templates: messageTemplates(composed.table), catalog: createTemplateCatalog(settings.whatsApp, ports), clock: composed.clock });
  return {
    sweep: () =>
      composed.instrument(async () => {
        const report = await handoffs.sweep();
        composed.metrics.addMetric(CUSTOM_METRICS.handoffsWaiting, MetricUnit.Count, report.waiting);
        composed.metrics.addMetric(CUSTOM_METRICS.oldestHandoffWaitingSeconds, MetricUnit.Seconds, report.oldestWaitingSeconds);
        composed.metrics.addMetric(CUSTOM_METRICS.handoffNotifications, MetricUnit.Count, report.notified + report.renotified);
        composed.metrics.addMetric(CUSTOM_METRICS.handoffCustomerReminders, MetricUnit.Count, report.customersReminded);
        composed.logger.info('handoffs_swept', { ...report });
        return report;
      }),
    syncTemplates: () =>
      composed.instrument(async () => {
        const synced = await templates.sync();
        composed.metrics.addMetric(CUSTOM_METRICS.templatesSynced, MetricUnit.Count, synced.stored);
        composed.logger.info('templates_synced', { ...synced });
        return synced;
      }),
  };
}
