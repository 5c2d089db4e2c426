import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { type AgentOptions, type FunctionSettings, Locale, LOCALE_PRESETS, RUNTIME_ENV } from '../../../../lib/contract';
import { AgentConfigurationError, readOrchestratorSettings } from '../../../../lambda/composition/read-settings';
import { type AgentClients, type AgentSettings, createAgent } from '../../../../lambda/core/adapters/agent/agent-backend';
import { BedrockConverseAgent, type ConverseCall } from '../../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { LambdaInvokeAgent } from '../../../../lambda/core/adapters/agent/lambda-invoke-agent';
import type { LambdaInvoke, LambdaInvokeInput } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { ScriptedAgent } from '../../../../lambda/core/adapters/agent/scripted-agent';
import { type AgentPort, type AgentRequest, isAgentStages } from '../../../../lambda/core/ports/agent';
import { fixture } from '../../../support/fixtures';
import { testPlan } from '../../../support/deployment-settings';

/** What the orchestrator of a deployment with this agent is told. */
const orchestratorTold = (agent: AgentOptions): FunctionSettings<'orchestrator'> => testPlan('agent-table', 'http://127.0.0.1:9/turns.fifo', { agent }).orchestrator!;

/** The same, with its agent's document (or its variables) changed as the construct never writes them. */
const toldOtherwise = (agent: AgentOptions, document: Record<string, unknown>, environment: Record<string, string | undefined> = {}): FunctionSettings<'orchestrator'> => {
  const told = orchestratorTold(agent);
  return { environment: { ...told.environment, ...environment } as Record<string, string>, document: { ...told.document, agent: { ...told.document.agent, ...document } as never } };
};

/** The orchestrator's agent settings, read as at cold start. */
const agentSettingsOf = (told: FunctionSettings<'orchestrator'>): AgentSettings => readOrchestratorSettings(told).agent;

/** The agent the orchestrator wires in for what it is told: its settings read as at cold start, then the adapter they select. */
const agentFrom = (told: FunctionSettings<'orchestrator'>, clients?: AgentClients): AgentPort => {
  const agent = createAgent(agentSettingsOf(told), clients);
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

  const agent = agentFrom(orchestratorTold({ backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' }), { converse });
  await agent.respond(request);

  expect(agent).toBeInstanceOf(BedrockConverseAgent);
  expect(inputs[0].modelId).toBe('amazon.nova-pro-v1:0');
});

it('passes the construct’s inference settings and guardrail to every Converse call', async () => {
  const inputs: ConverseCommandInput[] = [];
  const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));

  const agent = agentFrom(
    orchestratorTold({
      backend: 'bedrock',
      modelId: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3',
      inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
      guardrail: { identifier: 'gr0abc123', version: '2' },
    }),
    { converse },
  );
  await agent.respond(request);

  expect(inputs[0]).toMatchObject({
    modelId: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3',
    inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    guardrailConfig: { guardrailIdentifier: 'gr0abc123', guardrailVersion: '2' },
  });
});

const BEDROCK: AgentOptions = { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' };

it.each([
  [toldOtherwise(BEDROCK, { inferenceConfig: { maxTokens: 'many' } }), /Setting agent.inferenceConfig.maxTokens is not a whole number/],
  [toldOtherwise(BEDROCK, { inferenceConfig: { topK: 5 } }), /Setting agent.inferenceConfig.topK is not a field of it/],
  [toldOtherwise(BEDROCK, { inferenceConfig: { temperature: 3 } }), /Setting agent.inferenceConfig.temperature is not a number from 0 to 1/],
  [toldOtherwise(BEDROCK, { guardrail: true }, { [RUNTIME_ENV.bedrockGuardrailId]: 'gr0abc123' }), /Environment variable BEDROCK_GUARDRAIL_VERSION is not set, which agent needs/],
  [toldOtherwise(BEDROCK, { promptCaching: 'yes' }), /Setting agent.promptCaching is not true or false/],
])('refuses Bedrock settings the construct would never write: %#', (told, message) => {
  expect(() => agentFrom(told)).toThrow(AgentConfigurationError);
  expect(() => agentFrom(told)).toThrow(message);
});

describe('prompt caching', () => {
  const APPLICATION_PROFILE = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3';
  /** Where the first Converse request of the agent the settings select carries cache points. */
  async function cachePointsOf(modelId: string, promptCaching?: boolean): Promise<string[]> {
    const inputs: ConverseCommandInput[] = [];
    const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));
    await agentFrom(orchestratorTold({ backend: 'bedrock', modelId, ...(promptCaching === undefined ? {} : { promptCaching }) }), { converse }).respond(request);
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
    [APPLICATION_PROFILE, true, ['system', 'messages']],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', false, []],
  ])('%s with promptCaching %s: cache points in %j', async (modelId, promptCaching, fields) => {
    expect(await cachePointsOf(modelId, promptCaching)).toEqual(fields);
  });
});

it("builds the Lambda agent for the consumer's function", async () => {
  const inputs: LambdaInvokeInput[] = [];
  const invoke: LambdaInvoke = async (input) => (inputs.push(input), { StatusCode: 200, Payload: new TextEncoder().encode('{"reply":"Olá!"}') });

  const agent = agentFrom(orchestratorTold({ backend: 'lambda', functionName: 'clinic-agent' }), { invoke });
  await agent.respond(request);

  expect(agent).toBeInstanceOf(LambdaInvokeAgent);
  expect(inputs[0].FunctionName).toBe('clinic-agent');
});

it('a function opted in to contract version 2 gets the attachments of a turn that has any', async () => {
  const inputs: LambdaInvokeInput[] = [];
  const invoke: LambdaInvoke = async (input) => (inputs.push(input), { StatusCode: 200, Payload: new TextEncoder().encode('{"reply":"Olá!"}') });
  const withPhoto: AgentRequest = { ...request, history: [{ ...request.history[0], media: { kind: 'image', providerMediaId: 'm-1', state: 'pending' } }] };

  const agent = agentFrom(orchestratorTold({ backend: 'lambda', functionName: 'clinic-agent', contractVersion: 2 }), { invoke });
  await agent.respond(withPhoto);

  expect(JSON.parse(new TextDecoder().decode(inputs[0].Payload as Uint8Array))).toMatchObject({ version: '2', history: [{ media: [{ kind: 'image', state: 'pending' }] }] });
});

it('builds the scripted agent without further settings', () => {
  expect(agentFrom(orchestratorTold({ backend: 'scripted' }))).toBeInstanceOf(ScriptedAgent);
});

it.each([
  { problem: 'no backend', told: toldOtherwise({ backend: 'scripted' }, { backend: undefined }), message: 'Setting agent.backend is undefined, not one of bedrock, lambda, scripted' },
  { problem: 'an unknown backend', told: toldOtherwise({ backend: 'scripted' }, { backend: 'openai' }), message: 'Setting agent.backend is "openai", not one of bedrock, lambda, scripted' },
  { problem: 'Bedrock without a model', told: toldOtherwise(BEDROCK, {}, { [RUNTIME_ENV.bedrockModelId]: undefined }), message: 'Environment variable BEDROCK_MODEL_ID is not set, which agent needs' },
  { problem: 'Bedrock with a blank model', told: toldOtherwise(BEDROCK, {}, { [RUNTIME_ENV.bedrockModelId]: '  ' }), message: 'Environment variable BEDROCK_MODEL_ID is not set, which agent needs' },
  {
    problem: 'Lambda without a function',
    told: toldOtherwise({ backend: 'lambda', functionName: 'clinic-agent' }, {}, { [RUNTIME_ENV.agentFunctionName]: undefined }),
    message: 'Environment variable AGENT_FUNCTION_NAME is not set, which agent needs',
  },
  {
    problem: 'a contract version the construct never sets',
    told: toldOtherwise({ backend: 'lambda', functionName: 'clinic-agent' }, { contractVersion: 3 }),
    message: 'Setting agent.contractVersion is not a whole number from 1 to 2',
  },
])('explains $problem', ({ told, message }) => {
  expect(() => agentFrom(told)).toThrow(AgentConfigurationError);
  expect(() => agentFrom(told)).toThrow(message);
});

describe('stages', () => {
  const twoStages: AgentOptions = {
    backend: 'stages',
    entry: 'qualificacao',
    maxHandoversPerTurn: 2,
    stages: {
      qualificacao: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', systemPrompt: 'Qualifique.' },
      cadastro: { backend: 'lambda', functionName: 'cadastro-agent' },
    },
  };
  const deadlineText = LOCALE_PRESETS[Locale.PT_BR].texts.agentDeadline;

  it('reads each stage as a single agent, with its deployed prompt; each is offered the handover to the others', async () => {
    expect(agentSettingsOf(orchestratorTold(twoStages))).toEqual({
      backend: 'stages',
      entry: 'qualificacao',
      maxHandoversPerTurn: 2,
      stages: {
        qualificacao: { agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', fallbackReply: deadlineText, memory: { foldEveryTurns: 5, modelId: null } }, deployedSystemPrompt: 'Qualifique.' },
        cadastro: { agent: { backend: 'lambda', functionName: 'cadastro-agent', fallbackReply: deadlineText } },
      },
    });
    const inputs: ConverseCommandInput[] = [];
    const converse: ConverseCall = async (input) => (inputs.push(input), fixture('bedrock', 'plain-reply'));
    const stages = createAgent(agentSettingsOf(orchestratorTold(twoStages)), { converse });
    if (!isAgentStages(stages)) throw new Error('Expected stages');
    expect([stages.entry, stages.maxHandoversPerTurn, stages.names]).toEqual(['qualificacao', 2, ['qualificacao', 'cadastro']]);
    expect(stages.agentOf('cadastro')).toBeInstanceOf(LambdaInvokeAgent);
    expect(stages.agentOf('vendas')).toBeUndefined();

    await stages.agentOf('qualificacao')!.respond(request);
    const handover = inputs[0].toolConfig?.tools?.find((tool) => tool.toolSpec?.name === 'handover_to_agent');
    expect(handover?.toolSpec?.inputSchema?.json).toMatchObject({ properties: { agent: { pattern: '^(cadastro)$' } } });
  });

  it('defaults the handovers per turn to 3', () => {
    expect(agentSettingsOf(orchestratorTold({ backend: 'stages', entry: 'a', stages: { a: { backend: 'scripted' } } }))).toMatchObject({ maxHandoversPerTurn: 3 });
  });

  const scriptedStage = { backend: 'scripted' };
  it.each([
    [{ entry: 'vendas' }, 'Setting agent.entry names none of the stages (qualificacao, cadastro)'],
    [{ entry: 'a', stages: {} }, 'Setting agent.stages holds 0 stages, not 1 to 10'],
    [{ entry: 'A', stages: { A: scriptedStage } }, 'Setting agent.stages.A is not a stage name'],
    [{ entry: 'a', stages: { a: { backend: 'stages' } } }, 'Setting agent.stages.a.backend is itself a set of stages'],
    [{ entry: 'a', stages: { a: { backend: 'bedrock', systemPrompt: null, inferenceConfig: null, promptCaching: null, guardrail: false, knowledgeBase: null, memory: null } } }, 'Environment variable BEDROCK_MODEL_ID is not set, which agent.stages.a needs'],
    [{ maxHandoversPerTurn: 9 }, 'Setting agent.maxHandoversPerTurn is not a whole number from 0 to 5'],
    [{ extra: true }, 'Setting agent.extra is not a field of it'],
  ])('refuses %j', (document, message) => {
    const told = toldOtherwise(twoStages, document);
    expect(() => agentSettingsOf(told)).toThrow(AgentConfigurationError);
    expect(() => agentSettingsOf(told)).toThrow(message);
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
