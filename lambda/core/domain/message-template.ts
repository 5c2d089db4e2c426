import { LINK_PLACEHOLDER } from '../../../lib/contract';

/**
 * Texts the pipeline sends with values filled in (the handoff notice, the login link), and the
 * rules that keep a value a customer controls from becoming part of the message's instructions.
 */

/** The longest customer-controlled value a message to staff carries (a name, a reason). */
export const CUSTOMER_VALUE_MAX_CHARACTERS = 60;

const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/**
 * Fills the template's `{placeholder}`s in one pass: each value is inserted as it is — never read
 * again for placeholders, and no `$` pattern of `String.replace` is expanded in it — and a
 * placeholder without a value stays as written.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (placeholder, name: string) => (Object.hasOwn(values, name) ? values[name] : placeholder));
}

/**
 * A value a customer controls as a message to staff may show it: plain words on one line, nothing
 * WhatsApp renders as a link, at most `maxCharacters`.
 *
 * - NFKC first, so look-alikes (full-width letters and dots, ligatures, circled letters) become the
 *   plain characters the rules below see;
 * - only letters, combining marks, digits, spaces and `' ’ - . ,` are kept: every other character —
 *   line breaks, control and format characters (bidi overrides, zero-width joiners), braces, `$`,
 *   `:`, `/`, `@`, `#`, `?`, `=`, WhatsApp's formatting marks `* _ ~` and the backtick, emoji —
 *   becomes a space;
 * - a dot or comma between two non-spaces becomes a space: no domain (`evil.example`, `www.x`) or
 *   e-mail address survives, and without `:`, `/` and `@` no URL can either;
 * - a run of more than 4 digits (a phone number, which WhatsApp makes tappable) keeps its first 4
 *   and ends in `…`;
 * - spaces collapse, and a longer result is cut and ends in `…`.
 */
export function inertCustomerText(value: string, maxCharacters = CUSTOMER_VALUE_MAX_CHARACTERS): string {
  const plain = value
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M}\p{N} '’.,-]+/gu, ' ')
    .replace(/(?<=\S)[.,](?=\S)/g, ' ')
    .replace(/\p{N}(?:[ -]?\p{N}){4,}/gu, (digits) => `${[...digits.replace(/[ -]/g, '')].slice(0, 4).join('')}…`)
    .replace(/\s+/g, ' ')
    .trim();
  const characters = [...plain];
  return characters.length <= maxCharacters ? plain : `${characters.slice(0, maxCharacters - 1).join('').trimEnd()}…`;
}

/**
 * The text of a message that carries a link of ours: `{link}` may only end the template, so the
 * link is always the last thing in the message and no value filled before it can stand in its
 * place. Where the template does not end with `{link}`, the link goes on a line of its own after
 * it; a `{link}` anywhere else is dropped.
 */
export function textEndingWithLink(template: string, values: Readonly<Record<string, string>>, link: string): string {
  const trimmed = template.trimEnd();
  const endsWithLink = trimmed.endsWith(LINK_PLACEHOLDER);
  const body = fillTemplate(endsWithLink ? trimmed.slice(0, -LINK_PLACEHOLDER.length) : trimmed, { ...values, link: '' });
  return endsWithLink ? `${body}${link}` : `${body.trimEnd()}\n${link}`;
}
