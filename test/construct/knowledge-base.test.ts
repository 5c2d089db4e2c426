import { Aws } from 'aws-cdk-lib';
import { AgentBackend } from '../../lib';
import { type AgentDocument, RUNTIME_ENV } from '../../lib/contract';
import { expectExactStatements, roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const KNOWLEDGE_BASE_ID = 'KBX1234567';
const modelArn = `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${MODEL}`;
const knowledgeBaseArn = (id: string) => `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:knowledge-base/${id}`;

function bedrockStatements(synth: SynthesizedPipeline) {
  return roleStatements(synth, synth.pipeline.orchestratorFunction.role!).filter((s) => s.actions.some((action) => action.startsWith('bedrock:')));
}

function agentTold(synth: SynthesizedPipeline): { readonly variables: Record<string, string>; readonly agent: AgentDocument } {
  const { environment, document } = toldTo(synth, synth.pipeline.orchestratorFunction);
  const variables = Object.fromEntries(Object.entries(environment).filter(([name]) => name === RUNTIME_ENV.bedrockKnowledgeBaseId || name === RUNTIME_ENV.agentStageVariables)) as Record<string, string>;
  return { variables, agent: document.agent };
}

describe('AgentBackend.bedrock({ knowledgeBase })', () => {
  test('Retrieve exactly on that knowledge base; its id in the environment, the search settings in the document', () => {
    const filter = { andAll: [{ equals: { key: 'audience', value: 'customers' } }, { in: { key: 'language', value: ['pt', 'en'] } }] };
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE_ID, numberOfResults: 3, filter } }) });
    expectExactStatements(bedrockStatements(synth), [
      statement(synth, ['bedrock:InvokeModel'], [modelArn]),
      statement(synth, ['bedrock:Retrieve'], [knowledgeBaseArn(KNOWLEDGE_BASE_ID)]),
    ]);
    const told = agentTold(synth);
    expect(told.variables).toEqual({ [RUNTIME_ENV.bedrockKnowledgeBaseId]: KNOWLEDGE_BASE_ID });
    expect(told.agent).toMatchObject({ backend: 'bedrock', knowledgeBase: { numberOfResults: 3, filter } });
  });

  test('numberOfResults defaults to 5 and no filter; without a knowledge base nothing is granted or told', () => {
    const withDefaults = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE_ID } }) });
    expect(agentTold(withDefaults).agent).toMatchObject({ knowledgeBase: { numberOfResults: 5, filter: null } });
    const without = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: MODEL }) });
    expect(bedrockStatements(without).flatMap((s) => s.actions)).not.toContain('bedrock:Retrieve');
    expect(agentTold(without)).toEqual({ variables: {}, agent: expect.objectContaining({ knowledgeBase: null }) });
  });

  test('on a stage: Retrieve on that stage’s knowledge base only, its id among the stage’s variables', () => {
    const synth = synthPipeline({
      agentBackend: AgentBackend.stages({
        entry: 'vendas',
        agents: {
          vendas: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE_ID } }),
          suporte: AgentBackend.bedrock({ modelId: MODEL }),
        },
      }),
    });
    expect(bedrockStatements(synth).filter((s) => s.actions.includes('bedrock:Retrieve'))).toEqual([statement(synth, ['bedrock:Retrieve'], [knowledgeBaseArn(KNOWLEDGE_BASE_ID)])]);
    const { variables, agent } = agentTold(synth);
    expect(JSON.parse(variables[RUNTIME_ENV.agentStageVariables])).toEqual({ vendas: { BEDROCK_MODEL_ID: MODEL, BEDROCK_KNOWLEDGE_BASE_ID: KNOWLEDGE_BASE_ID }, suporte: { BEDROCK_MODEL_ID: MODEL } });
    expect(agent).toMatchObject({ stages: { vendas: { knowledgeBase: { numberOfResults: 5, filter: null } }, suporte: { knowledgeBase: null } } });
  });

  test('stages with knowledge bases of their own share one Retrieve statement naming each, once', () => {
    const synth = synthPipeline({
      agentBackend: AgentBackend.stages({
        entry: 'vendas',
        agents: {
          vendas: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE_ID } }),
          suporte: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: 'KBSUPPORT1' } }),
          cadastro: AgentBackend.bedrock({ modelId: MODEL, knowledgeBase: { knowledgeBaseId: KNOWLEDGE_BASE_ID } }),
        },
      }),
    });
    expect(bedrockStatements(synth).filter((s) => s.actions.includes('bedrock:Retrieve'))).toEqual([
      statement(synth, ['bedrock:Retrieve'], [knowledgeBaseArn(KNOWLEDGE_BASE_ID), knowledgeBaseArn('KBSUPPORT1')]),
    ]);
  });

  test.each([
    [{ knowledgeBaseId: 'my-knowledge-base' }, /knowledgeBase.knowledgeBaseId 'my-knowledge-base' is not a knowledge base id; give its ten upper-case letters and digits/],
    [{ knowledgeBaseId: `arn:aws:bedrock:us-east-1:123456789012:knowledge-base/${KNOWLEDGE_BASE_ID}` }, /is not a knowledge base id/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, numberOfResults: 0 }, /knowledgeBase.numberOfResults must be a whole number from 1 to 10; got 0/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, numberOfResults: 11 }, /knowledgeBase.numberOfResults must be a whole number from 1 to 10; got 11/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, filter: { equals: { key: 'a', value: 1 }, notEquals: { key: 'b', value: 2 } } }, /knowledgeBase.filter must hold exactly one operator; it holds 2/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, filter: { like: { key: 'a', value: 1 } } }, /knowledgeBase.filter has the unknown operator 'like'/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, filter: { andAll: [{ equals: { key: 'a', value: 1 } }] } }, /knowledgeBase.filter.andAll must be a list of 2 to 5 filters/],
    [{ knowledgeBaseId: KNOWLEDGE_BASE_ID, filter: { orAll: [{ equals: { key: 'a' } }, { in: { key: 'b', value: 'x' } }] } }, /filter.orAll\[0\].equals.value is required; knowledgeBase.filter.orAll\[1\].in.value must be a list/],
  ])('%p is refused, naming the prop', (knowledgeBase, message) => {
    expect(() => AgentBackend.bedrock({ modelId: MODEL, knowledgeBase })).toThrow(message);
  });
});
