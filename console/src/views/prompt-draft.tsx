import { useState } from 'preact/hooks';
import type { EvaluationRun, PromptDraft, PromptVersion } from '../../../lib/contract/operator-api';
import type { AdminApi } from '../admin-api';
import { ApiError } from '../api';
import { useConsole } from '../context';
import type { MessageKey } from '../i18n';
import { GATE_OVERRIDE_REASON_MAX_CHARACTERS } from '../../../lib/contract/operator-setting-limits';
import { gateRefusalOf, isOverrideReason, type GateRefusal, type PublishOutlook } from '../prompt-gate';
import { describeFailure, FeedbackLine, formatTime, type Feedback } from './common';
import { ConfirmDialog } from './confirm-dialog';
import { PromptDiff } from './prompt-history';

export interface DraftEditorProps {
  readonly admin: AdminApi;
  readonly id: string;
  readonly current: PromptVersion | undefined;
  /** The draft not yet published, if there is one. */
  readonly draft: PromptDraft | undefined;
  /** The version of the prompt's newest draft, published or not (0: none yet): a save is the one after it. */
  readonly draftVersion: number;
  /** What the agent answers with before the first version (the library's default), for the diff. */
  readonly start: string | undefined;
  readonly onSaved: () => Promise<void>;
}

/** The prompt's text as the admin edits it: saved as a draft, which customers never meet until it is published. */
export function DraftEditor({ admin, id, current, draft, draftVersion, start, onSaved }: DraftEditorProps) {
  const { t, language } = useConsole();
  const [edited, setEdited] = useState<string | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const saved = draft?.content ?? current?.content ?? '';
  const text = edited ?? saved;
  const save = async () => {
    try {
      const answer = await admin.saveDraft(id, text, draftVersion);
      setEdited(undefined);
      setFeedback({ kind: 'ok', text: t('draft.saved', { version: answer?.version ?? '' }) });
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'saveDraft') });
    }
    await onSaved();
  };
  return (
    <>
      <label for="prompt-content">{t('prompts.content', { id })}</label>
      <textarea id="prompt-content" rows={10} value={text} onInput={(event) => setEdited((event.currentTarget as HTMLTextAreaElement).value)} />
      <button type="button" class="primary" disabled={text.trim() === '' || text === saved} onClick={save}>
        {t('draft.save')}
      </button>
      <FeedbackLine feedback={feedback} />
      {draft !== undefined && (
        <>
          <p class="draft-summary">{t('draft.summary', { version: draft.version, at: formatTime(draft.createdAt, language), author: draft.author })}</p>
          <PromptDiff
            diff={{
              heading: current === undefined ? t('draft.diffFromStart', { version: draft.version }) : t('draft.diff', { version: draft.version, current: current.version }),
              from: current?.content ?? start ?? '',
              to: draft.content,
            }}
          />
        </>
      )}
    </>
  );
}

const OUTLOOK_TEXT: Readonly<Record<PublishOutlook, MessageKey>> = {
  emptySuite: 'publish.emptySuite',
  running: 'publish.running',
  notEvaluated: 'publish.notEvaluated',
  regressions: 'publish.regressions',
  passes: 'publish.passes',
};

const REFUSAL_TEXT: Readonly<Record<GateRefusal, MessageKey>> = {
  evaluation_regression: 'publish.refusedRegression',
  not_evaluated: 'publish.refusedNotEvaluated',
};

export interface DraftPublisherProps {
  readonly admin: AdminApi;
  readonly id: string;
  readonly draft: PromptDraft;
  readonly currentVersion: number;
  readonly outlook: PublishOutlook;
  /** The run the gate reads, when there is one. */
  readonly run: EvaluationRun | undefined;
  /** Says so where it outlives this control: a published draft has nothing left to publish. */
  readonly onPublished: (published: PromptVersion) => Promise<void>;
}

/**
 * Publishes the draft as the prompt's next version. When the gate refuses (no finished run, or a
 * scenario the current version passes and the draft fails), the console says why and offers the
 * override, which needs a written reason the audit keeps.
 */
export function DraftPublisher({ admin, id, draft, currentVersion, outlook, run, onPublished }: DraftPublisherProps) {
  const { t } = useConsole();
  const [refusal, setRefusal] = useState<GateRefusal | undefined>(undefined);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const publish = async (overrideReason?: string) => {
    setBusy(true);
    try {
      const published = await admin.publishDraft(id, { draftVersion: draft.version, expectedVersion: currentVersion, ...(overrideReason === undefined ? {} : { overrideReason }) });
      setRefusal(undefined);
      setReason('');
      setFeedback(undefined);
      await onPublished(published);
    } catch (error) {
      const gate = error instanceof ApiError ? gateRefusalOf(error.status, error.code) : undefined;
      if (gate !== undefined && overrideReason === undefined) {
        setFeedback(undefined);
        setRefusal(gate);
      } else {
        setRefusal(undefined);
        setFeedback({ kind: 'error', text: describeFailure(t, error, 'publish') });
      }
    } finally {
      setBusy(false);
    }
  };
  const regressions = run?.regressions ?? [];
  return (
    <div class="draft-publish">
      <p>{t(OUTLOOK_TEXT[outlook], { regressions: regressions.join(', ') })}</p>
      <button type="button" class="primary" disabled={busy} onClick={() => publish()}>
        {t('publish.button', { version: draft.version })}
      </button>
      <FeedbackLine feedback={feedback} />
      <ConfirmDialog
        open={refusal !== undefined}
        heading={t('publish.overrideHeading', { version: draft.version })}
        confirmLabel={t('publish.overrideConfirm')}
        cancelLabel={t('publish.cancel')}
        confirmDisabled={busy || !isOverrideReason(reason)}
        onCancel={() => setRefusal(undefined)}
        onConfirm={() => void publish(reason.trim())}
      >
        {refusal !== undefined && <p>{t(REFUSAL_TEXT[refusal], { regressions: regressions.join(', ') })}</p>}
        <label for="override-reason">{t('publish.reason')}</label>
        <textarea id="override-reason" rows={3} maxLength={GATE_OVERRIDE_REASON_MAX_CHARACTERS} value={reason} onInput={(event) => setReason((event.currentTarget as HTMLTextAreaElement).value)} />
      </ConfirmDialog>
    </div>
  );
}
