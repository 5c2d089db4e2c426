import { useMemo, useState } from 'preact/hooks';
import type { DeadLetterCard, DeadLetterReason } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import type { Language, MessageKey, Translate } from '../i18n';
import { describeFailure, FeedbackLine, formatTime, LoadError, Section, useRemote, type Feedback } from './common';

/**
 * Turns that failed for good, as the last reading of the queue left them (reading SQS counts as a
 * delivery attempt, so the screen never reads it by itself). A redrive is only offered after a dry
 * run showed what it would do, and it uses the same safe redrive as the command-line tool.
 */
export function DeadLettersScreen() {
  const { t, api, language } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data, error, reload } = useRemote(() => admin.deadLetters(), []);
  const [dryRunDone, setDryRunDone] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  // A reading hides the queue's records for a moment (an SQS receive): while one runs, a redrive
  // would find nothing, so the buttons wait for it.
  const [busy, setBusy] = useState(false);

  const act = async (step: () => Promise<Feedback>) => {
    setBusy(true);
    try {
      setFeedback(await step());
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'redrive') });
    }
    // Every step leaves its reading in the table: the screen shows it.
    await reload();
    setBusy(false);
  };
  const refresh = () =>
    act(async () => {
      await admin.refreshDeadLetters();
      setDryRunDone(false);
      return undefined;
    });
  const dryRun = () =>
    act(async () => {
      const { outcomes } = await admin.redrive(true);
      setDryRunDone(true);
      return { kind: 'ok', text: t('deadLetters.dryRunSummary', { count: outcomes.length }) };
    });
  const redrive = () =>
    act(async () => {
      const { outcomes } = await admin.redrive(false);
      setDryRunDone(false);
      const count = (action: string) => outcomes.filter((outcome) => outcome.action === action).length;
      return { kind: 'ok', text: t('deadLetters.redriveSummary', { redriven: count('redriven'), dropped: count('dropped'), held: count('held') }) };
    });

  return (
    <Section heading={t('deadLetters.heading')}>
      <LoadError error={error} />
      {data !== undefined && (
        <>
          <p>{t('deadLetters.count', { count: data.count })}</p>
          <p class="hint">{t('deadLetters.readAt', { time: formatTime(data.takenAt, language), who: data.takenBy })}</p>
          {data.count > data.items.length && <p>{t('deadLetters.truncated', { shown: data.items.length, count: data.count })}</p>}
          <ul class="dead-letters">
            {data.items.map((card) => (
              <DeadLetterCardView key={card.recordId} card={card} />
            ))}
          </ul>
        </>
      )}
      <div class="actions">
        <button type="button" disabled={busy} onClick={refresh}>
          {t('deadLetters.refresh')}
        </button>
        <button type="button" disabled={busy} onClick={dryRun}>
          {t('deadLetters.dryRun')}
        </button>
        <button type="button" class="danger" disabled={busy || !dryRunDone} onClick={redrive}>
          {t('deadLetters.redrive')}
        </button>
      </div>
      {!dryRunDone && <p>{t('deadLetters.redriveHint')}</p>}
      <FeedbackLine feedback={feedback} />
    </Section>
  );
}

function DeadLetterCardView({ card }: { readonly card: DeadLetterCard }) {
  const { t, language } = useConsole();
  return (
    <li class="dead-letter" aria-label={t('deadLetters.card', { record: card.recordId })}>
      <p>
        <span class={`badge verdict-${card.verdict}`}>{t(`deadLetters.verdict.${card.verdict}`)}</span>
        {card.customer !== undefined && ` ${t('deadLetters.customer', { customer: card.customer })}`}
        {card.messageId !== undefined && ` · ${t('deadLetters.message', { message: card.messageId })}`}
      </p>
      <p>{card.explanation.map((reason) => reasonWords(t, language, reason)).join(' ')}</p>
      {card.verdict === 'confirm' && card.onConfirm !== undefined && <p>{t(`deadLetters.onConfirm.${card.onConfirm}`)}</p>}
      <p class="hint">
        {t('deadLetters.attempts', { count: card.receiveCount })}
        {card.queuedAt !== undefined && ` · ${t('deadLetters.queuedAt', { time: formatTime(card.queuedAt, language) })}`}
      </p>
    </li>
  );
}

/** A reason part in the console's language; the moments it names in local time. */
function reasonWords(t: Translate, language: Language, { code, ...facts }: DeadLetterReason): string {
  const params = Object.fromEntries(Object.entries(facts).map(([name, value]) => [name, name.endsWith('At') && typeof value === 'string' ? formatTime(value, language) : value]));
  return t(`deadLetters.reason.${code}` as MessageKey, params);
}
