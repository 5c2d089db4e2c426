import { useEffect, useRef } from 'preact/hooks';
import { useConsole } from '../context';
import type { MessageKey } from '../i18n';

/** One key of the conversation screen; without `run` it is not available now (and not listed). */
export interface Shortcut {
  readonly key: string;
  readonly label: MessageKey;
  readonly run?: () => void;
}

/**
 * Single keys for the main actions, taken only outside text fields and dialogs and without a
 * modifier, so they never get in the way of typing (a screen reader's own keys pass through).
 */
export function useShortcuts(shortcuts: readonly Shortcut[]): void {
  const current = useRef(shortcuts);
  current.current = shortcuts;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented || isTyping(event.target) || document.querySelector('dialog[open]') !== null) return;
      const shortcut = current.current.find((candidate) => candidate.key === event.key && candidate.run !== undefined);
      if (shortcut === undefined) return;
      event.preventDefault();
      shortcut.run!();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** The keys available now, in a dialog that `?` (or its button) opens. */
export function ShortcutHelp({ shortcuts, open, onClose }: { readonly shortcuts: readonly Shortcut[]; readonly open: boolean; readonly onClose: () => void }) {
  const { t } = useConsole();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) element.showModal();
    else if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="shortcuts" aria-labelledby="shortcuts-heading" onClose={onClose}>
      <h2 id="shortcuts-heading">{t('shortcuts.heading')}</h2>
      <dl>
        {shortcuts
          .filter((shortcut) => shortcut.run !== undefined)
          .map((shortcut) => (
            <div key={shortcut.key}>
              <dt>
                <kbd>{shortcut.key}</kbd>
              </dt>
              <dd>{t(shortcut.label)}</dd>
            </div>
          ))}
        <div>
          <dt>
            <kbd>{t('shortcuts.ctrlKey')}</kbd> + <kbd>{t('shortcuts.enterKey')}</kbd>
          </dt>
          <dd>{t('shortcuts.send')}</dd>
        </div>
      </dl>
      <button type="button" onClick={onClose}>
        {t('shortcuts.close')}
      </button>
    </dialog>
  );
}
