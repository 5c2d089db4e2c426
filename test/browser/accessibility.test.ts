// Every screen of the console scanned by axe-core in headless Chromium, on a desktop and on a 390 px
// phone, in Portuguese and in English: no serious or critical violation, nothing to scroll sideways.
// On a phone the sections fold behind a menu button.
import type { Page } from 'playwright-core';
import { LANGUAGES, translator, type Language } from '../../console/src/i18n';
import { ADMIN_SCREENS, hrefOf, type Route } from '../../console/src/view-model';
import { addEveryDictionary } from '../support/console-dictionaries';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, DESKTOP, horizontalOverflow, LARGE_PHONE, screenshot, signInFromWhatsApp } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(180_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
const admin = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  addEveryDictionary();
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin]), ConsoleBrowser.launch()]);
  await pipeline.sendCustomerMessage(customer, 'Quero marcar um exame #dado nome=Maria Souza #dado interesse=Check-up #humano');
  await pipeline.waitForIdle();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

/** Every screen a signed-in admin can reach, by its route. */
const SCREENS: readonly Route[] = [
  { kind: 'inbox', tab: 'waiting' },
  { kind: 'conversation', customerId: customer },
  ...ADMIN_SCREENS.map((screen): Route => ({ kind: 'admin', screen })),
];

/** Goes to a screen and waits until it has its heading and nothing is still loading. */
async function visit(page: Page, route: Route, language: Language): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hrefOf(route))}`);
  await page.locator('main h2').first().waitFor();
  const loading = page.getByRole('status').filter({ hasText: translator(language)('loading') });
  await waitUntil(async () => (await loading.count()) === 0, 10_000, `${hrefOf(route)} loaded`);
}

describe.each([
  ['desktop', DESKTOP],
  ['phone', LARGE_PHONE],
] as const)('every screen on a %s', (_size, viewport) => {
  let page: Page;

  it('signing in passes the scan', async () => {
    page = await browser.openPage(viewport);
    await page.goto(`${pipeline.consoleUrl}/`);
    await page.getByRole('heading', { name: 'Entrar' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
  });

  describe.each(['pt', 'en'] as const)('in %s', (language) => {
    it('switches language', async () => {
      if (language === 'en') await page.getByRole('button', { name: 'English' }).click();
      await waitUntil(async () => (await page.evaluate<string>('document.documentElement.lang')) === LANGUAGES[language].tag, 5000, 'the page language');
    });

    it.each(SCREENS.map((route) => [hrefOf(route), route] as const))('%s passes the scan and fits the screen', async (_href, route) => {
      await visit(page, route, language);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    });
  });
});

describe('the sections on a phone', () => {
  it('fold behind a menu button that says whether it is open', async () => {
    const page = await browser.openPage(LARGE_PHONE);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    const menu = page.getByRole('button', { name: 'Menu' });
    const sections = page.getByRole('navigation', { name: 'Seções' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await sections.getByRole('link', { name: 'Prompts' }).isVisible()).toBe(false);

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'menu-phone');
    await sections.getByRole('link', { name: 'Prompts' }).click();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    // Picking a section closes the menu and leaves the screen to read.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await sections.getByRole('link', { name: 'Prompts' }).isVisible()).toBe(false);
  });

  it('are all shown on a desktop, without a menu button', async () => {
    const page = await browser.openPage(DESKTOP);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByRole('navigation', { name: 'Seções' }).getByRole('link', { name: 'Prompts' }).waitFor();
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
  });

  // The count of conversations waiting for a person may lead the title (the attention's part of it).
  const titled = (title: string) => new RegExp(`^(\\(\\d+\\) )?${title}$`);
  it('name the screen in the tab title, and say the time zone times are shown in', async () => {
    const page = await browser.openPage(DESKTOP);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByText('Horários em America/Sao_Paulo').waitFor();
    await waitUntil(async () => titled('Caixa de entrada · Console de atendimento').test(await page.title()), 5000, 'the tab title');
    await page.getByRole('link', { name: 'Relatórios' }).click();
    await waitUntil(async () => titled('Relatórios · Console de atendimento').test(await page.title()), 5000, 'the tab title');
    await page.getByRole('button', { name: 'English' }).click();
    await waitUntil(async () => titled('Reports · Operator console').test(await page.title()), 5000, 'the tab title');
  });

  it('ran without a CSP refusal or a script error', () => {
    expect(browser.problems).toEqual([]);
  });
});
