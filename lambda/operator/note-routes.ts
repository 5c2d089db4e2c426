import type { OperatorNote as NoteAnswer } from '../../lib/contract/operator-api';
import type { OperatorNotes } from '../core/application/operator/operator-notes';
import { MAX_NOTE_CHARS, type OperatorNote } from '../core/domain/operator-note';
import { created, ok, pageOf, route, type Route, signedInOf } from './router';

/** Private notes between operators on a conversation (docs/OPERATOR-API.md#notes). */
export function noteRoutes(notes: OperatorNotes): Route[] {
  return [
    route('GET conversations/:customerId/notes', 'operator', async (context) => {
      const page = await notes.list(signedInOf(context).operator, context.params.customerId, pageOf(context.event));
      return ok({ items: page.items.map(noteAnswer), cursor: page.cursor });
    }),
    route('POST conversations/:customerId/notes', 'operator', async (context) => {
      const { text } = context.body({ text: { type: 'string', required: true, maxLength: MAX_NOTE_CHARS } });
      return created({ note: noteAnswer(await notes.add(signedInOf(context).operator, context.params.customerId, text)) });
    }),
  ];
}

function noteAnswer(note: OperatorNote): NoteAnswer {
  return { noteId: note.noteId, sessionId: note.sessionId, author: { phone: note.authorPhone, name: note.authorName }, text: note.text, at: note.createdAt };
}
