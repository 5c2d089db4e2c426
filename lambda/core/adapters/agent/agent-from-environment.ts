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

/**
 * The agent selected by the environment the construct sets: `AGENT_BACKEND` picks the adapter,
 * `BEDROCK_MODEL_ID` or `AGENT_FUNCTION_NAME` configures it. Fails at cold start with an error that
 * names the variable, rather than on the first customer message.
 */
export function agentFromEnvironment(env: NodeJS.ProcessEnv = process.env, clients: AgentClients = {}): AgentPort {
  const backend = env[RUNTIME_ENV.agentBackend];
  switch (backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return new BedrockConverseAgent({ modelId: required(env, RUNTIME_ENV.bedrockModelId, backend), converse: clients.converse });
    case AGENT_BACKEND_KINDS.lambda:
      return new LambdaInvokeAgent({ functionName: required(env, RUNTIME_ENV.agentFunctionName, backend), invoke: clients.invoke });
    case AGENT_BACKEND_KINDS.scripted:
      return new ScriptedAgent();
    default:
      throw new AgentConfigurationError(
        backend
          ? `${RUNTIME_ENV.agentBackend}="${backend}" is not an agent backend; use one of ${AGENT_BACKENDS}`
          : `${RUNTIME_ENV.agentBackend} is not set; use one of ${AGENT_BACKENDS}`,
      );
  }
}

function required(env: NodeJS.ProcessEnv, name: string, backend: AgentBackend): string {
  const value = env[name]?.trim();
  if (!value) throw new AgentConfigurationError(`${name} is required when ${RUNTIME_ENV.agentBackend}=${backend}`);
  return value;
}
