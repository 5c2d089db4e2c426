import { AGENT_BACKEND_KINDS, RUNTIME_ENV } from '../../../../lib/private/pipeline-contract';
import type { AgentPort } from '../../ports/agent';
import { BedrockConverseAgent, type ConverseCall } from './bedrock-converse-agent';
import { LambdaInvokeAgent, type LambdaInvoke } from './lambda-invoke-agent';
import { ScriptedAgent } from './scripted-agent';

type AgentBackend = (typeof AGENT_BACKEND_KINDS)[keyof typeof AGENT_BACKEND_KINDS];
const AGENT_BACKENDS = Object.values(AGENT_BACKEND_KINDS).join(', ');

/** The environment does not describe a usable agent backend. */
export class AgentConfigurationError extends Error {
  override readonly name = 'AgentConfigurationError';
}

/** Clients to use instead of the AWS SDK defaults (tests, or a tuned client). */
export interface AgentClients {
  readonly converse?: ConverseCall;
  readonly invoke?: LambdaInvoke;
}

/** Which agent backend the orchestrator wires in, and its setting. */
export type AgentSettings =
  | { readonly backend: typeof AGENT_BACKEND_KINDS.bedrock; readonly modelId: string }
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
      return { backend, modelId: required(env, RUNTIME_ENV.bedrockModelId, backend) };
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
      return new BedrockConverseAgent({ modelId: settings.modelId, converse: clients.converse });
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
