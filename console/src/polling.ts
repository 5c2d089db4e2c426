/** What a poller needs from the page: whether it is visible, and word when that changes. */
export interface VisibilitySource {
  readonly hidden: boolean;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
}

/** How often the console asks for news while the page is visible. */
export const POLL_INTERVAL_MS = 4000;

/**
 * Runs `task` now and then every `intervalMs` after the previous run finished, only while the page
 * is visible: a hidden tab costs the API nothing, and coming back refreshes at once.
 * Returns the function that stops it.
 */
export function startPolling(task: () => Promise<unknown>, visibility: VisibilitySource, intervalMs = POLL_INTERVAL_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let stopped = false;

  const schedule = () => {
    if (!stopped && !visibility.hidden && timer === undefined && !running) timer = setTimeout(run, intervalMs);
  };
  const run = () => {
    timer = undefined;
    if (stopped || visibility.hidden || running) return;
    running = true;
    task()
      .catch(() => undefined)
      .finally(() => {
        running = false;
        schedule();
      });
  };
  const onVisibilityChange = () => {
    if (visibility.hidden) {
      clearTimeout(timer);
      timer = undefined;
    } else if (timer === undefined) {
      run();
    }
  };

  visibility.addEventListener('visibilitychange', onVisibilityChange);
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    visibility.removeEventListener('visibilitychange', onVisibilityChange);
  };
}
