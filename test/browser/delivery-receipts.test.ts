// Delivery receipts in the operator console, in headless Chromium against the whole local
// pipeline: WhatsApp reports a reply sent, delivered and read, then failed, and the bubble says so;
// the operator's own replies get their ticks too.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { ConsoleBrowser, screenshot, signInFromWhatsApp } from '../support/console-browser';

jest.setTimeout(90_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const ana = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(customer, 'Quero marcar um exame #dado nome=Maria Souza #humano');
  await pipeline.waitForIdle();
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, ana);
  await page.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

/** The agent's reply to the customer, as WhatsApp took it, and its bubble in the history. */
function agentReply() {
  const sent = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  const reply = sent[0];
  const bubble = page.getByRole('region', { name: 'Histórico' }).getByRole('listitem').filter({ hasText: reply.text.slice(0, 30) });
  return { reply, bubble };
}

it('shows the agent’s reply going sent → delivered → read as WhatsApp reports it', async () => {
  const { reply, bubble } = agentReply();
  await bubble.getByText('Enviada').waitFor();
  for (const [status, shown] of [['delivered', 'Entregue'], ['read', 'Lida']] as const) {
    await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status);
    await bubble.getByText(shown).waitFor({ timeout: 15_000 });
  }
  expect(await bubble.locator('[data-receipt="read"]').count()).toBe(1);
  expect(pipeline.fakeWhatsApp.sent().find((message) => message.providerMessageId === reply.providerMessageId)?.status).toBe('read');
  await screenshot(page, 'receipts-read-desktop');
});

it('shows a failure on the bubble in words: a closed window needs a template', async () => {
  const { reply, bubble } = agentReply();
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'failed', { errorCode: 131047 });
  const failure = bubble.getByRole('alert');
  await failure.waitFor({ timeout: 15_000 });
  expect(await failure.textContent()).toBe(' · Não entregue: a janela de 24 h fechou — só um modelo aprovado chega ao cliente agora (131047)');
});

it('shows the ticks of the operator’s own reply, and its failure', async () => {
  await page.getByRole('button', { name: 'Assumir conversa' }).click();
  await page.getByRole('textbox', { name: 'Sua resposta' }).fill('Olá Maria, sou a Ana.');
  await page.getByRole('button', { name: 'Enviar' }).click();
  const history = page.getByRole('region', { name: 'Histórico' });
  const bubble = history.getByRole('listitem').filter({ hasText: 'Olá Maria, sou a Ana.' });
  await bubble.getByText('Enviada').waitFor({ timeout: 15_000 });
  const reply = pipeline.fakeWhatsApp.sent().find((message) => message.text === 'Olá Maria, sou a Ana.')!;
  for (const [status, shown] of [['delivered', 'Entregue'], ['read', 'Lida']] as const) {
    await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status);
    await bubble.getByText(shown).waitFor({ timeout: 15_000 });
  }

  await page.getByRole('textbox', { name: 'Sua resposta' }).fill('Conseguiu ver?');
  await page.getByRole('button', { name: 'Enviar' }).click();
  const second = history.getByRole('listitem').filter({ hasText: 'Conseguiu ver?' });
  await second.getByText('Enviada').waitFor({ timeout: 15_000 });
  const failed = pipeline.fakeWhatsApp.sent().find((message) => message.text === 'Conseguiu ver?')!;
  await pipeline.fakeWhatsApp.reportStatus(failed.providerMessageId, 'failed', { errorCode: 131026 });
  await second.getByRole('alert').waitFor({ timeout: 15_000 });
  expect(await bubble.locator('[data-receipt="read"]').count()).toBe(1);
});

it('shows an admin what Meta charged for each message, free or billed at the rate of the customer’s market, and the conversation’s total', async () => {
  const history = page.getByRole('region', { name: 'Histórico' });
  // The reply read above: a free-form reply Meta priced as free customer service.
  const freeReply = history.getByRole('listitem').filter({ hasText: 'Olá Maria, sou a Ana.' });
  await freeReply.getByText('sem tarifa da Meta (service)').waitFor({ timeout: 15_000 });

  await page.getByRole('textbox', { name: 'Sua resposta' }).fill('Segue o orçamento.');
  await page.getByRole('button', { name: 'Enviar' }).click();
  const billed = history.getByRole('listitem').filter({ hasText: 'Segue o orçamento.' });
  await billed.getByText('Enviada').waitFor({ timeout: 15_000 });
  const reply = pipeline.fakeWhatsApp.sent().find((message) => message.text === 'Segue o orçamento.')!;
  // Meta bills a service message at the market's rate since October 2026 (a Brazilian number: US$ 0.0068 in the rate table).
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'delivered', { pricing: { billable: true, pricing_model: 'PMP', category: 'service', type: 'regular' } });
  await billed.getByText(/^ · Tarifa da Meta US\$\s0,0068 \(service\)$/).waitFor({ timeout: 15_000 });
  await page.getByText(/^Custo estimado desta conversa: US\$\s[\d,]+ \(tarifas da Meta US\$\s0,0068 por 1 mensagem\(ns\) cobrada\(s\), modelo US\$\s[\d,]+, AWS US\$\s[\d,]+\)$/).waitFor({ timeout: 15_000 });
});
