import { useEffect, useRef, useState } from 'react';
import { describeError, post, seg } from '../../shared/api';
import type { ApiKey } from '../../shared/types';
import { ErrorMessage } from '../../shared/ui';

/**
 * The confirmation before revoking a key (CONTRACT.md §5, §10): a modal `<dialog>` (the browser
 * keeps the focus inside it and closes it on Escape) whose confirming button reads `Revoke key`.
 * Cancel has the focus first, so Enter does no harm.
 */
export function RevokeDialog({
  apiKey,
  onRevoked,
  onClose,
}: {
  apiKey: ApiKey;
  onRevoked: (key: ApiKey) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      await post(`/api/admin/api-keys/${seg(apiKey.id)}/revoke`);
      onRevoked(apiKey);
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby="revoke-title"
      aria-describedby="revoke-description"
      onClose={onClose}
    >
      <h2 id="revoke-title">Revoke the key “{apiKey.name}”?</h2>
      <p id="revoke-description">
        Integrations using it are refused from their very next request. A revoked key cannot be
        reactivated; it stays in the list, marked revoked.
      </p>
      <ErrorMessage error={error} />
      <div className="actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => dialog.current?.close()}
        >
          Cancel
        </button>
        <button type="button" className="button button--danger" onClick={revoke} disabled={busy}>
          Revoke key
        </button>
      </div>
    </dialog>
  );
}
