// A reply the agent drew from the business's knowledge base, opened in the console: the operator
// reads, under the reply, the documents it drew on (and none under a reply that searched nothing),
// and the screen passes the accessibility scan.
import type { Page } from 'playwright-core';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { BedrockKnowledgeBase } from '../../lambda/core/adapters/agent/bedrock-knowledge-base';
import { KNOWLEDGE_SEARCH_TOOL } from '../../lambda/core/adapters/agent/knowledge-search';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { FakeKnowledgeBase, LOCAL_KNOWLEDGE_BASE_ID } from '../../local/fake-bedrock/fake-knowledge-base';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openConversation } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { permissionCheck, principalIdentity } from '../support/permissions/function-principals';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(120_000);

const PRICES = 's3://docs-padaria/precos.md';
const HOURS = 'https://padaria.example/horarios';

let knowledgeBase: FakeKnowledgeBase;
let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const admin = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  knowledgeBase = await FakeKnowledgeBase.start({
    knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
    documents: [
      { location: PRICES, text: 'Preço do pão de queijo: R$ 2,50 a unidade.' },
      { location: HOURS, text: 'O pão de queijo sai às 7h.' },
    ],
    permissions: permissionCheck(),
  });
  const model = new FakeConverseModel({
    toolCall: (turn, roundsDone) => (roundsDone === 0 && turn.some((text) => text.includes('preço')) ? { name: KNOWLEDGE_SEARCH_TOOL, input: { query: 'preço do pão de queijo' } } : undefined),
    toolRounds: 0,
  });
  const search = new BedrockKnowledgeBase({ knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID, numberOfResults: 5, endpoint: knowledgeBase.endpoint, region: 'us-east-1', credentials: async () => principalIdentity('orchestrator') });
  const agent = new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, knowledgeBase: search });
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin], { agent }), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(customer, 'Bom dia');
  await pipeline.waitForIdle();
  await pipeline.sendCustomerMessage(customer, 'Qual o preço do pão de queijo?');
  await pipeline.waitForIdle();
  page = await openConversation(pipeline, browser, admin, customer);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
  await knowledgeBase?.close();
});

it('shows the documents a reply drew on under that reply only, with no serious accessibility violation', async () => {
  const sources = page.locator('.message-sources');
  await sources.first().waitFor();
  expect(await sources.count()).toBe(1);
  const answer = page.locator('.message-assistant').filter({ has: sources });
  expect(await answer.locator('.message-text').innerText()).toContain('Qual o preço do pão de queijo?');
  expect(await sources.getByText('Fontes consultadas pelo agente').count()).toBe(1);
  expect(await sources.getByRole('listitem').allInnerTexts()).toEqual([PRICES, HOURS]);
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(browser.problems).toEqual([]);
});

it('tells the admin what the conversation cost so far: Meta’s fees, the model’s tokens and AWS', async () => {
  const cost = await page.locator('.conversation-fees').innerText();
  expect(cost).toMatch(/^Custo estimado desta conversa: US\$\s?[\d,]+ \(tarifas da Meta US\$\s?0,00 por 0 mensagem\(ns\) cobrada\(s\), modelo US\$\s?[\d,]+, AWS US\$\s?[\d,]+\)$/);
  const [total, model, aws] = [...cost.matchAll(/US\$\s?(\d+,\d+)/g)].map(([, figure]) => Number(figure.replace(',', '.'))).filter((_, index) => index !== 1);
  expect(model).toBeGreaterThan(0);
  expect(aws).toBeGreaterThan(0);
  expect(total).toBeCloseTo(model + aws, 4);
});
