import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  readonly open: boolean;
  readonly heading: string;
  readonly confirmLabel: string;
  readonly cancelLabel: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  /** While the question still needs an answer written in it (e.g. a reason), the confirmation waits. */
  readonly confirmDisabled?: boolean;
  readonly children?: ComponentChildren;
}

/**
 * A modal question before an action that cannot be undone from here. The browser's modal dialog
 * keeps focus inside it and gives Escape its meaning (cancel); focus starts on the safe choice.
 */
export function ConfirmDialog({ open, heading, confirmLabel, cancelLabel, onConfirm, onCancel, confirmDisabled = false, children }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-heading"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-heading">{heading}</h2>
      {children}
      <div class="actions">
        <button type="button" ref={cancel} onClick={onCancel}>
          {cancelLabel}
        </button>
        <button type="button" class="danger" disabled={confirmDisabled} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
