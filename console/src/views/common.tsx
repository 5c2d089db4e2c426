import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ApiProblem } from '../../../lib/contract/operator-api';
import { ApiError } from '../api';
import { useConsole } from '../context';
import { isMessageKey, type Language, LANGUAGES, type Translate } from '../i18n';
import { startPolling } from '../polling';
import { explain, type Action } from '../view-model';

/**
 * A refused call in words, with what to do: the API's problem (see {@link describeProblem}) when
 * it sent one the console can word, else an explanation from the status and the action tried.
 */
export function describeFailure(t: Translate, error: unknown, action: Action): string {
  const problem = error instanceof ApiError ? error.problem : undefined;
  const described = problem === undefined ? undefined : describeProblem(t, problem);
  if (described !== undefined) return described;
  const status = error instanceof ApiError ? error.status : undefined;
  return t(explain(status, action, error instanceof ApiError ? error.code : undefined), { detail: error instanceof Error ? error.message : '' });
}

/**
 * A problem in words with its facts: `error.<code>.<setting>` where a setting words it its own way
 * (the setting is the field's first part), else `error.<code>`; undefined when neither exists.
 */
export function describeProblem(t: Translate, problem: ApiProblem): string | undefined {
  const { code, ...facts } = problem;
  const key = [`error.${code}.${problem.field?.split('.')[0]}`, `error.${code}`].find(isMessageKey);
  return key === undefined ? undefined : t(key, Object.fromEntries(Object.entries(facts).filter((entry): entry is [string, string | number] => entry[1] !== undefined)));
}

export type Feedback = { readonly kind: 'ok' | 'error'; readonly text: string } | undefined;

/** A message about the last action: errors are announced at once (alert), successes politely. */
export function FeedbackLine({ feedback }: { readonly feedback: Feedback }) {
  if (feedback === undefined) return null;
  return feedback.kind === 'error' ? (
    <p class="feedback feedback-error" role="alert">
      {feedback.text}
    </p>
  ) : (
    <p class="feedback feedback-ok" role="status">
      {feedback.text}
    </p>
  );
}

/**
 * Data from the API for the current screen: loaded when `keys` change, and with `poll` also every
 * few seconds while the page is visible (see polling.ts). `reload` loads again at once. A load the
 * API refuses as not this person's to see (`403`) or gone (`404`) drops what the screen showed: it
 * is no longer theirs to act on; any other failure keeps it, with the error to say it may be stale.
 */
export function useRemote<T>(load: () => Promise<T>, keys: readonly unknown[], poll = false): { data: T | undefined; error: unknown; reload: () => Promise<void> } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = async () => {
    try {
      setData(await loadRef.current());
      setError(undefined);
    } catch (failure) {
      if (failure instanceof ApiError && (failure.status === 403 || failure.status === 404)) setData(undefined);
      setError(failure);
    }
  };
  useEffect(() => {
    setData(undefined);
    if (poll) return startPolling(reload, document);
    void reload();
    return undefined;
  }, keys);
  return { data, error, reload };
}

export function Section({ heading, children }: { readonly heading: string; readonly children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={heading}>
      <h2>{heading}</h2>
      {children}
    </section>
  );
}

/** A local time people read at a glance. */
export function formatTime(iso: string, language: Language): string {
  return new Date(iso).toLocaleString(LANGUAGES[language].formatTag, { dateStyle: 'short', timeStyle: 'short' });
}

/** Why the screen's data could not be loaded, when it could not; with `stale`, that what it still shows is the last it loaded. */
export function LoadError({ error, stale = false }: { readonly error: unknown; readonly stale?: boolean }) {
  const { t } = useConsole();
  if (error === undefined) return null;
  const reason = describeFailure(t, error, 'load');
  return <FeedbackLine feedback={{ kind: 'error', text: stale ? t('error.refreshFailed', { reason }) : reason }} />;
}

/** US dollars in the console's language, to the fourth decimal: a message's fee is a fraction of a cent. */
export function useDollars(): (value: number) => string {
  const { language } = useConsole();
  return useMemo(() => new Intl.NumberFormat(LANGUAGES[language].formatTag, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 }).format, [language]);
}
