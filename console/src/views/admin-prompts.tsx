import { useMemo, useState } from 'preact/hooks';
import { AGENT_STAGE_LIMITS } from '../../../lib/contract/agent-stage-limits';
import { DEFAULT_SYSTEM_PROMPT } from '../../../lib/contract/default-system-prompt';
import type { PromptVersion } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { ApiError } from '../api';
import { useConsole } from '../context';
import { applicableRun, pendingDraft, publishOutlook } from '../prompt-gate';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';
import { DraftEditor, DraftPublisher } from './prompt-draft';
import { PromptEvaluations } from './prompt-evaluation';
import { PromptHistory } from './prompt-history';

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

/**
 * One prompt: an edit is saved as a draft, run against the deployment's scenario suite beside the
 * current version and published through the gate; history with diffs and rollback as before.
 */
function PromptEditor({ admin, id }: { readonly admin: AdminApi; readonly id: string }) {
  const { t } = useConsole();
  const { data, error, reload } = useRemote(async () => {
    const [current, versions, draft, runs, suite] = await Promise.all([
      admin.prompt(id).catch(absentWhenNotFound),
      admin.promptVersions(id).catch((): readonly PromptVersion[] => []),
      admin.promptDraft(id),
      admin.evaluations(id),
      admin.scenarios(),
    ]);
    return { current, versions, draftVersion: draft?.version ?? 0, draft: pendingDraft(draft), runs, suiteSize: suite.length };
  }, [id]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  if (data === undefined) return error === undefined ? <p role="status">{t('loading')}</p> : <LoadError error={error} />;
  const { current, versions, draft, draftVersion, runs, suiteSize } = data;
  // Only the agent's prompt has a default of the library's; a stage's starts from the deployment's own text.
  const start = id === AGENT_PROMPT_ID ? DEFAULT_SYSTEM_PROMPT : undefined;
  const currentVersion = current?.version ?? 0;
  const run = draft === undefined ? undefined : applicableRun(runs, draft.version, currentVersion);

  const published = async (version: PromptVersion) => {
    setFeedback({ kind: 'ok', text: t('publish.done', { draft: draft?.version ?? '', version: version.version }) });
    await reload();
  };
  const rollback = async (target: number) => {
    try {
      const restored = await admin.rollbackPrompt(id, target);
      setFeedback({ kind: 'ok', text: t('prompts.rolledBack', { target, version: restored.version }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'rollback') });
    }
    await reload();
  };

  return (
    <div class="prompt-editor">
      {current === undefined ? <p>{t(start === undefined ? 'prompts.noVersionStage' : 'prompts.noVersion')}</p> : <p>{t('prompts.currentVersion', { version: current.version })}</p>}
      <DraftEditor admin={admin} id={id} current={current} draft={draft} draftVersion={draftVersion} start={start} onSaved={reload} />
      {draft !== undefined && <DraftPublisher admin={admin} id={id} draft={draft} currentVersion={currentVersion} outlook={publishOutlook(suiteSize, run)} run={run} onPublished={published} />}
      <PromptEvaluations admin={admin} id={id} draft={draft} suiteSize={suiteSize} runs={runs} onChanged={reload} />
      <FeedbackLine feedback={feedback} />
      <PromptHistory versions={versions} current={current} start={start} onRollback={rollback} />
    </div>
  );
}

function absentWhenNotFound(error: unknown): undefined {
  if (error instanceof ApiError && error.status === 404) return undefined;
  throw error;
}
