import { OPERATOR_DEFAULTS, OPERATOR_ENV, parseAdminPhoneNumbers } from '../../lib/private/operator-contract';
import { PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The operator function's settings, as the construct passes them in the environment. */
export interface OperatorConfig {
  readonly tableName: string;
  /** The WhatsApp secret (access token for operator replies); its values never appear in the environment. */
  readonly whatsAppSecretArn: string;
  readonly whatsAppApiBaseUrl: string;
  readonly adminPhoneNumbers: readonly string[];
  readonly timeZone: string;
  /** For the admin's dead-letter calls (the same safe redrive as `npm run redrive`). */
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly observability: ObservabilityConfig;
}

/**
 * Reads and validates the operator function's environment, once per cold start: the only place it
 * reads `process.env`. Throws RuntimeConfigError naming the first variable that is missing.
 */
export function readOperatorConfig(env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const adminPhoneNumbers = parseAdminPhoneNumbers(requiredVariable(env, OPERATOR_ENV.adminPhoneNumbers));
  if (adminPhoneNumbers.length === 0) throw new RuntimeConfigError(`${OPERATOR_ENV.adminPhoneNumbers} names no admin phone`);
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    whatsAppSecretArn: requiredVariable(env, RUNTIME_ENV.whatsAppSecretArn),
    whatsAppApiBaseUrl: env[RUNTIME_ENV.whatsAppApiBaseUrl]?.trim() || PIPELINE_DEFAULTS.whatsAppApiBaseUrl,
    adminPhoneNumbers,
    timeZone: env[OPERATOR_ENV.timeZone]?.trim() || OPERATOR_DEFAULTS.timeZone,
    turnQueueUrl: requiredVariable(env, RUNTIME_ENV.turnQueueUrl),
    deadLetterQueueUrl: requiredVariable(env, OPERATOR_ENV.deadLetterQueueUrl),
    observability: observabilityConfig(env),
  };
}
