/**
 * Bounds on text that is stored or shown: a length cut that never leaves half a character, and a
 * file name that shows what it says.
 */

/**
 * `text` cut to at most `maxLength` UTF-16 units (what `length` counts, and what WhatsApp's limits
 * count) on a code point boundary: a surrogate pair that would straddle the cut is left out whole,
 * so the result is always well-formed Unicode, storable as UTF-8.
 */
export function cutOnCodePoints(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const end = Math.max(0, maxLength);
  const splitsPair = end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end));
  return text.slice(0, splitsPair ? end - 1 : end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Characters a file name must not carry: controls (`\p{Cc}`) and format characters (`\p{Cf}`: the
 * bidirectional overrides and isolates, zero-width characters). An override makes a phone or a
 * browser show `fatura\u202Efdp.exe` as `fatura` + `exe.pdf`: a name that says another type than it is.
 */
const INVISIBLE_IN_NAMES = /[\p{Cc}\p{Cf}]/gu;

/** Whether `name` shows exactly what it is: none of the characters that reorder or hide text. */
export function isDisplayableFileName(name: string): boolean {
  return name.search(INVISIBLE_IN_NAMES) === -1;
}

/** `name` without the characters that reorder or hide text (a customer's file name is kept, made plain). */
export function displayableFileName(name: string): string {
  return name.replace(INVISIBLE_IN_NAMES, '');
}
