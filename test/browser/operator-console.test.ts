// The operator console in headless Chromium against the whole local pipeline (DynamoDB Local, the
// SQS emulator, the operator function, the fake WhatsApp API): what an operator does all day,
// found on the page by role and accessible name.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page, Request } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { waitUntil } from '../support/waiting';
import { startOperatorPipeline } from '../support/pipeline';
import { ConsoleBrowser, horizontalOverflow, PHONE, screenshot, signInFromWhatsApp, unnamedControls } from '../support/console-browser';

jest.setTimeout(90_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
const ana = newOperatorPhone();
const bruno = newOperatorPhone();
const customer = newCustomer();


const sentTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([ana, bruno]), ConsoleBrowser.launch()]);
  // A customer the agent qualified and handed to a person.
  await pipeline.sendCustomerMessage(customer, 'Quero marcar um exame #dado nome=Maria Souza #dado interesse=Check-up #segmento clínica #cadastro email=maria@exemplo.com #humano');
  await pipeline.waitForIdle();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

describe('an operator answering a handed-off customer', () => {
  let ana1: Page;
  let bruno1: Page;

  it('signs in from the link sent over WhatsApp; the token leaves the address bar', async () => {
    ana1 = await browser.openPage();
    await signInFromWhatsApp(pipeline, ana1, ana);
    await ana1.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    // Replaced, not pushed: neither the address bar nor the Back button shows the token.
    expect(ana1.url()).toBe(`${pipeline.consoleUrl}/`);
    await ana1.goBack();
    expect(ana1.url()).toBe('about:blank');
    await ana1.goForward();
    await ana1.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    // The session cookie is invisible to scripts; only the language preference may be stored.
    expect(await ana1.evaluate('document.cookie')).toBe('');
    const cookies = await ana1.context().cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: '__Host-op', httpOnly: true, secure: true, sameSite: 'Strict', path: '/' })]);
  });

  it('sees the customer waiting for a person, with the waiting time and the tab counts', async () => {
    await ana1.getByRole('tab', { name: 'Aguardando pessoa (1)' }).waitFor();
    await ana1.getByRole('tab', { name: 'Minhas (0)' }).waitFor();
    const row = ana1.getByRole('listitem').filter({ has: ana1.getByRole('link', { name: 'Abrir conversa com Maria Souza' }) });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/aguardando há (menos de 1 min|\d+ min)/);
    expect(await unnamedControls(ana1)).toEqual([]);
    await screenshot(ana1, 'inbox-desktop');
  });

  it('opens the conversation by keyboard alone and sees who said what and the qualification data', async () => {
    // Tab through the page to the customer's row and open it with Enter.
    let focused = '';
    for (let presses = 0; presses < 30 && !focused.startsWith('Abrir conversa com Maria'); presses++) {
      await ana1.keyboard.press('Tab');
      focused = await ana1.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''");
    }
    expect(focused).toBe('Abrir conversa com Maria Souza');
    await ana1.keyboard.press('Enter');
    await ana1.getByRole('heading', { name: 'Maria Souza' }).waitFor();

    const history = ana1.getByRole('region', { name: 'Histórico' });
    await history.getByText(/^Quero marcar um exame/).waitFor();
    expect(await history.getByRole('listitem').first().textContent()).toMatch(/^Cliente/);
    const qualification = ana1.getByRole('region', { name: 'Dados de qualificação' });
    expect(await qualification.textContent()).toContain('Check-up');
    const profile = ana1.getByRole('region', { name: 'Cadastro e classificação' });
    expect(await profile.textContent()).toBe('Cadastro e classificaçãoSegmentoclínicaE-mailmaria@exemplo.com');
    await ana1.getByText(/^Janela de 24 h aberta: fecha em 23 h/).waitFor();
    expect(await ana1.getByText('Assuma a conversa para responder.').count()).toBe(1);
  });

  it('claims it; a second person claiming the same conversation is told who was first', async () => {
    bruno1 = await browser.openPage();
    await signInFromWhatsApp(pipeline, bruno1, bruno);
    await bruno1.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
    await bruno1.getByRole('button', { name: 'Assumir conversa' }).waitFor();

    await ana1.getByRole('button', { name: 'Assumir conversa' }).click();
    await ana1.getByRole('status').filter({ hasText: 'Conversa assumida' }).waitFor();

    await bruno1.getByRole('button', { name: 'Assumir conversa' }).click();
    const alert = bruno1.getByRole('alert');
    await alert.waitFor();
    // Ana is a deploy-time admin the operators setting does not name: she is shown by her phone.
    expect(await alert.textContent()).toBe(`${ana} está atendendo esta conversa.`);
    await bruno1.getByText('Outra pessoa está atendendo esta conversa.').waitFor();
    await screenshot(bruno1, 'conflict-desktop');
  });

  it('replies: the message shows as sent and the customer receives it on WhatsApp', async () => {
    await ana1.getByRole('textbox', { name: 'Sua resposta' }).fill('Olá Maria, sou a Ana. Posso ajudar com o exame?');
    await ana1.getByRole('button', { name: 'Enviar' }).click();
    const history = ana1.getByRole('region', { name: 'Histórico' });
    const reply = history.getByRole('listitem').filter({ hasText: 'Olá Maria, sou a Ana.' });
    await reply.filter({ hasText: 'Enviada' }).waitFor();
    expect(await reply.textContent()).toMatch(/^Operador/);
    await waitUntil(() => sentTo(customer).includes('Olá Maria, sou a Ana. Posso ajudar com o exame?'), 5000, 'the reply at the fake WhatsApp API');
    expect(await ana1.getByRole('textbox', { name: 'Sua resposta' }).inputValue()).toBe('');
    await screenshot(ana1, 'conversation-desktop');
  });

  it('shows a refused send as failed with the reason, and sends it on retry', async () => {
    pipeline.fakeWhatsApp.failNext(1, { httpStatus: 400, code: 131026, message: 'Message undeliverable' });
    await ana1.getByRole('textbox', { name: 'Sua resposta' }).fill('Um momento, por favor.');
    await ana1.getByRole('button', { name: 'Enviar' }).click();
    const failed = ana1.getByRole('listitem').filter({ hasText: 'Um momento, por favor.' });
    await failed.getByText(/^Não enviada: O WhatsApp não aceitou a mensagem; nada foi enviado/).waitFor();
    expect(sentTo(customer)).not.toContain('Um momento, por favor.');
    await failed.getByRole('button', { name: 'Tentar de novo' }).click();
    await failed.getByText('Enviada').waitFor();
    await waitUntil(() => sentTo(customer).includes('Um momento, por favor.'), 5000, 'the retried reply');
  });

  it('gives it back to the agent and sees the agent answer the next customer message without reloading', async () => {
    await ana1.getByRole('button', { name: 'Devolver ao agente' }).click();
    await ana1.getByRole('status').filter({ hasText: 'Conversa devolvida ao agente' }).waitFor();
    // WhatsApp stamps messages in whole seconds: a customer message in the same second as the
    // operator's last reply sorts before it and is taken as already answered. Write a second later.
    await sleep(1050 - (Date.now() % 1000));
    await pipeline.sendCustomerMessage(customer, 'Obrigada! Pode ser amanhã?');
    const agentAnswer = ana1.getByRole('region', { name: 'Histórico' }).getByRole('listitem').filter({ hasText: 'Olá! Recebi: Obrigada! Pode ser amanhã?' });
    await agentAnswer.waitFor({ timeout: 15_000 });
    expect(await agentAnswer.textContent()).toMatch(/^Agente/);
  });

  it('works at 360 px wide with every control named', async () => {
    const phone = await browser.openPage(PHONE);
    await signInFromWhatsApp(pipeline, phone, ana);
    await phone.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    await phone.getByRole('tab', { name: /^Todas abertas/ }).click();
    await phone.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).waitFor();
    expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
    await screenshot(phone, 'inbox-phone');
    await phone.getByRole('link', { name: 'Abrir conversa com Maria Souza' }).click();
    await phone.getByRole('heading', { name: 'Maria Souza' }).waitFor();
    await phone.getByText('Olá Maria, sou a Ana. Posso ajudar com o exame?').waitFor();
    expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
    expect(await unnamedControls(phone)).toEqual([]);
    await screenshot(phone, 'conversation-phone');
  });

  it('switches to English and keeps only that preference in localStorage', async () => {
    await ana1.getByRole('button', { name: 'English' }).click();
    await ana1.getByRole('button', { name: 'Give back to the agent' }).waitFor({ state: 'detached' });
    await ana1.getByRole('link', { name: 'Inbox', exact: true }).click();
    await ana1.getByRole('heading', { name: 'Inbox' }).waitFor();
    expect(await ana1.evaluate('Object.keys(localStorage)')).toEqual(['console.language']);
    await ana1.reload();
    await ana1.getByRole('tab', { name: /^Waiting for a person/ }).waitFor();
    await ana1.getByRole('button', { name: 'Português' }).click();
    await ana1.getByRole('tab', { name: /^Aguardando pessoa/ }).waitFor();
  });

  it('after a reload, mutating calls still carry the CSRF token read back from the session', async () => {
    await ana1.reload();
    const changes: Request[] = [];
    ana1.on('request', (request) => {
      if (request.method() !== 'GET' && request.url().includes('/api/')) changes.push(request);
    });
    const availability = ana1.getByRole('switch', { name: 'Disponível para atendimento' });
    await availability.click();
    await waitUntil(async () => (await availability.getAttribute('aria-checked')) === 'true', 5000, 'availability on');
    expect(await ana1.getByRole('alert').count()).toBe(0);
    // And the SHA-256 of their body, which CloudFront's signature covers behind consoleFrontDoor.
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      expect((await change.allHeaders())['x-amz-content-sha256']).toBe(createHash('sha256').update(change.postData() ?? '', 'utf8').digest('hex'));
    }
  });

  it('shows the availability the server holds after a reload', async () => {
    await ana1.reload();
    const availability = ana1.getByRole('switch', { name: 'Disponível para atendimento' });
    await availability.waitFor();
    expect(await availability.getAttribute('aria-checked')).toBe('true');
  });

  it('sends a person whose session ended back to sign-in with a message', async () => {
    await bruno1.context().clearCookies();
    await bruno1.getByText(/^Sua sessão terminou/).waitFor({ timeout: 10_000 });
    await bruno1.getByRole('heading', { name: 'Entrar' }).waitFor();
  });

  it('signs out: back to sign-in, and a reload stays signed out', async () => {
    await ana1.getByRole('button', { name: 'Sair' }).click();
    await ana1.getByText('Você saiu. Até logo!').waitFor();
    expect(await ana1.context().cookies()).toEqual([]);
    await ana1.reload();
    await ana1.getByRole('heading', { name: 'Entrar' }).waitFor();
    await screenshot(ana1, 'sign-in-desktop');
  });

  it('ran without a CSP refusal or a script error', () => {
    expect(browser.problems).toEqual([]);
  });
});
