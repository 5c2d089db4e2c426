import { useState } from 'preact/hooks';
import type { PromptVersion } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { lineDiff } from '../view-model';
import { formatTime } from './common';

/** Two texts and what to call their difference. */
export interface DiffShown {
  readonly heading: string;
  readonly from: string;
  readonly to: string;
}

/** The lines `to` adds to and removes from `from`, under a heading that names the region. */
export function PromptDiff({ diff }: { readonly diff: DiffShown }) {
  return (
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
  );
}

export interface PromptHistoryProps {
  readonly versions: readonly PromptVersion[];
  readonly current: PromptVersion | undefined;
  /** The library's default, where the agent's prompt history starts; a stage's has none. */
  readonly start: string | undefined;
  readonly onRollback: (version: number) => Promise<void>;
}

/** The prompt's versions, the current one marked, each one's changes, a diff against the current one and rollback. */
export function PromptHistory({ versions, current, start, onRollback }: PromptHistoryProps) {
  const { t, language } = useConsole();
  const [diff, setDiff] = useState<DiffShown | undefined>(undefined);
  const before = (version: PromptVersion) => versions.find((other) => other.version === version.version - 1);
  const showChanges = (version: PromptVersion) => {
    const previous = before(version);
    setDiff({
      heading: previous === undefined ? t('prompts.changesFromStart', { version: version.version }) : t('prompts.changes', { version: version.version, previous: previous.version }),
      from: previous?.content ?? start ?? '',
      to: version.content,
    });
  };
  const rollback = async (version: number) => {
    setDiff(undefined);
    await onRollback(version);
  };
  return (
    <>
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
      {diff !== undefined && <PromptDiff diff={diff} />}
    </>
  );
}
