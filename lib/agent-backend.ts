import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentTool } from './agent-tool';
import type { BedrockAgentBackendProps, BedrockAgentMemory, BedrockGuardrail, BedrockInferenceConfig, BedrockKnowledgeBase } from './bedrock-agent-backend-props';
import { grantKnowledgeBaseSearch, grantModelInvocation } from './private/bedrock-grants';
import { AGENT_FUNCTION_INVOKE_ACTIONS, BEDROCK_GUARDRAIL_ACTIONS } from './private/permissions';
import { AGENT_BACKEND_KINDS, AGENT_STAGE_LIMITS, AGENT_TOOL_LIMITS, type AgentOptions, definedFields, type SingleAgentOptions, SYSTEM_PROMPT_MAX_CHARACTERS } from './contract';
import { guardrailArn, synthesizedSystemPrompt, validateBedrockProps } from './private/bedrock-model-ids';

export { SYSTEM_PROMPT_MAX_CHARACTERS };

/** Options of `AgentBackend.fromFunction()`. */
export interface AgentFunctionOptions {
  /**
   * The version of the JSON contract the function reads: `1`, or `2`, which adds the attachments of
   * customer messages to the history entries of a turn that has any (`media`: kind, state, MIME type,
   * file name, caption, size, a voice note's transcript, and a presigned URL of the stored object,
   * valid for 15 minutes). Turns without attachments are version 1 events either way. With `1`,
   * attachments are described in the entry's text only.
   * @default 1
   */
  readonly contractVersion?: number;
}

/** The contract versions `AgentBackend.fromFunction()` speaks. */
const AGENT_FUNCTION_CONTRACT_VERSIONS: readonly number[] = [1, 2];

/** Properties of `AgentBackend.stages()`. */
export interface AgentStagesProps {
  /**
   * The agents by stage name. A name is 1–32 characters: a lowercase letter, then lowercase
   * letters, digits, `_` or `-` (`qualificacao`, `cadastro`). Each agent is `AgentBackend.bedrock()`
   * (with its own prompt), `AgentBackend.fromFunction()` or, for development, `AgentBackend.scripted()`;
   * not another set of stages. At most 10.
   *
   * Each stage is offered the tool `handover_to_agent`, naming any other stage; its system prompt
   * is the admin prompt resource `system.<name>`.
   */
  readonly agents: { [name: string]: AgentBackend };

  /** The stage every conversation starts with: one of the names in `agents`. */
  readonly entry: string;

  /**
   * Handovers one turn follows at most (0–5). A handover runs the next stage in the same turn,
   * after checking that no newer customer message arrived; past the limit the last stage's reply
   * is sent and its handover applies from the next turn, so two stages cannot hand the
   * conversation back and forth without end.
   *
   * @default 3
   */
  readonly maxHandoversPerTurn?: number;
}

/** What an agent backend contributes to the orchestrator function. */
export interface AgentBackendConfig {
  /**
   * The Bedrock model id or inference profile the orchestrator calls, for the model throttling
   * alarm (`AWS/Bedrock` `InvocationThrottles`).
   *
   * @default - the agent is not a Bedrock model
   */
  readonly bedrockModelId?: string;

  /**
   * What the orchestrator is told about its agent: its share of the deployment plan.
   *
   * @internal
   */
  readonly _agent: AgentOptions;
}

/**
 * The AI agent the orchestrator calls for each turn. Choose one with a static factory:
 * `AgentBackend.bedrock()`, `AgentBackend.fromFunction()` or `AgentBackend.scripted()`, or a set
 * of named agents that hand the conversation to each other with `AgentBackend.stages()`.
 */
export abstract class AgentBackend {
  /**
   * Amazon Bedrock (Converse API with tool use). Grants `bedrock:InvokeModel` on exactly the model,
   * or, for an inference profile, on the profile plus the models it routes to, only when invoked
   * through that profile; with a guardrail, `bedrock:ApplyGuardrail` on that guardrail. Validated
   * when called: a bad model id, prompt, inference setting or guardrail throws, naming what to change.
   *
   * @param props the model or inference profile, and optionally the system prompt, inference
   * settings, guardrail and prompt caching
   *
   * @example
   * import { AgentBackend } from 'cdk-whatsapp-agent-pipeline';
   *
   * const agentBackend = AgentBackend.bedrock({
   *   // An inference profile that serves the stack's Region (here a US one).
   *   modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
   *   systemPrompt: 'You are the WhatsApp assistant of Padaria Sol. Answer briefly.',
   *   inferenceConfig: { maxTokens: 600, temperature: 0.3 },
   * });
   */
  public static bedrock(props: BedrockAgentBackendProps): AgentBackend {
    return new BedrockAgentBackend(props);
  }

  /**
   * A Lambda function you own that implements the agent. The orchestrator may invoke it
   * (`lambda:InvokeFunction` on that function only; same account).
   *
   * The orchestrator invokes it synchronously once per turn with version "1" of a JSON contract:
   * the event is `{version: "1", systemPrompt, history: [{role: "customer" | "assistant", text, at}],
   * session: {sessionId, customerId, state, qualificationData}, deadline}` (`deadline` in epoch
   * milliseconds) and the function returns `{reply, actions?}`, where each action is one of
   * `{type: "update_qualification", data}`, `{type: "record_out_of_portfolio_demand",
   * requestedService, estimatedSegment?, notes?}`, `{type: "request_human_handoff", reason}` or
   * `{type: "close_session", reason}`. The function must not act on them itself: the pipeline applies
   * them only if the turn is still the latest. Anything outside the contract fails the turn, which is
   * retried. docs/AGENT.md ("Your own agent function") has a complete example.
   *
   * With `options.contractVersion: 2`, a turn whose history carries an attachment is a version "2"
   * event: its customer entries carry `media` with a presigned URL of each stored attachment.
   *
   * @param agentFunction the function that answers each turn
   * @param options the contract version the function reads
   *
   * @example
   * import type { Stack } from 'aws-cdk-lib';
   * import * as lambda from 'aws-cdk-lib/aws-lambda';
   * import { AgentBackend } from 'cdk-whatsapp-agent-pipeline';
   *
   * declare const stack: Stack;
   *
   * const agentFunction = lambda.Function.fromFunctionName(stack, 'Agent', 'whatsapp-agent');
   * const agentBackend = AgentBackend.fromFunction(agentFunction);
   */
  public static fromFunction(agentFunction: lambda.IFunction, options: AgentFunctionOptions = {}): AgentBackend {
    const version = options.contractVersion;
    if (version !== undefined && !Token.isUnresolved(version) && !AGENT_FUNCTION_CONTRACT_VERSIONS.includes(version)) {
      throw new Error(`AgentBackend.fromFunction: contractVersion ${version} is not a version of the agent function contract; use 1, or 2 for a function that reads attachments.`);
    }
    return new LambdaAgentBackend(agentFunction, version ?? 1);
  }

  /**
   * Same as `fromFunction()`: a Lambda function you own that implements the agent.
   *
   * @param agentFunction the function that answers each turn
   * @deprecated `lambda` is a reserved word in Python, where this method is `lambda_`; use `AgentBackend.fromFunction()`.
   * @jsii suppress JSII5018 kept so that existing callers keep compiling until it is removed; `fromFunction()` replaces it
   */
  public static lambda(agentFunction: lambda.IFunction): AgentBackend {
    return AgentBackend.fromFunction(agentFunction);
  }

  /**
   * A deterministic scripted agent built into the orchestrator, for development stacks and tests:
   * no model is called and no permission is granted. Do not use it in production.
   *
   * @example
   * import { AgentBackend } from 'cdk-whatsapp-agent-pipeline';
   *
   * const agentBackend = AgentBackend.scripted();
   */
  public static scripted(): AgentBackend {
    return new ScriptedAgentBackend();
  }

  /**
   * Named agents, one of them the entry: each conversation starts with the entry agent, an agent
   * hands the conversation to another with the tool `handover_to_agent`, the session's
   * `current_agent` records who has it, and every later turn goes to that agent. A handover runs
   * the next agent in the same turn, after checking that no newer customer message arrived.
   * Each stage gets its own permissions (the Bedrock model, the function) as it would alone, and
   * its own system prompt: the admin prompt resource `system.<name>`, which a Bedrock stage's
   * `systemPrompt` seeds. Validated when called: names, entry, count (1–10), nesting and
   * `maxHandoversPerTurn` throw, naming what to change. See the README, "Stages".
   *
   * @param props the agents by name, the entry agent, and how many handovers one turn may follow
   *
   * @example
   * import type * as lambda from 'aws-cdk-lib/aws-lambda';
   * import { AgentBackend } from 'cdk-whatsapp-agent-pipeline';
   *
   * declare const registrationFunction: lambda.IFunction;
   *
   * const agentBackend = AgentBackend.stages({
   *   entry: 'qualify',
   *   agents: {
   *     qualify: AgentBackend.bedrock({
   *       modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
   *       systemPrompt: 'Qualify the customer; when they want to register, hand over to the agent register.',
   *     }),
   *     register: AgentBackend.fromFunction(registrationFunction),
   *   },
   * });
   */
  public static stages(props: AgentStagesProps): AgentBackend {
    return new StagedAgentBackend(props);
  }

  /**
   * Grants the orchestrator what this backend needs and returns what the orchestrator is told about
   * it. Bound to the orchestrator's role before the function is created, since what it is told is
   * written into its asset.
   *
   * @param scope the construct that owns the orchestrator
   * @param orchestrator the orchestrator's role (or anything that grants to it)
   */
  public abstract bind(scope: Construct, orchestrator: iam.IGrantable): AgentBackendConfig;

  /**
   * Grants the evaluator function what this backend's agent calls, as `bind` grants the
   * orchestrator, but not the consumer tools' functions: an evaluation answers them from the
   * scenario's recordings (docs/EVALUATION.md).
   *
   * @internal
   */
  public abstract _grantEvaluation(scope: Construct, evaluator: iam.IGrantable): void;
}

class BedrockAgentBackend extends AgentBackend {
  private readonly modelId: string;
  private readonly systemPrompt?: string;
  private readonly inferenceConfig?: BedrockInferenceConfig;
  private readonly guardrail?: BedrockGuardrail;
  private readonly promptCaching?: boolean;
  private readonly knowledgeBase?: BedrockKnowledgeBase;
  private readonly memory?: BedrockAgentMemory;
  private readonly tools: readonly AgentTool[];

  constructor(props: BedrockAgentBackendProps) {
    super();
    this.modelId = props.modelId;
    this.systemPrompt = props.systemPrompt;
    this.inferenceConfig = props.inferenceConfig;
    this.guardrail = props.guardrail;
    this.promptCaching = props.promptCaching;
    this.knowledgeBase = props.knowledgeBase;
    this.memory = props.memory;
    this.tools = [...(props.tools ?? [])];
    validateBedrockProps(props);
    validateAgentTools(this.tools);
  }

  public bind(scope: Construct, orchestrator: iam.IGrantable): AgentBackendConfig {
    this._grantEvaluation(scope, orchestrator);
    const knowledgeBase = this.knowledgeBase;
    const systemPrompt = this.systemPrompt === undefined ? undefined : synthesizedSystemPrompt(scope, this.systemPrompt);
    const agent: SingleAgentOptions = {
      backend: AGENT_BACKEND_KINDS.bedrock,
      modelId: this.modelId,
      ...(systemPrompt !== undefined && { systemPrompt }),
      ...(this.inferenceConfig !== undefined && { inferenceConfig: definedFields(this.inferenceConfig) }),
      ...(this.guardrail !== undefined && { guardrail: { identifier: this.guardrail.identifier, version: this.guardrail.version } }),
      ...(this.promptCaching !== undefined && { promptCaching: this.promptCaching }),
      ...(this.memory !== undefined && { memory: definedFields({ enabled: this.memory.enabled, foldEveryTurns: this.memory.foldEveryTurns, modelId: this.memory.modelId }) }),
      ...(knowledgeBase !== undefined && { knowledgeBase: definedFields({ knowledgeBaseId: knowledgeBase.knowledgeBaseId, numberOfResults: knowledgeBase.numberOfResults, filter: knowledgeBase.filter }) as { knowledgeBaseId: string } }),
      ...(this.tools.length > 0 && { tools: this.tools.map((tool) => tool._bind(orchestrator)) }),
    };
    return { _agent: agent, bedrockModelId: this.modelId };
  }

  /** The model (and the memory's), the guardrail and the knowledge base: what a turn calls besides the tools. @internal */
  public _grantEvaluation(scope: Construct, grantee: iam.IGrantable): void {
    grantModelInvocation(scope, grantee, this.modelId);
    if (this.guardrail !== undefined) {
      grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...BEDROCK_GUARDRAIL_ACTIONS], resources: [guardrailArn(this.guardrail.identifier)] }));
    }
    if (this.knowledgeBase !== undefined) grantKnowledgeBaseSearch(grantee, this.knowledgeBase.knowledgeBaseId);
    const memoryModelId = this.memory?.enabled === false ? undefined : this.memory?.modelId;
    if (memoryModelId !== undefined && memoryModelId !== this.modelId) grantModelInvocation(scope, grantee, memoryModelId);
  }
}

class StagedAgentBackend extends AgentBackend {
  private readonly agents: Readonly<Record<string, AgentBackend>>;
  private readonly entry: string;
  private readonly maxHandoversPerTurn: number;

  constructor(props: AgentStagesProps) {
    super();
    validateStagesProps(props);
    this.agents = { ...props.agents };
    this.entry = props.entry;
    this.maxHandoversPerTurn = props.maxHandoversPerTurn ?? AGENT_STAGE_LIMITS.defaultMaxHandoversPerTurn;
  }

  /** Each stage binds as it would alone, so its grants are exactly its own, and is told as a single agent is. */
  public bind(scope: Construct, orchestrator: iam.IGrantable): AgentBackendConfig {
    const stages = Object.entries(this.agents).map(([name, agent]) => [name, agent.bind(scope, orchestrator)] as const);
    const entryFirst = [...stages].sort(([a], [b]) => Number(b === this.entry) - Number(a === this.entry));
    const bedrockModelId = entryFirst.find(([, config]) => config.bedrockModelId !== undefined)?.[1].bedrockModelId;
    const agent: AgentOptions = {
      backend: AGENT_BACKEND_KINDS.stages,
      entry: this.entry,
      maxHandoversPerTurn: this.maxHandoversPerTurn,
      stages: Object.fromEntries(stages.map(([name, config]) => [name, config._agent as SingleAgentOptions])),
    };
    return { _agent: agent, ...(bedrockModelId !== undefined && { bedrockModelId }) };
  }

  /** @internal */
  public _grantEvaluation(scope: Construct, evaluator: iam.IGrantable): void {
    for (const agent of Object.values(this.agents)) agent._grantEvaluation(scope, evaluator);
  }
}

class LambdaAgentBackend extends AgentBackend {
  constructor(
    private readonly agentFunction: lambda.IFunction,
    private readonly contractVersion: number,
  ) {
    super();
  }

  public bind(scope: Construct, orchestrator: iam.IGrantable): AgentBackendConfig {
    this._grantEvaluation(scope, orchestrator);
    return { _agent: { backend: AGENT_BACKEND_KINDS.lambda, functionName: this.agentFunction.functionName, contractVersion: this.contractVersion } };
  }

  /** The agent function, which answers a scenario's turns as it answers a customer's. @internal */
  public _grantEvaluation(_scope: Construct, grantee: iam.IGrantable): void {
    // Unqualified invocation by name needs the function ARN only, not the `:*` versions/aliases.
    iam.Grant.addToPrincipal({ grantee, actions: [...AGENT_FUNCTION_INVOKE_ACTIONS], resourceArns: [this.agentFunction.functionArn] });
  }
}

class ScriptedAgentBackend extends AgentBackend {
  public bind(_scope: Construct, _orchestrator: iam.IGrantable): AgentBackendConfig {
    return { _agent: { backend: AGENT_BACKEND_KINDS.scripted } };
  }

  /** @internal */
  public _grantEvaluation(_scope: Construct, _evaluator: iam.IGrantable): void {}
}

/** The tools of one Bedrock agent: at most 20, each name once. */
function validateAgentTools(tools: readonly AgentTool[]): void {
  if (tools.length > AGENT_TOOL_LIMITS.maxTools) throw new Error(`AgentBackend.bedrock: tools has ${tools.length} tools; at most ${AGENT_TOOL_LIMITS.maxTools} are allowed. Merge tools that do related work.`);
  const names = tools.map((tool) => tool.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new Error(`AgentBackend.bedrock: two tools are named '${repeated}'; give each tool its own name.`);
}

function validateStagesProps(props: AgentStagesProps): void {
  const fail = (problem: string): never => {
    throw new Error(`AgentBackend.stages: ${problem}`);
  };
  const { agents, entry, maxHandoversPerTurn } = props;
  const names = Object.keys(agents ?? {});
  if (names.length === 0) fail("agents is empty; name at least one agent, e.g. { qualificacao: AgentBackend.bedrock({ … }) }.");
  if (names.length > AGENT_STAGE_LIMITS.maxStages) fail(`agents has ${names.length} stages; at most ${AGENT_STAGE_LIMITS.maxStages} are allowed. Merge stages whose prompts overlap.`);
  for (const name of names) {
    if (!AGENT_STAGE_LIMITS.namePattern.test(name)) {
      fail(`stage name '${name}' is not allowed; use 1–32 characters: a lowercase letter, then lowercase letters, digits, '_' or '-' (e.g. 'cadastro').`);
    }
    if (agents[name] instanceof StagedAgentBackend) fail(`stage '${name}' is itself AgentBackend.stages(); stages do not nest — list its agents here instead.`);
  }
  if (!names.includes(entry)) fail(`entry '${entry}' is not one of the stages (${names.join(', ')}); name the stage conversations start with.`);
  const hops = maxHandoversPerTurn;
  if (hops !== undefined && (!Number.isInteger(hops) || hops < 0 || hops > AGENT_STAGE_LIMITS.maxHandoversPerTurn)) {
    fail(`maxHandoversPerTurn must be a whole number from 0 to ${AGENT_STAGE_LIMITS.maxHandoversPerTurn}; got ${hops}.`);
  }
}
