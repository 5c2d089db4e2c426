// The knowledge base adapter against the fake Retrieve server (real HTTP on 127.0.0.1): what a
// search hands the model is bounded in count and characters, and each passage says where it is from.
import { KNOWLEDGE_BASE_LIMITS } from '../../../../lib/contract';
import { BedrockConverseAgent } from '../../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { BedrockKnowledgeBase } from '../../../../lambda/core/adapters/agent/bedrock-knowledge-base';
import { KNOWLEDGE_SEARCH_TOOL } from '../../../../lambda/core/adapters/agent/knowledge-search';
import { FakeConverseModel } from '../../../../local/fake-bedrock/fake-converse-model';
import { FakeKnowledgeBase } from '../../../../local/fake-bedrock/fake-knowledge-base';

const KNOWLEDGE_BASE_ID = 'KBUNIT0001';
const credentials = async () => ({ accessKeyId: 'AKIDUNIT', secretAccessKey: 'unit' });
let fake: FakeKnowledgeBase;

beforeAll(async () => {
  fake = await FakeKnowledgeBase.start({
    knowledgeBaseId: KNOWLEDGE_BASE_ID,
    documents: [
      ...Array.from({ length: 12 }, (_, index) => ({ location: `s3://docs/frete-${index}.md`, text: `Frete para a região ${index}: grátis acima de R$ ${100 + index}.` })),
      { location: 'https://loja.example/politica', text: `Política de trocas e frete. ${'Detalhe longo. '.repeat(400)}` },
    ],
  });
});
afterAll(() => fake.close());

const searchOf = (numberOfResults: number) => new BedrockKnowledgeBase({ knowledgeBaseId: KNOWLEDGE_BASE_ID, numberOfResults, endpoint: fake.endpoint, region: 'us-east-1', credentials });

it('asks for the configured number of results and hands back at most that many', async () => {
  const passages = await searchOf(3).search('frete', AbortSignal.timeout(5_000));
  expect(passages).toHaveLength(3);
  expect(fake.received.at(-1)).toEqual({ query: 'frete', numberOfResults: 3 });
});

it('cuts a long passage to the passage limit, and names its source from the location', async () => {
  const passages = await searchOf(KNOWLEDGE_BASE_LIMITS.maxNumberOfResults).search('política de trocas', AbortSignal.timeout(5_000));
  const policy = passages.find((passage) => passage.source === 'https://loja.example/politica');
  expect(policy?.text).toHaveLength(KNOWLEDGE_BASE_LIMITS.maxPassageCharacters);
  expect(policy?.text.endsWith('…')).toBe(true);
  expect(passages.every((passage) => passage.text.length <= KNOWLEDGE_BASE_LIMITS.maxPassageCharacters)).toBe(true);
});

it('a query longer than the limit is cut before it is sent', async () => {
  await searchOf(1).search(`frete ${'x'.repeat(3_000)}`, AbortSignal.timeout(5_000));
  expect(fake.received.at(-1)?.query).toHaveLength(KNOWLEDGE_BASE_LIMITS.maxQueryCharacters);
});

describe('the search tool on the Bedrock agent', () => {
  const respond = async (knowledgeBase: BedrockKnowledgeBase | undefined, query: unknown) => {
    const offered: string[][] = [];
    const model = new FakeConverseModel({
      toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: KNOWLEDGE_SEARCH_TOOL, input: { query } } : undefined),
      toolRounds: 0,
      answerAfter: async (input) => void offered.push((input.toolConfig?.tools ?? []).flatMap((tool) => (tool.toolSpec?.name ? [tool.toolSpec.name] : []))),
    });
    const agent = new BedrockConverseAgent({ modelId: 'anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, knowledgeBase });
    const response = await agent.respond({
      systemPrompt: 'Você atende uma loja.',
      history: [{ role: 'customer', text: 'Quanto custa o frete?', at: '2026-12-07T08:00:00.000000Z' }],
      session: { sessionId: 's', customerId: 'c', state: 'QUALIFYING', qualificationData: {} },
      deadline: Date.now() + 10_000,
      maxIterations: 4,
    });
    return { response, offered };
  };

  it('is offered only with a knowledge base; without one a call of it is refused to the model like any unknown tool', async () => {
    const without = await respond(undefined, 'frete');
    expect(without.offered[0]).not.toContain(KNOWLEDGE_SEARCH_TOOL);
    expect(without.response.knowledgeSources).toBeUndefined();
    const withBase = await respond(searchOf(2), 'frete');
    expect(withBase.offered[0]).toContain(KNOWLEDGE_SEARCH_TOOL);
    expect(withBase.response.knowledgeSources).toHaveLength(2);
  });

  it('an invalid query goes back to the model as an error, and nothing is searched', async () => {
    const before = fake.received.length;
    const { response } = await respond(searchOf(2), '');
    expect(fake.received).toHaveLength(before);
    expect(response.knowledgeSources).toBeUndefined();
    expect(response.stopReason).toBe('completed');
  });
});
