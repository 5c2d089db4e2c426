import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { hrefOf } from '../../console/src/view-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { waitUntil } from './waiting';
import { lastLoginToken } from './operator-console-client';

/** Chromium logs an API call the console handles (a 409, the 502 of a refused send) as an error too. */
const HANDLED_API_ANSWER = /^Failed to load resource: the server responded with a status of \d{3}/;

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 360, height: 740 } as const;
/** The phone most operators hold today (390 px wide). */
export const LARGE_PHONE = { width: 390, height: 844 } as const;

/**
 * One Chromium per test file, a browser profile (cookies, storage) per page, and what went wrong in
 * any page: the console must run without a Content-Security-Policy refusal or a script error.
 *
 * Browser tests drive the system Chromium (Debian package `chromium`) with playwright-core: test
 * tools cannot download their own browser here. `CHROMIUM_PATH` points elsewhere when needed.
 */
export class ConsoleBrowser {
  readonly problems: string[] = [];
  private readonly profiles: BrowserContext[] = [];

  private constructor(private readonly browser: Browser) {}

  static async launch(): Promise<ConsoleBrowser> {
    const runsAsRoot = process.getuid?.() === 0;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Chromium's sandbox refuses to start as root (CI containers); /dev/shm is small in containers.
      args: [...(runsAsRoot ? ['--no-sandbox'] : []), '--disable-dev-shm-usage'],
    });
    return new ConsoleBrowser(browser);
  }

  /** A page in a fresh profile, at a screen size. */
  async openPage(viewport: { readonly width: number; readonly height: number } = DESKTOP): Promise<Page> {
    const profile = await this.browser.newContext({ viewport, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    this.profiles.push(profile);
    const page = await profile.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !HANDLED_API_ANSWER.test(message.text())) this.problems.push(message.text());
    });
    page.on('pageerror', (error) => this.problems.push(error.message));
    return page;
  }

  async close(): Promise<void> {
    for (const profile of this.profiles) await profile.close();
    await this.browser.close();
  }
}

/** The operator asks for a link over WhatsApp (`login`) and opens it, as they would on their phone. */
export async function signInFromWhatsApp(pipeline: LocalPipeline, page: Page, operatorPhone: string): Promise<string> {
  const before = pipeline.fakeWhatsApp.sent().length;
  await pipeline.sendCustomerMessage(operatorPhone, 'login');
  await waitUntil(() => pipeline.fakeWhatsApp.sent().slice(before).some((message) => message.recipient === operatorPhone), 10_000, 'the login link');
  const link = `${pipeline.consoleUrl}/login#${lastLoginToken(pipeline, operatorPhone)}`;
  await page.goto(link);
  return link;
}

/** A desktop page of the browser, signed in as the operator, showing one customer's conversation. */
export async function openConversation(pipeline: LocalPipeline, browser: ConsoleBrowser, operatorPhone: string, customerId: string): Promise<Page> {
  const page = await browser.openPage(DESKTOP);
  await signInFromWhatsApp(pipeline, page, operatorPhone);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  await page.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'conversation', customerId }))}`);
  return page;
}

/**
 * Screenshots of the main screens. They are written to docs/screenshots (and committed) when
 * UPDATE_SCREENSHOTS=1 (`npm run screenshots`), otherwise to a scratch folder: an ordinary run does
 * not touch the tree. No caret or running transition: a refresh changes only what changed.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(__dirname, '..', '..', 'docs', 'screenshots') : path.join(tmpdir(), 'console-screenshots');
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
}

/**
 * Opens an admin screen as an admin does on a desktop: the sections' Administration group, then the
 * screen's link in it (`name` in the console's language).
 */
export async function openAdminScreen(page: Page, name: string): Promise<void> {
  const sections = page.getByRole('navigation', { name: /^(Seções|Sections|Secciones)$/ });
  const link = sections.getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await sections.getByRole('button', { name: /^(Administração|Administration|Administración)/ }).click();
  await link.click();
}

/** The page is no wider than its viewport: nothing to scroll sideways on a phone. */
export async function horizontalOverflow(page: Page): Promise<number> {
  // A string: the expression runs in the page, where the DOM is.
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/** Roles the console's controls have; each must carry a name (tests and screen readers find them by it). */
const CONTROL_ROLES = ['button', 'link', 'textbox', 'combobox', 'switch', 'tab', 'checkbox'] as const;

/** The controls on the page without an accessible name, as "role × count". */
export async function unnamedControls(page: Page): Promise<string[]> {
  const unnamed: string[] = [];
  for (const role of CONTROL_ROLES) {
    // Two queries: a list re-rendering between them would show up as a difference, so count again
    // until the page held still while they ran.
    for (;;) {
      const all = await page.getByRole(role).count();
      const named = await page.getByRole(role, { name: /\S/ }).count();
      if ((await page.getByRole(role).count()) !== all) continue;
      if (all !== named) unnamed.push(`${role} × ${all - named}`);
      break;
    }
  }
  return unnamed;
}
