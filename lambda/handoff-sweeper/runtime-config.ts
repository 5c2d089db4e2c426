import { OPERATOR_ENV } from '../../lib/private/operator-contract';
import { PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { operatorPlaneFromEnvironment, type OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The handoff sweeper's settings, as the construct passes them in the environment. */
export interface HandoffSweeperConfig {
  readonly tableName: string;
  readonly whatsAppSecretArn: string;
  readonly whatsAppApiBaseUrl: string;
  readonly operatorPlane: OperatorPlaneEnvironment;
  readonly observability: ObservabilityConfig;
}

/** Reads and validates the sweeper's environment, once per cold start. */
export function readHandoffSweeperConfig(env: NodeJS.ProcessEnv = process.env): HandoffSweeperConfig {
  const operatorPlane = operatorPlaneFromEnvironment(env);
  if (operatorPlane === undefined) throw new RuntimeConfigError(`${OPERATOR_ENV.adminPhoneNumbers} and ${OPERATOR_ENV.consoleUrl} must be set; the AgentPipeline construct sets them with adminPhoneNumbers.`);
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    whatsAppSecretArn: requiredVariable(env, RUNTIME_ENV.whatsAppSecretArn),
    whatsAppApiBaseUrl: env[RUNTIME_ENV.whatsAppApiBaseUrl]?.trim() || PIPELINE_DEFAULTS.whatsAppApiBaseUrl,
    operatorPlane,
    observability: observabilityConfig(env),
  };
}
