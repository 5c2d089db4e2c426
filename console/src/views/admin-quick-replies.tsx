import { useState } from 'preact/hooks';
import type { QuickReply } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';
import { ConfirmDialog } from './confirm-dialog';

const EMPTY = { id: '', title: '', text: '' };

/** The quick replies operators insert with `/`: an admin writes, edits and removes them. */
export function QuickRepliesScreen() {
  const { t, api } = useConsole();
  const { data, error, reload } = useRemote(() => api.quickReplies(), []);
  const [draft, setDraft] = useState(EMPTY);
  const [removing, setRemoving] = useState<QuickReply | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);

  const attempt = async (change: () => Promise<unknown>, done: 'quickReplies.saved' | 'quickReplies.removed') => {
    setBusy(true);
    try {
      await change();
      setFeedback({ kind: 'ok', text: t(done) });
      setDraft(EMPTY);
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'saveQuickReply') });
    } finally {
      setBusy(false);
      await reload();
    }
  };
  const field = (name: keyof typeof EMPTY) => ({
    id: `quick-reply-${name}`,
    value: draft[name],
    onInput: (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value }),
  });

  return (
    <Section heading={t('quickReplies.heading')}>
      <p>{t('quickReplies.hint')}</p>
      <LoadError error={error} />
      {data !== undefined && data.length === 0 && <p>{t('quickReplies.none')}</p>}
      <ul class="quick-replies">
        {(data ?? []).map((reply) => (
          <li key={reply.id}>
            <strong>/{reply.id}</strong> {reply.title}
            <p class="message-text">{reply.text}</p>
            <div class="actions">
              <button type="button" onClick={() => setDraft({ id: reply.id, title: reply.title, text: reply.text })}>
                {t('quickReplies.edit', { id: reply.id })}
              </button>
              <button type="button" class="danger" onClick={() => setRemoving(reply)}>
                {t('quickReplies.remove', { id: reply.id })}
              </button>
            </div>
          </li>
        ))}
      </ul>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void attempt(() => api.saveQuickReply(draft.id.trim(), { title: draft.title, text: draft.text }), 'quickReplies.saved');
        }}
      >
        <label for="quick-reply-id">{t('quickReplies.id')}</label>
        <input type="text" maxLength={40} pattern="[a-z0-9][a-z0-9_\-]{0,39}" required {...field('id')} />
        <label for="quick-reply-title">{t('quickReplies.title')}</label>
        <input type="text" maxLength={60} required {...field('title')} />
        <label for="quick-reply-text">{t('quickReplies.text')}</label>
        <textarea rows={3} maxLength={1024} required {...field('text')} />
        <button type="submit" class="primary" disabled={busy}>
          {t('quickReplies.save')}
        </button>
      </form>
      <FeedbackLine feedback={feedback} />
      <ConfirmDialog
        open={removing !== undefined}
        heading={t('quickReplies.confirmRemove', { id: removing?.id ?? '' })}
        confirmLabel={t('quickReplies.remove', { id: removing?.id ?? '' })}
        cancelLabel={t('close.cancel')}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          const reply = removing!;
          setRemoving(undefined);
          void attempt(() => api.removeQuickReply(reply.id), 'quickReplies.removed');
        }}
      />
    </Section>
  );
}
