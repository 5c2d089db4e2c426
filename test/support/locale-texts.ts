import { Locale, LOCALE_PRESETS } from '../../lib/contract';

/** The pt-BR preset's texts cut at their placeholders: the words a message built from one of them always carries. */
const PORTUGUESE_FRAGMENTS = Object.values(LOCALE_PRESETS[Locale.PT_BR].texts)
  .flatMap((text) => text.split(/\{\w+\}/))
  .map((fragment) => fragment.replace(/^[\s.:|]+|[\s.:|]+$/g, ''))
  .filter((fragment) => fragment.length >= 6);

/** The fragments of the pt-BR preset found in `text`: none in what a pipeline of another locale writes or sends. */
export function portugueseFragmentsIn(text: string): string[] {
  return PORTUGUESE_FRAGMENTS.filter((fragment) => text.includes(fragment));
}
