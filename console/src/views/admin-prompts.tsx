import { useMemo, useState } from 'preact/hooks';
import { AGENT_STAGE_LIMITS } from '../../../lib/contract/agent-stage-limits';
import { DEFAULT_SYSTEM_PROMPT } from '../../../lib/contract/default-system-prompt';
import type { PromptVersion } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { ApiError } from '../api';
import { useConsole } from '../context';
import { lineDiff } from '../view-model';
import { describeFailure, FeedbackLine, LoadError, formatTime, Section, useRemote, type Feedback } from './common';

/** The prompt the agent answers with; listed even before anyone wrote a first version. */
const AGENT_PROMPT_ID = 'system';

/** With `AgentBackend.stages()`, each stage answers with the prompt `system.<stage>`. */
const stagePromptId = (stage: string) => `${AGENT_PROMPT_ID}.${stage}`;

export function PromptsScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data: prompts, error } = useRemote(() => admin.prompts(), []);
  const [selected, setSelected] = useState(AGENT_PROMPT_ID);
  const ids = [...new Set([AGENT_PROMPT_ID, ...(prompts ?? []).map((prompt) => prompt.resourceId), selected])];
  return (
    <Section heading={t('prompts.heading')}>
      <LoadError error={error} />
      <ul class="pill-list">
        {ids.map((id) => (
          <li>
            <button type="button" aria-pressed={id === selected} onClick={() => setSelected(id)}>
              {t('prompts.select', { id })}
            </button>
          </li>
        ))}
      </ul>
      <StagePromptOpener onOpen={(stage) => setSelected(stagePromptId(stage))} />
      <PromptEditor key={selected} admin={admin} id={selected} />
    </Section>
  );
}

/** Opens a stage's prompt by the stage's name, also before anyone wrote its first version. */
function StagePromptOpener({ onOpen }: { readonly onOpen: (stage: string) => void }) {
  const { t } = useConsole();
  const [stage, setStage] = useState('');
  const open = (event: Event) => {
    event.preventDefault();
    onOpen(stage);
    setStage('');
  };
  return (
    <form class="stage-prompt" onSubmit={open}>
      <label for="stage-prompt-name">{t('prompts.stage')}</label>
      <input id="stage-prompt-name" value={stage} onInput={(event) => setStage((event.currentTarget as HTMLInputElement).value.trim())} />
      <button type="submit" disabled={!AGENT_STAGE_LIMITS.namePattern.test(stage)}>
        {t('prompts.openStage')}
      </button>
    </form>
  );
}

/** Edit one prompt: a new version on save, history with diffs, rollback to any version. */
function PromptEditor({ admin, id }: { readonly admin: AdminApi; readonly id: string }) {
  const { t, language } = useConsole();
  const { data, reload } = useRemote(async () => {
    const [current, versions] = await Promise.all([admin.prompt(id).catch(absentWhenNotFound), admin.promptVersions(id).catch((): readonly PromptVersion[] => [])]);
    return { current, versions };
  }, [id]);
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [diff, setDiff] = useState<{ readonly heading: string; readonly from: string; readonly to: string } | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  if (data === undefined) return <p role="status">{t('loading')}</p>;
  const { current, versions } = data;
  const text = draft ?? current?.content ?? '';
  // Only the agent's prompt has a default of the library's; a stage's starts from the deployment's own text.
  const start = id === AGENT_PROMPT_ID ? DEFAULT_SYSTEM_PROMPT : undefined;
  const before = (version: PromptVersion) => versions.find((other) => other.version === version.version - 1);

  const save = async () => {
    try {
      const saved = await admin.savePrompt(id, text, current?.version ?? 0);
      setDraft(undefined);
      setFeedback({ kind: 'ok', text: t('prompts.saved', { version: saved.version }) });
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'savePrompt') });
    }
    await reload();
  };
  const rollback = async (target: number) => {
    try {
      const restored = await admin.rollbackPrompt(id, target);
      setDraft(undefined);
      setDiff(undefined);
      setFeedback({ kind: 'ok', text: t('prompts.rolledBack', { target, version: restored.version }) });
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'rollback') });
    }
    await reload();
  };
  const showChanges = (version: PromptVersion) => {
    const previous = before(version);
    setDiff({
      heading: previous === undefined ? t('prompts.changesFromStart', { version: version.version }) : t('prompts.changes', { version: version.version, previous: previous.version }),
      from: previous?.content ?? start ?? '',
      to: version.content,
    });
  };

  return (
    <div class="prompt-editor">
      {current === undefined ? <p>{t(start === undefined ? 'prompts.noVersionStage' : 'prompts.noVersion')}</p> : <p>{t('prompts.currentVersion', { version: current.version })}</p>}
      <label for="prompt-content">{t('prompts.content', { id })}</label>
      <textarea id="prompt-content" rows={10} value={text} onInput={(event) => setDraft((event.currentTarget as HTMLTextAreaElement).value)} />
      <button type="button" class="primary" disabled={text.trim() === '' || text === current?.content} onClick={save}>
        {t('prompts.save')}
      </button>
      <FeedbackLine feedback={feedback} />
      <h3>{t('prompts.versions')}</h3>
      <ol class="versions">
        {versions.map((version) => {
          const isCurrent = version.version === current?.version;
          return (
            <li aria-current={isCurrent ? 'true' : undefined}>
              <span>
                {t('prompts.version', { version: version.version })}
                {isCurrent && (
                  <>
                    {' '}
                    <span class="badge">{t('prompts.current')}</span>
                  </>
                )}
                {` · ${formatTime(version.createdAt, language)} · ${version.author}`}
              </span>
              <span class="version-actions">
                {(before(version) !== undefined || start !== undefined) && (
                  <button type="button" onClick={() => showChanges(version)}>
                    {t('prompts.showChanges', { version: version.version })}
                  </button>
                )}
                {current !== undefined && !isCurrent && (
                  <>
                    <button type="button" onClick={() => setDiff({ heading: t('prompts.diffHeading', { from: version.version, to: current.version }), from: version.content, to: current.content })}>
                      {t('prompts.diff', { version: version.version })}
                    </button>
                    <button type="button" onClick={() => rollback(version.version)}>
                      {t('prompts.rollback', { version: version.version })}
                    </button>
                  </>
                )}
              </span>
            </li>
          );
        })}
        {start !== undefined && (
          <li aria-current={current === undefined ? 'true' : undefined}>
            <span>
              {t('prompts.start')}
              {current === undefined && (
                <>
                  {' '}
                  <span class="badge">{t('prompts.current')}</span>
                </>
              )}
            </span>
            <details open={current === undefined}>
              <summary>{t('prompts.startText')}</summary>
              <pre class="prompt-default">{start}</pre>
            </details>
          </li>
        )}
      </ol>
      {diff !== undefined && (
        <section class="diff" aria-label={diff.heading}>
          <h3>{diff.heading}</h3>
          <pre>
            {lineDiff(diff.from, diff.to).map((line) => (
              <span class={`diff-${line.kind}`}>
                {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
                {line.text}
                {'\n'}
              </span>
            ))}
          </pre>
        </section>
      )}
    </div>
  );
}

function absentWhenNotFound(error: unknown): undefined {
  if (error instanceof ApiError && error.status === 404) return undefined;
  throw error;
}
