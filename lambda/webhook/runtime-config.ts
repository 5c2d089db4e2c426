import { RUNTIME_ENV } from '../../lib/contract';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';
import { isValidBusinessPhoneNumberId } from '../core/domain/inbound-admission';

/** The webhook function's settings, as the construct passes them in the environment. */
export interface WebhookConfig {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  /** The WhatsApp secret (app secret, verify token); its values never appear in the environment. */
  readonly whatsAppSecretArn: string;
  /** The business numbers served; `undefined` when the construct was given none (every number of the app). */
  readonly businessPhoneNumberIds?: readonly string[];
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
    businessPhoneNumberIds: businessPhoneNumberIds(env),
    observability: observabilityConfig(env),
  };
}

/** A comma-separated list of Meta phone number ids; unset or empty means "every number". */
function businessPhoneNumberIds(env: NodeJS.ProcessEnv): readonly string[] | undefined {
  const value = env[RUNTIME_ENV.businessPhoneNumberIds]?.trim();
  if (!value) return undefined;
  const ids = value.split(',').map((id) => id.trim());
  const malformed = ids.filter((id) => !isValidBusinessPhoneNumberId(id));
  if (malformed.length > 0) {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.businessPhoneNumberIds} holds ${malformed.length} value(s) that are not Meta phone number ids (digits only).`);
  }
  return ids;
}
