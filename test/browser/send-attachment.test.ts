// An operator attaches a small PNG in the composer: the fake Graph API receives its bytes and the
// image message naming the upload, and the bubble shows the photo, with the page accessible.
import type { Page } from 'playwright-core';
import { pt } from '../../console/src/dictionaries/pt';
import { hrefOf } from '../../console/src/view-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, DESKTOP, signInFromWhatsApp } from '../support/console-browser';
import { newOperatorPhone } from '../support/ids';
import { ONE_PIXEL_PNG } from '../support/media-bucket';
import { handedOffCustomer } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
let customer: string;
const admin = newOperatorPhone();

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin]), ConsoleBrowser.launch()]);
  customer = await handedOffCustomer(pipeline);
  page = await browser.openPage(DESKTOP);
  await signInFromWhatsApp(pipeline, page, admin);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  await page.evaluate(`location.hash = ${JSON.stringify(hrefOf({ kind: 'conversation', customerId: customer }))}`);
  await page.getByRole('button', { name: pt['conversation.claim'] }).click();
  await page.getByLabel(pt['attach.label']).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('the composer with its attach button has no serious accessibility violation', async () => {
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('an attached PNG reaches the fake Graph API with its bytes, and its bubble shows it', async () => {
  await page.getByLabel(pt['attach.label']).setInputFiles({ name: 'pedido.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });

  await waitUntil(() => pipeline.fakeWhatsApp.sent().some((message) => message.recipient === customer && message.media !== undefined), 10_000, 'the image message');
  const upload = pipeline.fakeWhatsApp.uploads().at(-1)!;
  expect(Buffer.from(upload.bytes).equals(ONE_PIXEL_PNG)).toBe(true);
  expect(pipeline.fakeWhatsApp.sent().find((message) => message.recipient === customer && message.media !== undefined)!.media).toEqual({ kind: 'image', mediaId: upload.mediaId });

  const photo = page.getByRole('img', { name: 'pedido.png' });
  await photo.waitFor();
  const loaded = (): Promise<{ complete: boolean; width: number }> => photo.evaluate((image: { complete: boolean; naturalWidth: number }) => ({ complete: image.complete, width: image.naturalWidth }));
  await waitUntil(async () => (await loaded()).complete, 10_000, 'the photo to load');
  expect((await loaded()).width).toBeGreaterThan(0);
  await page.getByRole('status').filter({ hasText: pt['attach.sent'].replace('{name}', 'pedido.png') }).waitFor();
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(browser.problems).toEqual([]);
});
