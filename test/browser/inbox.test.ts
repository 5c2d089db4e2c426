// The inbox in headless Chromium against the whole local pipeline: rows that say who and what,
// the tabs, search, pages past the first hundred, and the availability switch after a reload and in
// a new tab — found on the page by role and accessible name.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { waitingSession } from '../../local/runtime/waiting-session';
import { ConsoleBrowser, signInFromWhatsApp, unnamedControls } from '../support/console-browser';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { type ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let api: ConsoleClient;
let page: Page;
const admin = newOperatorPhone();
const maria = newCustomer();
/** Conversations waiting after Maria's: with hers, more than one page of 100. */
const QUEUED = 101;

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(maria, 'Quero marcar um exame de sangue para amanhã cedo, antes do trabalho, se possível com jejum de doze horas e resultado rápido #dado nome=Maria Souza #humano', { profileName: 'Mari ☀️' });
  await pipeline.waitForIdle();
  const repositories = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  const start = Date.now() + 1000;
  for (let index = 0; index < QUEUED; index++) {
    const session = waitingSession({ sessionId: `queued-${index}`, customerId: newCustomer(), at: new Date(start + index), profileName: `Fila ${String(index).padStart(3, '0')}` });
    await repositories.sessions.put(session);
  }
  api = await signInOverWhatsApp(pipeline, admin);
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, admin);
  await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

const rows = () => page.getByRole('tabpanel').getByRole('listitem');
/** The link that opens a conversation holds the name alone; the row around it says the rest. */
const linkTo = (name: string) => page.getByRole('link', { name: `Abrir conversa com ${name}` });
const rowOf = (name: string) => rows().filter({ has: linkTo(name) });

it('says who and what on a row: the profile name, the name the agent learned and the phone, why, what the customer said last, and since when', async () => {
  const row = rowOf('Mari ☀️');
  await row.waitFor();
  const text = (await row.textContent()) ?? '';
  // The customer's own WhatsApp name first, then what the agent learned (issue #29).
  expect(text).toContain(`Maria Souza · ${maria}`);
  expect(text).toContain('Motivo: O cliente pediu atendimento humano (#humano)');
  // The customer's own message with its author, cut on a word boundary — not the pipeline's "nobody is available".
  expect(text).toContain('Mari ☀️: Quero marcar um exame de sangue para amanhã cedo, antes do trabalho, se possível com jejum de doze horas e resultado…');
  expect(text).not.toContain('No momento');
  expect(text).toMatch(/aguardando há (menos de 1 min|\d+ min)/);
  expect(text).not.toContain('há 0 min');
  expect(text).toMatch(/última atividade (agora|há \d+ min)/);
  expect(await unnamedControls(page)).toEqual([]);
});

it('pages past the first hundred with the API’s cursor', async () => {
  await page.getByRole('tab', { name: 'Aguardando pessoa (100+)' }).waitFor();
  expect(await rows().count()).toBe(100);
  await page.getByRole('button', { name: 'Carregar mais conversas' }).click();
  await linkTo(`Fila ${String(QUEUED - 1).padStart(3, '0')}`).waitFor();
  expect(await rows().count()).toBe(QUEUED + 1);
  expect(await page.getByRole('button', { name: 'Carregar mais conversas' }).count()).toBe(0);
});

it('searches by a part of the name, without accents or case, and by the first digits of the phone', async () => {
  const search = page.getByRole('searchbox', { name: 'Buscar por nome ou telefone' });
  await search.fill('SOUZA');
  await search.press('Enter');
  await linkTo('Mari ☀️').waitFor();
  await waitUntil(async () => (await rows().count()) === 1, 10_000, 'only the row the search finds');
  await search.fill(maria.slice(0, 9));
  await page.getByRole('button', { name: 'Buscar', exact: true }).click();
  await linkTo('Mari ☀️').waitFor();
  await search.fill('ninguém com esse nome');
  await search.press('Enter');
  await page.getByText('Nenhuma conversa encontrada para “ninguém com esse nome”.').waitFor();
  await page.getByRole('button', { name: 'Limpar busca' }).click();
  await page.getByRole('tab', { name: 'Aguardando pessoa (100+)' }).waitFor();
});

it('moves a conversation between the tabs as it is claimed and closed', async () => {
  expect((await api.call('POST', `/api/conversations/${maria}/claim`)).status).toBe(200);
  // The next poll sees the change: the inbox's version rose.
  await page.getByRole('tab', { name: 'Minhas (1)' }).click();
  await rowOf('Mari ☀️').waitFor();
  expect(await rowOf('Mari ☀️').textContent()).toContain(`com ${admin}`);

  expect((await api.call('POST', `/api/conversations/${maria}/close`)).status).toBe(200);
  await page.getByText('Você não está atendendo nenhuma conversa.').waitFor();
  await page.getByRole('tab', { name: 'Encerradas' }).click();
  const closed = rowOf('Mari ☀️');
  await closed.waitFor();
  expect(await closed.textContent()).toContain('Encerrada');
  await page.getByRole('tab', { name: /^Todas abertas/ }).click();
  await linkTo('Fila 000').waitFor();
  expect(await linkTo('Mari ☀️').count()).toBe(0);
});

it('polls with conditional requests: an unchanged inbox is answered 304', async () => {
  const answers: number[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/api/conversations?')) answers.push(response.status());
  });
  await page.waitForTimeout(9_000);
  expect(answers.length).toBeGreaterThan(0);
  expect(answers.filter((status) => status === 304).length).toBeGreaterThan(0);
  expect(answers.every((status) => status === 200 || status === 304)).toBe(true);
});

it('shows the availability the server holds after a reload and in a new tab', async () => {
  const availability = (on: Page) => on.getByRole('switch', { name: 'Disponível para atendimento' });
  await availability(page).click();
  await waitUntil(async () => (await availability(page).getAttribute('aria-checked')) === 'true', 5000, 'availability on');
  await page.reload();
  await availability(page).waitFor();
  expect(await availability(page).getAttribute('aria-checked')).toBe('true');
  const newTab = await page.context().newPage();
  await newTab.goto(pipeline.consoleUrl!);
  await availability(newTab).waitFor();
  expect(await availability(newTab).getAttribute('aria-checked')).toBe('true');
  await availability(newTab).click();
  await waitUntil(async () => (await availability(newTab).getAttribute('aria-checked')) === 'false', 5000, 'availability off');
  await page.reload();
  await availability(page).waitFor();
  expect(await availability(page).getAttribute('aria-checked')).toBe('false');
  await newTab.close();
});

it('stops polling while the tab is hidden, the inbox and the look for new handoffs alike, and asks at once when it is shown', async () => {
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/conversations?')) asked.push(new URL(request.url()).searchParams.get('state') ?? '');
  });
  // The page's own getters say visible: a hidden tab is played by shadowing them.
  const setHidden = (hidden: boolean) =>
    page.evaluate(
      hidden
        ? `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
           Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
           document.dispatchEvent(new Event('visibilitychange'))`
        : `delete document.visibilityState; delete document.hidden; document.dispatchEvent(new Event('visibilitychange'))`,
    );

  await setHidden(true);
  await page.waitForTimeout(1_000); // a request already on its way when the tab was hidden
  asked.length = 0;
  // Longer than the look for new handoffs waits between two lists (15 s), the inbox's (4 s) many times over.
  await page.waitForTimeout(16_000);
  expect(asked).toEqual([]);

  await setHidden(false);
  await waitUntil(async () => asked.filter((state) => state === 'AWAITING_HUMAN').length >= 2 && asked.includes('HUMAN_ACTIVE'), 2_000, 'the inbox and the look for new handoffs ask at once');
});

it('ran without a CSP refusal or a script error', () => {
  expect(browser.problems).toEqual([]);
});
