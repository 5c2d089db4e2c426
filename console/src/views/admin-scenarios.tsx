import { useMemo, useState } from 'preact/hooks';
import type { StoredScenario } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { ApiError } from '../api';
import { useConsole } from '../context';
import { NEW_SCENARIO, parseScenarioText, problemLines, SCENARIO_FORMAT_DOCS, scenarioDescription, scenarioDraftOf, type ScenarioDraft } from '../prompt-gate';
import { takeHandedScenario } from '../scenario-handoff';
import { describeFailure, FeedbackLine, formatTime, LoadError, Section, useRemote, type Feedback } from './common';
import { ConfirmDialog } from './confirm-dialog';

/**
 * The deployment's scenario suite, which every prompt draft is run against before it is published:
 * listed, added or edited as JSON in the file format (the server's problems shown when it refuses
 * one), removed after a confirmation.
 */
export function ScenariosScreen() {
  const { t, api, language } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data: suite, error, reload } = useRemote(() => admin.scenarios(), []);
  // A scenario drafted from a conversation arrives here, open in the editor.
  const [editing, setEditing] = useState<ScenarioDraft | undefined>(takeHandedScenario);
  const [removing, setRemoving] = useState<StoredScenario | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);

  const remove = async (scenario: StoredScenario) => {
    setRemoving(undefined);
    try {
      await admin.removeScenario(scenario.id);
      setFeedback({ kind: 'ok', text: t('scenarios.removed', { id: scenario.id }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'removeScenario') });
    }
    await reload();
  };
  const saved = async (scenario: StoredScenario) => {
    setEditing(undefined);
    setFeedback({ kind: 'ok', text: t('scenarios.saved', { id: scenario.id, version: scenario.version }) });
    await reload();
  };

  return (
    <Section heading={t('scenarios.heading')}>
      <p>
        {t('scenarios.intro')}{' '}
        <a href={SCENARIO_FORMAT_DOCS} target="_blank" rel="noreferrer">
          {t('scenarios.formatLink')}
        </a>
      </p>
      <LoadError error={error} />
      <FeedbackLine feedback={feedback} />
      {suite !== undefined && suite.length === 0 && <p>{t('scenarios.empty')}</p>}
      {suite !== undefined && suite.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={t('scenarios.caption', { count: suite.length })}>
          <table class="scenario-suite">
            <caption>{t('scenarios.caption', { count: suite.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('scenarios.id')}</th>
                <th scope="col">{t('scenarios.description')}</th>
                <th scope="col">{t('scenarios.changed')}</th>
                <th scope="col">{t('scenarios.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {suite.map((stored) => (
                <tr>
                  <th scope="row">{stored.id}</th>
                  <td>{scenarioDescription(stored.scenario)}</td>
                  <td>{t('scenarios.version', { version: stored.version, at: formatTime(stored.updatedAt, language), author: stored.author })}</td>
                  <td>
                    <span class="version-actions">
                      <button type="button" onClick={() => setEditing(scenarioDraftOf(stored))}>
                        {t('scenarios.edit', { id: stored.id })}
                      </button>
                      <button type="button" onClick={() => setRemoving(stored)}>
                        {t('scenarios.remove', { id: stored.id })}
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing === undefined ? (
        <button type="button" class="primary" onClick={() => setEditing(NEW_SCENARIO)}>
          {t('scenarios.add')}
        </button>
      ) : (
        <ScenarioEditor key={`${editing.id}@${editing.expectedVersion}`} admin={admin} draft={editing} onSaved={saved} onCancel={() => setEditing(undefined)} />
      )}
      <ConfirmDialog
        open={removing !== undefined}
        heading={t('scenarios.removeHeading', { id: removing?.id ?? '' })}
        confirmLabel={t('scenarios.removeConfirm', { id: removing?.id ?? '' })}
        cancelLabel={t('scenarios.cancel')}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => removing !== undefined && void remove(removing)}
      >
        <p>{t('scenarios.removeBody')}</p>
      </ConfirmDialog>
    </Section>
  );
}

interface ScenarioEditorProps {
  readonly admin: AdminApi;
  readonly draft: ScenarioDraft;
  readonly onSaved: (scenario: StoredScenario) => Promise<void>;
  readonly onCancel: () => void;
}

/** One scenario as JSON: a refusal lists every problem the server found, and nothing is stored. */
function ScenarioEditor({ admin, draft, onSaved, onCancel }: ScenarioEditorProps) {
  const { t } = useConsole();
  const [id, setId] = useState(draft.id);
  const [text, setText] = useState(draft.text);
  const [problems, setProblems] = useState<readonly string[]>([]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const adding = draft.expectedVersion === 0;

  const save = async (event: Event) => {
    event.preventDefault();
    setFeedback(undefined);
    // A refusal shown is of the text as it was: it goes until this one is answered.
    setProblems([]);
    const parsed = parseScenarioText(text);
    if ('problem' in parsed) {
      setProblems([t('scenarios.notJson', { reason: parsed.problem })]);
      return;
    }
    try {
      const stored = await admin.saveScenario(id, parsed.scenario, draft.expectedVersion);
      setProblems([]);
      await onSaved(stored);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        setProblems(problemLines(error.message));
      } else {
        setProblems([]);
        setFeedback({ kind: 'error', text: describeFailure(t, error, 'saveScenario') });
      }
    }
  };

  return (
    <form class="scenario-editor" aria-labelledby="scenario-editor-heading" onSubmit={save}>
      <h3 id="scenario-editor-heading">{adding ? t('scenarios.adding') : t('scenarios.editing', { id: draft.id, version: draft.expectedVersion })}</h3>
      <label for="scenario-id">{t('scenarios.idLabel')}</label>
      <input id="scenario-id" value={id} readOnly={!adding} aria-describedby="scenario-id-hint" onInput={(event) => setId((event.currentTarget as HTMLInputElement).value.trim())} />
      <p id="scenario-id-hint" class="hint">
        {t('scenarios.idHint')}
      </p>
      <label for="scenario-json">{t('scenarios.json')}</label>
      <textarea id="scenario-json" class="scenario-json" rows={18} spellcheck={false} value={text} onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)} />
      {problems.length > 0 && (
        <div class="feedback feedback-error" role="alert">
          <p>{t('scenarios.refused')}</p>
          <ul>
            {problems.map((problem) => (
              <li>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      <FeedbackLine feedback={feedback} />
      <div class="actions">
        <button type="submit" class="primary" disabled={id === ''}>
          {t('scenarios.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('scenarios.cancel')}
        </button>
      </div>
    </form>
  );
}
