import { useState } from 'preact/hooks';
import type { Ref } from 'preact';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, formatTime, LoadError, useRemote, type Feedback } from './common';

/** At most what the API keeps (2000 characters). */
const MAX_NOTE_CHARS = 2000;

/** Private notes between the people who work the conversation: never sent to the customer, never shown to the agent. */
export function ConversationNotes({ customerId, inputRef }: { readonly customerId: string; readonly inputRef: Ref<HTMLTextAreaElement> }) {
  const { t, api, language } = useConsole();
  const { data: notes, error, reload } = useRemote(() => api.notes(customerId), [customerId]);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (text.trim() === '') return;
    setBusy(true);
    try {
      await api.addNote(customerId, text);
      setText('');
      setFeedback({ kind: 'ok', text: t('notes.added') });
      await reload();
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'note') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="notes" aria-labelledby="notes-heading">
      <h3 id="notes-heading">{t('notes.heading')}</h3>
      <p class="hint">{t('notes.hint')}</p>
      <LoadError error={error} />
      {notes !== undefined && notes.length === 0 && <p>{t('notes.none')}</p>}
      <ul class="note-list">
        {(notes ?? []).map((note) => (
          <li key={note.noteId} class="note">
            <span class="message-author">{note.author.name ?? note.author.phone}</span>
            <p class="message-text">{note.text}</p>
            <span class="message-meta">{formatTime(note.at, language)}</span>
          </li>
        ))}
      </ul>
      <form onSubmit={submit}>
        <label for="note-text">{t('notes.label')}</label>
        <textarea id="note-text" ref={inputRef} rows={2} maxLength={MAX_NOTE_CHARS} value={text} onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)} />
        <button type="submit" disabled={busy || text.trim() === ''}>
          {t('notes.add')}
        </button>
      </form>
      <FeedbackLine feedback={feedback} />
    </section>
  );
}
