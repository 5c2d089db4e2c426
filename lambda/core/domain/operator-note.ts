import type { IsoTimestamp } from './timestamps';

/** Longest note an operator may write: a paragraph or two, never a document. */
export const MAX_NOTE_CHARS = 2000;

/**
 * What an operator wrote about a conversation for the other operators. Never sent to the customer
 * and never shown to the agent: it lives beside the history, not in it, in the customer's
 * partition, so the customer's erasure deletes it and the export lists it.
 */
export interface OperatorNote {
  readonly customerId: string;
  readonly noteId: string;
  /** The session the conversation was in when the note was written. */
  readonly sessionId: string;
  readonly authorPhone: string;
  /** The author's name as the operators list had it when the note was written. */
  readonly authorName?: string;
  readonly text: string;
  readonly createdAt: IsoTimestamp;
}
