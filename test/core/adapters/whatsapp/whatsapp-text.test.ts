import fc from 'fast-check';
import { TRUNCATION_MARKER, WHATSAPP_TEXT_LIMIT, splitWhatsAppText } from '../../../../lambda/core/adapters/whatsapp/whatsapp-text';

describe('splitting a reply into WhatsApp messages', () => {
  it('keeps a text within the limit as one message, untouched', () => {
    const text = `  ${'a'.repeat(WHATSAPP_TEXT_LIMIT - 4)}  `;
    expect(splitWhatsAppText(text)).toEqual([text]);
  });

  it('prefers a paragraph break, then a line break, then a sentence end, then a word', () => {
    expect(splitWhatsAppText('First paragraph.\n\nSecond one here', { limit: 20 })).toEqual(['First paragraph.', 'Second one here']);
    expect(splitWhatsAppText('Line one is here\nand line two', { limit: 20 })).toEqual(['Line one is here', 'and line two']);
    expect(splitWhatsAppText('Short one. Then a longer sentence', { limit: 20 })).toEqual(['Short one.', 'Then a longer', 'sentence']);
    expect(splitWhatsAppText('alpha beta gamma delta epsilon', { limit: 12 })).toEqual(['alpha beta', 'gamma delta', 'epsilon']);
  });

  it('ignores a natural break too early in the message, so parts stay reasonably full', () => {
    const parts = splitWhatsAppText('Hi.\n' + 'word '.repeat(10), { limit: 30 });
    expect(parts[0].startsWith('Hi.\nword')).toBe(true);
  });

  it('cuts an overlong word without breaking a surrogate pair', () => {
    const text = 'a' + '😀'.repeat(10);
    const parts = splitWhatsAppText(text, { limit: 6 });
    expect(parts.join('')).toBe(text);
    expect(parts.every((part) => !/[\uD800-\uDBFF]$/.test(part) && !/^[\uDC00-\uDFFF]/.test(part))).toBe(true);
  });

  it('caps the number of messages and marks the truncation', () => {
    const parts = splitWhatsAppText('word '.repeat(100), { limit: 30, maxParts: 3 });
    expect(parts).toHaveLength(3);
    expect(parts[2].endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(parts[2].length).toBeLessThanOrEqual(30);
  });

  it('never loses or reorders words and never exceeds the limit (property)', () => {
    const words = fc.array(fc.stringMatching(/^[a-zà-ú0-9.,!?]{1,15}$/), { minLength: 1, maxLength: 200 });
    const separators = fc.constantFrom(' ', '\n', '\n\n', '. ');
    fc.assert(
      fc.property(words, separators, fc.integer({ min: 20, max: 200 }), (chosen, separator, limit) => {
        const text = chosen.join(separator);
        const parts = splitWhatsAppText(text, { limit, maxParts: 1_000 });
        expect(parts.every((part) => part.length > 0 && part.length <= limit)).toBe(true);
        expect(parts.join(' ').split(/\s+/).join(' ')).toBe(text.split(/\s+/).join(' '));
      }),
    );
  });
});
