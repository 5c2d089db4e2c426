// Whatever a customer writes around their own name and number, the pseudonymised text keeps no
// word of the name (in any case, accented or not) and no 8-digit stretch of the number, however the
// number is grouped and punctuated.
import fc from 'fast-check';
import { pseudonymiser } from '../../../lambda/core/domain/pseudonymised-text';

const customerId = '5521976543210';
const pseudonymise = pseudonymiser({ customerId, names: ['Maria José Araújo'], recorded: {} });
const folded = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');

/** The name's words as a customer may type them: any case, with or without their accents. */
const nameWord = fc.tuple(fc.constantFrom('Maria', 'José', 'Jose', 'Araújo', 'Araujo'), fc.constantFrom('lower', 'upper', 'as is')).map(([word, casing]) => (casing === 'lower' ? word.toLowerCase() : casing === 'upper' ? word.toUpperCase() : word));

/** The customer's number, with or without country and area code, its digits grouped and joined by any of the usual separators. */
const writtenNumber = fc
  .tuple(fc.constantFrom(customerId, customerId.slice(2), customerId.slice(4)), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }), fc.constantFrom(' ', '-', '.', ' - ', '/', ''), fc.boolean())
  .map(([digits, groups, separator, plus]) => {
    const parts: string[] = [];
    let rest = digits;
    for (const size of groups) {
      if (rest === '') break;
      parts.push(rest.slice(0, size));
      rest = rest.slice(size);
    }
    if (rest !== '') parts.push(rest);
    return `${plus && digits === customerId ? '+' : ''}${parts.join(separator)}`;
  });

const filler = fc.constantFrom('Oi', 'meu nome é', 'ligue no', ',', '.', 'obrigada!', 'quero marcar', '\n', '(', ')', 'e-mail', 'aqui é a', '🙂');

it('leaves no word of the name and no 8 digits of the number in any text', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(filler, nameWord, writtenNumber), { minLength: 1, maxLength: 12 }), (pieces) => {
      const masked = folded(pseudonymise(pieces.join(' ')));
      for (const word of ['maria', 'jose', 'araujo']) expect(masked).not.toMatch(new RegExp(`(?<!\\p{L})${word}(?!\\p{L})`, 'u'));
      const digits = masked.replace(/\D/g, '');
      for (let start = 0; start + 8 <= customerId.length; start++) expect(digits).not.toContain(customerId.slice(start, start + 8));
    }),
    { numRuns: 500 },
  );
});
