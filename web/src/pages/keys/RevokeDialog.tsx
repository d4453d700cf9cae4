import { post, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import type { ApiKey } from '../../shared/types';

/**
 * The confirmation before revoking a key (CONTRACT.md §5, §10): the pages' {@link ConfirmDialog}
 * (modal, Escape closes it, Cancel has the focus first) whose confirming button reads
 * `Revoke key`.
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
  return (
    <ConfirmDialog
      title={`Revoke the key “${apiKey.name}”?`}
      confirmLabel="Revoke key"
      onConfirm={async () => {
        await post(`/api/admin/api-keys/${seg(apiKey.id)}/revoke`);
        onRevoked(apiKey);
      }}
      onClose={onClose}
    >
      <p>
        Integrations using it are refused from their very next request. A revoked key cannot be
        reactivated; it stays in the list, marked revoked.
      </p>
    </ConfirmDialog>
  );
}
