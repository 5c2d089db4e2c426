// Two operators and an admin, each in a browser context of their own, against the whole local
// pipeline: what one person changes reaches the others' open screens within two of their polls
// (counted, not timed: a slow machine polls late, not more), a refusal says its real reason and who, a screen offers no control the API would refuse that
// person there, and a customer has one name everywhere.
import type { Page, Response } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { hrefOf } from '../../console/src/view-model';
import { ConsoleBrowser, signInFromWhatsApp } from '../support/console-browser';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';

jest.setTimeout(180_000);

/** However slow the machine: the polls are counted. */
const AT_MOST_MS = 60_000;
const IDLE_TIMEOUT_MS = 2_000;

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let repositories: ReturnType<typeof tableRepositories>;
const admin = newOperatorPhone();
const ana = newOperatorPhone();
const bruno = newOperatorPhone();
const maria = newCustomer();
const diego = newCustomer();
const eva = newCustomer();
const carla = newCustomer();
const pages: Record<'ana' | 'bruno' | 'brunoInbox' | 'admin', Page> = {} as never;

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin], { idleSweep: { idleTimeoutMs: IDLE_TIMEOUT_MS } }), ConsoleBrowser.launch()]);
  repositories = tableRepositories(pipeline.tableName);
  await repositories.config.set({ key: 'operators', value: { [ana]: { role: 'operator', name: 'Ana' }, [bruno]: { role: 'operator', name: 'Bruno' } }, author: admin }, { expectedVersion: 0 });
  await repositories.config.set({ key: 'quick_replies', value: { saudacao: { title: 'Saudação', text: 'Olá {name}, aqui é a equipe.', updated_by: admin, updated_at: '2026-03-10T12:00:00Z' } }, author: admin }, { expectedVersion: 0 });
  await pipeline.sendCustomerMessage(maria, 'Quero marcar um exame #dado nome=Maria Souza #humano');
  // Known only by the WhatsApp profile name: the agent learned none.
  await pipeline.sendCustomerMessage(diego, 'Preciso falar com alguém #humano', { profileName: 'Diego Ramos' });
  await pipeline.sendCustomerMessage(eva, 'Quero apagar meus dados #dado nome=Eva Lima #humano');
  await pipeline.waitForIdle();
  for (const [name, phone] of [['ana', ana], ['bruno', bruno], ['brunoInbox', bruno], ['admin', admin]] as const) {
    pages[name] = await browser.openPage();
    await signInFromWhatsApp(pipeline, pages[name], phone);
    await pages[name].getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  }
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

const open = (page: Page, customerId: string) => page.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'conversation', customerId }))}`);
const rowLink = (page: Page, name: string) => page.getByRole('tabpanel').getByRole('link', { name: `Abrir conversa com ${name}` });
/** Whatever the conversation screen lets the person press. */
const controls = (page: Page) => page.locator('article.conversation').getByRole('button');
/** The calls a screen polls: a conversation, or a list of one state. */
const conversationCall = (customerId: string) => new RegExp(`/api/conversations/${customerId}\\?`);
const listCall = (state: string) => new RegExp(`/api/conversations\\?state=${state}&`);

/** How many answers to `call` the page received from now until `shown` resolved: a change shows within two. */
async function pollsUntil(page: Page, call: RegExp, shown: () => Promise<unknown>): Promise<number> {
  let answers = 0;
  const count = (response: Response) => void (call.test(response.url()) && answers++);
  page.on('response', count);
  try {
    await shown();
  } finally {
    page.off('response', count);
  }
  return answers;
}

const controlNames = async (page: Page) => (await page.locator('.conversation-side .actions').getByRole('button').allTextContents()).sort();

it('offers an operator on a waiting conversation only what the API lets them do: claim it', async () => {
  await open(pages.bruno, maria);
  await pages.bruno.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  expect(await controlNames(pages.bruno)).toEqual(['Assumir conversa']);
  // An admin may also give back or close a conversation nobody has.
  await open(pages.admin, maria);
  await pages.admin.getByRole('heading', { name: 'Maria Souza' }).waitFor();
  expect(await controlNames(pages.admin)).toEqual(['Assumir conversa', 'Devolver ao agente', 'Encerrar conversa']);
});

it('tells the second operator who has the conversation once another claims it, and leaves him nothing to press', async () => {
  await rowLink(pages.brunoInbox, 'Maria Souza').waitFor();
  await open(pages.ana, maria);
  await pages.ana.getByRole('button', { name: 'Assumir conversa' }).click();
  await pages.ana.getByRole('status').filter({ hasText: 'Conversa assumida' }).waitFor();
  expect(await controlNames(pages.ana)).toEqual(['Devolver ao agente', 'Encerrar conversa']);

  // Bruno's open conversation says who has it and drops what it can no longer show.
  const told = pages.bruno.getByRole('alert').filter({ hasText: 'Ana está atendendo esta conversa.' });
  const gone = rowLink(pages.brunoInbox, 'Maria Souza');
  const [conversationPolls, inboxPolls] = await Promise.all([
    pollsUntil(pages.bruno, conversationCall(maria), () => told.waitFor({ timeout: AT_MOST_MS })),
    pollsUntil(pages.brunoInbox, listCall('AWAITING_HUMAN'), () => gone.waitFor({ state: 'detached', timeout: AT_MOST_MS })),
  ]);
  expect(conversationPolls).toBeLessThanOrEqual(2);
  expect(await pages.bruno.getByRole('alert').allTextContents()).toEqual(['Ana está atendendo esta conversa.']);
  expect(await pages.bruno.getByText(/^Situação:/).count()).toBe(0);
  expect(await controls(pages.bruno).count()).toBe(0);
  // His other tab's inbox no longer lists it.
  expect(inboxPolls).toBeLessThanOrEqual(2);

  // Opening it by its address says the same.
  await pages.bruno.reload();
  await pages.bruno.getByRole('alert').filter({ hasText: 'Ana está atendendo esta conversa.' }).waitFor();
  expect(await pages.bruno.getByText('Só administradores').count()).toBe(0);
  expect(await controls(pages.bruno).count()).toBe(0);

  // The admin's open copy names Ana and still offers what an admin may do with Ana's conversation.
  await pages.admin.getByText('Atendida por Ana').waitFor({ timeout: AT_MOST_MS });
  expect(await controlNames(pages.admin)).toEqual(['Devolver ao agente', 'Encerrar conversa']);
});

it('calls a customer known only by the WhatsApp profile name by that name in the row, the heading and a quick reply', async () => {
  await pages.ana.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'inbox', tab: 'waiting' }))}`);
  await rowLink(pages.ana, 'Diego Ramos').click();
  await pages.ana.getByRole('heading', { name: 'Diego Ramos' }).waitFor();
  expect(await pages.ana.getByRole('region', { name: 'Histórico' }).getByRole('listitem').first().textContent()).toMatch(/^Cliente · Diego Ramos/);
  await pages.ana.getByRole('button', { name: 'Assumir conversa' }).click();
  const reply = pages.ana.getByRole('textbox', { name: 'Sua resposta' });
  await reply.click();
  await pages.ana.keyboard.type('/sau');
  await pages.ana.getByRole('listbox', { name: 'Respostas rápidas' }).getByRole('option', { name: /saudacao/ }).waitFor();
  await pages.ana.keyboard.press('Enter');
  expect(await reply.inputValue()).toBe('Olá Diego Ramos, aqui é a equipe.');
});

it('takes an erased customer out of another person’s open inbox within two polls', async () => {
  await pages.brunoInbox.bringToFront();
  await rowLink(pages.brunoInbox, 'Eva Lima').waitFor();
  await pages.admin.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'admin', screen: 'customers' }))}`);
  await pages.admin.getByRole('textbox', { name: 'Número ou id do cliente no WhatsApp' }).fill(eva);
  await pages.admin.getByRole('textbox', { name: 'Para confirmar, digite o id do cliente de novo' }).fill(eva);
  await pages.admin.getByRole('button', { name: 'Apagar tudo deste cliente' }).click();
  await pages.admin.getByRole('status').filter({ hasText: 'Cliente apagado.' }).waitFor();
  const erased = rowLink(pages.brunoInbox, 'Eva Lima');
  expect(await pollsUntil(pages.brunoInbox, listCall('AWAITING_HUMAN'), () => erased.waitFor({ state: 'detached', timeout: AT_MOST_MS }))).toBeLessThanOrEqual(2);
});

it('takes a conversation the idle sweeper closed out of an admin’s open inbox within two polls', async () => {
  await pipeline.sendCustomerMessage(carla, 'Oi, só olhando #dado nome=Carla Dias');
  await pipeline.waitForIdle();
  await pages.admin.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'inbox', tab: 'open' }))}`);
  const carlas = rowLink(pages.admin, 'Carla Dias');
  expect(await pollsUntil(pages.admin, listCall('QUALIFYING'), () => carlas.waitFor({ timeout: AT_MOST_MS }))).toBeLessThanOrEqual(2);
  await new Promise((resolve) => setTimeout(resolve, IDLE_TIMEOUT_MS + 200));
  expect((await pipeline.sweepIdleConversations()).closed).toBeGreaterThanOrEqual(1);
  expect(await pollsUntil(pages.admin, listCall('QUALIFYING'), () => carlas.waitFor({ state: 'detached', timeout: AT_MOST_MS }))).toBeLessThanOrEqual(2);
});

it('ran without a CSP refusal or a script error', () => {
  expect(browser.problems).toEqual([]);
});
