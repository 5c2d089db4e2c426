import { cutOnCodePoints } from '../../domain/text-bounds';

/** WhatsApp's limit on a text message body (`text.body`). Counted in UTF-16 units, which never undercounts. */
export const WHATSAPP_TEXT_LIMIT = 4096;

/** Appended to the last message when a reply is longer than `maxParts` messages. */
export const TRUNCATION_MARKER = ' […]';

export interface SplitOptions {
  readonly limit?: number;
  /** At most this many messages; the last one is truncated with {@link TRUNCATION_MARKER}. */
  readonly maxParts?: number;
}

const DEFAULT_MAX_PARTS = 5;

/**
 * Splits a reply into WhatsApp-sized messages, in order, cutting at the most natural boundary
 * available in the second half of each message: a paragraph, then a line, then a sentence, then a
 * word; a single overlong word is cut without breaking a surrogate pair. A runaway reply is capped at
 * `maxParts` messages so one turn cannot flood a customer.
 */
export function splitWhatsAppText(text: string, options: SplitOptions = {}): string[] {
  const limit = options.limit ?? WHATSAPP_TEXT_LIMIT;
  const maxParts = options.maxParts ?? DEFAULT_MAX_PARTS;
  if (limit <= TRUNCATION_MARKER.length) throw new RangeError(`limit must exceed ${TRUNCATION_MARKER.length}`);
  if (maxParts < 1) throw new RangeError('maxParts must be at least 1');

  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    if (parts.length === maxParts - 1) {
      const room = limit - TRUNCATION_MARKER.length;
      parts.push(rest.slice(0, naturalCut(rest, room)).trimEnd() + TRUNCATION_MARKER);
      return parts;
    }
    const cut = naturalCut(rest, limit);
    const part = rest.slice(0, cut).trimEnd();
    if (part.length > 0) parts.push(part);
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/** The length of the first part of `text` (longer than `limit`): at most `limit`, at least 1. */
function naturalCut(text: string, limit: number): number {
  // One character past the limit is inspected: a separator right there still ends a full part.
  const window = text.slice(0, limit + 1);
  const notBefore = Math.floor(limit / 2);
  const candidates = [
    window.lastIndexOf('\n\n'),
    window.lastIndexOf('\n'),
    lastSentenceEnd(window, limit),
  ];
  const preferred = candidates.find((index) => index >= notBefore && index <= limit);
  if (preferred !== undefined) return preferred;

  const wordBoundary = lastWhitespace(window);
  if (wordBoundary > 0) return wordBoundary;

  return cutOnCodePoints(text, limit).length;
}

/** Index just after the last sentence-ending punctuation that is followed by whitespace. */
function lastSentenceEnd(window: string, limit: number): number {
  let found = -1;
  for (const match of window.matchAll(/[.!?…](?=\s)/g)) {
    const end = match.index + 1;
    if (end <= limit) found = end;
  }
  return found;
}

function lastWhitespace(window: string): number {
  for (let index = window.length - 1; index > 0; index--) {
    if (/\s/.test(window[index])) return index;
  }
  return -1;
}
