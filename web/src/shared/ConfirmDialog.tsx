import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { describeError } from './api';
import { ErrorMessage } from './ui';

/**
 * The pages' confirmation before an action that cannot be taken back (revoking a key, publishing
 * a working version, leaving unsaved changes): a modal `<dialog>` (the browser keeps the focus
 * inside it and closes it on Escape), titled by `title` and described by `children`. Cancel comes
 * first and has the focus, so Enter does no harm. `onConfirm` may be async; while it runs the
 * confirming button is disabled, and if it throws its error is shown in the dialog, which stays
 * open. The dialog calls `onClose` whenever it closes (Cancel, Escape), not after a confirmation,
 * which the caller answers itself.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'danger',
  onConfirm,
  onClose,
}: {
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** The confirming button's look: `danger` (red) or `primary`. */
  tone?: 'danger' | 'primary';
  onConfirm: () => void | Promise<void>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-description`}
      onClose={onClose}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-description`}>{children}</div>
      <ErrorMessage error={error} />
      <div className="actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => dialog.current?.close()}
        >
          {cancelLabel}
        </button>
        <button
          type="button"
          className={`button button--${tone}`}
          onClick={confirm}
          disabled={busy}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
