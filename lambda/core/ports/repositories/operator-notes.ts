import type { OperatorNote } from '../../domain/operator-note';
import type { Page, PageRequest } from './paging';

/** Operators' private notes on a customer's conversation, across sessions. */
export interface OperatorNoteRepository {
  /** Writes a new note (its id is new: never overwrites one). */
  add(note: OperatorNote): Promise<void>;
  /** The customer's notes, newest first. */
  list(customerId: string, page?: PageRequest): Promise<Page<OperatorNote>>;
}
