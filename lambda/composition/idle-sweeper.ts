import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS } from '../../lib/contract';
import { adminAudit, customerDataRepository, sessionRepository } from '../core/adapters/dynamodb/dynamo-repositories';
import { CloseConversation } from '../core/application/close-conversation';
import { CloseIdleConversations, type IdleSweepReport } from '../core/application/close-idle-conversations';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { CustomerPseudonyms } from '../core/application/privacy/customer-pseudonyms';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { InvocationClock } from './crm-sync';
import type { IdleSweeperSettings } from './deployment-settings';

export type IdleSweeperHandler = (event?: unknown, context?: InvocationClock) => Promise<IdleSweepReport>;

/** The idle sweeper: one pass over the idle conversations the agent serves per scheduled run, each close audited. */
export function composeIdleSweeper(settings: IdleSweeperSettings, ports: FunctionPorts = {}): IdleSweeperHandler {
  const composed = composeFunction('idle-sweeper', settings, ports);
  const { table, clock, ids } = composed;
  const sessions = sessionRepository(table);
  const audit = new OperatorAuditTrail(adminAudit(table), clock, ids, new CustomerPseudonyms(customerDataRepository(table)));
  const sweeper = new CloseIdleConversations({ sessions, closer: new CloseConversation({ sessions, audit }), clock, settings: settings.idleSweep });
  return (_event, context) =>
    composed.instrument(async () => {
      const report = await sweeper.sweep(context ? () => context.getRemainingTimeInMillis() : undefined);
      composed.metrics.addMetric(CUSTOM_METRICS.conversationsClosedIdle, MetricUnit.Count, report.closed);
      composed.logger.info('idle_conversations_swept', { ...report });
      return report;
    });
}
