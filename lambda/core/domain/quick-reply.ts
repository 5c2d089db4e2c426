import type { IsoTimestamp } from './timestamps';

/** The operational setting that holds the quick replies (edited through their own admin calls). */
export const QUICK_REPLIES_CONFIG_KEY = 'quick_replies';
export const MAX_QUICK_REPLIES = 200;
export const MAX_QUICK_REPLY_TITLE_CHARS = 60;
export const MAX_QUICK_REPLY_TEXT_CHARS = 1024;
/** Where a quick reply takes the customer's name when an operator inserts it. */
export const QUICK_REPLY_NAME_PLACEHOLDER = '{name}';

/**
 * A text an admin prepared for operators to insert in a reply (`/` in the reply box). It is only
 * inserted: the operator reads it, may change it, and sends it as their own reply.
 */
export interface QuickReply {
  /** A slug: what the operator types after `/` to find it. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly updatedBy: string;
  readonly updatedAt: IsoTimestamp;
}

/** The stored quick replies, keeping only well-formed entries, in id order. */
export function quickRepliesFrom(stored: unknown): QuickReply[] {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return [];
  return Object.entries(stored as Record<string, unknown>)
    .flatMap(([id, raw]) => {
      const entry = raw as Record<string, unknown> | null;
      if (!isQuickReplyId(id) || entry === null || typeof entry !== 'object' || typeof entry.title !== 'string' || typeof entry.text !== 'string') return [];
      return [{ id, title: entry.title, text: entry.text, updatedBy: String(entry.updated_by ?? ''), updatedAt: String(entry.updated_at ?? '') }];
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}

const ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Lower-case letters, digits, `_` and `-`, 1–40, starting with a letter or digit. */
export function isQuickReplyId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** What to change in a quick reply, or `undefined` when it can be stored. */
export function quickReplyProblem(id: string, title: string, text: string): string | undefined {
  if (!isQuickReplyId(id)) return 'The id is 1 to 40 lower-case letters, digits, "_" or "-", starting with a letter or digit';
  if (title.trim() === '' || title.length > MAX_QUICK_REPLY_TITLE_CHARS) return `The title is 1 to ${MAX_QUICK_REPLY_TITLE_CHARS} characters, not blank`;
  if (text.trim() === '' || text.length > MAX_QUICK_REPLY_TEXT_CHARS) return `The text is 1 to ${MAX_QUICK_REPLY_TEXT_CHARS} characters, not blank`;
  return undefined;
}
