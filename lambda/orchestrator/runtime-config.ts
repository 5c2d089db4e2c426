import { COST_GUARD_DEFAULTS, PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/contract';
import { DEFAULT_CUSTOMER_BUDGET, type CustomerBudgetSettings } from '../core/application/customer-budget-gate';
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
  readonly customerBudget: CustomerBudgetSettings;
  /** Characters of history the agent is shown. */
  readonly historyMaxCharacters: number;
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
    maxReceiveCount: positiveWholeNumber(env, RUNTIME_ENV.maxReceiveCount) ?? PIPELINE_DEFAULTS.maxReceiveCount,
    deployedSystemPrompt: env[RUNTIME_ENV.deployedSystemPrompt]?.trim() || undefined,
    observability: observabilityConfig(env),
    operatorPlane: operatorPlaneFromEnvironment(env),
    customerBudget: customerBudget(env),
    historyMaxCharacters: positiveWholeNumber(env, RUNTIME_ENV.agentHistoryMaxCharacters) ?? COST_GUARD_DEFAULTS.historyMaxCharacters,
  };
}

const BUDGET_LIMITS = ['turnsPerMinute', 'turnsPerHour', 'agentTokensPerDay'] as const;

/** The budget JSON the construct writes; any field it leaves out keeps its default. */
function customerBudget(env: NodeJS.ProcessEnv): CustomerBudgetSettings {
  const raw = env[RUNTIME_ENV.customerBudget]?.trim();
  if (!raw) return DEFAULT_CUSTOMER_BUDGET;
  const refuse = (problem: string): never => {
    throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.customerBudget} ${problem}.`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    refuse('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) refuse('is not a JSON object');
  const fields = parsed as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (![...BUDGET_LIMITS, 'reply'].includes(key)) refuse(`has an unknown field "${key}"`);
  for (const key of BUDGET_LIMITS) {
    const value = fields[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) refuse(`field ${key} is not a positive whole number`);
  }
  if (fields.reply !== undefined && (typeof fields.reply !== 'string' || fields.reply.trim() === '')) refuse('field reply is not a non-empty text');
  return { ...DEFAULT_CUSTOMER_BUDGET, ...(fields as Partial<CustomerBudgetSettings>) };
}

function positiveWholeNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RuntimeConfigError(`Environment variable ${name}="${raw}" is not a positive whole number.`);
  return value;
}

