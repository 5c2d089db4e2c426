// A conversation whose customer sent a photo and a voice note, opened in the console: it passes the
// accessibility scan, and the voice note is a player with its transcript under it.
import type { Page } from 'playwright-core';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { accessibilityViolations } from '../support/accessibility';
import { ConsoleBrowser, openConversation } from '../support/console-browser';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { ONE_PIXEL_PNG, sendAttachment, VOICE_NOTE_OGG } from '../support/media-bucket';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

jest.setTimeout(120_000);

let pipeline: LocalPipeline;
let browser: ConsoleBrowser;
let page: Page;
const admin = newOperatorPhone();
const customer = newCustomer();
const VOICE_NOTE_WORDS = 'Oi, o resultado do exame já saiu?';

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([startOperatorPipeline([admin], { transcription: { transcripts: () => VOICE_NOTE_WORDS, pollIntervalMs: 100 } }), ConsoleBrowser.launch()]);
  await sendAttachment(pipeline, customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: 'foto do pedido médico' } });
  await pipeline.waitForIdle();
  await sendAttachment(pipeline, customer, { type: 'audio', bytes: VOICE_NOTE_OGG, mimeType: 'audio/ogg; codecs=opus', fields: { voice: true } });
  await pipeline.waitForIdle();
  page = await openConversation(pipeline, browser, admin, customer);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

it('the conversation with media has no serious accessibility violation', async () => {
  // Scanned once the attachments have settled: the photo and the voice note's player, or the note that one could not be opened.
  await page.getByRole('img', { name: 'foto do pedido médico' }).or(page.getByRole('alert')).first().waitFor();
  await page.locator('audio').or(page.getByRole('alert')).first().waitFor();
  expect(await accessibilityViolations(page)).toEqual([]);
});

it('shows the voice note as a player from its short-lived link, with its transcript labelled under it', async () => {
  const player = page.getByLabel('Mensagem de voz');
  await player.waitFor();
  const source = await player.getAttribute('src');
  expect(new URL(source!).searchParams.get('X-Amz-Expires')).toMatch(/^\d+$/);
  await page.getByText(`Transcrição: ${VOICE_NOTE_WORDS}`).waitFor();
  expect(browser.problems).toEqual([]);
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
