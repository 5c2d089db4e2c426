import type { ScenarioLocale } from './scenario';

/**
 * Frequent short words of each language the pipeline speaks, none shared by two of them: a reply's
 * language is the one whose words it uses most. Enough to tell Portuguese, English and Spanish
 * replies apart; a reply with none of them has no language.
 */
const FUNCTION_WORDS: Readonly<Record<ScenarioLocale, ReadonlySet<string>>> = {
  'pt-BR': new Set(['não', 'você', 'vocês', 'uma', 'obrigado', 'obrigada', 'olá', 'com', 'para', 'são', 'está', 'também', 'mais', 'pessoa', 'atendimento', 'seu', 'sua', 'isso', 'ao', 'dos', 'das', 'em', 'na', 'é', 'recebi', 'vou', 'já', 'agora', 'pode', 'muito', 'então', 'aqui', 'como', 'ajudar', 'oi', 'bom', 'dia', 'tarde']),
  'en': new Set(['the', 'you', 'your', 'and', 'is', 'are', 'with', 'for', 'to', 'of', 'will', 'thanks', 'thank', 'hello', 'hi', 'please', 'person', 'can', 'we', 'this', 'that', 'it', 'be', 'have', 'i', 'am', 'our', 'help', 'here', 'now', 'an', 'in', 'on', 'received']),
  'es': new Set(['usted', 'gracias', 'hola', 'con', 'también', 'persona', 'su', 'sus', 'eso', 'al', 'del', 'los', 'las', 'el', 'en', 'es', 'una', 'muy', 'aquí', 'ahora', 'puede', 'cómo', 'ayudar', 'buenos', 'días', 'pero', 'y', 'lo', 'le', 'hay', 'recibí', 'atención']),
};

/** The language whose words the text uses most, or `undefined` when it uses none (or two equally). */
export function replyLanguage(text: string): ScenarioLocale | undefined {
  const words = text.toLocaleLowerCase().match(/\p{L}+/gu) ?? [];
  const scores = (Object.keys(FUNCTION_WORDS) as ScenarioLocale[]).map((locale) => ({ locale, score: words.filter((word) => FUNCTION_WORDS[locale].has(word)).length }));
  const [best, second] = scores.sort((a, b) => b.score - a.score);
  return best.score > 0 && best.score > second.score ? best.locale : undefined;
}
