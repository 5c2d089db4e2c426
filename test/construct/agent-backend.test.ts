import { App, Aws, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline } from '../../lib';
import { expectExactStatements, type NormalizedStatement, pipelineProps, roleStatements, statement, synthPipeline, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The orchestrator's statements that concern the agent (Bedrock or Lambda invocation). */
function agentStatements(synth: SynthesizedPipeline): NormalizedStatement[] {
  return roleStatements(synth, synth.pipeline.orchestratorFunction.role!).filter((s) =>
    s.actions.some((action) => action.startsWith('bedrock:') || action.startsWith('lambda:')),
  );
}

function expectAgentEnvironment(synth: SynthesizedPipeline, variables: Record<string, unknown>): void {
  synth.template.hasResourceProperties('AWS::Lambda::Function', {
    Role: synth.stack.resolve(synth.pipeline.orchestratorFunction.role!.roleArn),
    Environment: {
      Variables: Match.objectLike({
        AGENT_BACKEND: Match.anyValue(),
        BEDROCK_MODEL_ID: Match.absent(),
        AGENT_FUNCTION_NAME: Match.absent(),
        ...variables,
      }),
    },
  });
}

describe('AgentBackend.bedrock', () => {
  test('a foundation model id: InvokeModel on that model in the stack Region only', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`]),
    ]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'bedrock', BEDROCK_MODEL_ID: MODEL });
  });

  test('a geographic inference profile: the profile, and the model in any Region only through that profile', () => {
    const profileId = `eu.${MODEL}`;
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: profileId }) });
    const profileArn = `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:inference-profile/${profileId}`;
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [profileArn]),
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/${MODEL}`], {
        StringEquals: { 'bedrock:InferenceProfileArn': profileArn },
      }),
    ]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'bedrock', BEDROCK_MODEL_ID: profileId });
  });

  test('a global inference profile also needs the Region-less model ARN', () => {
    const profileId = `global.${MODEL}`;
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: profileId }) });
    const profileArn = `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:inference-profile/${profileId}`;
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [profileArn]),
      statement(
        synth,
        ['bedrock:InvokeModel'],
        [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/${MODEL}`, `arn:${Aws.PARTITION}:bedrock:::foundation-model/${MODEL}`],
        { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
      ),
    ]);
  });
});

describe('AgentBackend.bedrock settings', () => {
  const APPLICATION_PROFILE = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3d4e5f6';

  test('an application inference profile ARN: the profile, and any model or system profile only through it', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: APPLICATION_PROFILE }) });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [APPLICATION_PROFILE]),
      statement(
        synth,
        ['bedrock:InvokeModel'],
        [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/*`, `arn:${Aws.PARTITION}:bedrock:*:${Aws.ACCOUNT_ID}:inference-profile/*`],
        { StringEquals: { 'bedrock:InferenceProfileArn': APPLICATION_PROFILE } },
      ),
    ]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'bedrock', BEDROCK_MODEL_ID: APPLICATION_PROFILE });
  });

  test('a guardrail: ApplyGuardrail on that guardrail only, id and version in the environment', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, guardrail: { identifier: 'gr0abc123', version: '2' } }) });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`]),
      statement(synth, ['bedrock:ApplyGuardrail'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:guardrail/gr0abc123`]),
    ]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'bedrock', BEDROCK_MODEL_ID: MODEL, BEDROCK_GUARDRAIL_ID: 'gr0abc123', BEDROCK_GUARDRAIL_VERSION: '2' });
  });

  test('system prompt and inference settings reach the orchestrator as given', () => {
    const inferenceConfig = { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] };
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: 'You answer for Padaria Sol.', inferenceConfig }) });
    expectAgentEnvironment(synth, {
      BEDROCK_MODEL_ID: MODEL,
      AGENT_SYSTEM_PROMPT: 'You answer for Padaria Sol.',
      BEDROCK_INFERENCE_CONFIG: JSON.stringify(inferenceConfig),
      BEDROCK_GUARDRAIL_ID: Match.absent(),
    });
  });

  test('promptCaching reaches the orchestrator only when set: without it the runtime decides by the model', () => {
    expectAgentEnvironment(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) }), { BEDROCK_MODEL_ID: MODEL, BEDROCK_PROMPT_CACHING: Match.absent() });
    expectAgentEnvironment(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, promptCaching: false }) }), { BEDROCK_MODEL_ID: MODEL, BEDROCK_PROMPT_CACHING: 'false' });
    expectAgentEnvironment(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, promptCaching: true }) }), { BEDROCK_MODEL_ID: MODEL, BEDROCK_PROMPT_CACHING: 'true' });
  });

  test('without a system prompt nothing is seeded: the neutral default applies until an admin writes one', () => {
    expectAgentEnvironment(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) }), {
      BEDROCK_MODEL_ID: MODEL,
      AGENT_SYSTEM_PROMPT: Match.absent(),
      BEDROCK_INFERENCE_CONFIG: Match.absent(),
    });
  });

  test.each([
    [{ systemPrompt: 'x'.repeat(3001) }, /systemPrompt is 3001 bytes; at most 3000 fit .* write the full one in the console/],
    [{ systemPrompt: 'é'.repeat(1501) }, /systemPrompt is 3002 bytes/],
    [{ systemPrompt: '  ' }, /systemPrompt is empty; leave it out/],
    [{ inferenceConfig: { maxTokens: 0 } }, /inferenceConfig.maxTokens must be a whole number of at least 1; got 0/],
    [{ inferenceConfig: { temperature: 1.5 } }, /inferenceConfig.temperature must be from 0 to 1; got 1.5/],
    [{ inferenceConfig: { topP: -0.1 } }, /inferenceConfig.topP must be from 0 to 1/],
    [{ inferenceConfig: { stopSequences: [''] } }, /stopSequences must not contain an empty string/],
    [{ guardrail: { identifier: 'arn:aws:s3:::bucket', version: '1' } }, /guardrail.identifier .* is neither a guardrail id/],
    [{ guardrail: { identifier: 'abc', version: 'latest' } }, /guardrail.version 'latest' must be a published version number/],
    [{ modelId: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.x' }, /other ARNs are not accepted/],
  ])('%p is refused with what to change', (overrides, message) => {
    expect(() => AgentBackend.bedrock({ modelId: MODEL, ...overrides })).toThrow(message);
  });

  test('a prompt of exactly 3000 bytes is accepted', () => {
    expect(() => AgentBackend.bedrock({ modelId: MODEL, systemPrompt: 'x'.repeat(3000) })).not.toThrow();
  });
});

describe('cross-Region profile geography', () => {
  function warningsIn(region: string, modelId: string): string[] {
    const app = new App();
    const stack = new Stack(app, 'RegionStack', { env: { region, account: '123456789012' } });
    new AgentPipeline(stack, 'Pipeline', pipelineProps({ agentBackend: AgentBackend.bedrock({ modelId }) }));
    return Annotations.fromStack(stack)
      .findWarning('*', Match.stringLikeRegexp('cross-Region inference profile'))
      .map((entry) => String(entry.entry.data));
  }

  test.each([
    ['eu-west-1', `us.${MODEL}`, 'us'],
    ['us-east-1', `apac.${MODEL}`, 'apac'],
    ['us-gov-west-1', `us.${MODEL}`, 'us'],
    ['ap-southeast-1', `jp.${MODEL}`, 'jp'],
  ])('a stack in %s calling %s is warned, naming the geography', (region, modelId, geography) => {
    const [warning, ...others] = warningsIn(region, modelId);
    expect(others).toEqual([]);
    expect(warning).toContain(`serves the '${geography}' geography, but the stack is in ${region}`);
  });

  test.each([
    ['eu-central-1', `eu.${MODEL}`],
    ['ap-northeast-1', `apac.${MODEL}`],
    ['ap-northeast-3', `jp.${MODEL}`],
    ['sa-east-1', `global.${MODEL}`],
    ['eu-west-1', MODEL],
  ])('a stack in %s calling %s is not warned', (region, modelId) => {
    expect(warningsIn(region, modelId)).toEqual([]);
  });
});

describe.each([
  ['AgentBackend.fromFunction', (fn: lambda.IFunction) => AgentBackend.fromFunction(fn)],
  // The deprecated alias must keep behaving exactly like fromFunction until it is removed.
  ['AgentBackend.lambda (deprecated)', (fn: lambda.IFunction) => AgentBackend.lambda(fn)],
])('%s', (_name, backendFor) => {
  test('InvokeFunction on that function only, and its name in the environment', () => {
    let agentFunction!: lambda.IFunction;
    const synth = synthPipeline({}, (stack) => {
      agentFunction = lambda.Function.fromFunctionName(stack, 'Agent', 'my-agent');
      return { agentBackend: backendFor(agentFunction) };
    });
    expectExactStatements(agentStatements(synth), [statement(synth, ['lambda:InvokeFunction'], [agentFunction.functionArn])]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'lambda', AGENT_FUNCTION_NAME: synth.stack.resolve(agentFunction.functionName) });
  });
});

describe('AgentBackend.fromFunction contract versions', () => {
  test('version 2 (attachments) is set in the environment; version 1 sets nothing new', () => {
    const withVersion = (contractVersion?: number) =>
      synthPipeline({}, (stack) => ({ agentBackend: AgentBackend.fromFunction(lambda.Function.fromFunctionName(stack, 'Agent', 'my-agent'), contractVersion === undefined ? undefined : { contractVersion }) }));
    expectAgentEnvironment(withVersion(2), { AGENT_BACKEND: 'lambda', AGENT_FUNCTION_NAME: Match.anyValue(), AGENT_FUNCTION_CONTRACT_VERSION: '2' });
    expectAgentEnvironment(withVersion(1), { AGENT_BACKEND: 'lambda', AGENT_FUNCTION_NAME: Match.anyValue(), AGENT_FUNCTION_CONTRACT_VERSION: Match.absent() });
    expectAgentEnvironment(withVersion(), { AGENT_BACKEND: 'lambda', AGENT_FUNCTION_NAME: Match.anyValue(), AGENT_FUNCTION_CONTRACT_VERSION: Match.absent() });
  });

  test.each([0, 3, 1.5])('version %p is refused, naming the versions there are', (contractVersion) => {
    const stack = new Stack();
    expect(() => AgentBackend.fromFunction(lambda.Function.fromFunctionName(stack, 'Agent', 'my-agent'), { contractVersion })).toThrow(
      `AgentBackend.fromFunction: contractVersion ${contractVersion} is not a version of the agent function contract; use 1, or 2 for a function that reads attachments.`,
    );
  });
});

describe('AgentBackend.scripted', () => {
  test('no agent permission at all', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.scripted() });
    expect(agentStatements(synth)).toEqual([]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'scripted' });
  });
});

describe('AgentBackend.stages', () => {
  const stagesOf = (agents: Record<string, AgentBackend>, extra: { entry?: string; maxHandoversPerTurn?: number } = {}) =>
    AgentBackend.stages({ entry: Object.keys(agents)[0], agents, ...extra });

  /** The orchestrator's AGENT_STAGES, parsed. */
  function stagesVariable(synth: SynthesizedPipeline): { entry: string; maxHandoversPerTurn: number; agents: Record<string, Record<string, string>> } {
    const orchestrator = Object.values(synth.template.findResources('AWS::Lambda::Function')).find(
      (resource) => JSON.stringify(resource.Properties.Role) === JSON.stringify(synth.stack.resolve(synth.pipeline.orchestratorFunction.role!.roleArn)),
    )!;
    return JSON.parse(joined(orchestrator.Properties.Environment.Variables.AGENT_STAGES));
  }

  /** A `Fn::Join` of literal texts and references, each reference written as its JSON. */
  function joined(value: unknown): string {
    if (typeof value === 'string') return value;
    const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    return parts.map((part) => (typeof part === 'string' ? part : referenceText(part))).join(separator);
  }

  const referenceText = (reference: unknown) => JSON.stringify(reference).replace(/"/g, "'");

  test('each stage gets its own grant, and its variables under its name; the entry and the hop cap travel along', () => {
    let agentFunction!: lambda.IFunction;
    const synth = synthPipeline({}, (stack) => {
      agentFunction = lambda.Function.fromFunctionName(stack, 'Agent', 'cadastro-agent');
      return {
        agentBackend: AgentBackend.stages({
          entry: 'qualificacao',
          agents: { qualificacao: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: 'Qualifique o cliente.' }), cadastro: AgentBackend.fromFunction(agentFunction) },
        }),
      };
    });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`]),
      statement(synth, ['lambda:InvokeFunction'], [agentFunction.functionArn]),
    ]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'stages' });
    expect(stagesVariable(synth)).toEqual({
      entry: 'qualificacao',
      maxHandoversPerTurn: 3,
      agents: {
        qualificacao: { AGENT_BACKEND: 'bedrock', BEDROCK_MODEL_ID: MODEL, AGENT_SYSTEM_PROMPT: 'Qualifique o cliente.' },
        cadastro: { AGENT_BACKEND: 'lambda', AGENT_FUNCTION_NAME: referenceText(synth.stack.resolve(agentFunction.functionName)) },
      },
    });
    // The throttling alarm watches the first Bedrock model, the entry's when it has one.
    expect(synth.pipeline.modelThrottlesAlarm).toBeDefined();
  });

  test('scripted stages grant nothing', () => {
    const synth = synthPipeline({ agentBackend: stagesOf({ a: AgentBackend.scripted(), b: AgentBackend.scripted() }, { maxHandoversPerTurn: 1 }) });
    expect(agentStatements(synth)).toEqual([]);
    expect(stagesVariable(synth)).toEqual({ entry: 'a', maxHandoversPerTurn: 1, agents: { a: { AGENT_BACKEND: 'scripted' }, b: { AGENT_BACKEND: 'scripted' } } });
  });

  test.each([
    [{}, /agents is empty/],
    [{ Cadastro: AgentBackend.scripted() }, /stage name 'Cadastro' is not allowed; use 1–32 characters/],
    [{ ['a'.repeat(33)]: AgentBackend.scripted() }, /is not allowed/],
    [Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`s${index}`, AgentBackend.scripted()])), /agents has 11 stages; at most 10/],
    [{ a: AgentBackend.stages({ entry: 'b', agents: { b: AgentBackend.scripted() } }) }, /stage 'a' is itself AgentBackend.stages\(\); stages do not nest/],
  ])('refuses agents %#', (agents, message) => {
    expect(() => AgentBackend.stages({ entry: Object.keys(agents)[0] ?? 'a', agents })).toThrow(message);
  });

  test('refuses an entry that is not a stage, a bad hop cap and prompts too long together', () => {
    expect(() => AgentBackend.stages({ entry: 'vendas', agents: { qualificacao: AgentBackend.scripted() } })).toThrow(/entry 'vendas' is not one of the stages \(qualificacao\)/);
    expect(() => stagesOf({ a: AgentBackend.scripted() }, { maxHandoversPerTurn: 6 })).toThrow(/maxHandoversPerTurn must be a whole number from 0 to 5; got 6/);
    expect(() => stagesOf({ a: AgentBackend.scripted() }, { maxHandoversPerTurn: 1.5 })).toThrow(/maxHandoversPerTurn/);
    const prompt = 'x'.repeat(1600);
    expect(() =>
      stagesOf({ a: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: prompt }), b: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: prompt }) }),
    ).toThrow(/systemPrompts are 3200 bytes together; at most 3000 .*prompt resources "system.<stage>"/);
  });
});
