// End to end on the local runtime with the Bedrock adapter on the fake Converse model and a fake
// knowledge base (a real HTTP server on 127.0.0.1 answering Retrieve): the model searches when it
// chooses to, answers from the passages, and the reply is stored with the documents it drew on. The
// searches are signed as the orchestrator and evaluated against its synthesized role.
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { BedrockKnowledgeBase } from '../../lambda/core/adapters/agent/bedrock-knowledge-base';
import { KNOWLEDGE_SEARCH_TOOL } from '../../lambda/core/adapters/agent/knowledge-search';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { FakeKnowledgeBase, LOCAL_KNOWLEDGE_BASE_ID } from '../../local/fake-bedrock/fake-knowledge-base';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { permissionCheck, principalIdentity } from '../support/permissions/function-principals';
import { startTestPipeline } from '../support/pipeline';

const KNOWLEDGE_BASE_ID = LOCAL_KNOWLEDGE_BASE_ID;
const PRICES = 's3://docs-padaria/precos.md';
const HOURS = 'https://padaria.example/horarios';
/** The orchestrator's own credentials: the fake knowledge base asks the permission check about each search. */
const ORCHESTRATOR = async () => principalIdentity('orchestrator');

let pipeline: LocalPipeline | undefined;
let knowledgeBase: FakeKnowledgeBase | undefined;
afterEach(async () => {
  await pipeline?.stop();
  await knowledgeBase?.close();
  pipeline = undefined;
  knowledgeBase = undefined;
});

/** The tool results the model was handed in its requests, by tool-use id. */
function toolResultsIn(requests: readonly ConverseCommandInput[]): unknown[] {
  return requests.flatMap((input) => (input.messages ?? []).flatMap((message) => (message.content ?? []).flatMap((block) => (block.toolResult ? [block.toolResult] : []))));
}

it('a question the documents answer: one search, the passages handed to the model, the reply stored with its sources', async () => {
  knowledgeBase = await FakeKnowledgeBase.start({
    knowledgeBaseId: KNOWLEDGE_BASE_ID,
    documents: [
      { location: PRICES, text: 'Preço do pão de queijo: R$ 2,50 a unidade.', metadata: { audience: 'customers' } },
      { location: HOURS, text: 'Horário: a padaria abre às 6h e o pão de queijo sai às 7h.', metadata: { audience: 'customers' } },
      { location: 's3://docs-padaria/interno.md', text: 'Margem do pão de queijo: interna.', metadata: { audience: 'staff' } },
    ],
    permissions: permissionCheck(),
  });
  const requests: ConverseCommandInput[] = [];
  const model = new FakeConverseModel({
    // The model searches in the turn that asks about prices, and in no other.
    toolCall: (turn, roundsDone) => (roundsDone === 0 && turn.some((text) => text.includes('preço')) ? { name: KNOWLEDGE_SEARCH_TOOL, input: { query: 'preço do pão de queijo' } } : undefined),
    toolRounds: 0,
    answerAfter: async (input) => void requests.push(input),
  });
  const search = new BedrockKnowledgeBase({
    knowledgeBaseId: KNOWLEDGE_BASE_ID,
    numberOfResults: 2,
    filter: { equals: { key: 'audience', value: 'customers' } },
    endpoint: knowledgeBase.endpoint,
    region: 'us-east-1',
    credentials: ORCHESTRATOR,
  });
  const agent = new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, knowledgeBase: search });
  pipeline = await startTestPipeline({ agent });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Bom dia');
  await pipeline.waitForIdle();
  await pipeline.sendCustomerMessage(customer, 'Qual o preço do pão de queijo?');
  await pipeline.waitForIdle();

  // Retrieve was asked once, with the query the model wrote and the deployment's bounds and filter.
  expect(knowledgeBase.received).toEqual([{ query: 'preço do pão de queijo', numberOfResults: 2, filter: { equals: { key: 'audience', value: 'customers' } } }]);
  // The model read the customers' passages, best first, and never the staff one.
  expect(toolResultsIn(requests)).toEqual([
    expect.objectContaining({ content: [{ json: { passages: [{ text: expect.stringContaining('R$ 2,50'), source: PRICES }, { text: expect.stringContaining('abre às 6h'), source: HOURS }] } }] }),
  ]);
  const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  expect(replies).toHaveLength(2);
  const { history } = await pipeline.conversation(customer);
  const [greeting, answer] = history.filter((message) => message.role === 'assistant');
  // The first turn searched nothing: its reply names no source.
  expect(greeting.knowledgeSources).toBeUndefined();
  // The fake model's reply quotes the passages it read.
  expect(answer).toMatchObject({ text: expect.stringMatching(/^Olá! Recebi: Qual o preço do pão de queijo\? \| resultado: .*R\$ 2,50/), deliveryStatus: 'sent', knowledgeSources: [PRICES, HOURS] });
});

it('a knowledge base that fails: the model is told, and the customer still gets an answer with no sources', async () => {
  knowledgeBase = await FakeKnowledgeBase.start({ knowledgeBaseId: 'KBOTHER001', documents: [{ location: PRICES, text: 'Preço: R$ 2,50.' }], permissions: permissionCheck() });
  const requests: ConverseCommandInput[] = [];
  const model = new FakeConverseModel({ toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: KNOWLEDGE_SEARCH_TOOL, input: { query: 'preço' } } : undefined), toolRounds: 0, answerAfter: async (input) => void requests.push(input) });
  // Asked by another id, the fake answers ResourceNotFoundException, as Retrieve does.
  const search = new BedrockKnowledgeBase({ knowledgeBaseId: KNOWLEDGE_BASE_ID, numberOfResults: 5, endpoint: knowledgeBase.endpoint, region: 'us-east-1', credentials: ORCHESTRATOR });
  pipeline = await startTestPipeline({ agent: new BedrockConverseAgent({ modelId: 'anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, knowledgeBase: search }) });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Qual o preço?');
  await pipeline.waitForIdle();

  expect(toolResultsIn(requests)).toEqual([expect.objectContaining({ status: 'error', content: [{ text: expect.stringContaining('could not be searched') }] })]);
  const { history } = await pipeline.conversation(customer);
  const answer = history.find((message) => message.role === 'assistant');
  expect(answer).toMatchObject({ text: 'Olá! Recebi: Qual o preço?', deliveryStatus: 'sent' });
  expect(answer?.knowledgeSources).toBeUndefined();
});
