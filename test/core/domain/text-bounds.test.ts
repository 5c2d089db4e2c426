import { mediaLinkResponse } from '../../../lambda/core/domain/media';
import { cutOnCodePoints, displayableFileName, isDisplayableFileName } from '../../../lambda/core/domain/text-bounds';
import { newestWithin } from '../../../lambda/core/domain/turn';

const LONE_SURROGATE = /\p{Cs}/u;

describe('cutOnCodePoints', () => {
  test('keeps a text within the bound whole, and cuts a longer one to the bound', () => {
    expect(cutOnCodePoints('Olá', 4096)).toBe('Olá');
    expect(cutOnCodePoints('x'.repeat(5000), 4096)).toBe('x'.repeat(4096));
  });

  test('never splits a surrogate pair: 4,095 letters and an emoji keep the letters only', () => {
    const cut = cutOnCodePoints(`${'a'.repeat(4095)}😀`, 4096);
    expect(cut).toBe('a'.repeat(4095));
    expect(LONE_SURROGATE.test(cut)).toBe(false);
    expect(cutOnCodePoints('😀😀😀', 4)).toBe('😀😀');
    expect(cutOnCodePoints('😀😀😀', 3)).toBe('😀');
  });

  test('whatever the bound, the result is well-formed and within it', () => {
    const text = 'a😀b🧬ção👍🏽c';
    for (let bound = 0; bound <= text.length + 1; bound++) {
      const cut = cutOnCodePoints(text, bound);
      expect(cut.length).toBeLessThanOrEqual(bound);
      expect(LONE_SURROGATE.test(cut)).toBe(false);
      expect(text.startsWith(cut)).toBe(true);
    }
  });

  test('the history the agent reads cuts its newest entry the same way', () => {
    const [entry] = newestWithin([{ text: `${'a'.repeat(9)}😀` }], 10);
    expect(entry.text).toBe('a'.repeat(9));
  });
});

describe('file names', () => {
  test('a bidirectional override or another invisible character makes a name show something else: refused, or taken out', () => {
    const reversed = 'fatura\u202Efdp.exe';
    expect(isDisplayableFileName(reversed)).toBe(false);
    expect(displayableFileName(reversed)).toBe('faturafdp.exe');
    for (const invisible of ['\u200B', '\u200E', '\u2066', '\u2069', '\uFEFF', '\u0007']) expect(isDisplayableFileName(`exame${invisible}.pdf`)).toBe(false);
  });

  test('names in any script, with spaces and emoji, are kept as they are', () => {
    for (const name of ['Exame de sangue.pdf', 'تحليل.pdf', 'receita 😀.jpg', '检查结果.pdf']) {
      expect(isDisplayableFileName(name)).toBe(true);
      expect(displayableFileName(name)).toBe(name);
    }
  });
});

describe('what a link to an attachment makes the browser do', () => {
  test('a photo, a GIF, a sticker show in place as exactly their type', () => {
    for (const [mimeType, type] of [['image/jpeg', 'image/jpeg'], ['IMAGE/PNG; charset=x', 'image/png'], ['image/gif', 'image/gif'], ['image/webp', 'image/webp']]) {
      expect(mediaLinkResponse({ kind: 'image', mimeType })).toEqual({ contentDisposition: `inline; filename="image"; filename*=UTF-8''image`, contentType: type });
    }
  });

  test('an SVG, an HTML page, a PDF, an audio, a file of no type download under their name', () => {
    for (const mimeType of ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'application/pdf', 'audio/ogg', undefined]) {
      expect(mediaLinkResponse({ kind: 'document', mimeType, filename: 'exame.pdf' })).toEqual({ contentDisposition: `attachment; filename="exame.pdf"; filename*=UTF-8''exame.pdf` });
    }
  });

  test('the name is the file’s as it shows, quoted safely, exact in UTF-8', () => {
    const { contentDisposition } = mediaLinkResponse({ kind: 'document', mimeType: 'application/pdf', filename: 'fatura "março"\u202Efdp.exe' });
    expect(contentDisposition).toBe(`attachment; filename="fatura _mar_o_fdp.exe"; filename*=UTF-8''fatura%20%22mar%C3%A7o%22fdp.exe`);
  });
});
