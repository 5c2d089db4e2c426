import type { OperatorNote } from '../../../domain/operator-note';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { ENTITY_TYPE, EntityType, operatorNoteKey, TTL } from '../keys';
import { ItemReader } from './item-reader';

export function operatorNoteToItem(note: OperatorNote): Item {
  return {
    ...operatorNoteKey(note.customerId, note.createdAt, note.noteId),
    [ENTITY_TYPE]: EntityType.operatorNote,
    phone_number: note.customerId,
    note_id: note.noteId,
    session_id: note.sessionId,
    author_phone: note.authorPhone,
    author_name: note.authorName,
    text: note.text,
    created_at: isoMicros(note.createdAt),
  };
}

export function operatorNoteFromItem(item: Item): OperatorNote {
  const read = new ItemReader(item, EntityType.operatorNote);
  // Set when the conversation closes, as its messages' (the repository filters on it).
  read.raw(TTL);
  return {
    customerId: read.string('phone_number'),
    noteId: read.string('note_id'),
    sessionId: read.string('session_id'),
    authorPhone: read.string('author_phone'),
    authorName: read.optionalString('author_name'),
    text: read.string('text'),
    createdAt: read.timestamp('created_at'),
  };
}
