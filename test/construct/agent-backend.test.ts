import { App, Aws, Lazy, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AgentBackend, AgentPipeline } from '../../lib';
import { type AgentDocument, RUNTIME_ENV, SYSTEM_PROMPT_MAX_CHARACTERS } from '../../lib/contract';
import { expectExactStatements, type NormalizedStatement, pipelineProps, roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The orchestrator's statements that concern the agent (Bedrock or Lambda invocation). */
function agentStatements(synth: SynthesizedPipeline): NormalizedStatement[] {
  return roleStatements(synth, synth.pipeline.orchestratorFunction.role!).filter((s) =>
    s.actions.some((action) => action.startsWith('bedrock:') || action.startsWith('lambda:')),
  );
}

const AGENT_VARIABLES = [RUNTIME_ENV.bedrockModelId, RUNTIME_ENV.bedrockGuardrailId, RUNTIME_ENV.bedrockGuardrailVersion, RUNTIME_ENV.agentFunctionName, RUNTIME_ENV.agentStageVariables];

/** What the orchestrator is told of its agent: the variables its model, guardrail or function go in, and its settings. */
function agentTold(synth: SynthesizedPipeline): { readonly variables: Record<string, unknown>; readonly agent: AgentDocument } {
  const { environment, document } = toldTo(synth, synth.pipeline.orchestratorFunction);
  return { variables: Object.fromEntries(Object.entries(environment).filter(([name]) => AGENT_VARIABLES.includes(name as never))), agent: document.agent };
}

/** A Bedrock agent's settings as the construct writes them when only `settings` are set. */
const bedrockDocument = (settings: Partial<Extract<AgentDocument, { backend: 'bedrock' }>> = {}) => ({ backend: 'bedrock', systemPrompt: null, inferenceConfig: null, promptCaching: null, guardrail: false, knowledgeBase: null, memory: { foldEveryTurns: 5, modelId: null }, ...settings });

describe('AgentBackend.bedrock', () => {
  test('a foundation model id: InvokeModel on that model in the stack Region only', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`]),
    ]);
    expect(agentTold(synth)).toEqual({ variables: { BEDROCK_MODEL_ID: MODEL }, agent: bedrockDocument() });
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
    expect(agentTold(synth)).toEqual({ variables: { BEDROCK_MODEL_ID: profileId }, agent: bedrockDocument() });
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
    expect(agentTold(synth)).toEqual({ variables: { BEDROCK_MODEL_ID: APPLICATION_PROFILE }, agent: bedrockDocument() });
  });

  test('a guardrail: ApplyGuardrail on that guardrail only, id and version in the environment', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, guardrail: { identifier: 'gr0abc123', version: '2' } }) });
    expectExactStatements(agentStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`]),
      statement(synth, ['bedrock:ApplyGuardrail'], [`arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:guardrail/gr0abc123`]),
    ]);
    expect(agentTold(synth)).toEqual({
      variables: { BEDROCK_MODEL_ID: MODEL, BEDROCK_GUARDRAIL_ID: 'gr0abc123', BEDROCK_GUARDRAIL_VERSION: '2' },
      agent: bedrockDocument({ guardrail: true }),
    });
  });

  test('system prompt and inference settings reach the orchestrator as given', () => {
    const inferenceConfig = { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] };
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: 'You answer for Padaria Sol.', inferenceConfig }) });
    expect(agentTold(synth)).toEqual({ variables: { BEDROCK_MODEL_ID: MODEL }, agent: bedrockDocument({ systemPrompt: 'You answer for Padaria Sol.', inferenceConfig }) });
  });

  test('promptCaching reaches the orchestrator only when set: without it the runtime decides by the model', () => {
    const cachingOf = (promptCaching?: boolean) => agentTold(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, promptCaching }) })).agent;
    expect(cachingOf()).toEqual(bedrockDocument());
    expect(cachingOf(false)).toEqual(bedrockDocument({ promptCaching: false }));
    expect(cachingOf(true)).toEqual(bedrockDocument({ promptCaching: true }));
  });

  test('without a system prompt nothing is seeded: the neutral default applies until an admin writes one', () => {
    expect(agentTold(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) }))).toEqual({ variables: { BEDROCK_MODEL_ID: MODEL }, agent: bedrockDocument() });
  });

  test.each([
    [{ systemPrompt: 'x'.repeat(SYSTEM_PROMPT_MAX_CHARACTERS + 1) }, /systemPrompt is 40001 characters; at most 40000 are accepted, as in the console's prompt editor/],
    [{ systemPrompt: 'é'.repeat(SYSTEM_PROMPT_MAX_CHARACTERS + 1) }, /systemPrompt is 40001 characters/],
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

  test('a prompt of exactly 40,000 characters, multi-byte or not, is accepted and reaches the orchestrator whole', () => {
    for (const character of ['x', 'é']) {
      const systemPrompt = character.repeat(SYSTEM_PROMPT_MAX_CHARACTERS);
      expect(agentTold(synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt }) })).agent).toEqual(bedrockDocument({ systemPrompt }));
    }
  });

  test('a prompt a Lazy produces is written as the text it produces, and checked as a plain one is', () => {
    const produced = (text: string) => AgentBackend.bedrock({ modelId: MODEL, systemPrompt: Lazy.string({ produce: () => text }) });
    expect(agentTold(synthPipeline({ agentBackend: produced('Você atende a Padaria Sol.') })).agent).toEqual(bedrockDocument({ systemPrompt: 'Você atende a Padaria Sol.' }));
    expect(() => synthPipeline({ agentBackend: produced('x'.repeat(SYSTEM_PROMPT_MAX_CHARACTERS + 1)) })).toThrow(/systemPrompt is 40001 characters/);
    expect(() => synthPipeline({ agentBackend: produced('  ') })).toThrow(/systemPrompt is empty/);
  });

  test('a prompt CloudFormation would resolve only at deploy time is refused, naming the prop', () => {
    expect(() =>
      synthPipeline({}, (stack) => {
        const queue = new sqs.Queue(stack, 'Elsewhere');
        return { agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: Lazy.string({ produce: () => queue.queueName }) }) };
      }),
    ).toThrow(/AgentBackend.bedrock: systemPrompt holds a value CloudFormation resolves only at deploy time .*Give the text itself, or a Lazy that produces it/);
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
    expect(agentTold(synth)).toEqual({ variables: { AGENT_FUNCTION_NAME: synth.stack.resolve(agentFunction.functionName) }, agent: { backend: 'lambda', contractVersion: 1 } });
  });
});

describe('AgentBackend.fromFunction contract versions', () => {
  test('version 2 (attachments) reaches the orchestrator; version 1 is the default', () => {
    const withVersion = (contractVersion?: number) =>
      synthPipeline({}, (stack) => ({ agentBackend: AgentBackend.fromFunction(lambda.Function.fromFunctionName(stack, 'Agent', 'my-agent'), contractVersion === undefined ? undefined : { contractVersion }) }));
    expect(agentTold(withVersion(2)).agent).toEqual({ backend: 'lambda', contractVersion: 2 });
    expect(agentTold(withVersion(1)).agent).toEqual({ backend: 'lambda', contractVersion: 1 });
    expect(agentTold(withVersion()).agent).toEqual({ backend: 'lambda', contractVersion: 1 });
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
    expect(agentTold(synth)).toEqual({ variables: {}, agent: { backend: 'scripted' } });
  });
});

describe('AgentBackend.stages', () => {
  const stagesOf = (agents: Record<string, AgentBackend>, extra: { entry?: string; maxHandoversPerTurn?: number } = {}) =>
    AgentBackend.stages({ entry: Object.keys(agents)[0], agents, ...extra });

  /** The orchestrator's AGENT_STAGE_VARIABLES, parsed. */
  function stageVariables(synth: SynthesizedPipeline): Record<string, Record<string, string>> {
    return JSON.parse(joined(agentTold(synth).variables[RUNTIME_ENV.agentStageVariables]));
  }

  /** A `Fn::Join` of literal texts and references, each reference written as its JSON. */
  function joined(value: unknown): string {
    if (typeof value === 'string') return value;
    const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    return parts.map((part) => (typeof part === 'string' ? part : referenceText(part))).join(separator);
  }

  const referenceText = (reference: unknown) => JSON.stringify(reference).replace(/"/g, "'");

  test('each stage gets its own grant, its settings and its variables under its name; the entry and the hop cap travel along', () => {
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
    expect(agentTold(synth).agent).toEqual({
      backend: 'stages',
      entry: 'qualificacao',
      maxHandoversPerTurn: 3,
      stages: { qualificacao: bedrockDocument({ systemPrompt: 'Qualifique o cliente.' }), cadastro: { backend: 'lambda', contractVersion: 1 } },
    });
    expect(stageVariables(synth)).toEqual({
      qualificacao: { BEDROCK_MODEL_ID: MODEL },
      cadastro: { AGENT_FUNCTION_NAME: referenceText(synth.stack.resolve(agentFunction.functionName)) },
    });
    // The throttling alarm watches the first Bedrock model, the entry's when it has one.
    expect(synth.pipeline.modelThrottlesAlarm).toBeDefined();
  });

  test('scripted stages grant nothing', () => {
    const synth = synthPipeline({ agentBackend: stagesOf({ a: AgentBackend.scripted(), b: AgentBackend.scripted() }, { maxHandoversPerTurn: 1 }) });
    expect(agentStatements(synth)).toEqual([]);
    expect(agentTold(synth).agent).toEqual({ backend: 'stages', entry: 'a', maxHandoversPerTurn: 1, stages: { a: { backend: 'scripted' }, b: { backend: 'scripted' } } });
    expect(stageVariables(synth)).toEqual({ a: {}, b: {} });
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

  test('refuses an entry that is not a stage and a bad hop cap', () => {
    expect(() => AgentBackend.stages({ entry: 'vendas', agents: { qualificacao: AgentBackend.scripted() } })).toThrow(/entry 'vendas' is not one of the stages \(qualificacao\)/);
    expect(() => stagesOf({ a: AgentBackend.scripted() }, { maxHandoversPerTurn: 6 })).toThrow(/maxHandoversPerTurn must be a whole number from 0 to 5; got 6/);
    expect(() => stagesOf({ a: AgentBackend.scripted() }, { maxHandoversPerTurn: 1.5 })).toThrow(/maxHandoversPerTurn/);
  });

  test('ten stages each with a prompt at the limit reach the orchestrator whole: the prompts share no limit', () => {
    const prompt = 'x'.repeat(SYSTEM_PROMPT_MAX_CHARACTERS);
    const agents = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`s${index}`, AgentBackend.bedrock({ modelId: MODEL, systemPrompt: prompt })]));
    const { agent } = agentTold(synthPipeline({ agentBackend: stagesOf(agents) }));
    expect(agent.backend === 'stages' && Object.values(agent.stages).map((stage) => stage.backend === 'bedrock' && stage.systemPrompt?.length)).toEqual(Array(10).fill(SYSTEM_PROMPT_MAX_CHARACTERS));
  });
});
