import type { Operator } from '../../domain/operator';
import { MAX_NOTE_CHARS, type OperatorNote } from '../../domain/operator-note';
import { isoMicros } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { OperatorNoteRepository, Page, PageRequest } from '../../ports/repositories';
import type { OperatorAuditTrail } from './operator-audit';
import type { OperatorInbox } from './operator-inbox';
import { OperatorActionError } from './operator-errors';

export interface OperatorNotesDependencies {
  /** Who may read the conversation may read and add its notes. */
  readonly conversations: Pick<OperatorInbox, 'readable'>;
  readonly notes: OperatorNoteRepository;
  readonly audit: OperatorAuditTrail;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * Private notes between operators on a conversation: whoever may read the conversation reads its
 * notes and adds one. Nothing here sends or reaches the agent; the audit records that a note was
 * written, never its text (every admin reads the audit).
 */
export class OperatorNotes {
  constructor(private readonly deps: OperatorNotesDependencies) {}

  async list(operator: Operator, customerId: string, page: PageRequest): Promise<Page<OperatorNote>> {
    await this.deps.conversations.readable(operator, customerId);
    return this.deps.notes.list(customerId, page);
  }

  async add(operator: Operator, customerId: string, text: string): Promise<OperatorNote> {
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.length > MAX_NOTE_CHARS) throw new OperatorActionError('invalid', `A note is 1 to ${MAX_NOTE_CHARS} characters, not blank`);
    const session = await this.deps.conversations.readable(operator, customerId);
    const note: OperatorNote = {
      customerId,
      noteId: this.deps.ids.newId(),
      sessionId: session.sessionId,
      authorPhone: operator.phone,
      authorName: operator.name,
      text: trimmed,
      createdAt: isoMicros(this.deps.clock.now()),
    };
    await this.deps.notes.add(note);
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.note', resourceType: 'conversation', resourceId: customerId, details: { noteId: note.noteId } });
    return note;
  }
}
