import { consentCommandOf } from '../../../lambda/core/domain/privacy';
import { DEFAULT_HANDOFF_TEXTS, DEFAULT_LOCALE, FALLBACK_TEXT_DEFAULTS, HANDOFF_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_NAMES, Locale, LOCALE_PRESETS, misplacesLink, parseLocale } from '../../../lib/contract';
import { portugueseFragmentsIn } from '../../support/locale-texts';

const LOCALES = Object.values(Locale);
const PLACEHOLDERS = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map(([, name]) => name).sort();

describe('the locale presets', () => {
  it('are one per Locale, pt-BR the default', () => {
    expect(Object.keys(LOCALE_PRESETS).sort()).toEqual([...LOCALES].sort());
    expect(DEFAULT_LOCALE).toBe(Locale.PT_BR);
    expect(LOCALES.map(parseLocale)).toEqual(LOCALES);
    expect(parseLocale('pt')).toBeUndefined();
  });

  it('have every text, non-blank, with the placeholders of the pt-BR one', () => {
    const reference = LOCALE_PRESETS[Locale.PT_BR].texts;
    for (const locale of LOCALES) {
      const { texts } = LOCALE_PRESETS[locale];
      expect([locale, Object.keys(texts).sort()]).toEqual([locale, Object.keys(reference).sort()]);
      for (const [key, text] of Object.entries(texts) as [keyof typeof reference, string][]) {
        expect([locale, key, text.trim().length > 0 && text.length <= HANDOFF_TEXT_MAX_CHARACTERS]).toEqual([locale, key, true]);
        expect([locale, key, PLACEHOLDERS(text)]).toEqual([locale, key, PLACEHOLDERS(reference[key])]);
      }
      expect(misplacesLink(texts.operatorNotification) || misplacesLink(texts.loginLink)).toBe(false);
    }
  });

  it.each([Locale.EN, Locale.ES])('%s carries no text of the pt-BR preset', (locale) => {
    expect(portugueseFragmentsIn(Object.values(LOCALE_PRESETS[locale].texts).join('\n'))).toEqual([]);
  });

  it('give every handoff text the console names, and only those', () => {
    expect(Object.keys(DEFAULT_HANDOFF_TEXTS)).toEqual([...HANDOFF_TEXT_NAMES]);
  });

  it('keep the pt-BR texts as the documented defaults', () => {
    const { texts } = LOCALE_PRESETS[Locale.PT_BR];
    expect(FALLBACK_TEXT_DEFAULTS).toEqual({ turnFailed: texts.turnFailed, agentDeadline: texts.agentDeadline });
    expect(DEFAULT_HANDOFF_TEXTS.fallback).toBe(texts.handoffFallback);
  });

  it.each(LOCALES)('%s: the opt-out confirmation names an opt-in word of the same locale, and no word both opts out and in', (locale) => {
    const { texts, consentWords } = LOCALE_PRESETS[locale];
    expect(consentWords.optIn.some((word) => texts.optedOut.includes(word))).toBe(true);
    expect(consentWords.optOut.filter((word) => consentWords.optIn.includes(word))).toEqual([]);
    for (const word of consentWords.optOut) expect(consentCommandOf(word.toLowerCase(), consentWords)).toBe('opt_out');
    for (const word of consentWords.optIn) expect(consentCommandOf(`${word}!`, consentWords)).toBe('opt_in');
  });

  it('take each locale’s words only', () => {
    const words = (locale: Locale) => LOCALE_PRESETS[locale].consentWords;
    expect(consentCommandOf('unsubscribe', words(Locale.EN))).toBe('opt_out');
    expect(consentCommandOf('Baja', words(Locale.ES))).toBe('opt_out');
    expect(consentCommandOf('volver', words(Locale.ES))).toBe('opt_in');
    expect(consentCommandOf('PARAR', words(Locale.EN))).toBeUndefined();
    expect(consentCommandOf('voltar', words(Locale.ES))).toBeUndefined();
    // Without a locale, the default one's words, as before.
    expect(['PARAR', 'SAIR', 'STOP', 'VOLTAR', 'START', 'UNSUBSCRIBE'].map((word) => consentCommandOf(word))).toEqual(['opt_out', 'opt_out', 'opt_out', 'opt_in', 'opt_in', undefined]);
  });
});
