import { RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { observabilityConfig, requiredVariable, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The webhook function's settings, as the construct passes them in the environment. */
export interface WebhookConfig {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  /** The WhatsApp secret (app secret, verify token); its values never appear in the environment. */
  readonly whatsAppSecretArn: string;
  readonly observability: ObservabilityConfig;
}

/**
 * Reads and validates the webhook's environment, once per cold start: the only place the webhook
 * reads `process.env`. Throws RuntimeConfigError naming the first variable that is missing.
 */
export function readWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    turnQueueUrl: requiredVariable(env, RUNTIME_ENV.turnQueueUrl),
    whatsAppSecretArn: requiredVariable(env, RUNTIME_ENV.whatsAppSecretArn),
    observability: observabilityConfig(env),
  };
}
