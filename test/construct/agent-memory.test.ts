import { Aws } from 'aws-cdk-lib';
import { AgentBackend } from '../../lib';
import { roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const MEMORY_MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const modelArn = (id: string) => `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${id}`;

const invokeStatements = (synth: SynthesizedPipeline) => roleStatements(synth, synth.pipeline.orchestratorFunction.role!).filter((s) => s.actions.includes('bedrock:InvokeModel'));
const memoryTold = (synth: SynthesizedPipeline) => (toldTo(synth, synth.pipeline.orchestratorFunction).document.agent as { memory: unknown }).memory;

describe('AgentBackend.bedrock({ memory })', () => {
  test('on by default: the agent’s own model folds at most every 5 turns, and nothing more is granted', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) });
    expect(memoryTold(synth)).toEqual({ foldEveryTurns: 5, modelId: null });
    expect(invokeStatements(synth)).toEqual([statement(synth, ['bedrock:InvokeModel'], [modelArn(MODEL)])]);
  });

  test('a cheaper model writes the summaries: it is granted InvokeModel too, and named in the document', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, memory: { modelId: MEMORY_MODEL, foldEveryTurns: 8 } }) });
    expect(memoryTold(synth)).toEqual({ foldEveryTurns: 8, modelId: MEMORY_MODEL });
    expect(invokeStatements(synth)).toEqual([statement(synth, ['bedrock:InvokeModel'], [modelArn(MODEL)]), statement(synth, ['bedrock:InvokeModel'], [modelArn(MEMORY_MODEL)])]);
  });

  test('enabled: false folds nothing and grants nothing for it', () => {
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, memory: { enabled: false, modelId: MEMORY_MODEL } }) });
    expect(memoryTold(synth)).toBeNull();
    expect(invokeStatements(synth)).toEqual([statement(synth, ['bedrock:InvokeModel'], [modelArn(MODEL)])]);
  });

  test.each([
    [{ foldEveryTurns: 0 }, /memory.foldEveryTurns must be a whole number from 1 to 20; got 0/],
    [{ foldEveryTurns: 2.5 }, /memory.foldEveryTurns must be a whole number from 1 to 20; got 2.5/],
    [{ foldEveryTurns: 21 }, /memory.foldEveryTurns must be a whole number from 1 to 20; got 21/],
    [{ modelId: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.x' }, /memory.modelId 'arn:aws:bedrock:us-east-1:123456789012:inference-profile\/us.x' is not a Bedrock model id/],
  ])('%p is refused, naming the prop', (memory, message) => {
    expect(() => AgentBackend.bedrock({ modelId: MODEL, memory })).toThrow(message);
  });
});
