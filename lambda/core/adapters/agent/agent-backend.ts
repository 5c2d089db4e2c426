import { AGENT_BACKEND_KINDS, type ConversationMemorySettings, type KnowledgeBaseSettings, type LocaleTexts, localePreset, PROMPT_CACHING_UNLISTED_MODEL, promptCachingSupportOf, type PromptCachingSupport } from '../../../../lib/contract';
import type { AgentPort, AgentStages } from '../../ports/agent';
import { agentTools } from './agent-actions';
import { BedrockConverseAgent, type ConverseCall } from './bedrock-converse-agent';
import { BedrockKnowledgeBase } from './bedrock-knowledge-base';
import { BedrockConversationSummarizer } from './bedrock-conversation-summarizer';
import type { AwsCallOptions } from '../aws/signed-aws-post';
import type { LambdaInvoke } from '../lambda/lambda-invoke';
import { LambdaInvokeAgent } from './lambda-invoke-agent';
import { LambdaTool } from './lambda-tool';
import { ScriptedAgent } from './scripted-agent';
import { StageRoutingAgents } from './stage-routing-agents';

/** Clients to use instead of the AWS SDK defaults (tests, or a tuned client). */
export interface AgentClients {
  readonly converse?: ConverseCall;
  readonly invoke?: LambdaInvoke;
  /** How Retrieve is called (a local knowledge base's endpoint, other credentials). Default: the environment's. */
  readonly retrieve?: AwsCallOptions;
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
  /** The knowledge base the agent searches (Retrieve). */
  readonly knowledgeBase?: { readonly knowledgeBaseId: string } & KnowledgeBaseSettings;
  /** Older history folds into the session's summary, written by this model (`null`: the agent's). */
  readonly memory?: ConversationMemorySettings;
  /** The consumer's tools (`AgentTool.fromFunction()`). */
  readonly tools?: readonly ConsumerToolSettings[];
}

/** One consumer tool: what the model is told, and the function that answers it. */
export interface ConsumerToolSettings {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly sideEffects: boolean;
  readonly timeoutMs: number;
  readonly functionName: string;
}

/** One agent: a Bedrock model, the consumer's function, or the scripted agent. */
export type SingleAgentSettings = (
  | BedrockAgentSettings
  | {
      readonly backend: typeof AGENT_BACKEND_KINDS.lambda;
      readonly functionName: string;
      /** The function reads contract version 2: turns with attachments send them. */
      readonly readsMedia?: boolean;
    }
  | { readonly backend: typeof AGENT_BACKEND_KINDS.scripted }
) & {
  /** What the agent answers when it has nothing better to say. Default: the locale's text. */
  readonly fallbackReply?: string;
};

/** One stage of `AgentBackend.stages()`: its agent, and the prompt the construct set for it. */
export interface AgentStageSettings {
  readonly agent: SingleAgentSettings;
  readonly deployedSystemPrompt?: string;
}

export interface AgentStagesSettings {
  readonly backend: typeof AGENT_BACKEND_KINDS.stages;
  readonly entry: string;
  readonly maxHandoversPerTurn: number;
  readonly stages: Readonly<Record<string, AgentStageSettings>>;
}

/** Which agent backend the orchestrator wires in, and its setting. */
export type AgentSettings = SingleAgentSettings | AgentStagesSettings;

/** The agents a deployment answers with: its one agent, or each stage's. */
export function singleAgentSettingsOf(agent: AgentSettings): readonly SingleAgentSettings[] {
  return agent.backend === AGENT_BACKEND_KINDS.stages ? Object.values(agent.stages).map((stage) => stage.agent) : [agent];
}

/**
 * The agent adapter the settings select; with stages, each stage's adapter offered the handover to
 * the others. `texts` are the pipeline locale's: the deadline fallback and the scripted agent's reply.
 */
export function createAgent(settings: AgentSettings, clients: AgentClients = {}, texts: LocaleTexts = localePreset().texts): AgentPort | AgentStages {
  if (settings.backend !== AGENT_BACKEND_KINDS.stages) return createSingleAgent(settings, clients, texts, []);
  const names = Object.keys(settings.stages);
  const agents = new Map(
    names.map((name) => [name, createSingleAgent(settings.stages[name].agent, clients, texts, names.filter((other) => other !== name), name)] as const),
  );
  return new StageRoutingAgents(agents, settings.entry, settings.maxHandoversPerTurn);
}

function createSingleAgent(settings: SingleAgentSettings, clients: AgentClients, texts: LocaleTexts, handoverTargets: readonly string[], stage?: string): AgentPort {
  const tools = agentTools(handoverTargets);
  const fallbackReply = settings.fallbackReply ?? texts.agentDeadline;
  switch (settings.backend) {
    case AGENT_BACKEND_KINDS.bedrock:
      return new BedrockConverseAgent({
        modelId: settings.modelId,
        ...settings.inferenceConfig,
        guardrail: settings.guardrail,
        promptCaching: promptCachingOf(settings),
        fallbackReply,
        converse: clients.converse,
        tools,
        consumerTools: (settings.tools ?? []).map((tool) => new LambdaTool({ ...tool, invoke: clients.invoke })),
        ...(settings.knowledgeBase && { knowledgeBase: knowledgeBaseOf(settings.knowledgeBase, clients.retrieve) }),
        ...(settings.memory && {
          memory: { foldEveryTurns: settings.memory.foldEveryTurns, summarizer: new BedrockConversationSummarizer({ modelId: settings.memory.modelId ?? settings.modelId, converse: clients.converse }) },
        }),
      });
    case AGENT_BACKEND_KINDS.lambda:
      return new LambdaInvokeAgent({ functionName: settings.functionName, fallbackReply, invoke: clients.invoke, tools, readsMedia: settings.readsMedia });
    case AGENT_BACKEND_KINDS.scripted:
      return new ScriptedAgent({ replyTemplate: texts.scriptedReply, ...(stage === undefined ? {} : { stage, handoverTargets }) });
  }
}

function knowledgeBaseOf({ knowledgeBaseId, numberOfResults, filter }: NonNullable<BedrockAgentSettings['knowledgeBase']>, call: AwsCallOptions = {}): BedrockKnowledgeBase {
  return new BedrockKnowledgeBase({ ...call, knowledgeBaseId, numberOfResults, ...(filter !== null && { filter }) });
}

/** Where the agent puts cache points: where the model takes them, unless the construct turned caching off or on. */
function promptCachingOf({ modelId, promptCaching }: BedrockAgentSettings): PromptCachingSupport | undefined {
  if (promptCaching === false) return undefined;
  const support = promptCachingSupportOf(modelId);
  return support ?? (promptCaching ? PROMPT_CACHING_UNLISTED_MODEL : undefined);
}
