import { RUNTIME_ENV } from '../../../lib/private/pipeline-contract';

/** A function's environment is missing a variable or holds an unusable value; thrown at cold start. */
export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
}

/** A variable the construct always sets; its absence means the function was deployed by hand. */
export function requiredVariable(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new RuntimeConfigError(`Environment variable ${name} is not set; the AgentPipeline construct sets it.`);
  return value;
}

/** Powertools' service name and metrics namespace; unset in local runs, which use the defaults. */
export interface ObservabilityConfig {
  readonly serviceName?: string;
  readonly metricsNamespace?: string;
}

export function observabilityConfig(env: NodeJS.ProcessEnv): ObservabilityConfig {
  return { serviceName: env[RUNTIME_ENV.serviceName] || undefined, metricsNamespace: env[RUNTIME_ENV.metricsNamespace] || undefined };
}

/**
 * Whether session writes carry the CRM projection (`CRM_SYNC_ENABLED=true`, set by the construct on
 * every function when `crmSync` is set). Every function that writes sessions must agree, so it is
 * read where they all compose their repositories.
 */
export function crmSyncEnabled(env: NodeJS.ProcessEnv): boolean {
  return env[RUNTIME_ENV.crmSyncEnabled] === 'true';
}
