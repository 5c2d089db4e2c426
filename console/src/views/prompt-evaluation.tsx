import { useEffect, useRef, useState } from 'preact/hooks';
import type { EvaluationRun, PromptDraft, ScenarioOutcome } from '../../../lib/contract/operator-api';
import type { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import type { Translate } from '../i18n';
import { startPolling } from '../polling';
import { comparisonRows, isSettled, passCounts } from '../prompt-gate';
import { hrefOf } from '../view-model';
import { describeFailure, FeedbackLine, formatTime, useDollars, type Feedback } from './common';

/** How often a running evaluation is asked how far it got: a run of a few scenarios takes seconds. */
const RUN_POLL_MS = 1500;

export interface PromptEvaluationsProps {
  readonly admin: AdminApi;
  readonly id: string;
  /** The draft not yet published, if there is one: the only one a run can play. */
  readonly draft: PromptDraft | undefined;
  readonly suiteSize: number;
  /** The prompt's runs, newest first. */
  readonly runs: readonly EvaluationRun[];
  readonly onChanged: () => Promise<void>;
}

/** Runs the suite against the draft and the current version, follows the run, and shows it and the past ones. */
export function PromptEvaluations({ admin, id, draft, suiteSize, runs, onChanged }: PromptEvaluationsProps) {
  const { t, language } = useConsole();
  const [shownId, setShownId] = useState<string | undefined>(runs[0]?.runId);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const listed = runs.find((run) => run.runId === shownId) ?? runs[0];
  const live = useFollowedRun(admin, id, listed !== undefined && !isSettled(listed) ? listed.runId : undefined, onChanged);
  const shown = live !== undefined && live.runId === listed?.runId ? live : listed;
  const running = runs.some((run) => !isSettled(run));

  const start = async () => {
    if (draft === undefined) return;
    try {
      const started = await admin.startEvaluation(id, draft.version);
      setShownId(started.runId);
      setFeedback(undefined);
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'evaluate') });
    }
    await onChanged();
  };

  return (
    <section class="evaluations" aria-labelledby="evaluations-heading">
      <h3 id="evaluations-heading">{t('evaluation.heading')}</h3>
      {suiteSize === 0 ? (
        <p>
          {t('evaluation.emptySuite')} <a href={hrefOf({ kind: 'admin', screen: 'scenarios' })}>{t('evaluation.openSuite')}</a>
        </p>
      ) : (
        <p>{t('evaluation.suite', { count: suiteSize })}</p>
      )}
      {suiteSize > 0 && (
        <button type="button" disabled={draft === undefined || running} onClick={start}>
          {t('evaluation.run')}
        </button>
      )}
      <FeedbackLine feedback={feedback} />
      <p class="evaluation-progress" role="status" aria-live="polite">
        {shown === undefined ? '' : progressText(t, shown)}
      </p>
      {shown !== undefined && shown.scenarios.length > 0 && <RunTable run={shown} />}
      {runs.length > 0 && (
        <>
          <h4>{t('evaluation.history')}</h4>
          <ol class="evaluation-runs">
            {runs.map((run) => {
              const at = formatTime(run.startedAt, language);
              return (
                <li>
                  {`${at} · ${t('evaluation.runOf', { draft: run.draftVersion, current: currentLabel(t, run.currentVersion) })} · ${t(`evaluation.status.${run.status}`)} · ${run.startedBy}`}{' '}
                  <button type="button" aria-pressed={run.runId === shown?.runId} onClick={() => setShownId(run.runId)}>
                    {t('evaluation.show', { at })}
                  </button>
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}

/** Asks for `runId` until it settles, then lets the screen load again; undefined while not following one. */
function useFollowedRun(admin: AdminApi, id: string, runId: string | undefined, onSettled: () => Promise<void>): EvaluationRun | undefined {
  const [run, setRun] = useState<EvaluationRun | undefined>(undefined);
  const settled = useRef(onSettled);
  settled.current = onSettled;
  useEffect(() => {
    if (runId === undefined) return undefined;
    const stop = startPolling(
      async () => {
        const latest = await admin.evaluation(id, runId);
        setRun(latest);
        if (!isSettled(latest)) return;
        stop();
        await settled.current();
      },
      document,
      RUN_POLL_MS,
    );
    return stop;
  }, [runId]);
  return run;
}

function currentLabel(t: Translate, version: number): string {
  return version === 0 ? t('evaluation.deploymentPrompt') : t('prompts.version', { version });
}

/** The run's progress in words: what the live region announces. */
function progressText(t: Translate, run: EvaluationRun): string {
  if (run.status === 'running') return t('evaluation.running', { draft: run.draftVersion, current: currentLabel(t, run.currentVersion) });
  if (run.status === 'failed') return t('evaluation.failed', { reason: run.error ?? '' });
  const passed = passCounts(run);
  return t('evaluation.done', { draft: passed.draft, current: passed.current, total: passed.total, regressions: run.regressions.length });
}

/** Each scenario on the current version and on the draft, side by side, regressions first and marked. */
function RunTable({ run }: { readonly run: EvaluationRun }) {
  const { t } = useConsole();
  const dollars = useDollars();
  const { inputTokens, outputTokens } = run.usage;
  const caption = t('evaluation.caption', { draft: run.draftVersion, current: currentLabel(t, run.currentVersion) });
  return (
    <>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
        <table class="evaluation-table">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{t('evaluation.scenario')}</th>
              <th scope="col">{currentLabel(t, run.currentVersion)}</th>
              <th scope="col">{t('evaluation.draftColumn', { version: run.draftVersion })}</th>
            </tr>
          </thead>
          <tbody>
            {comparisonRows(run).map((row) => (
              <tr class={row.regression ? 'evaluation-regression' : undefined}>
                <th scope="row">
                  {row.name}
                  {row.regression && <span class="badge badge-regression">{t('evaluation.regression')}</span>}
                </th>
                <OutcomeCell outcome={row.current} />
                <OutcomeCell outcome={row.draft} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="evaluation-usage">
        {t('evaluation.usage', { input: inputTokens, output: outputTokens })}
        {run.costUsd !== undefined && ` · ${t('evaluation.cost', { cost: dollars(run.costUsd) })}`}
      </p>
    </>
  );
}

function OutcomeCell({ outcome }: { readonly outcome: ScenarioOutcome | undefined }) {
  const { t } = useConsole();
  if (outcome === undefined) return <td>{t('evaluation.notPlayed')}</td>;
  return (
    <td class={outcome.passed ? 'outcome-passed' : 'outcome-failed'}>
      {t(outcome.passed ? 'evaluation.passed' : 'evaluation.failedChecks')}
      {outcome.problems.length > 0 && (
        <ul>
          {outcome.problems.map((problem) => (
            <li>{problem}</li>
          ))}
        </ul>
      )}
    </td>
  );
}
