// Buttons in the console, in headless Chromium against the whole local pipeline: the reply buttons
// the agent sent show under its reply as the customer saw them, the customer's tap shows as what
// they chose, and an operator sends reply buttons from the composer — one interactive message that
// reaches the fake Graph API within Meta's limits, shown the same way. The screen passes the
// accessibility scan.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LOCAL_BUSINESS } from '../../local/runtime/meta-notification';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openConversation, unnamedControls } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const ana = newOperatorPhone();
const customer = newCustomer();
const sentTo = () => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(customer, 'Qual coleta? #botoes Sangue | Urina');
  await waitUntil(() => sentTo().length === 1, 20_000, 'the agent’s buttons');
  await pipeline.sendCustomerContent(customer, { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'opcao-2', title: 'Urina' } }, context: { from: LOCAL_BUSINESS.displayPhoneNumber, id: sentTo()[0].providerMessageId } });
  await waitUntil(() => sentTo().length === 2, 20_000, 'the answer to the tap');
  await pipeline.sendCustomerMessage(customer, 'Prefiro falar com alguém #humano');
  await pipeline.waitForIdle();
  page = await openConversation(pipeline, browser, ana, customer);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it("shows the agent's buttons under its reply and the customer's tap, then sends an operator's reply buttons from the composer", async () => {
  const history = page.getByRole('region', { name: 'Histórico' });
  const agentButtons = history.getByRole('list', { name: 'Botões de resposta' });
  await agentButtons.waitFor();
  expect(await agentButtons.getByRole('listitem').allInnerTexts()).toEqual(['Sangue', 'Urina']);
  expect(await history.locator('.message-user .message-text').allInnerTexts()).toContain('Urina');

  await page.getByRole('button', { name: 'Assumir conversa' }).click();
  await page.getByRole('textbox', { name: 'Sua resposta' }).fill('Qual dia fica melhor?');
  await page.getByText('Botões de resposta (opcional)').click();
  await page.getByRole('textbox', { name: 'Botão 1' }).fill('Segunda');
  await page.getByRole('textbox', { name: 'Botão 2' }).fill('Terça');
  expect(await unnamedControls(page)).toEqual([]);
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Enviar', exact: true }).click();

  await waitUntil(() => sentTo().some((message) => message.text === 'Qual dia fica melhor?'), 20_000, 'the operator’s buttons');
  const sent = sentTo().find((message) => message.text === 'Qual dia fica melhor?')!;
  expect(sent.interactive).toEqual({
    type: 'button',
    body: { text: 'Qual dia fica melhor?' },
    action: { buttons: [{ type: 'reply', reply: { id: 'option-1', title: 'Segunda' } }, { type: 'reply', reply: { id: 'option-2', title: 'Terça' } }] },
  });
  const operatorButtons = history.locator('.message-operator').getByRole('list', { name: 'Botões de resposta' });
  await operatorButtons.waitFor();
  expect(await operatorButtons.getByRole('listitem').allInnerTexts()).toEqual(['Segunda', 'Terça']);
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(browser.problems).toEqual([]);
});
