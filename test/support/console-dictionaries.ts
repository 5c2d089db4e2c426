import { en } from '../../console/src/dictionaries/en';
import { es } from '../../console/src/dictionaries/es';
import { pt } from '../../console/src/dictionaries/pt';
import { addDictionary, type Dictionary, type Language } from '../../console/src/i18n';

/** Every language's words, imported directly (in a browser each is a script the console fetches). */
export const DICTIONARIES: Readonly<Record<Language, Dictionary>> = { pt, en, es };

/** What `loadLanguage` does in a browser, for every language at once: jest cannot run the console's dynamic imports. */
export function addEveryDictionary(): void {
  for (const [language, dictionary] of Object.entries(DICTIONARIES)) addDictionary(language as Language, dictionary);
}
