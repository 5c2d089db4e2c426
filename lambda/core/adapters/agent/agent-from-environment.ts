import { AGENT_BACKEND_KINDS, RUNTIME_ENV } from '../../../../lib/contract';
import { PipelineError } from '../../domain/errors';
import type { AgentPort } from '../../ports/agent';
import { BedrockConverseAgent, type ConverseCall } from './bedrock-converse-agent';
import type { LambdaInvoke } from '../lambda/lambda-invoke';
import { LambdaInvokeAgent } from './lambda-invoke-agent';
import { ScriptedAgent } from './scripted-agent';

type AgentBackend = (typeof AGENT_BACKEND_KINDS)[keyof typeof AGENT_BACKEND_KINDS];
const AGENT_BACKENDS = Object.values(AGENT_BACKEND_KINDS).join(', ');

/** The environment does not describe a usable agent backend. */
export class AgentConfigurationError extends PipelineError {
  override readonly name = 'AgentConfigurationError';
  override readonly code = 'invalid_agent_configuration';
  override readonly retryable = false;
}

/** Clients to use instead of the AWS SDK defaults (tests, or a tuned client). */
export interface AgentClients {
  readonly converse?: ConverseCall;
  readonly invoke?: LambdaInvoke;
}

/** The Converse `inferenceConfig` the construct passes as JSON. */
export interface BedrockInferenceSettings {
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stopSequences?: readonly string[];
}

export interface BedrockAgentSettings {
  readonly backend: typeof AGENT_BACKEND_KINDS.bedrock;
  readonly modelId: string;
  readonly inferenceConfig?: BedrockInferenceSettings;
  readonly guardrail?: { readonly identifier: string; readonly version: string };
}

/** Which agent backend the orchestrator wires in, and its setting. */
export type AgentSettings =
  | BedrockAgentSettings
  | { readonly backend: typeof AGENT_BACKEND_KINDS.lambda; readonly functionName: string }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted };

/**
 * The agent settings in the environment the construct sets: `AGENT_BACKEND` picks the adapter,
 * `BEDROCK_MODEL_ID` or `AGENT_FUNCTION_NAME` configures it. Throws an error that names the
 * variable, so a misconfiguration fails at cold start rather than on the first customer message.
 */
export function agentSettingsFromEnvironment(env: NodeJS.ProcessEnv): AgentSettings {
  const backend = env[RUNTIME_ENV.agentBackend];
  switch (backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return { backend, modelId: required(env, RUNTIME_ENV.bedrockModelId, backend), ...bedrockExtras(env) };
    case AGENT_BACKEND_KINDS.lambda:
      return { backend, functionName: required(env, RUNTIME_ENV.agentFunctionName, backend) };
    case AGENT_BACKEND_KINDS.scripted:
      return { backend };
    default:
      throw new AgentConfigurationError(
        backend
          ? `${RUNTIME_ENV.agentBackend}="${backend}" is not an agent backend; use one of ${AGENT_BACKENDS}`
          : `${RUNTIME_ENV.agentBackend} is not set; use one of ${AGENT_BACKENDS}`,
      );
  }
}

/** The agent adapter the settings select. */
export function createAgent(settings: AgentSettings, clients: AgentClients = {}): AgentPort {
  switch (settings.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return new BedrockConverseAgent({ modelId: settings.modelId, ...settings.inferenceConfig, guardrail: settings.guardrail, converse: clients.converse });
    case AGENT_BACKEND_KINDS.lambda:
      return new LambdaInvokeAgent({ functionName: settings.functionName, invoke: clients.invoke });
    case AGENT_BACKEND_KINDS.scripted:
      return new ScriptedAgent();
  }
}

/** The agent an environment describes (the local runtime passes its own). */
export function agentFromEnvironment(env: NodeJS.ProcessEnv, clients: AgentClients = {}): AgentPort {
  return createAgent(agentSettingsFromEnvironment(env), clients);
}

function required(env: NodeJS.ProcessEnv, name: string, backend: AgentBackend): string {
  const value = env[name]?.trim();
  if (!value) throw new AgentConfigurationError(`${name} is required when ${RUNTIME_ENV.agentBackend}=${backend}`);
  return value;
}

const INFERENCE_FIELDS: Record<keyof BedrockInferenceSettings, (value: unknown) => boolean> = {
  maxTokens: (value) => Number.isInteger(value) && (value as number) >= 1,
  temperature: (value) => typeof value === 'number' && value >= 0 && value <= 1,
  topP: (value) => typeof value === 'number' && value >= 0 && value <= 1,
  stopSequences: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== ''),
};

/** Inference settings and guardrail; a value the construct would never write fails the cold start. */
function bedrockExtras(env: NodeJS.ProcessEnv): Pick<BedrockAgentSettings, 'inferenceConfig' | 'guardrail'> {
  const rawInference = env[RUNTIME_ENV.bedrockInferenceConfig]?.trim();
  const guardrailId = env[RUNTIME_ENV.bedrockGuardrailId]?.trim();
  const guardrailVersion = env[RUNTIME_ENV.bedrockGuardrailVersion]?.trim();
  if (Boolean(guardrailId) !== Boolean(guardrailVersion)) {
    throw new AgentConfigurationError(`${RUNTIME_ENV.bedrockGuardrailId} and ${RUNTIME_ENV.bedrockGuardrailVersion} must be set together`);
  }
  return {
    ...(rawInference ? { inferenceConfig: parseInferenceConfig(rawInference) } : {}),
    ...(guardrailId && guardrailVersion ? { guardrail: { identifier: guardrailId, version: guardrailVersion } } : {}),
  };
}

function parseInferenceConfig(raw: string): BedrockInferenceSettings {
  const invalid = (problem: string) => new AgentConfigurationError(`${RUNTIME_ENV.bedrockInferenceConfig} ${problem}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('is not a JSON object');
  for (const [field, value] of Object.entries(parsed)) {
    const isValid = Object.hasOwn(INFERENCE_FIELDS, field) ? INFERENCE_FIELDS[field as keyof BedrockInferenceSettings] : undefined;
    if (!isValid) throw invalid(`has an unknown field "${field}"`);
    if (!isValid(value)) throw invalid(`has an invalid ${field}`);
  }
  return parsed as BedrockInferenceSettings;
}
