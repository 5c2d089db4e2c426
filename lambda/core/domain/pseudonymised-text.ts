/**
 * A customer's texts made safe to keep where the customer cannot be erased from (a scenario file in
 * a repository, a CI log): what names them is replaced by a placeholder (docs/PRIVACY.md, "A
 * conversation as a scenario"). Over-masking is the safe side: a common word that is also the
 * customer's name is masked too.
 */

/** What the texts must not reveal about their customer. */
export interface CustomerIdentity {
  /** The customer id: a phone number in international format, or WhatsApp's business-scoped user id. */
  readonly customerId: string;
  /** The names the customer goes by (their WhatsApp profile name, the names the agent recorded): each whole, and each of their words. */
  readonly names: readonly string[];
  /** Other personal data the agent recorded, by field (`document_id`, `company`, `city`…): each value replaced by `[field]`. */
  readonly recorded: Readonly<Record<string, string>>;
}

/** The placeholders of what a pseudonymised text masks. */
export const MASKED = {
  name: '[name]',
  email: '[email]',
  /** The customer's own number, however it is written. */
  phone: '[phone]',
  /** Any other run of at least {@link MASKED_DIGITS} digits: a document, another phone, a card, a date. */
  number: '[number]',
  /** The customer's id when it is not a phone number. */
  customer: '[customer]',
} as const;

/** A digit run this long or longer is masked, whatever separates its groups: every phone, document or card number is. */
const MASKED_DIGITS = 8;

/** Joining words of names, never masked on their own ("Maria da Silva" masks Maria and Silva). */
const NAME_PARTICLES = new Set(['da', 'das', 'de', 'del', 'della', 'der', 'di', 'do', 'dos', 'du', 'e', 'la', 'las', 'le', 'los', 'van', 'von', 'y']);
/** Keys of recorded fields that hold a name (`name`, `nome`, `first_name`, `lastname`, `sobrenome`…). */
const NAME_FIELD = /(?:^|_)(?:first_?|last_?|full_?|sur|sobre)?(?:name|nome|nombre)(?:$|_)/;
const FIELD_KEY = /^[a-z][a-z0-9_]{0,39}$/;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** Digits in groups joined by at most three of space, `(`, `)`, `.`, `-` and `/`, with a leading `+` or `(`: `+55 (11) 98765-4321`. */
const DIGIT_RUN = /[+(]*\p{Nd}(?:[ \u00a0().\-/]{0,3}\p{Nd})*/gu;

/** The text of `identity`'s customer with their names, number, e-mail addresses, recorded data and long digit runs masked. */
export function pseudonymiser(identity: CustomerIdentity): (text: string) => string {
  const ownDigits = identity.customerId.replace(/\D/g, '');
  const isPhone = ownDigits.length >= MASKED_DIGITS && ownDigits === identity.customerId.replace(/^\+/, '');
  // Recorded values before names (a company named after its owner reads `[company]`); a whole name before its words.
  const masks = [
    ...Object.entries(identity.recorded)
      .filter(([, value]) => folded(value).trim().length >= 3)
      .map(([field, value]) => termMask([value], `[${FIELD_KEY.test(field) ? field : 'data'}]`)),
    termMask([...new Set(identity.names.flatMap(nameTermsOf))], MASKED.name),
    ...(isPhone ? [] : [termMask([identity.customerId], MASKED.customer)]),
  ].filter((mask) => mask !== undefined);
  return (text) => {
    const masked = masks.reduce((partly, mask) => maskTerms(partly, mask), text.replace(EMAIL, MASKED.email)).replace(/\[name\](?:[ \u00a0]+\[name\])+/g, MASKED.name);
    return masked.replace(DIGIT_RUN, (run) => {
      const digits = run.replace(/\D/g, '');
      if (digits.length < MASKED_DIGITS) return run;
      // A `(` the run opened and did not close stays: it opened the sentence's aside, not the number.
      const opened = (run.match(/\(/g)?.length ?? 0) > (run.match(/\)/g)?.length ?? 0) ? '(' : '';
      return opened + (isPhone && sameLine(digits, ownDigits) ? MASKED.phone : MASKED.number);
    });
  };
}

/**
 * Whether a written number is the customer's: the same last 8 digits, whatever comes before them (a
 * country or area code, or none; a Brazilian mobile's ninth digit, which WhatsApp's ids often leave out).
 */
function sameLine(written: string, own: string): boolean {
  return written.slice(-MASKED_DIGITS) === own.slice(-MASKED_DIGITS);
}

/** The names of a session's recorded fields that hold one, and the rest of its cadastral data (the identity's `recorded`). */
export function recordedIdentity(cadastral: Readonly<Record<string, unknown>>, qualification: Readonly<Record<string, unknown>>): Pick<CustomerIdentity, 'names' | 'recorded'> {
  // The agent records texts; a number some other writer stored is left to the digit-run rule.
  const texts = (fields: Readonly<Record<string, unknown>>) => Object.entries(fields).flatMap(([key, value]) => (typeof value === 'string' ? [[key, value] as const] : []));
  const names = [...texts(cadastral), ...texts(qualification)].filter(([key]) => NAME_FIELD.test(key.toLowerCase())).map(([, value]) => value);
  const recorded = Object.fromEntries(texts(cadastral).filter(([key]) => !NAME_FIELD.test(key.toLowerCase())));
  return { names, recorded };
}

/** A name whole and each of its words of two letters or more, particles left out. */
function nameTermsOf(name: string): string[] {
  const words = name.split(/[^\p{L}\p{M}'’]+/u).filter((word) => /\p{L}.*\p{L}/u.test(word) && !NAME_PARTICLES.has(folded(word)));
  return words.length === 0 ? [] : [name.trim(), ...words];
}

/** Whole-word occurrences of any of some terms in a folded text, and what replaces them. */
interface TermMask {
  readonly finder: RegExp;
  readonly placeholder: string;
}

/** The mask of `terms`, case and accents ignored; `undefined` when no term is left to find. */
function termMask(terms: readonly string[], placeholder: string): TermMask | undefined {
  const patterns = terms
    .map((term) => folded(term).trim())
    .filter((term) => term !== '')
    .sort((a, b) => b.length - a.length)
    .map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  if (patterns.length === 0) return undefined;
  return { finder: new RegExp(`(?<![\\p{L}\\p{N}])(?:${patterns.join('|')})(?![\\p{L}\\p{N}])`, 'gu'), placeholder };
}

/**
 * `text` with every occurrence the mask finds replaced by its placeholder (`joao` finds João,
 * `JOÃO` and `João`): the match runs on the folded text, and each folded character remembers where
 * it came from, so the original around it is kept as it was.
 */
function maskTerms(text: string, { finder, placeholder }: TermMask): string {
  const { foldedText, origins } = foldedWithOrigins(text);
  let result = '';
  let kept = 0;
  for (const match of foldedText.matchAll(finder)) {
    result += text.slice(kept, origins[match.index]) + placeholder;
    kept = origins[match.index + match[0].length];
  }
  return result + text.slice(kept);
}

/** The text without accents, in lower case, and for each of its UTF-16 units the offset in `text` of the character it came from (one more entry: the end). */
function foldedWithOrigins(text: string): { readonly foldedText: string; readonly origins: readonly number[] } {
  let foldedText = '';
  const origins: number[] = [];
  let offset = 0;
  for (const character of text) {
    const piece = folded(character);
    foldedText += piece;
    for (let unit = 0; unit < piece.length; unit++) origins.push(offset);
    offset += character.length;
  }
  origins.push(offset);
  return { foldedText, origins };
}

function folded(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}
