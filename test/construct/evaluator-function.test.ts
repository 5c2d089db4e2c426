import { Aws, type CfnElement } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentTool } from '../../lib';
import { EVALUATOR_DEFAULTS, RUNTIME_ENV, STACK_OUTPUTS } from '../../lib/contract';
import { expectExactStatements, roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

// The evaluator function the operator plane brings (docs/EVALUATION.md): what it is, what it is
// told, what its role may call, and who may invoke it.

const ADMIN = '5511912345678';
const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const MODEL_ARN = `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`;
const GUARDRAIL = { identifier: 'abc123def456', version: '2' };
const KNOWLEDGE_BASE = 'KB12345678';
const TOOL = { name: 'create_order', description: 'Create an order once the customer confirmed it.', inputSchema: { type: 'object', properties: { sku: { type: 'string' } } }, sideEffects: true };

/** A pipeline with the plane and a Bedrock agent that has a guardrail, a knowledge base and a consumer tool. */
function withBedrockAgent(): SynthesizedPipeline & { readonly tool: lambda.IFunction } {
  let tool!: lambda.IFunction;
  const synth = synthPipeline({ adminPhoneNumbers: [ADMIN], orchestratorMemorySize: 1024 }, (stack) => {
    tool = lambda.Function.fromFunctionName(stack, 'Orders', 'orders-service');
    return {
      agentBackend: AgentBackend.bedrock({ modelId: MODEL, guardrail: GUARDRAIL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE }, tools: [AgentTool.fromFunction(tool, TOOL)] }),
    };
  });
  return { ...synth, tool };
}

const logicalId = (synth: SynthesizedPipeline, fn: lambda.IFunction) => synth.stack.getLogicalId(fn.node.defaultChild as CfnElement);
const actionsOf = (synth: SynthesizedPipeline, fn: lambda.IFunction) => roleStatements(synth, fn.role!).flatMap((entry) => entry.actions);

describe('without the operator plane', () => {
  test('there is no evaluator, nor its output', () => {
    const synth = synthPipeline({ environment: 'prod' });
    expect(synth.pipeline.evaluatorFunction).toBeUndefined();
    expect(Object.keys(synth.template.findOutputs('*')).filter((key) => key.endsWith(STACK_OUTPUTS.evaluatorFunctionName))).toEqual([]);
  });
});

describe('with the operator plane', () => {
  let synth: ReturnType<typeof withBedrockAgent>;
  beforeAll(() => {
    synth = withBedrockAgent();
  });

  test('plays one run at a time, for up to 15 minutes, with the orchestrator’s memory; an asynchronous run is never retried and waits an hour at most', () => {
    const { template, pipeline } = synth;
    const evaluator = template.toJSON().Resources[logicalId(synth, pipeline.evaluatorFunction!)].Properties;
    expect(evaluator).toMatchObject({ Timeout: 900, MemorySize: 1024, ReservedConcurrentExecutions: 1, Handler: 'index.handler', Runtime: 'nodejs24.x' });
    expect(evaluator.Description).toMatch(/^Prompt evaluator of .*sending nothing$/);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(synth, pipeline.evaluatorFunction!) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: EVALUATOR_DEFAULTS.maxEventAgeSeconds,
    });
  });

  test('is told the orchestrator’s agent, channel and texts, not its queue, console or attachments', () => {
    const { pipeline } = synth;
    const evaluator = toldTo(synth, pipeline.evaluatorFunction!);
    const orchestrator = toldTo(synth, pipeline.orchestratorFunction);
    expect(evaluator.document.agent).toEqual(orchestrator.document.agent);
    expect(evaluator.document.whatsApp).toEqual(orchestrator.document.whatsApp);
    expect(evaluator.document.fallbackText).toEqual(orchestrator.document.fallbackText);
    for (const name of [RUNTIME_ENV.tableName, RUNTIME_ENV.bedrockModelId, RUNTIME_ENV.bedrockGuardrailId, RUNTIME_ENV.bedrockKnowledgeBaseId, RUNTIME_ENV.agentToolFunctions]) {
      expect({ name, value: evaluator.environment[name] }).toEqual({ name, value: orchestrator.environment[name] });
    }
    for (const name of [RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.deadLetterQueueUrl, RUNTIME_ENV.consoleUrl, RUNTIME_ENV.mediaBucketName]) expect(evaluator.environment).not.toHaveProperty(name);
  });

  test('its role calls the agent as the orchestrator’s does (model, guardrail, knowledge base) but not the tool, the queue, the secret or WhatsApp', () => {
    const { pipeline, tool } = synth;
    const agentCalls = (fn: lambda.IFunction) => roleStatements(synth, fn.role!).filter((entry) => entry.actions.some((action) => action.startsWith('bedrock:')));
    expectExactStatements(agentCalls(pipeline.evaluatorFunction!), [
      statement(synth, ['bedrock:InvokeModel'], [MODEL_ARN]),
      statement(synth, ['bedrock:ApplyGuardrail'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:guardrail/${GUARDRAIL.identifier}`]),
      statement(synth, ['bedrock:Retrieve'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:knowledge-base/${KNOWLEDGE_BASE}`]),
    ]);
    expectExactStatements(agentCalls(pipeline.evaluatorFunction!), agentCalls(pipeline.orchestratorFunction));
    // The orchestrator invokes the tool; the evaluator answers it from the scenario's recordings.
    const invokes = (fn: lambda.IFunction) => roleStatements(synth, fn.role!).filter((entry) => entry.actions.includes('lambda:InvokeFunction'));
    expect(invokes(pipeline.orchestratorFunction)).toEqual([statement(synth, ['lambda:InvokeFunction'], [tool.functionArn])]);
    expect(invokes(pipeline.evaluatorFunction!)).toEqual([]);
    expect(actionsOf(synth, pipeline.evaluatorFunction!).filter((action) => /^(sqs|secretsmanager|social-messaging|s3|transcribe|lambda):/.test(action))).toEqual([]);
  });

  test('the operator function, and it alone, may invoke it, and is told its name; the stack outputs the name', () => {
    const { pipeline, stack, template } = synth;
    const evaluator = pipeline.evaluatorFunction!;
    expect(toldTo(synth, pipeline.operatorFunction!).environment[RUNTIME_ENV.evaluatorFunctionName]).toEqual(stack.resolve(evaluator.functionName));
    const invokesEvaluator = (fn: lambda.IFunction) =>
      roleStatements(synth, fn.role!).filter((entry) => entry.actions.includes('lambda:InvokeFunction') && JSON.stringify(entry.resources).includes(logicalId(synth, evaluator)));
    expect(invokesEvaluator(pipeline.operatorFunction!)).toEqual([statement(synth, ['lambda:InvokeFunction'], [evaluator.functionArn])]);
    for (const fn of [pipeline.orchestratorFunction, pipeline.webhookFunction, pipeline.handoffSweeperFunction!, pipeline.idleSweeperFunction, evaluator]) expect(invokesEvaluator(fn)).toEqual([]);
    expect(template.findOutputs(`Pipeline${STACK_OUTPUTS.evaluatorFunctionName}`)).toEqual({
      [`Pipeline${STACK_OUTPUTS.evaluatorFunctionName}`]: expect.objectContaining({ Value: stack.resolve(evaluator.functionName) }),
    });
  });
});

test('with the agent as a function of the consumer, the evaluator may invoke that function', () => {
  let agentFunction!: lambda.IFunction;
  const synth = synthPipeline({ adminPhoneNumbers: [ADMIN] }, (stack) => {
    agentFunction = lambda.Function.fromFunctionName(stack, 'Agent', 'whatsapp-agent');
    return { agentBackend: AgentBackend.fromFunction(agentFunction) };
  });
  const invokes = roleStatements(synth, synth.pipeline.evaluatorFunction!.role!).filter((entry) => entry.actions.includes('lambda:InvokeFunction'));
  expect(invokes).toEqual([statement(synth, ['lambda:InvokeFunction'], [agentFunction.functionArn])]);
  expect(toldTo(synth, synth.pipeline.evaluatorFunction!).environment[RUNTIME_ENV.agentFunctionName]).toEqual(synth.stack.resolve(agentFunction.functionName));
});
