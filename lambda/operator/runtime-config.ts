import { OPERATOR_DEFAULTS, OPERATOR_ENV, parseAdminPhoneNumbers, RUNTIME_ENV } from '../../lib/contract';
import { whatsAppChannelFromEnvironment, type WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The operator function's settings, as the construct passes them in the environment. */
export interface OperatorConfig {
  readonly tableName: string;
  /** Where replies go out: the Cloud API (secret, Graph API root) or End User Messaging (linked numbers). */
  readonly whatsApp: WhatsAppChannelConfig;
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
    whatsApp: whatsAppChannelFromEnvironment(env),
    adminPhoneNumbers,
    timeZone: env[OPERATOR_ENV.timeZone]?.trim() || OPERATOR_DEFAULTS.timeZone,
    turnQueueUrl: requiredVariable(env, RUNTIME_ENV.turnQueueUrl),
    deadLetterQueueUrl: requiredVariable(env, OPERATOR_ENV.deadLetterQueueUrl),
    observability: observabilityConfig(env),
  };
}
