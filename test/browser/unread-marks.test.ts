// Unread marks in headless Chromium against the whole local pipeline: a row is unread for an
// operator while the customer wrote since that operator last opened the conversation; opening it
// clears the mark for them alone. Two operators, each in a browser of their own.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { POLL_INTERVAL_MS } from '../../console/src/polling';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, signInFromWhatsApp } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(150_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let ana: Page;
let bruno: Page;
const anaPhone = newOperatorPhone();
const brunoPhone = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([anaPhone, brunoPhone]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(customer, 'Quero marcar um exame #dado nome=Maria Souza #humano');
  await pipeline.waitForIdle();
  [ana, bruno] = await Promise.all([browser.openPage(), browser.openPage()]);
  await signInFromWhatsApp(pipeline, ana, anaPhone);
  await signInFromWhatsApp(pipeline, bruno, brunoPhone);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

const rowOf = (page: Page) => page.getByRole('tabpanel').getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Abrir conversa com Maria Souza' }) });
const isUnread = async (page: Page) => ((await rowOf(page).textContent()) ?? '').includes('Não lida');
const waitingTab = (page: Page) => page.getByRole('tab', { name: /^Aguardando pessoa/ });

it('marks a conversation the customer wrote to unread, in words, and counts it on the tab', async () => {
  for (const page of [ana, bruno]) {
    await rowOf(page).waitFor();
    expect(await isUnread(page)).toBe(true);
    expect(await waitingTab(page).textContent()).toBe('Aguardando pessoa (1) · não lidas: 1');
  }
  expect(await accessibilityViolations(ana)).toEqual([]);
});

it('clears the mark for the operator who opens the conversation, and only for them', async () => {
  await ana.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
  await ana.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  await ana.goBack();
  await rowOf(ana).waitFor();
  // The list's ETag turned for Ana at once: her mark changed.
  await waitUntil(async () => !(await isUnread(ana)), 10_000, 'the row read for Ana');
  expect(await waitingTab(ana).textContent()).toBe('Aguardando pessoa (1)');

  // Bruno's inbox polls on (every 4 s) and still shows it unread.
  await bruno.waitForTimeout(5_000);
  expect(await isUnread(bruno)).toBe(true);
  expect(await waitingTab(bruno).textContent()).toBe('Aguardando pessoa (1) · não lidas: 1');
});

it('marks it unread again for that operator when the customer writes again', async () => {
  await pipeline.sendCustomerMessage(customer, 'Ainda estou aguardando');
  // A message to the human inbox raises the inbox's version: the row changes at the next poll.
  await waitUntil(async () => isUnread(ana), 2 * POLL_INTERVAL_MS + 1_500, 'the row unread for Ana again');
  expect(await rowOf(ana).textContent()).toContain('Maria Souza: Ainda estou aguardando');
  expect(await isUnread(bruno)).toBe(true);
});

it('ran without a CSP refusal or a script error', () => {
  expect(browser.problems).toEqual([]);
});
