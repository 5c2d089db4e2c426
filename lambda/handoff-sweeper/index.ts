// Entry point of the handoff sweeper: an EventBridge schedule runs it every minute to re-notify
// operators about waiting conversations and remind their customers once.
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS } from '../../lib/contract';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import type { OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { createWhatsAppSender } from '../core/adapters/whatsapp/whatsapp-channel';
import type { SweepReport } from '../core/application/operator/handoff-lifecycle';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';
import { composeOperatorPlane } from '../operator/compose-plane';
import { readHandoffSweeperConfig } from './runtime-config';

export type HandoffSweeperHandler = () => Promise<SweepReport>;

export interface HandoffSweeperRuntime extends FunctionRuntime {
  readonly whatsapp: WhatsAppSender;
  readonly operatorPlane: OperatorPlaneEnvironment;
}

export function createHandoffSweeperHandler(runtime: HandoffSweeperRuntime): HandoffSweeperHandler {
  const composed = composeFunction('handoff-sweeper', { operatorTimeZone: runtime.operatorPlane.timeZone, ...runtime });
  const { handoffs } = composeOperatorPlane(runtime.operatorPlane, composed, runtime.whatsapp, runtime.ids ?? randomIdGenerator);
  return () =>
    composed.instrument(async () => {
      const report = await handoffs.sweep();
      composed.metrics.addMetric(CUSTOM_METRICS.handoffsWaiting, MetricUnit.Count, report.waiting);
      composed.metrics.addMetric(CUSTOM_METRICS.handoffNotifications, MetricUnit.Count, report.notified + report.renotified);
      composed.metrics.addMetric(CUSTOM_METRICS.handoffCustomerReminders, MetricUnit.Count, report.customersReminded);
      composed.logger.info('handoffs_swept', { ...report });
      return report;
    });
}

let fromEnvironment: HandoffSweeperHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: HandoffSweeperHandler = () => {
  if (fromEnvironment === undefined) {
    const config = readHandoffSweeperConfig();
    fromEnvironment = createHandoffSweeperHandler({
      tableName: config.tableName,
      operatorPlane: config.operatorPlane,
      whatsapp: createWhatsAppSender(config.whatsApp),
      observability: config.observability,
    });
  }
  return fromEnvironment();
};
