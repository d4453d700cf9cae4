import { useState, type FormEvent } from 'react';
import { describeError, get, patch, post, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { ResetPasswordDialog } from '../../shared/ResetPasswordDialog';
import { readerDateTime } from '../../shared/reader-dates';
import { useLoad } from '../../shared/use-load';
import {
  ErrorMessage,
  Feedback,
  Loading,
  PageHeading,
  usePageTitle,
  VisuallyHidden,
} from '../../shared/ui';
import { useSession } from '../session';
import '../access/access.css';

/** A platform account as administrators see it (`GET /api/admin/accounts`). */
interface AccountDetails {
  id: string;
  email: string;
  role: 'admin' | 'builder';
  disabled: boolean;
  createdAt: string;
}

type Problem = { message: string; details: string[] } | null;

/**
 * Platform accounts (issue 27 item 7, `/accounts`; README "Platform accounts"): administrators
 * list every account (email, role, state, created in the reader's time zone), create builders (or
 * administrators), disable and enable them, and reset a password, through
 * `/api/admin/accounts`. Disabling, a new password or a new role ends the account's sessions at
 * once. Others see that the page is for administrators.
 */
export function AccountsPage() {
  usePageTitle('Platform accounts');
  const { account } = useSession();
  return (
    <div className="access-pages">
      <PageHeading>Platform accounts</PageHeading>
      {account?.role === 'admin' ? (
        <AccountsAdministration selfId={account.id} />
      ) : (
        <div className="message message--info">
          <p>
            <strong>Platform accounts are for administrators only.</strong> Ask an administrator to
            add a builder or reset a password.
          </p>
        </div>
      )}
    </div>
  );
}

/** The page's content for an administrator. */
function AccountsAdministration({ selfId }: { selfId: string }) {
  const accounts = useLoad(() => get<AccountDetails[]>('/api/admin/accounts'), 'accounts');
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<Problem>(null);
  const [disabling, setDisabling] = useState<AccountDetails | null>(null);
  const [resetting, setResetting] = useState<AccountDetails | null>(null);
  const path = (a: AccountDetails) => `/api/admin/accounts/${seg(a.id)}`;

  function done(message: string) {
    setError(null);
    setNotice(message);
    accounts.reload();
  }

  async function enable(a: AccountDetails) {
    try {
      await patch(path(a), { disabled: false });
      done(`${a.email} is enabled: they can sign in again.`);
    } catch (e) {
      setNotice(null);
      setError(describeError(e));
    }
  }

  return (
    <>
      <p className="lead">
        Builders create apps, Table APIs and rules; administrators also manage API keys and these
        accounts.
      </p>
      <section aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts</h2>
        <Feedback notice={notice} error={error} />
        {accounts.loading && !accounts.data && <Loading what="accounts" />}
        <ErrorMessage error={accounts.error} />
        {accounts.data && (
          <div className="table-scroll">
            <table className="table table--cards">
              <caption className="visually-hidden">Platform accounts, by email</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.map((a) => (
                  <tr key={a.id} className={a.disabled ? 'row--revoked' : undefined}>
                    <th scope="row">
                      {a.email}
                      {a.id === selfId && <span className="hint"> (you)</span>}
                    </th>
                    <td data-label="Role">{a.role === 'admin' ? 'administrator' : 'builder'}</td>
                    <td data-label="State">
                      <span className={`badge badge--${a.disabled ? 'revoked' : 'active'}`}>
                        {a.disabled ? 'Disabled' : 'Active'}
                      </span>
                    </td>
                    <td data-label="Created">
                      <time dateTime={a.createdAt}>{readerDateTime(a.createdAt)}</time>
                    </td>
                    <td>
                      <div className="row-actions">
                        <button
                          type="button"
                          className="button button--secondary"
                          onClick={() => setResetting(a)}
                        >
                          Reset password<VisuallyHidden> of {a.email}</VisuallyHidden>
                        </button>
                        {a.disabled ? (
                          <button
                            type="button"
                            className="button button--secondary"
                            onClick={() => enable(a)}
                          >
                            Enable<VisuallyHidden> {a.email}</VisuallyHidden>
                          </button>
                        ) : (
                          <button
                            type="button"
                            className="button button--danger-outline"
                            onClick={() => setDisabling(a)}
                          >
                            Disable<VisuallyHidden> {a.email}</VisuallyHidden>
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <CreateAccountForm
        onCreated={(a) =>
          done(`${a.email} is created as a ${a.role === 'admin' ? 'administrator' : 'builder'}.`)
        }
      />
      {disabling && (
        <ConfirmDialog
          title={`Disable ${disabling.email}?`}
          confirmLabel="Disable account"
          onConfirm={async () => {
            await patch(path(disabling), { disabled: true });
            setDisabling(null);
            done(`${disabling.email} is disabled: every session of theirs has ended.`);
          }}
          onClose={() => setDisabling(null)}
        >
          <p>
            They cannot sign in, and every session of theirs ends at once. Enabling them later lets
            them sign in again.
          </p>
        </ConfirmDialog>
      )}
      {resetting && (
        <ResetPasswordDialog
          email={resetting.email}
          sessionsEnd="Every session of theirs ends at once."
          onSave={async (password) => {
            await patch(path(resetting), { password });
            setResetting(null);
            done(`${resetting.email} has a new password; every session of theirs has ended.`);
          }}
          onClose={() => setResetting(null)}
        />
      )}
    </>
  );
}

/** The form that creates an account (`POST /api/admin/accounts`). */
function CreateAccountForm({ onCreated }: { onCreated: (a: AccountDetails) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<'builder' | 'admin'>('builder');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await post<AccountDetails>('/api/admin/accounts', {
        email: email.trim(),
        password,
        role,
      });
      setEmail('');
      setPassword('');
      setRole('builder');
      onCreated(created);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-account-heading">
      <h2 id="create-account-heading">Add an account</h2>
      <form className="form" onSubmit={submit}>
        <Feedback notice={null} error={error} />
        <div className="field-row">
          <div className="field">
            <label htmlFor="account-email">Email</label>
            <input
              id="account-email"
              type="email"
              required
              autoComplete="off"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="account-password">First password</label>
            <input
              id="account-password"
              type="password"
              required
              minLength={8}
              autoComplete="new-password"
              aria-describedby="account-password-hint"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <p className="hint" id="account-password-hint">
              At least 8 characters; give it to the person yourself.
            </p>
          </div>
          <div className="field">
            <label htmlFor="account-role">Role</label>
            <select
              id="account-role"
              value={role}
              onChange={(e) => setRole(e.target.value as 'builder' | 'admin')}
            >
              <option value="builder">builder</option>
              <option value="admin">administrator</option>
            </select>
          </div>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Adding…' : 'Add account'}
        </button>
      </form>
    </section>
  );
}
