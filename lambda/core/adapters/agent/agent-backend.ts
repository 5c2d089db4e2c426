import { AGENT_BACKEND_KINDS } from '../../../../lib/contract';
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
}

/** Which agent backend the orchestrator wires in, and its setting. */
export type AgentSettings = (
  | BedrockAgentSettings
  | { readonly backend: typeof AGENT_BACKEND_KINDS.lambda; readonly functionName: string }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted }
) & {
  /** What the agent answers when it has nothing better to say. Default: the adapters' built-in text. */
  readonly fallbackReply?: string;
};

/** The agent adapter the settings select. */
export function createAgent(settings: AgentSettings, clients: AgentClients = {}): AgentPort {
  const { fallbackReply } = settings;
  switch (settings.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return new BedrockConverseAgent({ modelId: settings.modelId, ...settings.inferenceConfig, guardrail: settings.guardrail, fallbackReply, converse: clients.converse });
    case AGENT_BACKEND_KINDS.lambda:
      return new LambdaInvokeAgent({ functionName: settings.functionName, fallbackReply, invoke: clients.invoke });
    case AGENT_BACKEND_KINDS.scripted:
      return new ScriptedAgent();
  }
}
