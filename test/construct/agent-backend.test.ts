import { Aws } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend } from '../../lib';
import { expectExactStatements, type NormalizedStatement, roleStatements, statement, synthPipeline, type SynthesizedPipeline } from './support';

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
