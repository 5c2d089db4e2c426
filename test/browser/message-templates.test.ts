// Message templates in the console, in headless Chromium against the local pipeline: an admin
// syncs the business's templates from WhatsApp, and an operator re-engages a customer whose 24-hour
// window closed with one of them.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { ConsoleBrowser, openAdminScreen, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { accessibilityViolations } from '../support/accessibility';
import { BUSINESS_TEMPLATES, OFFER_TEMPLATE } from '../support/message-templates';
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
});

it('asks for each value a template takes — the header image, the end of a button’s link, the coupon code — and sends them', async () => {
  pipeline.fakeWhatsApp.setTemplates([...BUSINESS_TEMPLATES, OFFER_TEMPLATE]);
  await pipeline.syncTemplates();
  await page.reload();
  const sender = page.getByRole('form', { name: 'Enviar um modelo aprovado' });
  const choice = sender.getByRole('combobox', { name: 'Modelo' });
  await choice.locator('option', { hasText: 'oferta_cupom (pt_BR)' }).waitFor({ state: 'attached' });
  await choice.selectOption({ label: 'oferta_cupom (pt_BR)' });

  const send = sender.getByRole('button', { name: 'Mandar modelo' });
  const image = sender.getByRole('textbox', { name: 'Imagem do cabeçalho: link https:// ou id de mídia enviada' });
  const suffix = sender.getByRole('textbox', { name: 'Final do link do botão “Ver oferta” (https://loja.example/oferta/{{1}})' });
  const coupon = sender.getByRole('textbox', { name: 'Código do cupom (botão de copiar código)' });
  expect(await suffix.getAttribute('placeholder')).toBe('verao');
  await sender.getByRole('textbox', { name: 'Valor de {{1}}' }).fill('Maria');
  await image.fill('https://loja.example/banner.jpg');
  await suffix.fill('verao');
  // Every value is asked for: without the coupon code the template cannot go.
  expect(await send.isDisabled()).toBe(true);
  await coupon.fill('VERAO25');
  expect(await send.isDisabled()).toBe(false);
  expect(await unnamedControls(page)).toEqual([]);
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'template-send-desktop');
  await send.click();

  await sender.getByRole('status').filter({ hasText: 'Modelo enviado.' }).waitFor();
  const delivered = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1);
  expect(delivered).toMatchObject({
    text: 'Olá Maria, sua oferta chegou!',
    template: {
      name: 'oferta_cupom',
      header: { type: 'image', link: 'https://loja.example/banner.jpg' },
      buttons: [
        { index: 0, subType: 'url', value: 'verao' },
        { index: 1, subType: 'copy_code', value: 'VERAO25' },
      ],
    },
  });
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

it('offers as the notice template only those the pipeline can fill by itself: not one taking two body values, a header image or a coupon code', async () => {
  await openAdminScreen(page, 'Configuração');
  const notice = page.getByRole('region', { name: 'Modelo do aviso aos operadores' }).getByRole('combobox');
  await notice.locator('option', { hasText: 'aviso_atendimento (pt_BR)' }).waitFor({ state: 'attached' });

  expect(await notice.locator('option').allTextContents()).toEqual(['Nenhum escolhido (vale o da implantação)', 'aviso_atendimento (pt_BR)']);
});
