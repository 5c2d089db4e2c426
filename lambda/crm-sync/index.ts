// Entry point of the CRM sync worker: a schedule runs it every minute to publish due projections.
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { CUSTOM_METRICS } from '../../lib/contract';
import { LambdaCrmClient } from '../core/adapters/crm/lambda-crm-client';
import { lambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import { SignedWebhookCrmClient } from '../core/adapters/crm/signed-webhook-crm-client';
import { crmSyncRows } from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import { type CrmSyncRunReport, type CrmSyncWorkerLimits, SyncCrmProjections } from '../core/application/sync-crm-projections';
import { CrmSyncStatus } from '../core/domain/crm-sync';
import type { CrmClient } from '../core/ports/crm-client';
import { type CrmTargetConfig, readCrmSyncConfig } from './runtime-config';

/** The part of the Lambda context the worker reads. */
export interface InvocationClock {
  getRemainingTimeInMillis(): number;
}

export type CrmSyncHandler = (event?: unknown, context?: InvocationClock) => Promise<CrmSyncRunReport>;

export interface CrmSyncRuntime extends FunctionRuntime {
  readonly crm: CrmClient;
  readonly limits?: Partial<CrmSyncWorkerLimits>;
  /** In [0, 1): the retry jitter. Default `Math.random`. */
  readonly random?: () => number;
}

export function createCrmSyncHandler(runtime: CrmSyncRuntime): CrmSyncHandler {
  const composed = composeFunction('crm-sync', runtime);
  const crmSync = crmSyncRows(composed.table);
  const worker = new SyncCrmProjections({ crmSync, crm: runtime.crm, clock: composed.clock, random: runtime.random, limits: runtime.limits });
  return (_event, context) =>
    composed.instrument(async () => {
      const report = await worker.run(context ? () => context.getRemainingTimeInMillis() : undefined);
      const rows = Object.fromEntries((await crmSync.problems()).map((problem) => [problem.status, problem.count]));
      composed.metrics.addMetric(CUSTOM_METRICS.crmSyncSent, MetricUnit.Count, report.sent);
      composed.metrics.addMetric(CUSTOM_METRICS.crmSyncRetrying, MetricUnit.Count, report.retrying);
      composed.metrics.addMetric(CUSTOM_METRICS.crmSyncBlockedRows, MetricUnit.Count, rows[CrmSyncStatus.BLOCKED] ?? 0);
      composed.metrics.addMetric(CUSTOM_METRICS.crmSyncUncertainRows, MetricUnit.Count, rows[CrmSyncStatus.UNCERTAIN] ?? 0);
      composed.logger.info('crm_sync_run', { ...report, blockedRows: rows[CrmSyncStatus.BLOCKED] ?? 0, uncertainRows: rows[CrmSyncStatus.UNCERTAIN] ?? 0 });
      return report;
    });
}

/** The client for the configured target; a webhook secret is read from Secrets Manager, cached 5 minutes. */
export function crmClientFor(target: CrmTargetConfig): CrmClient {
  if (target.kind === 'function') return new LambdaCrmClient(target.functionName, lambdaInvoke());
  const secrets = new SecretsProvider();
  return new SignedWebhookCrmClient({
    url: target.url,
    secret: async () => {
      const value = await secrets.get(target.secretArn, { maxAge: 300 });
      if (typeof value !== 'string' || value === '') throw new Error(`CRM webhook secret ${target.secretArn} has no text value`);
      return value;
    },
  });
}

let fromEnvironment: CrmSyncHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: CrmSyncHandler = (event, context) => {
  if (fromEnvironment === undefined) {
    const config = readCrmSyncConfig();
    fromEnvironment = createCrmSyncHandler({ tableName: config.tableName, crm: crmClientFor(config.target), observability: config.observability });
  }
  return fromEnvironment(event, context);
};
