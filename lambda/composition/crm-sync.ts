import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CRM_TARGET_KINDS, CUSTOM_METRICS } from '../../lib/contract';
import { LambdaCrmClient } from '../core/adapters/crm/lambda-crm-client';
import { SignedWebhookCrmClient } from '../core/adapters/crm/signed-webhook-crm-client';
import { crmSyncRows } from '../core/adapters/dynamodb/dynamo-repositories';
import { credentialProvider } from '../core/adapters/aws/aws-identity';
import { lambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import { secretsManagerReader } from '../core/adapters/secrets/secrets-manager-credentials';
import { type CrmSyncRunReport, SyncCrmProjections } from '../core/application/sync-crm-projections';
import { CrmSyncStatus } from '../core/domain/crm-sync';
import type { CrmClient } from '../core/ports/crm-client';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { CrmSyncSettings, CrmTargetConfig } from './deployment-settings';

/** The part of the Lambda context the worker reads. */
export interface InvocationClock {
  getRemainingTimeInMillis(): number;
}

export type CrmSyncHandler = (event?: unknown, context?: InvocationClock) => Promise<CrmSyncRunReport>;

/** Reads the text value of a secret. */
export type SecretTextReader = (secretArn: string) => Promise<string>;

export interface CrmSyncPorts extends FunctionPorts {
  /** Reads the CRM webhook's signing key instead of Secrets Manager (the local runtime's fake CRM). */
  readonly readSecret?: SecretTextReader;
}

/** The CRM sync worker: one run over the due projections per scheduled invocation, and the rows' health as metrics. */
export function composeCrmSync(settings: CrmSyncSettings, ports: CrmSyncPorts = {}): CrmSyncHandler {
  const composed = composeFunction('crm-sync', settings, ports);
  const crmSync = crmSyncRows(composed.table);
  const worker = new SyncCrmProjections({ crmSync, crm: crmClientFor(settings.crmTarget, ports), clock: composed.clock });
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

/** The client for the configured target. */
function crmClientFor(target: CrmTargetConfig, ports: CrmSyncPorts): CrmClient {
  if (target.kind === CRM_TARGET_KINDS.function) return new LambdaCrmClient(target.functionName, lambdaInvoke({ credentials: credentialProvider(ports.awsCredentials) }));
  const readSecret = ports.readSecret ?? secretsManagerText(ports);
  return new SignedWebhookCrmClient({ url: target.url, secret: () => readSecret(target.secretArn) });
}

/** A secret's text from Secrets Manager, read with the function's identity, cached 5 minutes. */
function secretsManagerText(ports: CrmSyncPorts): SecretTextReader {
  const secrets = secretsManagerReader({ credentials: ports.awsCredentials, endpoint: ports.secretsManagerEndpoint });
  return async (secretArn) => {
    const value = await secrets.text(secretArn, { maxAgeSeconds: 300 });
    if (value === '') throw new Error(`CRM webhook secret ${secretArn} has no text value`);
    return value;
  };
}
