import { useId, useState } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

/**
 * A new password for one person (an app user, `PATCH /api/apps/:appId/users/:userId`; a platform
 * account, `PATCH /api/admin/accounts/:id`), in a confirmation dialog titled with their `email`.
 * `sessionsEnd` says when their sessions end (the two services end them differently); the person
 * is told to pass the password on, since the service sends no mail. A password shorter than 8
 * characters is refused in the dialog without calling `onSave`; an error `onSave` throws is shown
 * in the dialog, which stays open. `onClose` is called on Cancel or Escape.
 */
export function ResetPasswordDialog({
  email,
  sessionsEnd,
  onSave,
  onClose,
}: {
  email: string;
  sessionsEnd: string;
  onSave: (password: string) => Promise<void>;
  onClose: () => void;
}) {
  const id = useId();
  const [password, setPassword] = useState('');
  return (
    <ConfirmDialog
      title={`Reset the password of ${email}?`}
      confirmLabel="Set new password"
      tone="primary"
      onConfirm={() => {
        if (password.length < 8) throw new Error('The new password needs at least 8 characters.');
        return onSave(password);
      }}
      onClose={onClose}
    >
      <p>{sessionsEnd} Give them the new password yourself.</p>
      <div className="field">
        <label htmlFor={`${id}-password`}>New password</label>
        <input
          id={`${id}-password`}
          type="password"
          minLength={8}
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
    </ConfirmDialog>
  );
}
