// The customer-side chat of `npm start` in headless Chromium against the whole local pipeline: a
// message typed on the phone-like page goes through the real webhook path (signed like Meta), and
// the reply the fake Graph API received shows with its delivery status.
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { CustomerChat, startCustomerChatServer, type CustomerChatServer } from '../../local/runtime/customer-chat';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, horizontalOverflow, PHONE, screenshot } from '../support/console-browser';
import { newCustomer } from '../support/ids';
import { parseScriptedReply, startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(90_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let chat: CustomerChat;
let server: CustomerChatServer;
let page: Page;
const customer = newCustomer();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startTestPipeline(), ConsoleBrowser.launch()]);
  chat = new CustomerChat(pipeline);
  server = await startCustomerChatServer(chat, { defaultCustomer: customer });
  page = await browser.openPage(PHONE);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await pipeline?.stop();
});

/** fetch() sets Host itself: a page whose name was rebound to 127.0.0.1 sends its own. */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    })
      .on('error', reject)
      .end();
  });
}

const conversation = () => page.getByRole('log', { name: 'Conversation' });
/** The message whose text is exactly `text`. */
const bubble = (text: string) => conversation().getByRole('listitem').filter({ has: page.getByText(text, { exact: true }) });

it('opens as the default customer, on a phone-sized screen, without a script error or a policy refusal', async () => {
  await page.goto(server.url);
  await page.getByRole('heading', { name: 'Local Test Business' }).waitFor();
  await waitUntil(async () => (await page.getByRole('textbox', { name: 'Writing as' }).inputValue()) === customer, 5000, 'the default customer');
  expect(await horizontalOverflow(page)).toBe(0);
  expect(browser.problems).toEqual([]);
});

it('sends as the customer through the webhook and shows the reply with its delivery status', async () => {
  await page.getByRole('textbox', { name: 'Message' }).fill('Oi, quero marcar um horário');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');

  await bubble('Oi, quero marcar um horário').filter({ hasText: 'webhook 200' }).waitFor();
  await pipeline.waitForIdle();
  const [reply] = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  expect(parseScriptedReply(reply.text).answered).toEqual(['Oi, quero marcar um horário']);
  await bubble(reply.text).filter({ hasText: /· sent$/ }).waitFor();
  expect(await bubble(reply.text).getAttribute('class')).toBe('business');
  // The pipeline recorded it as Meta would have delivered it: the customer's message, then the reply.
  const { history } = await pipeline.conversation(customer);
  expect(history.map((message) => [message.role, message.text])).toEqual([
    ['user', 'Oi, quero marcar um horário'],
    ['assistant', reply.text],
  ]);
  expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
  expect(browser.problems).toEqual([]);
});

it('shows the reply delivered, then read, as WhatsApp reports them to the pipeline (as the terminal and the console do)', async () => {
  const [reply] = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'delivered');
  await bubble(reply.text).filter({ hasText: /· delivered$/ }).waitFor();
  await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, 'read');
  await bubble(reply.text).filter({ hasText: /· read$/ }).waitFor();
  expect((await pipeline.conversation(customer)).history.at(-1)?.receipt?.status).toBe('read');
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'customer-chat-phone');
  expect(browser.problems).toEqual([]);
});

it('shows what the terminal chat sends for the same customer, and switches customer', async () => {
  await chat.send(customer, 'Mandei pelo terminal');
  await bubble('Mandei pelo terminal').waitFor();

  const other = newCustomer();
  await page.getByRole('textbox', { name: 'Writing as' }).fill(other);
  await page.getByRole('button', { name: 'Switch' }).click();
  await page.waitForURL(`${server.url}?from=${other}`);
  await page.getByRole('textbox', { name: 'Message' }).fill('Sou outra pessoa');
  await page.getByRole('button', { name: 'Send' }).click();
  await bubble('Sou outra pessoa').waitFor();
  expect(await bubble('Mandei pelo terminal').count()).toBe(0);
  await pipeline.waitForIdle();
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === other)).toHaveLength(1);
});

it('drops a poll for the customer shown before a switch that answers after it', async () => {
  const before = newCustomer();
  await chat.send(before, 'Só da conversa anterior');
  await page.getByRole('textbox', { name: 'Writing as' }).fill(before);
  await page.getByRole('button', { name: 'Switch' }).click();
  await bubble('Só da conversa anterior').waitFor();

  // The next poll for that customer answers only after the page has switched away from them.
  let releaseLatePoll!: () => void;
  const latePollHeld = new Promise<void>((resolve) => {
    void page.route(`**/api/conversation?customer=${before}`, async (route) => {
      resolve();
      await new Promise<void>((release) => (releaseLatePoll = release));
      await route.continue();
    });
  });
  await latePollHeld;
  const after = newCustomer();
  await page.getByRole('textbox', { name: 'Writing as' }).fill(after);
  await page.getByRole('button', { name: 'Switch' }).click();
  await page.waitForURL(`${server.url}?from=${after}`);
  const latePoll = page.waitForResponse((response) => response.url().endsWith(`customer=${before}`));
  releaseLatePoll();
  await latePoll;
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))');
  expect(await bubble('Só da conversa anterior').count()).toBe(0);
  await page.unroute(`**/api/conversation?customer=${before}`);
});

it('writes only for JSON posted to its own loopback address', async () => {
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const form = await fetch(`${server.url}api/messages`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ customer, text: 'forged' }) });
  expect(form.status).toBe(415);
  expect(await statusWithHost(`${server.url}api/conversation`, 'attacker.example')).toBe(421);
  const badCustomer = await fetch(`${server.url}api/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer: 'x', text: 'hi' }) });
  expect(badCustomer.status).toBe(400);
  expect((await chat.transcript(customer)).some((entry) => entry.text === 'forged')).toBe(false);
  expect(pipeline.fakeWhatsApp.sent()).toHaveLength(sentBefore);
});
