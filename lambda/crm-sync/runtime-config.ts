import { CRM_TARGET_KINDS, RUNTIME_ENV } from '../../lib/contract';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** Where the worker sends projections, as the construct's `CrmTarget` put it in the environment. */
export type CrmTargetConfig = { readonly kind: 'function'; readonly functionName: string } | { readonly kind: 'webhook'; readonly url: string; readonly secretArn: string };

export interface CrmSyncConfig {
  readonly tableName: string;
  readonly target: CrmTargetConfig;
  readonly observability: ObservabilityConfig;
}

/** Reads and validates the worker's environment, once per cold start. */
export function readCrmSyncConfig(env: NodeJS.ProcessEnv = process.env): CrmSyncConfig {
  const kind = requiredVariable(env, RUNTIME_ENV.crmTarget);
  let target: CrmTargetConfig;
  if (kind === CRM_TARGET_KINDS.function) {
    target = { kind, functionName: requiredVariable(env, RUNTIME_ENV.crmFunctionName) };
  } else if (kind === CRM_TARGET_KINDS.webhook) {
    target = { kind, url: requiredVariable(env, RUNTIME_ENV.crmWebhookUrl), secretArn: requiredVariable(env, RUNTIME_ENV.crmWebhookSecretArn) };
  } else {
    throw new RuntimeConfigError(`${RUNTIME_ENV.crmTarget} must be '${CRM_TARGET_KINDS.function}' or '${CRM_TARGET_KINDS.webhook}'; the AgentPipeline construct sets it from crmSync.`);
  }
  return { tableName: requiredVariable(env, RUNTIME_ENV.tableName), target, observability: observabilityConfig(env) };
}
