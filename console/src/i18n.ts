/**
 * The console's words in Portuguese, English and Spanish. The console speaks the pipeline's locale
 * (the page's `lang`, which the operator function sets) until an operator picks another language;
 * the chosen language is the only thing the console keeps in localStorage. Each language's words are
 * a script of their own (`dictionaries/`), fetched when the console first speaks it: an operator
 * downloads one language, not three.
 */
import type { Dictionary, MessageKey } from './dictionary';
import type { Duration } from './view-model';

// The dictionaries' own type is a module of its own: they import it, and this module imports them.
export type { Dictionary, MessageKey } from './dictionary';
export type Language = 'pt' | 'en' | 'es';

// With the extension: the tests' type check resolves dynamic imports the way Node does; esbuild finds the .ts.
const DICTIONARY_SCRIPTS: Readonly<Record<Language, () => Promise<Dictionary>>> = {
  pt: () => import('./dictionaries/pt.js').then((script) => script.pt),
  en: () => import('./dictionaries/en.js').then((script) => script.en),
  es: () => import('./dictionaries/es.js').then((script) => script.es),
};

const loaded = new Map<Language, Dictionary>();

/** Fetches `language`'s words, once: {@link translator} speaks only a loaded language. */
export async function loadLanguage(language: Language): Promise<void> {
  if (!loaded.has(language)) addDictionary(language, await DICTIONARY_SCRIPTS[language]());
}

/** Makes `language` speak `dictionary` (what {@link loadLanguage} fetched, or a test's own import). */
export function addDictionary(language: Language, dictionary: Dictionary): void {
  loaded.set(language, dictionary);
}

/** Each language as the switch names it (in its own words) and as the page and number formats tag it. */
export const LANGUAGES: Readonly<Record<Language, { readonly name: string; readonly tag: string; readonly formatTag: string }>> = {
  pt: { name: 'Português', tag: 'pt-BR', formatTag: 'pt-BR' },
  en: { name: 'English', tag: 'en', formatTag: 'en-GB' },
  es: { name: 'Español', tag: 'es', formatTag: 'es-ES' },
};

/** The console's language for a page tag (the pipeline's locale: `pt-BR`, `en`, `es`); Portuguese for any other. */
export function languageOfTag(tag: string): Language {
  return (Object.keys(LANGUAGES) as Language[]).find((language) => LANGUAGES[language].tag === tag) ?? 'pt';
}
const STORAGE_KEY = 'console.language';

/** The part of localStorage the console uses. */
export interface PreferenceStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The language an operator picked, else `fallback` (the pipeline's). */
export function storedLanguage(storage: PreferenceStore | undefined, fallback: Language = 'pt'): Language {
  const stored = storage?.getItem(STORAGE_KEY);
  return stored !== null && stored !== undefined && Object.hasOwn(LANGUAGES, stored) ? (stored as Language) : fallback;
}

export function storeLanguage(storage: PreferenceStore | undefined, language: Language): void {
  storage?.setItem(STORAGE_KEY, language);
}

export type Translate = (key: MessageKey, params?: Readonly<Record<string, string | number>>) => string;

/** Whether the dictionaries have `key` (for keys made from codes the API sends, such as `error.<code>`). */
export function isMessageKey(key: string): key is MessageKey {
  // Every language has every key, so any loaded one answers for all; the console renders nothing before one is.
  const [dictionary] = loaded.values();
  return dictionary !== undefined && Object.hasOwn(dictionary, key);
}

/** Speaks `language`, which {@link loadLanguage} has loaded. */
export function translator(language: Language): Translate {
  const dictionary = loaded.get(language);
  if (dictionary === undefined) throw new Error(`The console's ${LANGUAGES[language].name} words are not loaded yet: await loadLanguage('${language}') first`);
  return (key, params = {}) => dictionary[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function formatDuration(t: Translate, { days, hours, minutes }: Duration): string {
  if (days > 0) return t('duration.days', { days, hours });
  if (hours > 0) return t('duration.hours', { hours, minutes });
  return t('duration.minutes', { minutes });
}
