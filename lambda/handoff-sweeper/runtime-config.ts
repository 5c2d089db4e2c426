import { OPERATOR_ENV, RUNTIME_ENV } from '../../lib/contract';
import { operatorPlaneFromEnvironment, type OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { whatsAppChannelFromEnvironment, type WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The handoff sweeper's settings, as the construct passes them in the environment. */
export interface HandoffSweeperConfig {
  readonly tableName: string;
  /** Where replies go out: the Cloud API (secret, Graph API root) or End User Messaging (linked numbers). */
  readonly whatsApp: WhatsAppChannelConfig;
  readonly operatorPlane: OperatorPlaneEnvironment;
  readonly observability: ObservabilityConfig;
}

/** Reads and validates the sweeper's environment, once per cold start. */
export function readHandoffSweeperConfig(env: NodeJS.ProcessEnv = process.env): HandoffSweeperConfig {
  const operatorPlane = operatorPlaneFromEnvironment(env);
  if (operatorPlane === undefined) throw new RuntimeConfigError(`${OPERATOR_ENV.adminPhoneNumbers} and ${OPERATOR_ENV.consoleUrl} must be set; the AgentPipeline construct sets them with adminPhoneNumbers.`);
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    whatsApp: whatsAppChannelFromEnvironment(env),
    operatorPlane,
    observability: observabilityConfig(env),
  };
}
