// A conversation whose customer sent a photo, opened in the console: it passes the accessibility scan.
import type { Page } from 'playwright-core';
import { hrefOf } from '../../console/src/view-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, DESKTOP, signInFromWhatsApp } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { ONE_PIXEL_PNG, sendAttachment } from '../support/media-bucket';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const admin = newOperatorPhone();
const customer = newCustomer();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin]), ConsoleBrowser.launch()]);
  await sendAttachment(pipeline, customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: 'foto do pedido médico' } });
  await pipeline.waitForIdle();
  page = await browser.openPage(DESKTOP);
  await signInFromWhatsApp(pipeline, page, admin);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  await page.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'conversation', customerId: customer }))}`);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('the conversation with media has no serious accessibility violation', async () => {
  // Scanned once the attachment has settled: the photo, or the note that it could not be opened.
  await page.getByRole('img', { name: 'foto do pedido médico' }).or(page.getByRole('alert')).first().waitFor();
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('opens the customer’s photo from its short-lived link, with nothing refused by the page', async () => {
  const photo = page.getByRole('img', { name: 'foto do pedido médico' });
  await photo.waitFor();
  // The test's types have no DOM: the image is read as the page sees it.
  const imageState = (): Promise<{ complete: boolean; width: number; src: string }> => photo.evaluate((image: { complete: boolean; naturalWidth: number; src: string }) => ({ complete: image.complete, width: image.naturalWidth, src: image.src }));
  await waitUntil(async () => (await imageState()).complete, 10_000, 'the photo to load');
  const loaded = await imageState();
  expect(loaded.width).toBeGreaterThan(0);
  expect(new URL(loaded.src).searchParams.get('X-Amz-Expires')).toMatch(/^\d+$/);
  expect(browser.problems).toEqual([]);
});
