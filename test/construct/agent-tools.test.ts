import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentTool, type AgentToolOptions } from '../../lib';
import { AGENT_TOOL_LIMITS, type AgentDocument, RUNTIME_ENV } from '../../lib/contract';
import { readAgent } from '../../lambda/composition/read-agent-settings';
import { agentTools } from '../../lambda/core/adapters/agent/agent-actions';
import { CHOICES_TOOL } from '../../lambda/core/adapters/agent/choices-tool';
import { expectExactStatements, roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const MODEL_ARN = `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`;

const CREATE_ORDER: AgentToolOptions = {
  name: 'create_order',
  description: 'Create an order once the customer confirmed it.',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } }, required: ['sku', 'quantity'], additionalProperties: false },
  sideEffects: true,
  timeout: Duration.seconds(5),
};
const CHECK_STOCK: AgentToolOptions = { name: 'check_stock', description: 'Units of an item in stock.', inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } };

function agentStatements(synth: SynthesizedPipeline) {
  return roleStatements(synth, synth.pipeline.orchestratorFunction.role!).filter((s) => s.actions.some((action) => action.startsWith('bedrock:') || action.startsWith('lambda:')));
}

describe('AgentTool.fromFunction on AgentBackend.bedrock', () => {
  test('InvokeFunction on exactly the tools’ functions; each tool in the settings document, its function in AGENT_TOOL_FUNCTIONS', () => {
    let orders!: lambda.IFunction;
    let stock!: lambda.IFunction;
    const synth = synthPipeline({}, (stack) => {
      orders = lambda.Function.fromFunctionName(stack, 'Orders', 'orders-service');
      stock = lambda.Function.fromFunctionName(stack, 'Stock', 'stock-service');
      return { agentBackend: AgentBackend.bedrock({ modelId: MODEL, tools: [AgentTool.fromFunction(orders, CREATE_ORDER), AgentTool.fromFunction(stock, CHECK_STOCK)] }) };
    });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [MODEL_ARN]),
      statement(synth, ['lambda:InvokeFunction'], [orders.functionArn]),
      statement(synth, ['lambda:InvokeFunction'], [stock.functionArn]),
    ]);
    const { environment, document } = toldTo(synth, synth.pipeline.orchestratorFunction);
    expect(environment[RUNTIME_ENV.agentToolFunctions]).toEqual(synth.stack.resolve(`create_order=${orders.functionName},check_stock=${stock.functionName}`));
    expect((document.agent as Extract<AgentDocument, { backend: 'bedrock' }>).tools).toEqual([
      { name: 'create_order', description: CREATE_ORDER.description, inputSchema: CREATE_ORDER.inputSchema, sideEffects: true, timeoutMs: 5_000 },
      { name: 'check_stock', description: CHECK_STOCK.description, inputSchema: CHECK_STOCK.inputSchema, sideEffects: false, timeoutMs: AGENT_TOOL_LIMITS.defaultTimeoutMs },
    ]);
    // The orchestrator's reader takes back what the construct wrote, the names as CloudFormation resolves them.
    const told = readAgent(document.agent, { [RUNTIME_ENV.bedrockModelId]: MODEL, [RUNTIME_ENV.agentToolFunctions]: 'create_order=orders-service,check_stock=stock-service' }, 'fallback');
    expect(told.agent).toMatchObject({ backend: 'bedrock', tools: [{ name: 'create_order', functionName: 'orders-service', sideEffects: true, timeoutMs: 5_000 }, { name: 'check_stock', functionName: 'stock-service', sideEffects: false }] });
  });

  test('a function created in the stack: its name resolves in the variable at deploy time', () => {
    let orders!: lambda.Function;
    const synth = synthPipeline({}, (stack) => {
      orders = new lambda.Function(stack, 'Orders', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({ result: {} });') });
      return { agentBackend: AgentBackend.bedrock({ modelId: MODEL, tools: [AgentTool.fromFunction(orders, CREATE_ORDER)] }) };
    });
    const { environment } = toldTo(synth, synth.pipeline.orchestratorFunction);
    expect(environment[RUNTIME_ENV.agentToolFunctions]).toEqual({ 'Fn::Join': ['', ['create_order=', { Ref: synth.stack.getLogicalId(orders.node.defaultChild as lambda.CfnFunction) }]] });
  });

  test('a stage’s tools: granted and told under that stage only', () => {
    let orders!: lambda.IFunction;
    const synth = synthPipeline({}, (stack) => {
      orders = lambda.Function.fromFunctionName(stack, 'Orders', 'orders-service');
      return {
        agentBackend: AgentBackend.stages({
          entry: 'qualify',
          agents: { qualify: AgentBackend.bedrock({ modelId: MODEL }), sell: AgentBackend.bedrock({ modelId: MODEL, tools: [AgentTool.fromFunction(orders, CREATE_ORDER)] }) },
        }),
      };
    });
    expect(agentStatements(synth).filter((s) => s.actions.includes('lambda:InvokeFunction'))).toEqual([statement(synth, ['lambda:InvokeFunction'], [orders.functionArn])]);
    const { environment, document } = toldTo(synth, synth.pipeline.orchestratorFunction);
    const stageVariables = { qualify: { BEDROCK_MODEL_ID: MODEL }, sell: { BEDROCK_MODEL_ID: MODEL, AGENT_TOOL_FUNCTIONS: `create_order=${orders.functionName}` } };
    expect(environment[RUNTIME_ENV.agentStageVariables]).toEqual(synth.stack.resolve(JSON.stringify(stageVariables)));
    const stages = (document.agent as Extract<AgentDocument, { backend: 'stages' }>).stages;
    expect(stages.qualify).not.toHaveProperty('tools');
    expect((stages.sell as Extract<AgentDocument, { backend: 'bedrock' }>).tools?.map((tool) => tool.name)).toEqual(['create_order']);
  });

  test('no tools: nothing changes for an existing deployment', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, tools: [] }) });
    const { environment, document } = toldTo(synth, synth.pipeline.orchestratorFunction);
    expect(environment).not.toHaveProperty(RUNTIME_ENV.agentToolFunctions);
    expect(document.agent).not.toHaveProperty('tools');
  });
});

describe('AgentTool.fromFunction refuses, naming what to change', () => {
  const fn = () => lambda.Function.fromFunctionName(new Stack(), 'Fn', 'tool-fn');
  test.each<[string, Partial<AgentToolOptions>, string]>([
    ['a name Converse refuses', { name: 'create order' }, "name 'create order' is not allowed"],
    ['a built-in tool’s name', { name: 'request_human_handoff' }, "name 'request_human_handoff' is a built-in tool's"],
    ['the choices tool’s name', { name: 'offer_choices' }, "name 'offer_choices' is a built-in tool's"],
    ['an empty description', { description: ' ' }, 'description must be 1 to 1000 characters'],
    ['a schema that is not an object schema', { inputSchema: { type: 'string' } }, "inputSchema of 'create_order' must be a JSON Schema object"],
    ['a schema too large to send with every call', { inputSchema: { type: 'object', description: 'x'.repeat(10_000) } }, "inputSchema of 'create_order' is 10034 characters of JSON; at most 10000"],
    ['a timeout past 30 seconds', { timeout: Duration.seconds(31) }, "timeout of 'create_order' must be from 1 to 30 seconds"],
    ['a timeout under a second', { timeout: Duration.millis(500) }, "timeout of 'create_order' must be from 1 to 30 seconds"],
  ])('%s', (_case, change, message) => {
    expect(() => AgentTool.fromFunction(fn(), { ...CREATE_ORDER, ...change })).toThrow(message);
  });

  test('two tools of one name, and more than 20 tools', () => {
    const tool = AgentTool.fromFunction(fn(), CREATE_ORDER);
    expect(() => AgentBackend.bedrock({ modelId: MODEL, tools: [tool, tool] })).toThrow("AgentBackend.bedrock: two tools are named 'create_order'; give each tool its own name.");
    const many = Array.from({ length: 21 }, (_, index) => AgentTool.fromFunction(fn(), { ...CHECK_STOCK, name: `tool_${index}` }));
    expect(() => AgentBackend.bedrock({ modelId: MODEL, tools: many })).toThrow('AgentBackend.bedrock: tools has 21 tools; at most 20 are allowed.');
  });

  test('the built-in names the construct reserves are exactly the runtime’s built-in tools', () => {
    expect([...AGENT_TOOL_LIMITS.builtInNames].sort()).toEqual([...agentTools(['another_stage']).map((tool) => tool.name), CHOICES_TOOL].sort());
  });
});

describe('the orchestrator’s reader', () => {
  const document = { backend: 'bedrock', systemPrompt: null, inferenceConfig: null, promptCaching: null, guardrail: false, knowledgeBase: null, memory: null, tools: [{ name: 'create_order', description: 'd', inputSchema: { type: 'object' }, sideEffects: true, timeoutMs: 5_000 }] };

  test('a tool whose function the variables do not name stops the cold start, naming the variable', () => {
    expect(() => readAgent(document, { [RUNTIME_ENV.bedrockModelId]: MODEL, [RUNTIME_ENV.agentToolFunctions]: 'check_stock=stock-service' }, 'fallback')).toThrow(
      'Environment variable AGENT_TOOL_FUNCTIONS names no function for agent.tools.0 (create_order); the AgentPipeline construct sets it.',
    );
    expect(() => readAgent(document, { [RUNTIME_ENV.bedrockModelId]: MODEL }, 'fallback')).toThrow('Environment variable AGENT_TOOL_FUNCTIONS is not set, which agent needs');
  });

  test('a timeout the construct would refuse is refused', () => {
    const tools = [{ ...document.tools[0], timeoutMs: 60_000 }];
    expect(() => readAgent({ ...document, tools }, { [RUNTIME_ENV.bedrockModelId]: MODEL, [RUNTIME_ENV.agentToolFunctions]: 'create_order=f' }, 'fallback')).toThrow('agent.tools[0].timeoutMs');
  });
});
