import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS } from '../../lib/contract';
import type { SweepReport } from '../core/application/operator/handoff-lifecycle';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { HandoffSweeperSettings } from './deployment-settings';
import { composeOperatorPlane } from './operator-plane';

export type HandoffSweeperHandler = () => Promise<SweepReport>;

export interface HandoffSweeperPorts extends FunctionPorts, SenderPorts {}

/** The handoff sweeper: one sweep of the handoff lifecycle per scheduled run. */
export function composeHandoffSweeper(settings: HandoffSweeperSettings, ports: HandoffSweeperPorts = {}): HandoffSweeperHandler {
  const composed = composeFunction('handoff-sweeper', settings, ports);
  const { handoffs } = composeOperatorPlane(settings.operatorPlane, settings.locale, {
    ...composed,
    ...composeCustomerMessaging(settings.whatsApp, settings.locale, composed.table, ports),
  });
  return () =>
    composed.instrument(async () => {
      const report = await handoffs.sweep();
      composed.metrics.addMetric(CUSTOM_METRICS.handoffsWaiting, MetricUnit.Count, report.waiting);
      composed.metrics.addMetric(CUSTOM_METRICS.oldestHandoffWaitingSeconds, MetricUnit.Seconds, report.oldestWaitingSeconds);
      composed.metrics.addMetric(CUSTOM_METRICS.handoffNotifications, MetricUnit.Count, report.notified + report.renotified);
      composed.metrics.addMetric(CUSTOM_METRICS.handoffCustomerReminders, MetricUnit.Count, report.customersReminded);
      composed.logger.info('handoffs_swept', { ...report });
      return report;
    });
}
