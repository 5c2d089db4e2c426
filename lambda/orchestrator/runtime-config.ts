import { PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { agentSettingsFromEnvironment, type AgentSettings } from '../core/adapters/agent/agent-from-environment';
import { operatorPlaneFromEnvironment, type OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { whatsAppChannelFromEnvironment, type WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { observabilityConfig, requiredVariable, RuntimeConfigError, type ObservabilityConfig } from '../core/adapters/runtime-environment';

/** The orchestrator function's settings, as the construct passes them in the environment. */
export interface OrchestratorConfig {
  readonly tableName: string;
  /** Where replies go out: the Cloud API (secret, Graph API root) or End User Messaging (linked numbers). */
  readonly whatsApp: WhatsAppChannelConfig;
  readonly agent: AgentSettings;
  /** The turn queue's redrive `maxReceiveCount`: the receive that reaches it is the final attempt. */
  readonly maxReceiveCount: number;
  /** The system prompt set in the construct, if any: adopted as the prompt resource's next version. */
  readonly deployedSystemPrompt?: string;
  readonly observability: ObservabilityConfig;
  /** Present when the construct turned the operator plane on. */
  readonly operatorPlane?: OperatorPlaneEnvironment;
}

/**
 * Reads and validates the orchestrator's environment, once per cold start: the only place the
 * orchestrator reads `process.env`. Throws an error naming the variable that is missing or wrong,
 * rather than failing on the first customer message.
 */
export function readOrchestratorConfig(env: NodeJS.ProcessEnv = process.env): OrchestratorConfig {
  return {
    tableName: requiredVariable(env, RUNTIME_ENV.tableName),
    whatsApp: whatsAppChannelFromEnvironment(env),
    agent: agentSettingsFromEnvironment(env),
    maxReceiveCount: maxReceiveCount(env),
    deployedSystemPrompt: env[RUNTIME_ENV.deployedSystemPrompt]?.trim() || undefined,
    observability: observabilityConfig(env),
    operatorPlane: operatorPlaneFromEnvironment(env),
  };
}

function maxReceiveCount(env: NodeJS.ProcessEnv): number {
  const raw = env[RUNTIME_ENV.maxReceiveCount]?.trim();
  if (!raw) return PIPELINE_DEFAULTS.maxReceiveCount;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.maxReceiveCount}="${raw}" is not a positive whole number.`);
  return value;
}
