import { AGENT_BACKEND_KINDS, PROMPT_CACHING_UNLISTED_MODEL, promptCachingSupportOf, type PromptCachingSupport } from '../../../../lib/contract';
import type { AgentPort } from '../../ports/agent';
import { BedrockConverseAgent, type ConverseCall } from './bedrock-converse-agent';
import type { LambdaInvoke } from '../lambda/lambda-invoke';
import { LambdaInvokeAgent } from './lambda-invoke-agent';
import { ScriptedAgent } from './scripted-agent';

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
  /** `false`: no cache points; `true`: cache points even on a model the table does not list; absent: as the table says. */
  readonly promptCaching?: boolean;
}

/** Which agent backend the orchestrator wires in, and its setting. */
export type AgentSettings =
  | BedrockAgentSettings
  | { readonly backend: typeof AGENT_BACKEND_KINDS.lambda; readonly functionName: string }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted };

/** The agent adapter the settings select. */
export function createAgent(settings: AgentSettings, clients: AgentClients = {}): AgentPort {
  switch (settings.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return new BedrockConverseAgent({
        modelId: settings.modelId,
        ...settings.inferenceConfig,
        guardrail: settings.guardrail,
        promptCaching: promptCachingOf(settings),
        converse: clients.converse,
      });
    case AGENT_BACKEND_KINDS.lambda:
      return new LambdaInvokeAgent({ functionName: settings.functionName, invoke: clients.invoke });
    case AGENT_BACKEND_KINDS.scripted:
      return new ScriptedAgent();
  }
}

/** Where the agent puts cache points: where the model takes them, unless the construct turned caching off or on. */
function promptCachingOf({ modelId, promptCaching }: BedrockAgentSettings): PromptCachingSupport | undefined {
  if (promptCaching === false) return undefined;
  const support = promptCachingSupportOf(modelId);
  return support ?? (promptCaching ? PROMPT_CACHING_UNLISTED_MODEL : undefined);
}
