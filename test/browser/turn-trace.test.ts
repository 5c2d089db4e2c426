// An admin reads what the agent did for a reply: the checks the turn made, each model call and the
// business's tool call, with no customer text in it; the screen passes the accessibility scan.
import type { Page } from 'playwright-core';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openConversation, screenshot } from '../support/console-browser';
import { CREATE_ORDER_TOOL, FakeOrderService } from '../support/fake-order-service';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const admin = newOperatorPhone();
const customer = newCustomer();
const ASKED = 'Quero fazer um pedido de 2 pães';

beforeAll(async () => {
  const orders = new FakeOrderService();
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: CREATE_ORDER_TOOL.name, input: { sku: 'pao-frances', quantity: 2 } } : undefined) });
  [pipeline, browser] = await Promise.all([
    startOperatorPipeline([admin], { bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } }),
    ConsoleBrowser.launch(),
  ]);
  await pipeline.sendCustomerMessage(customer, ASKED);
  await pipeline.waitForIdle();
  page = await openConversation(pipeline, browser, admin, customer);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it("shows an admin the turn's checks, its two model calls and the tool call, without customer text", async () => {
  await page.getByText('O que o agente fez').click();
  const trace = page.locator('.turn-trace');
  await trace.getByText('create_order · ok').waitFor();
  const text = await trace.innerText();
  expect(text).toContain('latest: passed');
  expect(text).toContain('budget: passed');
  expect(text).toContain('com efeitos');
  expect(await trace.locator('ol').first().locator('li').count()).toBe(2);
  expect(text).toMatch(/tool_use[\s\S]*end_turn/);
  expect(text).not.toContain('pães');
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(browser.problems).toEqual([]);
  await screenshot(page, 'turn-trace-desktop');
});
