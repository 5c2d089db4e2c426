import type { InboundTurn } from './inbound-turn';
import type { CustomerMessageSummary, Session } from './session';
import { type IsoTimestamp, toEpochMicros } from './timestamps';

/**
 * What an inbox row says about a conversation, kept on the session item the pipeline writes anyway
 * (the turn's result, the human inbox's append), so a list of conversations reads one index page and
 * no history per row.
 */

export type { CustomerMessageSummary };

/** Characters of a customer message a row shows: a line of the inbox, not the message. */
export const PREVIEW_CHARS = 120;
/** WhatsApp profile names are short; anything longer is cut rather than stored whole on every session write. */
export const MAX_PROFILE_NAME_CHARS = 80;
/** The agent's reason for a handoff, as a row and the conversation show it. */
export const MAX_HANDOFF_REASON_CHARS = 500;

/**
 * `text` cut to at most `max` characters at the last word boundary, with `…` when cut; a text with
 * no space in its first `max` characters is cut there. Never splits a surrogate pair.
 */
export function previewOf(text: string, max = PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const characters = [...flat];
  if (characters.length <= max) return flat;
  const head = characters.slice(0, max - 1).join('');
  const boundary = head.lastIndexOf(' ');
  return `${(boundary > 0 ? head.slice(0, boundary) : head).trimEnd()}…`;
}

/** The session with `turn` as the customer's last message, and the profile name it came with (a newer name wins). */
export function withCustomerMessage(session: Session, turn: Pick<InboundTurn, 'text' | 'profileName'>, at: IsoTimestamp): Session {
  return {
    ...session,
    lastCustomerMessage: { preview: previewOf(turn.text), at },
    ...(turn.profileName === undefined ? {} : { profileName: turn.profileName }),
  };
}

/**
 * The operators whose last open a session keeps: a team's day on one conversation, and a session
 * item of bounded size. An operator dropped from the marks sees the row unread again.
 */
export const MAX_SEEN_MARKS = 20;

/** Whether the customer wrote since `operatorPhone` last opened the conversation (or they never opened it). */
export function isUnreadFor(session: Pick<Session, 'lastCustomerMessage' | 'seenBy'>, operatorPhone: string): boolean {
  const wrote = session.lastCustomerMessage?.at;
  if (wrote === undefined) return false;
  const seen = session.seenBy?.[operatorPhone];
  return seen === undefined || toEpochMicros(seen) < toEpochMicros(wrote);
}

/** What opening the conversation writes: `operatorPhone`'s mark, and the oldest one it pushes out of the bound. */
export interface SeenMark {
  readonly operatorPhone: string;
  /** The time of the customer's last message as the operator opened the conversation: a message recorded later is unread, whatever its time. */
  readonly at: IsoTimestamp;
  readonly dropped?: string;
}

/** The mark `operatorPhone` opening the conversation writes; none while nothing is unread for them (an open conversation's polls write nothing). */
export function seenMarkOf(session: Pick<Session, 'lastCustomerMessage' | 'seenBy'>, operatorPhone: string): SeenMark | undefined {
  const at = session.lastCustomerMessage?.at;
  if (at === undefined || !isUnreadFor(session, operatorPhone)) return undefined;
  const others = Object.entries(session.seenBy ?? {}).filter(([phone]) => phone !== operatorPhone);
  if (others.length < MAX_SEEN_MARKS) return { operatorPhone, at };
  const [oldest] = others.reduce((a, b) => (toEpochMicros(a[1]) <= toEpochMicros(b[1]) ? a : b));
  return { operatorPhone, at, dropped: oldest };
}

/**
 * What an operator's conversation lists are as of now, for their `ETag`: the inbox's number, which
 * rises with every change of a row people's lists show, how often that operator's marks changed, and
 * for an admin's lists of the agent's conversations how often the agent's turns changed one.
 */
export interface InboxVersion {
  readonly version: number;
  readonly seenMarks: number;
  readonly agentActivity?: number;
}

/** How a name is compared in a search: lower case, without accents, single spaces ("José  Silva" → "jose silva"). */
export function searchableName(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The names an inbox search finds the conversation by: what the agent learned and the profile name. */
export function searchableNamesOf(session: Pick<Session, 'profileName'>, learnedName: string | undefined): string | undefined {
  const names = [learnedName, session.profileName].filter((name): name is string => name !== undefined && name.trim() !== '').map(searchableName);
  return names.length === 0 ? undefined : names.join(' | ');
}

/** What an inbox search looks for: a phone's first digits, or a part of a name. */
export type InboxSearch = { readonly phonePrefix: string } | { readonly name: string };

export const MAX_SEARCH_CHARS = 64;
/** Digits, with the `+`, spaces, dots, dashes and parentheses people type in phone numbers. */
const PHONE_LIKE = /^\+?[\d\s().-]+$/;
/** Letters (any script), digits, spaces and the marks names carry: nothing an expression could mean. */
const NAME_LIKE = /^[\p{L}\p{M}\d\s'’.-]+$/u;

/** The search `text` asks for, or why it is refused (a message that says what to change). */
export function inboxSearchOf(text: string): InboxSearch | { readonly refusal: string } {
  const trimmed = text.trim();
  if (trimmed === '' || [...trimmed].length > MAX_SEARCH_CHARS) return { refusal: `search must be 1 to ${MAX_SEARCH_CHARS} characters` };
  if (PHONE_LIKE.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, '');
    return digits.length < 2 ? { refusal: 'search by phone needs at least 2 digits' } : { phonePrefix: digits };
  }
  if (!NAME_LIKE.test(trimmed)) return { refusal: 'search must be a name (letters, spaces, apostrophes, dots, dashes) or a phone number (digits)' };
  const name = searchableName(trimmed);
  return [...name].length < 2 ? { refusal: 'search by name needs at least 2 letters' } : { name };
}
