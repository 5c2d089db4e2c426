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
