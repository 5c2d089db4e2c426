import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { Locale, LOCALE_PRESETS, RUNTIME_ENV } from '../../../../lib/contract';
import { AgentConfigurationError, agentSettingsFromEnvironment } from '../../../../lambda/composition/settings-from-environment';
import { type AgentClients, createAgent } from '../../../../lambda/core/adapters/agent/agent-backend';
import { BedrockConverseAgent, type ConverseCall } from '../../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { LambdaInvokeAgent } from '../../../../lambda/core/adapters/agent/lambda-invoke-agent';
import type { LambdaInvoke, LambdaInvokeInput } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { ScriptedAgent } from '../../../../lambda/core/adapters/agent/scripted-agent';
import { type AgentPort, type AgentRequest, isAgentStages } from '../../../../lambda/core/ports/agent';
import { fixture } from '../../../support/fixtures';

/** The agent the orchestrator wires in for an environment: its settings read as at cold start, then the adapter they select. */
const agentFromEnvironment = (env: NodeJS.ProcessEnv, clients?: AgentClients): AgentPort => {
  const agent = createAgent(agentSettingsFromEnvironment(env), clients);
  if (isAgentStages(agent)) throw new Error('Expected one agent, not stages');
  return agent;
};

const request: AgentRequest = {
  systemPrompt: 'prompt',
  history: [{ role: 'customer', text: 'Oi', at: '2026-11-30T12:00:00.000Z' }],
  session: { sessionId: 'session-1', customerId: '5511987654321', state: 'NEW', qualificationData: {} },
  deadline: Date.now() + 60_000,
  maxIterations: 10,
};

it('builds the Bedrock agent for the configured model', async () => {
  const inputs: ConverseCommandInput[] = [];
  const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));

  const agent = agentFromEnvironment({ [RUNTIME_ENV.agentBackend]: 'bedrock', [RUNTIME_ENV.bedrockModelId]: 'amazon.nova-pro-v1:0' }, { converse });
  await agent.respond(request);

  expect(agent).toBeInstanceOf(BedrockConverseAgent);
  expect(inputs[0].modelId).toBe('amazon.nova-pro-v1:0');
});

it('passes the construct’s inference settings and guardrail to every Converse call', async () => {
  const inputs: ConverseCommandInput[] = [];
  const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));

  const agent = agentFromEnvironment(
    {
      [RUNTIME_ENV.agentBackend]: 'bedrock',
      [RUNTIME_ENV.bedrockModelId]: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3',
      [RUNTIME_ENV.bedrockInferenceConfig]: JSON.stringify({ maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] }),
      [RUNTIME_ENV.bedrockGuardrailId]: 'gr0abc123',
      [RUNTIME_ENV.bedrockGuardrailVersion]: '2',
    },
    { converse },
  );
  await agent.respond(request);

  expect(inputs[0]).toMatchObject({
    modelId: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3',
    inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    guardrailConfig: { guardrailIdentifier: 'gr0abc123', guardrailVersion: '2' },
  });
});

it.each([
  [{ [RUNTIME_ENV.bedrockInferenceConfig]: '{"maxTokens":' }, /BEDROCK_INFERENCE_CONFIG is not JSON/],
  [{ [RUNTIME_ENV.bedrockInferenceConfig]: '{"topK":5}' }, /BEDROCK_INFERENCE_CONFIG has an unknown field "topK"/],
  [{ [RUNTIME_ENV.bedrockInferenceConfig]: '{"temperature":3}' }, /BEDROCK_INFERENCE_CONFIG has an invalid temperature/],
  [{ [RUNTIME_ENV.bedrockGuardrailId]: 'gr0abc123' }, /BEDROCK_GUARDRAIL_ID and BEDROCK_GUARDRAIL_VERSION must be set together/],
  [{ [RUNTIME_ENV.bedrockPromptCaching]: 'yes' }, /BEDROCK_PROMPT_CACHING must be true or false/],
])('refuses Bedrock settings the construct would never write: %p', (extra, message) => {
  expect(() => agentFromEnvironment({ [RUNTIME_ENV.agentBackend]: 'bedrock', [RUNTIME_ENV.bedrockModelId]: 'amazon.nova-pro-v1:0', ...extra })).toThrow(message);
});

describe('prompt caching', () => {
  const APPLICATION_PROFILE = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3';
  /** Where the first Converse request of the agent the environment selects carries cache points. */
  async function cachePointsOf(modelId: string, promptCaching?: string): Promise<string[]> {
    const inputs: ConverseCommandInput[] = [];
    const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));
    const env = { [RUNTIME_ENV.agentBackend]: 'bedrock', [RUNTIME_ENV.bedrockModelId]: modelId, ...(promptCaching === undefined ? {} : { [RUNTIME_ENV.bedrockPromptCaching]: promptCaching }) };
    await agentFromEnvironment(env, { converse }).respond(request);
    const [input] = inputs;
    return Object.entries({ tools: input.toolConfig?.tools, system: input.system, messages: input.messages?.at(-1)?.content })
      .filter(([, blocks]) => blocks?.some((block) => 'cachePoint' in block))
      .map(([field]) => field);
  }

  it.each([
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', undefined, ['tools', 'system', 'messages']],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', undefined, ['tools', 'system', 'messages']],
    ['global.anthropic.claude-opus-4-1-20250805-v1:0', undefined, ['tools', 'system', 'messages']],
    ['eu.amazon.nova-lite-v1:0', undefined, ['system', 'messages']],
    ['meta.llama3-70b-instruct-v1:0', undefined, []],
    [APPLICATION_PROFILE, undefined, []],
    // On where the table cannot tell: what every caching model takes.
    [APPLICATION_PROFILE, 'true', ['system', 'messages']],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'false', []],
  ])('%s with BEDROCK_PROMPT_CACHING=%s: cache points in %j', async (modelId, promptCaching, fields) => {
    expect(await cachePointsOf(modelId, promptCaching)).toEqual(fields);
  });
});

it("builds the Lambda agent for the consumer's function", async () => {
  const inputs: LambdaInvokeInput[] = [];
  const invoke: LambdaInvoke = async (input) => (inputs.push(input), { StatusCode: 200, Payload: new TextEncoder().encode('{"reply":"Olá!"}') });

  const agent = agentFromEnvironment({ [RUNTIME_ENV.agentBackend]: 'lambda', [RUNTIME_ENV.agentFunctionName]: 'clinic-agent' }, { invoke });
  await agent.respond(request);

  expect(agent).toBeInstanceOf(LambdaInvokeAgent);
  expect(inputs[0].FunctionName).toBe('clinic-agent');
});

it('a function opted in to contract version 2 gets the attachments of a turn that has any', async () => {
  const inputs: LambdaInvokeInput[] = [];
  const invoke: LambdaInvoke = async (input) => (inputs.push(input), { StatusCode: 200, Payload: new TextEncoder().encode('{"reply":"Olá!"}') });
  const withPhoto: AgentRequest = { ...request, history: [{ ...request.history[0], media: { kind: 'image', providerMediaId: 'm-1', state: 'pending' } }] };

  const agent = agentFromEnvironment({ [RUNTIME_ENV.agentBackend]: 'lambda', [RUNTIME_ENV.agentFunctionName]: 'clinic-agent', [RUNTIME_ENV.agentFunctionContractVersion]: '2' }, { invoke });
  await agent.respond(withPhoto);

  expect(JSON.parse(new TextDecoder().decode(inputs[0].Payload as Uint8Array))).toMatchObject({ version: '2', history: [{ media: [{ kind: 'image', state: 'pending' }] }] });
});

it('builds the scripted agent without further settings', () => {
  expect(agentFromEnvironment({ [RUNTIME_ENV.agentBackend]: 'scripted' })).toBeInstanceOf(ScriptedAgent);
});

it.each([
  { problem: 'no backend', env: {}, message: 'AGENT_BACKEND is not set; use one of bedrock, lambda, scripted' },
  {
    problem: 'an unknown backend',
    env: { [RUNTIME_ENV.agentBackend]: 'openai' },
    message: 'AGENT_BACKEND="openai" is not an agent backend; use one of bedrock, lambda, scripted',
  },
  { problem: 'Bedrock without a model', env: { [RUNTIME_ENV.agentBackend]: 'bedrock' }, message: 'BEDROCK_MODEL_ID is required when AGENT_BACKEND=bedrock' },
  {
    problem: 'Bedrock with a blank model',
    env: { [RUNTIME_ENV.agentBackend]: 'bedrock', [RUNTIME_ENV.bedrockModelId]: '  ' },
    message: 'BEDROCK_MODEL_ID is required when AGENT_BACKEND=bedrock',
  },
  { problem: 'Lambda without a function', env: { [RUNTIME_ENV.agentBackend]: 'lambda' }, message: 'AGENT_FUNCTION_NAME is required when AGENT_BACKEND=lambda' },
  {
    problem: 'a contract version the construct never sets',
    env: { [RUNTIME_ENV.agentBackend]: 'lambda', [RUNTIME_ENV.agentFunctionName]: 'clinic-agent', [RUNTIME_ENV.agentFunctionContractVersion]: '3' },
    message: 'AGENT_FUNCTION_CONTRACT_VERSION="3" is not a contract version the AgentPipeline construct sets; it sets 2 or nothing',
  },
])('explains $problem', ({ env, message }) => {
  expect(() => agentFromEnvironment(env)).toThrow(AgentConfigurationError);
  expect(() => agentFromEnvironment(env)).toThrow(message);
});

describe('stages', () => {
  const stagesEnv = (value: unknown): NodeJS.ProcessEnv => ({ [RUNTIME_ENV.agentBackend]: 'stages', [RUNTIME_ENV.agentStages]: JSON.stringify(value) });
  const twoStages = {
    entry: 'qualificacao',
    maxHandoversPerTurn: 2,
    agents: {
      qualificacao: { [RUNTIME_ENV.agentBackend]: 'bedrock', [RUNTIME_ENV.bedrockModelId]: 'amazon.nova-pro-v1:0', [RUNTIME_ENV.deployedSystemPrompt]: 'Qualifique.' },
      cadastro: { [RUNTIME_ENV.agentBackend]: 'lambda', [RUNTIME_ENV.agentFunctionName]: 'cadastro-agent' },
    },
  };

  it('reads each stage as a single agent, with its deployed prompt; each is offered the handover to the others', async () => {
    expect(agentSettingsFromEnvironment(stagesEnv(twoStages))).toEqual({
      backend: 'stages',
      entry: 'qualificacao',
      maxHandoversPerTurn: 2,
      stages: {
        qualificacao: { agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' }, deployedSystemPrompt: 'Qualifique.' },
        cadastro: { agent: { backend: 'lambda', functionName: 'cadastro-agent' } },
      },
    });
    const inputs: ConverseCommandInput[] = [];
    const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));
    const stages = createAgent(agentSettingsFromEnvironment(stagesEnv(twoStages)), { converse });
    if (!isAgentStages(stages)) throw new Error('Expected stages');
    expect([stages.entry, stages.maxHandoversPerTurn, stages.names]).toEqual(['qualificacao', 2, ['qualificacao', 'cadastro']]);
    expect(stages.agentOf('cadastro')).toBeInstanceOf(LambdaInvokeAgent);
    expect(stages.agentOf('vendas')).toBeUndefined();

    await stages.agentOf('qualificacao')!.respond(request);
    const handover = inputs[0].toolConfig?.tools?.find((tool) => tool.toolSpec?.name === 'handover_to_agent');
    expect(handover?.toolSpec?.inputSchema?.json).toMatchObject({ properties: { agent: { pattern: '^(cadastro)$' } } });
  });

  it('defaults the handovers per turn to 3', () => {
    expect(agentSettingsFromEnvironment(stagesEnv({ entry: 'a', agents: { a: { [RUNTIME_ENV.agentBackend]: 'scripted' } } }))).toMatchObject({ maxHandoversPerTurn: 3 });
  });

  it.each([
    [{ ...twoStages, entry: 'vendas' }, 'needs an "entry" naming one of its agents (qualificacao, cadastro)'],
    [{ entry: 'a', agents: {} }, 'needs 1 to 10 agents; got 0'],
    [{ entry: 'A', agents: { A: { [RUNTIME_ENV.agentBackend]: 'scripted' } } }, 'has a stage named "A"'],
    [{ entry: 'a', agents: { a: { [RUNTIME_ENV.agentBackend]: 'stages' } } }, 'has agent "a" that is itself a set of stages'],
    [{ entry: 'a', agents: { a: { [RUNTIME_ENV.agentBackend]: 'bedrock' } } }, 'BEDROCK_MODEL_ID is required when AGENT_BACKEND=bedrock'],
    [{ entry: 'a', maxHandoversPerTurn: 9, agents: { a: { [RUNTIME_ENV.agentBackend]: 'scripted' } } }, 'has maxHandoversPerTurn 9; use a whole number from 0 to 5'],
    [{ entry: 'a', agents: { a: { [RUNTIME_ENV.agentBackend]: 'scripted' } }, extra: true }, 'has an unknown field "extra"'],
  ])('refuses %j', (value, message) => {
    expect(() => agentSettingsFromEnvironment(stagesEnv(value))).toThrow(AgentConfigurationError);
    expect(() => agentSettingsFromEnvironment(stagesEnv(value))).toThrow(message);
  });
});

describe('in the pipeline’s locale', () => {
  const { texts } = LOCALE_PRESETS[Locale.EN];

  it('answers the locale’s deadline text unless the construct set one', async () => {
    const invoke: LambdaInvoke = async () => ({ StatusCode: 200, Payload: new TextEncoder().encode('{"reply":"Too late"}') });
    const settings = { backend: 'lambda', functionName: 'clinic-agent' } as const;
    const late = { ...request, deadline: Date.now() - 1 };
    expect((await (createAgent(settings, { invoke }, texts) as AgentPort).respond(late)).reply).toBe(texts.agentDeadline);
    expect((await (createAgent({ ...settings, fallbackReply: 'One moment.' }, { invoke }, texts) as AgentPort).respond(late)).reply).toBe('One moment.');
  });

  it('gives the scripted agent the locale’s words', async () => {
    expect((await (createAgent({ backend: 'scripted' }, {}, texts) as AgentPort).respond(request)).reply).toBe('Hello! I received: Oi (message 1)');
  });
});
