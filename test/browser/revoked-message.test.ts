// A conversation in which the customer deleted a message, opened in the console: the bubble says the
// customer deleted it, never what it said, and the screen passes the accessibility scan.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openConversation } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const admin = newOperatorPhone();
const customer = newCustomer();
const WITHDRAWN_WORDS = 'Meu CPF é 123.456.789-00';

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin]), ConsoleBrowser.launch()]);
  const original = await pipeline.sendCustomerMessage(customer, WITHDRAWN_WORDS);
  await pipeline.waitForIdle();
  await pipeline.sendCustomerContent(customer, { type: 'revoke', revoke: { original_message_id: original.messageId } });
  await pipeline.waitForIdle();
  page = await openConversation(pipeline, browser, admin, customer);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('shows the deleted message as deleted by the customer, without its words, with no serious accessibility violation', async () => {
  await page.getByText('Mensagem apagada pelo cliente').waitFor();
  // The scripted agent's reply quotes them; the customer's own bubble does not.
  expect(await page.locator('.message-user').allInnerTexts()).toEqual([expect.not.stringContaining(WITHDRAWN_WORDS)]);
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(browser.problems).toEqual([]);
});
