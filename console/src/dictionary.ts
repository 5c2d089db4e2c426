import type { pt } from './dictionaries/pt';

/** A key of the console's words: Portuguese's dictionary names them, and every other language follows it. */
export type MessageKey = keyof typeof pt;
/** A language's words by key; each language has every key (the type says so, the i18n test checks the placeholders). */
export type Dictionary = Readonly<Record<MessageKey, string>>;
