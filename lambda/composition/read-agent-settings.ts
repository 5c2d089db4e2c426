import { AGENT_BACKEND_KINDS, AGENT_STAGE_LIMITS, AGENT_TOOL_LIMITS, RUNTIME_ENV } from '../../lib/contract';
import { CONVERSATION_MEMORY_LIMITS } from '../../lib/contract/conversation-memory';
import { KNOWLEDGE_BASE_LIMITS, type RetrievalFilter, retrievalFilterProblems } from '../../lib/contract/knowledge-base';
import type { AgentSettings, AgentStageSettings, ConsumerToolSettings, SingleAgentSettings } from '../core/adapters/agent/agent-backend';
import { LAMBDA_AGENT_MEDIA_CONTRACT_VERSION } from '../core/adapters/agent/agent-function-contract';
import { AgentConfigurationError, type Check, flag, listOf, nullable, plainObject, recordOf, refusal, RuntimeConfigError, struct, text, textWhere, wholeNumber } from './settings-checks';

/** A stage's (or the single agent's) variables: what of it CloudFormation resolves. */
type Variables = Readonly<Record<string, string | undefined>>;

/** The agent as the orchestrator was told it, and the system prompt the construct set for a single agent. */
export interface ToldAgent {
  readonly agent: AgentSettings;
  readonly deployedSystemPrompt?: string;
}

const STOP_SEQUENCES: Check<readonly string[]> = (value, path) => {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) throw refusal(path, 'is not a list of non-empty texts');
  return value as string[];
};
const SHARE = (value: unknown, path: string): number => {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw refusal(path, 'is not a number from 0 to 1');
  return value;
};
const INFERENCE = struct({ maxTokens: wholeNumber(), temperature: SHARE, topP: SHARE, stopSequences: STOP_SEQUENCES }, ['maxTokens', 'temperature', 'topP', 'stopSequences']);
const TOOL = struct({
  name: textWhere((name) => AGENT_TOOL_LIMITS.namePattern.test(name), `a tool name (${AGENT_TOOL_LIMITS.namePattern.source})`),
  description: text(AGENT_TOOL_LIMITS.descriptionMaxCharacters),
  inputSchema: plainObject,
  sideEffects: flag,
  timeoutMs: wholeNumber(AGENT_TOOL_LIMITS.minTimeoutMs, AGENT_TOOL_LIMITS.maxTimeoutMs),
});
const RETRIEVAL_FILTER: Check<RetrievalFilter> = (value, path) => {
  const problems = retrievalFilterProblems(value, path);
  if (problems.length > 0) throw refusal(path, `is not a Retrieve filter: ${problems.join('; ')}`);
  return value as RetrievalFilter;
};
const KNOWLEDGE_BASE = struct({ numberOfResults: wholeNumber(1, KNOWLEDGE_BASE_LIMITS.maxNumberOfResults), filter: nullable(RETRIEVAL_FILTER) });
const MEMORY = struct({ foldEveryTurns: wholeNumber(CONVERSATION_MEMORY_LIMITS.minFoldEveryTurns, CONVERSATION_MEMORY_LIMITS.maxFoldEveryTurns), modelId: nullable(text()) });
const BEDROCK = struct({ backend: text(), systemPrompt: nullable(text()), inferenceConfig: nullable(INFERENCE), promptCaching: nullable(flag), guardrail: flag, knowledgeBase: nullable(KNOWLEDGE_BASE), memory: nullable(MEMORY), tools: listOf(TOOL, 1) }, ['tools']);
const LAMBDA = struct({ backend: text(), contractVersion: wholeNumber(1, Number(LAMBDA_AGENT_MEDIA_CONTRACT_VERSION)) });
const SCRIPTED = struct({ backend: text() });
const STAGE_NAME = textWhere((name) => AGENT_STAGE_LIMITS.namePattern.test(name), `a stage name (${AGENT_STAGE_LIMITS.namePattern.source})`);

/**
 * The orchestrator's agent: its document picks the adapter and configures it, its variables name
 * the model (and guardrail) or the function it is granted; `stages` reads each stage as a single
 * agent, its variables from `AGENT_STAGE_VARIABLES`. Every agent falls back on the same text.
 */
export function readAgent(document: unknown, environment: Variables, fallbackReply: string): ToldAgent {
  try {
    const backend = plainObject(document, 'agent').backend;
    if (backend !== AGENT_BACKEND_KINDS.stages) {
      const { agent, systemPrompt } = readSingleAgent(document, 'agent', environment, fallbackReply);
      return { agent, ...(systemPrompt !== undefined && { deployedSystemPrompt: systemPrompt }) };
    }
    return { agent: readStages(document, environment, fallbackReply) };
  } catch (error) {
    throw error instanceof RuntimeConfigError && !(error instanceof AgentConfigurationError) ? new AgentConfigurationError(error.message) : error;
  }
}

function readSingleAgent(document: unknown, path: string, variables: Variables, fallbackReply: string): { agent: SingleAgentSettings; systemPrompt?: string } {
  const backend = plainObject(document, path).backend;
  switch (backend) {
    case AGENT_BACKEND_KINDS.bedrock: {
      const bedrock = BEDROCK(document, path);
      const guardrail = bedrock.guardrail ? { identifier: variable(variables, RUNTIME_ENV.bedrockGuardrailId, path), version: variable(variables, RUNTIME_ENV.bedrockGuardrailVersion, path) } : undefined;
      const agent: SingleAgentSettings = {
        backend,
        modelId: variable(variables, RUNTIME_ENV.bedrockModelId, path),
        ...(bedrock.inferenceConfig !== null && { inferenceConfig: bedrock.inferenceConfig }),
        ...(guardrail && { guardrail }),
        ...(bedrock.promptCaching !== null && { promptCaching: bedrock.promptCaching }),
        ...(bedrock.memory !== null && { memory: bedrock.memory }),
        ...(bedrock.knowledgeBase !== null && { knowledgeBase: { knowledgeBaseId: variable(variables, RUNTIME_ENV.bedrockKnowledgeBaseId, path), ...bedrock.knowledgeBase } }),
        ...(bedrock.tools !== undefined && { tools: consumerTools(bedrock.tools, variables, path) }),
        fallbackReply,
      };
      return { agent, ...(bedrock.systemPrompt !== null && { systemPrompt: bedrock.systemPrompt }) };
    }
    case AGENT_BACKEND_KINDS.lambda: {
      const { contractVersion } = LAMBDA(document, path);
      const readsMedia = String(contractVersion) === LAMBDA_AGENT_MEDIA_CONTRACT_VERSION;
      return { agent: { backend, functionName: variable(variables, RUNTIME_ENV.agentFunctionName, path), ...(readsMedia && { readsMedia }), fallbackReply } };
    }
    case AGENT_BACKEND_KINDS.scripted:
      SCRIPTED(document, path);
      return { agent: { backend } };
    default: {
      const backends = Object.values(AGENT_BACKEND_KINDS).filter((kind) => kind !== AGENT_BACKEND_KINDS.stages);
      throw refusal(`${path}.backend`, `is ${JSON.stringify(backend)}, not one of ${backends.join(', ')}`, AgentConfigurationError);
    }
  }
}

/** `AgentBackend.stages()`: a name the construct would never write, a missing entry or a nested set of stages fails the cold start. */
function readStages(document: unknown, environment: Variables, fallbackReply: string): AgentSettings {
  const { entry, maxHandoversPerTurn, stages } = struct({
    backend: text(),
    entry: text(),
    maxHandoversPerTurn: wholeNumber(0, AGENT_STAGE_LIMITS.maxHandoversPerTurn),
    stages: recordOf((stage, path) => plainObject(stage, path)),
  })(document, 'agent');
  const names = Object.keys(stages);
  if (names.length === 0 || names.length > AGENT_STAGE_LIMITS.maxStages) throw refusal('agent.stages', `holds ${names.length} stages, not 1 to ${AGENT_STAGE_LIMITS.maxStages}`);
  names.forEach((name) => STAGE_NAME(name, `agent.stages.${name}`));
  if (!names.includes(entry)) throw refusal('agent.entry', `names none of the stages (${names.join(', ')})`);
  const stageVariables = stageVariablesOf(environment);
  const settings: Record<string, AgentStageSettings> = {};
  for (const name of names) {
    const path = `agent.stages.${name}`;
    if (stages[name].backend === AGENT_BACKEND_KINDS.stages) throw refusal(`${path}.backend`, 'is itself a set of stages');
    const { agent, systemPrompt } = readSingleAgent(stages[name], path, stageVariables[name] ?? {}, fallbackReply);
    settings[name] = { agent, ...(systemPrompt !== undefined && { deployedSystemPrompt: systemPrompt }) };
  }
  return { backend: AGENT_BACKEND_KINDS.stages, entry, maxHandoversPerTurn, stages: settings };
}

/** `AGENT_STAGE_VARIABLES`: each stage's own variables, as JSON. */
function stageVariablesOf(environment: Variables): Readonly<Record<string, Variables>> {
  const raw = environment[RUNTIME_ENV.agentStageVariables];
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AgentConfigurationError(`Environment variable ${RUNTIME_ENV.agentStageVariables} is not JSON; the AgentPipeline construct sets it.`);
  }
  return recordOf((stage, path) => recordOf(text())(stage, path))(parsed, RUNTIME_ENV.agentStageVariables);
}

/** The document's tools, each with its function from `AGENT_TOOL_FUNCTIONS` (`name=function,…`). */
function consumerTools(tools: readonly Omit<ConsumerToolSettings, 'functionName'>[], variables: Variables, path: string): ConsumerToolSettings[] {
  const functions = new Map(
    variable(variables, RUNTIME_ENV.agentToolFunctions, path)
      .split(',')
      .map((pair) => [pair.split('=')[0], pair.split('=')[1]] as const),
  );
  return tools.map((tool, index) => {
    const functionName = functions.get(tool.name)?.trim();
    if (!functionName) throw new AgentConfigurationError(`Environment variable ${RUNTIME_ENV.agentToolFunctions} names no function for ${path}.tools.${index} (${tool.name}); the AgentPipeline construct sets it.`);
    return { ...tool, functionName };
  });
}

/** A variable an agent's document asks for: its model, guardrail or function. */
function variable(variables: Variables, name: string, path: string): string {
  const value = variables[name]?.trim();
  if (!value) throw new AgentConfigurationError(`Environment variable ${name} is not set, which ${path} needs; the AgentPipeline construct sets it.`);
  return value;
}
