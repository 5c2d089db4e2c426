import { useMemo, useState } from 'preact/hooks';
import type { RedriveAnswer } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { DataTable } from './admin-lists';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';

/**
 * Turns that failed for good. A redrive is only offered after a dry run showed what it would do,
 * and it uses the same safe redrive as the command-line tool.
 */
export function DeadLettersScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data, error, reload } = useRemote(() => admin.deadLetters(), []);
  const [dryRun, setDryRun] = useState<RedriveAnswer | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  // Reading the queue hides its records for a moment (an SQS receive): while a dry run or the list's
  // refresh holds them, a redrive would find nothing, so the buttons wait for it.
  const [busy, setBusy] = useState(false);

  const run = async (asDryRun: boolean) => {
    setBusy(true);
    try {
      const result = await admin.redrive(asDryRun);
      if (asDryRun) {
        setDryRun(result);
        setFeedback(undefined);
      } else {
        setDryRun(undefined);
        setFeedback({ kind: 'ok', text: t('deadLetters.redriven', { result: JSON.stringify(result) }) });
      }
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'redrive') });
    }
    await reload();
    setBusy(false);
  };

  return (
    <Section heading={t('deadLetters.heading')}>
      <LoadError error={error} />
      {data !== undefined && (
        <>
          <p>{t('deadLetters.count', { count: data.items.length })}</p>
          <DataTable caption={t('deadLetters.heading')} items={data.items} />
        </>
      )}
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => run(true)}>
          {t('deadLetters.dryRun')}
        </button>
        <button type="button" class="danger" disabled={busy || dryRun === undefined} onClick={() => run(false)}>
          {t('deadLetters.redrive')}
        </button>
      </div>
      {dryRun === undefined ? <p>{t('deadLetters.redriveHint')}</p> : <pre class="dry-run" role="status">{t('deadLetters.dryRunResult', { result: JSON.stringify(dryRun, null, 2) })}</pre>}
      <FeedbackLine feedback={feedback} />
    </Section>
  );
}
