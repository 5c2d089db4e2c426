import { RUNTIME_ENV } from '../../../lib/contract';
import { PipelineError } from '../domain/errors';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../domain/privacy';
import { KeyLayout } from '../../../lib/key-layout';
import { parseKeyLayout } from './dynamodb/key-layout';

/** A function's environment is missing a variable or holds an unusable value; thrown at cold start. */
export class RuntimeConfigError extends PipelineError {
  override readonly name = 'RuntimeConfigError';
  override readonly code = 'invalid_runtime_config';
  override readonly retryable = false;
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

/** How long closed conversations and demands live; the defaults when the construct did not say (local runs). */
export function retentionFromEnvironment(env: NodeJS.ProcessEnv): RetentionPolicy {
  const seconds = (name: string, fallback: number) => {
    const value = env[name]?.trim();
    if (!value) return fallback;
    const parsed = Number(value);
    if (!Number.isSafeInteger(parsed) || parsed < 1) throw new RuntimeConfigError(`Environment variable ${name} must be a whole number of seconds; got '${value}'.`);
    return parsed;
  };
  return {
    conversationSeconds: seconds(RUNTIME_ENV.conversationRetentionSeconds, DEFAULT_RETENTION.conversationSeconds),
    demandSeconds: seconds(RUNTIME_ENV.demandRetentionSeconds, DEFAULT_RETENTION.demandSeconds),
  };
}

/**
 * The write-shard migration phase the construct set (`keyLayout`); `seed` when unset (local runs,
 * deployments that never chose). Every function of a deployment must agree, so each reads it where
 * it composes its repositories, and an unknown value stops the cold start instead of writing a
 * layout no reader expects.
 */
export function keyLayoutFromEnvironment(env: NodeJS.ProcessEnv): KeyLayout {
  const value = env[RUNTIME_ENV.keyLayout]?.trim();
  if (!value) return KeyLayout.SEED;
  try {
    return parseKeyLayout(value);
  } catch (error) {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.keyLayout}: ${(error as Error).message}. The AgentPipeline construct sets it from the keyLayout prop.`);
  }
}
