import { useState } from 'preact/hooks';
import { useConsole } from '../context';
import { describeFailure, type Feedback, FeedbackLine } from './common';

/** What the picker offers: the types WhatsApp sends as an image or a document and the operator API takes. */
const ACCEPTED_TYPES = 'image/jpeg,image/png,application/pdf';

/**
 * The composer's attach button: a file input with a visible label. The file picked goes to the
 * customer at once (the operator API refuses, in words the console shows, a file too large, of a
 * type not sent, outside the 24-hour window or in another operator's conversation).
 */
export function AttachmentPicker({ customerId, onSent }: { readonly customerId: string; readonly onSent: () => Promise<void> }) {
  const { t, api } = useConsole();
  const [sending, setSending] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const pick = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (file === undefined) return;
    setSending(true);
    setFeedback({ kind: 'ok', text: t('attach.sending', { name: file.name }) });
    try {
      await api.attach(customerId, file);
      setFeedback({ kind: 'ok', text: t('attach.sent', { name: file.name }) });
      await onSent();
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'attach') });
    } finally {
      // The same file can be picked again after a refusal.
      input.value = '';
      setSending(false);
    }
  };
  return (
    <div class="attach">
      <label for="attach-file">
        {t('attach.label')}
      </label>
      <input id="attach-file" type="file" accept={ACCEPTED_TYPES} disabled={sending} aria-describedby="attach-hint" onChange={(event) => void pick(event.currentTarget as HTMLInputElement)} />
      <p id="attach-hint" class="hint">
        {t('attach.hint')}
      </p>
      <FeedbackLine feedback={feedback} />
    </div>
  );
}
