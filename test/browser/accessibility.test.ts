// Every screen of the console scanned by axe-core in headless Chromium, on a desktop and on a 390 px
// phone, in Portuguese and in English: no serious or critical violation, nothing to scroll sideways.
// On a phone the header is one line and the rest folds behind a menu button; on a desktop the
// sections are one row, the admin screens under one group.
import type { Page } from 'playwright-core';
import { LANGUAGES, translator, type Language } from '../../console/src/i18n';
import { ADMIN_SCREENS, hrefOf, type Route } from '../../console/src/view-model';
import { addEveryDictionary } from '../support/console-dictionaries';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, DESKTOP, horizontalOverflow, LARGE_PHONE, openAdminScreen, screenshot, signInFromWhatsApp } from '../support/console-browser';
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
      if (language === 'en') {
        // On a phone the language buttons are behind the menu.
        const english = page.getByRole('button', { name: 'English' });
        if (!(await english.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
        await english.click();
      }
      await waitUntil(async () => (await page.evaluate<string>('document.documentElement.lang')) === LANGUAGES[language].tag, 5000, 'the page language');
    });

    it.each(SCREENS.map((route) => [hrefOf(route), route] as const))('%s passes the scan and fits the screen', async (_href, route) => {
      await visit(page, route, language);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    });
  });
});

describe('the header and the sections', () => {
  it('on a phone take one line: who, the controls and the sections fold behind a menu button that says whether it is open', async () => {
    const page = await browser.openPage(LARGE_PHONE);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByRole('heading', { name: 'Caixa de entrada' }).waitFor();
    const menu = page.getByRole('button', { name: 'Menu' });
    const sections = page.getByRole('navigation', { name: 'Seções' });
    const availability = page.getByRole('switch', { name: 'Disponível para atendimento' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // The title and the menu button: one line of the 844 px, not a third of the screen.
    expect((await page.getByRole('banner').boundingBox())!.height).toBeLessThanOrEqual(64);
    expect(await availability.isVisible()).toBe(false);
    expect(await sections.getByRole('link', { name: 'Caixa de entrada' }).isVisible()).toBe(false);

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await availability.isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sair' }).isVisible()).toBe(true);
    await sections.getByRole('button', { name: 'Administração' }).click();
    expect(await sections.getByRole('link', { name: 'Prompts' }).isVisible()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'menu-phone');
    await sections.getByRole('link', { name: 'Prompts' }).click();
    await page.getByRole('heading', { name: 'Prompts' }).waitFor();
    // Picking a section closes the menu and leaves the screen to read.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await sections.getByRole('link', { name: 'Prompts' }).isVisible()).toBe(false);
    expect(await availability.isVisible()).toBe(false);
  });

  it('on a desktop are one row, the admin screens under one group that names the screen open', async () => {
    const page = await browser.openPage(DESKTOP);
    await signInFromWhatsApp(pipeline, page, admin);
    const sections = page.getByRole('navigation', { name: 'Seções' });
    const group = sections.getByRole('button', { name: /^Administração/ });
    await sections.getByRole('link', { name: 'Caixa de entrada' }).waitFor();
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Disponível para atendimento' }).isVisible()).toBe(true);
    // One row: the inbox and the group side by side, the admin screens out of sight until asked for.
    const [inboxBox, groupBox] = [await sections.getByRole('link', { name: 'Caixa de entrada' }).boundingBox(), await group.boundingBox()];
    expect(Math.abs(inboxBox!.y + inboxBox!.height / 2 - (groupBox!.y + groupBox!.height / 2))).toBeLessThanOrEqual(2);
    expect((await sections.boundingBox())!.height).toBeLessThanOrEqual(56);
    expect(await sections.getByRole('link', { name: 'Prompts' }).isVisible()).toBe(false);

    await group.click();
    expect(await group.getAttribute('aria-expanded')).toBe('true');
    const adminLinks = sections.getByRole('list').getByRole('link');
    expect(await adminLinks.count()).toBe(ADMIN_SCREENS.length);
    expect(await accessibilityViolations(page)).toEqual([]);
    // Escape closes the group and gives the focus back to its button.
    await page.keyboard.press('Escape');
    expect(await group.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-controls")')).toBe('admin-sections');

    await group.click();
    await sections.getByRole('link', { name: 'Relatórios' }).click();
    await page.getByRole('heading', { name: 'Relatórios' }).first().waitFor();
    expect(await group.getAttribute('aria-expanded')).toBe('false');
    expect(await group.textContent()).toMatch(/^Administração.*Relatórios$/);
    // A click elsewhere closes it too.
    await group.click();
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    expect(await group.getAttribute('aria-expanded')).toBe('false');
  });

  // The count of conversations waiting for a person may lead the title (the attention's part of it).
  const titled = (title: string) => new RegExp(`^(\\(\\d+\\) )?${title}$`);
  it('name the screen in the tab title, and say the time zone times are shown in', async () => {
    const page = await browser.openPage(DESKTOP);
    await signInFromWhatsApp(pipeline, page, admin);
    await page.getByText('Horários em America/Sao_Paulo').waitFor();
    await waitUntil(async () => titled('Caixa de entrada · Console de atendimento').test(await page.title()), 5000, 'the tab title');
    await openAdminScreen(page, 'Relatórios');
    await waitUntil(async () => titled('Relatórios · Console de atendimento').test(await page.title()), 5000, 'the tab title');
    await page.getByRole('button', { name: 'English' }).click();
    await waitUntil(async () => titled('Reports · Operator console').test(await page.title()), 5000, 'the tab title');
  });

  it('ran without a CSP refusal or a script error', () => {
    expect(browser.problems).toEqual([]);
  });
});
