import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import { ApiError } from '../api';
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
  const { data, error, reload } = useRemote(() => admin.list('dead-letters'), []);
  const [dryRun, setDryRun] = useState<Record<string, unknown> | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);

  const run = async (asDryRun: boolean) => {
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
  };

  // Servers whose operator API does not serve dead letters yet answer 404: say where to go instead.
  if (error instanceof ApiError && error.status === 404) {
    return (
      <Section heading={t('deadLetters.heading')}>
        <p>{t('deadLetters.unavailable')}</p>
      </Section>
    );
  }
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
        <button type="button" onClick={() => run(true)}>
          {t('deadLetters.dryRun')}
        </button>
        <button type="button" class="danger" disabled={dryRun === undefined} onClick={() => run(false)}>
          {t('deadLetters.redrive')}
        </button>
      </div>
      {dryRun === undefined ? <p>{t('deadLetters.redriveHint')}</p> : <pre class="dry-run" role="status">{t('deadLetters.dryRunResult', { result: JSON.stringify(dryRun, null, 2) })}</pre>}
      <FeedbackLine feedback={feedback} />
    </Section>
  );
}
