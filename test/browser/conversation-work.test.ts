// The conversation an operator works in, in headless Chromium against the whole local pipeline:
// quick replies an admin prepares and an operator inserts with `/`, private notes, taking over
// from the agent, closing with a confirmation, where focus goes, the keyboard shortcuts and the
// phone layout — found on the page by role and accessible name.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';
import { ConsoleBrowser, openAdminScreen, PHONE, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const ana = newOperatorPhone();
const handedOff = newCustomer();
const servedByTheAgent = newCustomer();

const sentTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);
const focusedName = () => page.evaluate<string>("document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''");

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(handedOff, 'Quero marcar um exame #dado nome=Maria Souza #humano');
  await pipeline.sendCustomerMessage(servedByTheAgent, 'Oi #dado nome=João Lima');
  await pipeline.waitForIdle();
  page = await browser.openPage();
  await signInFromWhatsApp(pipeline, page, ana);
  await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('lets an admin write a quick reply and remove one after confirming', async () => {
  await openAdminScreen(page, 'Respostas rápidas');
  await page.getByRole('heading', { name: 'Respostas rápidas' }).waitFor();
  for (const [id, title, text] of [
    ['saudacao', 'Saudação', 'Olá {name}, aqui é a equipe. Como posso ajudar?'],
    ['horario', 'Horário', 'Atendemos das 8h às 18h.'],
  ]) {
    await page.getByRole('textbox', { name: 'Atalho (depois da /)' }).fill(id);
    await page.getByRole('textbox', { name: 'Título' }).fill(title);
    await page.getByRole('textbox', { name: 'Texto' }).fill(text);
    await page.getByRole('button', { name: 'Salvar resposta rápida' }).click();
    await page.getByRole('button', { name: `Editar ${id}` }).waitFor();
  }
  await page.getByRole('button', { name: 'Remover horario' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remover a resposta rápida /horario?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Remover horario' }).click();
  await page.getByRole('button', { name: 'Editar horario' }).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Editar saudacao' }).waitFor();
  expect(await unnamedControls(page)).toEqual([]);
});

it('claims by keyboard shortcut; focus goes to the reply box, where / inserts a quick reply with the name and Ctrl+Enter sends', async () => {
  await page.getByRole('link', { name: 'Caixa de entrada' }).click();
  await page.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
  await page.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  expect(await page.getByRole('region', { name: 'Histórico' }).getByRole('listitem').first().textContent()).toMatch(/^Cliente · Maria Souza/);
  expect(await page.locator('.handoff-reason').textContent()).toBe('Motivo do encaminhamento: O cliente pediu atendimento humano (#humano)');

  await page.getByRole('button', { name: 'Atalhos de teclado (?)' }).waitFor();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Atalhos de teclado' });
  expect(await help.textContent()).toContain('Assumir conversa');
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });

  await page.keyboard.press('c');
  await page.getByRole('status').filter({ hasText: 'Conversa assumida' }).waitFor();
  const reply = page.getByRole('textbox', { name: 'Sua resposta' });
  await waitUntil(async () => (await focusedName()) === 'Sua resposta', 5000, 'focus in the reply box after claiming');

  await page.keyboard.type('/sau');
  const options = page.getByRole('listbox', { name: 'Respostas rápidas' });
  await options.getByRole('option', { name: /saudacao/ }).waitFor();
  expect(await options.getByRole('option', { name: /saudacao/ }).getAttribute('aria-selected')).toBe('true');
  await page.keyboard.press('Enter');
  expect(await reply.inputValue()).toBe('Olá Maria Souza, aqui é a equipe. Como posso ajudar?');
  await options.waitFor({ state: 'hidden' });

  await page.keyboard.press('Control+Enter');
  await page.getByRole('region', { name: 'Histórico' }).getByRole('listitem').filter({ hasText: 'aqui é a equipe' }).filter({ hasText: 'Enviada' }).waitFor();
  await waitUntil(() => sentTo(handedOff).includes('Olá Maria Souza, aqui é a equipe. Como posso ajudar?'), 5000, 'the reply at the fake WhatsApp API');
  expect(await focusedName()).toBe('Sua resposta');
  expect(await reply.inputValue()).toBe('');
});

it('keeps a private note for the team that the customer never receives', async () => {
  const before = sentTo(handedOff).length;
  await page.keyboard.press('Escape');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('n');
  await waitUntil(async () => (await focusedName()) === 'Nova nota', 5000, 'focus in the note box');
  await page.keyboard.type('Prefere ser chamada à tarde.');
  await page.getByRole('button', { name: 'Adicionar nota' }).click();
  const notes = page.getByRole('region', { name: 'Notas internas' });
  await notes.getByText('Prefere ser chamada à tarde.').waitFor();
  await page.getByRole('status').filter({ hasText: 'Nota adicionada.' }).waitFor();
  await sleep(300);
  expect(sentTo(handedOff)).toHaveLength(before);
  expect(await page.getByRole('region', { name: 'Histórico' }).textContent()).not.toContain('Prefere ser chamada');
});

it('closes only after confirming, goes back to the inbox, and shows the closed conversation read only', async () => {
  await page.getByRole('button', { name: 'Encerrar conversa' }).click();
  const dialog = page.getByRole('dialog', { name: 'Encerrar esta conversa?' });
  await dialog.waitFor();
  await waitUntil(async () => (await focusedName()) === 'Cancelar', 5000, 'focus on the safe choice');
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await dialog.waitFor({ state: 'hidden' });
  expect((await pipeline.conversation(handedOff)).session?.state).toBe('HUMAN_ACTIVE');

  await page.getByRole('button', { name: 'Encerrar conversa' }).click();
  await dialog.getByRole('button', { name: 'Encerrar' }).click();
  await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  expect((await pipeline.conversation(handedOff)).session?.state).toBe('CLOSED');

  await page.goto(`${pipeline.consoleUrl}/#/conversations/${handedOff}`);
  await page.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  await page.getByText(/^Conversa encerrada: só leitura/).waitFor();
  await page.getByText('Conversa encerrada: nada mais é enviado por aqui.').waitFor();
  expect(await page.getByRole('textbox', { name: 'Sua resposta' }).count()).toBe(0);
  // The notes load after the conversation they belong to.
  await page.getByRole('region', { name: 'Notas internas' }).getByText('Prefere ser chamada à tarde.').waitFor();
});

it('takes over a conversation the agent is serving; the reply box takes the focus', async () => {
  await page.goto(`${pipeline.consoleUrl}/#/conversations/${servedByTheAgent}`);
  await page.getByRole('heading', { name: 'João Lima' }).waitFor();
  await page.getByText('O agente está atendendo esta conversa.').waitFor();
  await page.getByRole('button', { name: 'Assumir do agente' }).click();
  await page.getByRole('status').filter({ hasText: 'Você assumiu a conversa do agente' }).waitFor();
  await waitUntil(async () => (await focusedName()) === 'Sua resposta', 5000, 'focus in the reply box after taking over');
  expect((await pipeline.conversation(servedByTheAgent)).session).toMatchObject({ state: 'HUMAN_ACTIVE', assignedTo: ana });
  await screenshot(page, 'conversation-taken-over-desktop');
});

it('keeps the reply box in reach on a phone, every control named', async () => {
  const phone = await browser.openPage(PHONE);
  await signInFromWhatsApp(pipeline, phone, ana);
  await phone.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  await phone.goto(`${pipeline.consoleUrl}/#/conversations/${servedByTheAgent}`);
  const reply = phone.getByRole('textbox', { name: 'Sua resposta' });
  await reply.waitFor();
  // A string: the expression runs in the page, where the DOM is.
  expect(await phone.evaluate<string>("getComputedStyle(document.querySelector('form.reply')).position")).toBe('sticky');
  // Reading the history, the reply box stays at the bottom of the screen.
  await phone.getByRole('region', { name: 'Histórico' }).getByRole('listitem').first().scrollIntoViewIfNeeded();
  await phone.evaluate('window.scrollBy(0, 200)');
  const box = await reply.boundingBox();
  expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
  expect(await unnamedControls(phone)).toEqual([]);
  await screenshot(phone, 'conversation-reply-phone');
});

it('raises a notification and a tone for a new handoff once opted in, remembered, and counts the waiting in the tab title', async () => {
  const watcher = await browser.openPage();
  // A headless page cannot be granted the permission: the Notification and audio APIs are stubbed
  // in the page, recording what the console asks of them.
  // A string: the script runs in the page, where the DOM is.
  await watcher.addInitScript(`
    window.notifications = [];
    window.tones = 0;
    class RecordedNotification {
      static permission = 'default';
      static async requestPermission() {
        RecordedNotification.permission = 'granted';
        return 'granted';
      }
      constructor(title, options) {
        window.notifications.push({ title, body: options?.body });
      }
    }
    Object.defineProperty(window, 'Notification', { value: RecordedNotification, configurable: true });
    class RecordedAudio {
      currentTime = 0;
      destination = {};
      createGain() {
        return { gain: { value: 0 }, connect: (next) => next };
      }
      createOscillator() {
        return { frequency: { value: 0 }, connect: (next) => next, start: () => undefined, stop: () => (window.tones += 1) };
      }
    }
    Object.defineProperty(window, 'AudioContext', { value: RecordedAudio, configurable: true });
  `);
  await signInFromWhatsApp(pipeline, watcher, ana);
  await watcher.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  const notify = watcher.getByRole('switch', { name: 'Avisos no navegador' });
  const sound = watcher.getByRole('switch', { name: 'Som de aviso' });
  expect(await notify.getAttribute('aria-checked')).toBe('false');
  await notify.click();
  await sound.click();
  await waitUntil(async () => (await notify.getAttribute('aria-checked')) === 'true', 5000, 'notifications on');
  await waitUntil(async () => (await watcher.evaluate<number>('window.tones')) > 0, 5000, 'the tone played as the sound is switched on');
  const tonesBefore = await watcher.evaluate<number>('window.tones');

  const newcomer = newCustomer();
  await pipeline.sendCustomerMessage(newcomer, 'Preciso de uma pessoa #dado nome=Carla Dias #humano');
  await waitUntil(async () => (await watcher.evaluate<unknown[]>('window.notifications')).length > 0, 30_000, 'the browser notification');
  expect(await watcher.evaluate('window.notifications')).toEqual([{ title: 'Novo atendimento aguardando', body: 'Carla Dias' }]);
  expect(await watcher.evaluate<number>('window.tones')).toBeGreaterThan(tonesBefore);
  await waitUntil(async () => /^\(\d+\) Caixa de entrada · Console de atendimento$/.test(await watcher.title()), 5000, 'the count in the tab title, before the screen it shows');

  await watcher.reload();
  await watcher.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  expect(await watcher.getByRole('switch', { name: 'Som de aviso' }).getAttribute('aria-checked')).toBe('true');
});

it('ran without a CSP refusal or a script error', () => {
  expect(browser.problems).toEqual([]);
});
