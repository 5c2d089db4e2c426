import { RUNTIME_ENV } from '../../lib/contract';
import { observabilityConfig, requiredVariable, type ObservabilityConfig } from '../core/adapters/runtime-environment';
import { parseEndUserMessagingPhoneNumbers } from '../core/adapters/whatsapp/whatsapp-channel';

/** The End User Messaging inbound function's settings, as the construct passes them in the environment. */
export interface EndUserMessagingInboundConfig {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  /** The Meta phone number ids of the linked numbers this pipeline answers for; events of others are dropped. */
  readonly businessPhoneNumberIds: readonly string[];
  readonly observability: ObservabilityConfig;
}

/** Reads and validates the function's environment, once per cold start. */
export function readEndUserMessagingInboundConfig(env: NodeJS.ProcessEnv = process.env): EndUserMessagingInboundConfig {
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    turnQueueUrl: requiredVariable(env, RUNTIME_ENV.turnQueueUrl),
    businessPhoneNumberIds: [...parseEndUserMessagingPhoneNumbers(requiredVariable(env, RUNTIME_ENV.endUserMessagingPhoneNumbers)).keys()],
    observability: observabilityConfig(env),
  };
}
