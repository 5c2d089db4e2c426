// Message templates in the console, in headless Chromium against the local pipeline: an admin
// syncs the business's templates from WhatsApp, and an operator re-engages a customer whose 24-hour
// window closed with one of them.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { ConsoleBrowser, openAdminScreen, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES } from '../support/message-templates';
import { startOperatorPipeline } from '../support/pipeline';
import { backdateCustomerMessages } from '../support/service-window';
import { waitUntil } from '../support/waiting';

jest.setTimeout(90_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const ana = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana]), ConsoleBrowser.launch()]);
  pipeline.fakeWhatsApp.setTemplates(BUSINESS_TEMPLATES);
  // A customer handed to a person who last wrote 25 hours ago: free text would not reach her.
  await pipeline.sendCustomerMessage(customer, 'Quero marcar um exame #dado nome=Maria Souza #humano');
  await pipeline.waitForIdle();
  const repositories = tableRepositories(pipeline.tableName);
  await backdateCustomerMessages(repositories, customer);
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, ana);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('an admin syncs the templates from WhatsApp and sees each with its status, text and buttons', async () => {
  await openAdminScreen(page, 'Modelos');
  await page.getByText('Nenhum modelo ainda: sincronize com o WhatsApp.').waitFor();
  await page.getByRole('button', { name: 'Sincronizar com o WhatsApp' }).click();
  await page.getByRole('status').filter({ hasText: 'Sincronizado: 4 modelo(s), 0 removido(s).' }).waitFor();

  const table = page.getByRole('region', { name: 'Modelos de mensagem do WhatsApp' });
  const row = table.getByRole('row').filter({ hasText: 'retomar_conversa' }).filter({ hasText: 'pt_BR' });
  expect(await row.textContent()).toContain('Olá {{1}}, ainda podemos ajudar com {{2}}?');
  expect(await row.textContent()).toContain('Continuar, PARAR');
  await table.getByRole('row').filter({ hasText: 'promocao_verao' }).getByText('PAUSED').waitFor();
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'templates-desktop');
});

it('an operator re-engages the customer with a template after the window closed; the customer receives it', async () => {
  await page.getByRole('link', { name: 'Caixa de entrada' }).click();
  await page.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
  await page.getByRole('button', { name: 'Assumir conversa' }).click();
  await page.getByText(/^Janela de 24 h fechada/).waitFor();

  const sender = page.getByRole('form', { name: 'Enviar um modelo aprovado' });
  const choice = sender.getByRole('combobox', { name: 'Modelo' });
  await choice.locator('option', { hasText: 'retomar_conversa (pt_BR)' }).waitFor({ state: 'attached' });
  // A paused template is not offered.
  expect(await choice.locator('option').allTextContents()).toEqual(['Escolha um modelo', 'aviso_atendimento (pt_BR)', 'retomar_conversa (en_US)', 'retomar_conversa (pt_BR)']);
  await choice.selectOption({ label: 'retomar_conversa (pt_BR)' });
  const send = sender.getByRole('button', { name: 'Mandar modelo' });
  expect(await send.isDisabled()).toBe(true);
  await sender.getByRole('textbox', { name: 'Valor de {{1}}' }).fill('Maria');
  await sender.getByRole('textbox', { name: 'Valor de {{2}}' }).fill('o seu exame');
  const text = 'Olá Maria, ainda podemos ajudar com o seu exame? Responda esta mensagem para continuar.';
  expect(await sender.getByText('O cliente vai ler:').textContent()).toContain(text);
  expect(await unnamedControls(page)).toEqual([]);
  await send.click();

  await sender.getByRole('status').filter({ hasText: 'Modelo enviado.' }).waitFor();
  await page.getByRole('region', { name: 'Histórico' }).getByRole('listitem').filter({ hasText: text }).waitFor();
  await waitUntil(() => pipeline.fakeWhatsApp.sent().some((message) => message.recipient === customer && message.template?.name === 'retomar_conversa'), 5000, 'the template at the fake WhatsApp API');
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)?.text).toBe(text);
  await screenshot(page, 'template-send-desktop');
});

it('shows WhatsApp refusing the template with the reason, and nothing in the history', async () => {
  const sender = page.getByRole('form', { name: 'Enviar um modelo aprovado' });
  await sender.getByRole('combobox', { name: 'Modelo' }).selectOption({ label: 'aviso_atendimento (pt_BR)' });
  await sender.getByRole('textbox', { name: 'Valor de {{cliente}}' }).fill('Maria');
  pipeline.fakeWhatsApp.failNext(1, { httpStatus: 400, code: 132001, message: '(#132001) Template name does not exist in the translation' });
  await sender.getByRole('button', { name: 'Mandar modelo' }).click();
  const alert = sender.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toContain('O WhatsApp não aceitou a mensagem');
  expect(await page.getByRole('region', { name: 'Histórico' }).getByText('Novo atendimento aguardando').count()).toBe(0);
});
