// The admins a deployment names (adminDisplayNames) in headless Chromium against the whole local
// pipeline: the Operators screen lists the deploy-time admin by her name, and her reply carries it.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openAdminScreen, signInFromWhatsApp } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const ana = newOperatorPhone();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana], { adminDisplayNames: { [ana]: 'Ana Lima' } }), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(newCustomer(), 'Quero marcar um exame #dado nome=Maria Souza #humano');
  await pipeline.waitForIdle();
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, ana);
  await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('lists the deploy-time admin by the name the deployment gives her, with her phone', async () => {
  await openAdminScreen(page, 'Operadores');
  const deployment = page.getByRole('region', { name: 'Administradores da implantação' });
  await deployment.getByText(ana, { exact: false }).waitFor();
  expect(await deployment.textContent()).toContain('Ana Lima');
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('names her as the author of her reply', async () => {
  await page.getByRole('link', { name: 'Caixa de entrada' }).click();
  await page.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
  await page.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  await page.keyboard.press('c');
  await page.getByRole('status').filter({ hasText: 'Conversa assumida' }).waitFor();
  await page.getByRole('textbox', { name: 'Sua resposta' }).fill('Oi, aqui é a Ana.');
  await page.keyboard.press('Control+Enter');
  const reply = page.getByRole('region', { name: 'Histórico' }).getByRole('listitem').filter({ hasText: 'Oi, aqui é a Ana.' });
  await reply.waitFor();
  expect(await reply.textContent()).toContain('Ana Lima');
});

it('ran without a CSP refusal or a script error', () => {
  expect(browser.problems).toEqual([]);
});
