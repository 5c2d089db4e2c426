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

describe('AgentBackend.scripted', () => {
  test('no agent permission at all', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.scripted() });
    expect(agentStatements(synth)).toEqual([]);
    expectAgentEnvironment(synth, { AGENT_BACKEND: 'scripted' });
  });
});
