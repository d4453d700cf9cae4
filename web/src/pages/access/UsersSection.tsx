import { useState, type FormEvent } from 'react';
import { describeError, patch, post, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { ResetPasswordDialog } from '../../shared/ResetPasswordDialog';
import { Feedback, VisuallyHidden } from '../../shared/ui';
import type { AppUser } from './access-types';
import { attributesInWords, attributesText, parseAttributes, parseRoles } from './user-words';

type Problem = { message: string; details: string[] } | null;

/**
 * An app's users (CONTRACT.md §4): the list (email, roles, attributes, state), a form to create
 * one (the builder sets the first password and gives it to the person: the service sends no
 * mail), and per user Edit (roles, attributes), Reset password and Disable/Enable, each through
 * `PATCH /api/apps/:appId/users/:userId`. Disabling or a new password ends the user's sessions.
 */
export function UsersSection({
  appId,
  users,
  onChanged,
}: {
  appId: string;
  users: AppUser[];
  onChanged: () => void;
}) {
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<Problem>(null);
  const [editing, setEditing] = useState<AppUser | null>(null);
  const [resetting, setResetting] = useState<AppUser | null>(null);
  const [disabling, setDisabling] = useState<AppUser | null>(null);
  const path = (user: AppUser) => `/api/apps/${seg(appId)}/users/${seg(user.id)}`;

  function done(message: string) {
    setError(null);
    setNotice(message);
    onChanged();
  }

  async function enable(user: AppUser) {
    try {
      await patch(path(user), { disabled: false });
      done(`${user.email} is enabled: they can sign in again.`);
    } catch (e) {
      setNotice(null);
      setError(describeError(e));
    }
  }

  return (
    <section aria-labelledby="users-heading" className="card">
      <h2 id="users-heading">App users</h2>
      <p className="hint">
        People who sign in to this app (<code>POST /api/apps/…/auth/login</code>) and call its
        GraphQL endpoint without a key; their roles’ row rules bound the rows they get.
      </p>
      <Feedback notice={notice} error={error} />
      {users.length === 0 ? (
        <p>No app users yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption className="visually-hidden">App users</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Roles</th>
                <th scope="col">Attributes</th>
                <th scope="col">State</th>
                <th scope="col">
                  <VisuallyHidden>Actions</VisuallyHidden>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user.id} className={user.disabled ? 'row--revoked' : undefined}>
                  <th scope="row">{user.email}</th>
                  <td data-label="Roles">{user.roles.join(', ') || 'none (sees no rows)'}</td>
                  <td data-label="Attributes">{attributesInWords(user.attributes)}</td>
                  <td data-label="State">
                    <span className={`badge badge--${user.disabled ? 'revoked' : 'active'}`}>
                      {user.disabled ? 'Disabled' : 'Active'}
                    </span>
                  </td>
                  <td>
                    <div className="row-actions">
                      <button
                        type="button"
                        className="button button--secondary"
                        onClick={() => setEditing(user)}
                      >
                        Edit<VisuallyHidden> {user.email}</VisuallyHidden>
                      </button>
                      <button
                        type="button"
                        className="button button--secondary"
                        onClick={() => setResetting(user)}
                      >
                        Reset password<VisuallyHidden> of {user.email}</VisuallyHidden>
                      </button>
                      {user.disabled ? (
                        <button
                          type="button"
                          className="button button--secondary"
                          onClick={() => enable(user)}
                        >
                          Enable<VisuallyHidden> {user.email}</VisuallyHidden>
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="button button--danger-outline"
                          onClick={() => setDisabling(user)}
                        >
                          Disable<VisuallyHidden> {user.email}</VisuallyHidden>
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
      <CreateUserForm appId={appId} onCreated={(user) => done(`${user.email} is created.`)} />
      {editing && (
        <EditUserDialog
          user={editing}
          onSave={async (body) => {
            await patch(path(editing), body);
            setEditing(null);
            done(`${editing.email} is saved.`);
          }}
          onClose={() => setEditing(null)}
        />
      )}
      {resetting && (
        <ResetPasswordDialog
          email={resetting.email}
          sessionsEnd="Their sessions end from their next request."
          onSave={async (password) => {
            await patch(path(resetting), { password });
            setResetting(null);
            done(`${resetting.email} has a new password; their sessions have ended.`);
          }}
          onClose={() => setResetting(null)}
        />
      )}
      {disabling && (
        <ConfirmDialog
          title={`Disable ${disabling.email}?`}
          confirmLabel="Disable user"
          onConfirm={async () => {
            await patch(path(disabling), { disabled: true });
            setDisabling(null);
            done(`${disabling.email} is disabled: their sessions have ended.`);
          }}
          onClose={() => setDisabling(null)}
        >
          <p>
            They cannot sign in, and their sessions end from their next request. You can enable them
            again later.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The form that creates an app user (`POST /api/apps/:appId/users`). */
function CreateUserForm({
  appId,
  onCreated,
}: {
  appId: string;
  onCreated: (user: AppUser) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [roles, setRoles] = useState('');
  const [attributes, setAttributes] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const user = await post<AppUser>(`/api/apps/${seg(appId)}/users`, {
        email: email.trim(),
        password,
        roles: parseRoles(roles),
        attributes: parseAttributes(attributes),
      });
      setEmail('');
      setPassword('');
      setRoles('');
      setAttributes('');
      onCreated(user);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} aria-labelledby="create-user-heading">
      <h3 id="create-user-heading">Add a user</h3>
      <Feedback notice={null} error={error} />
      <div className="field-row">
        <div className="field">
          <label htmlFor="user-email">Email</label>
          <input
            id="user-email"
            type="email"
            required
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="user-password">First password</label>
          <input
            id="user-password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="user-password-hint"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <p className="hint" id="user-password-hint">
            At least 8 characters. Give it to the person yourself: no mail is sent.
          </p>
        </div>
      </div>
      <RoleAndAttributeFields
        idPrefix="user"
        roles={roles}
        attributes={attributes}
        onRoles={setRoles}
        onAttributes={setAttributes}
      />
      <button type="submit" className="button" disabled={busy}>
        {busy ? 'Adding…' : 'Add user'}
      </button>
    </form>
  );
}

/** The roles and attributes fields, shared by the create form and the edit dialog. */
function RoleAndAttributeFields({
  idPrefix,
  roles,
  attributes,
  onRoles,
  onAttributes,
}: {
  idPrefix: string;
  roles: string;
  attributes: string;
  onRoles: (v: string) => void;
  onAttributes: (v: string) => void;
}) {
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={`${idPrefix}-roles`}>Roles</label>
        <input
          id={`${idPrefix}-roles`}
          aria-describedby={`${idPrefix}-roles-hint`}
          value={roles}
          onChange={(e) => onRoles(e.target.value)}
        />
        <p className="hint" id={`${idPrefix}-roles-hint`}>
          Comma-separated, e.g. <code>customer, support</code>. A user with no role sees no rows.
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-attributes`}>Attributes</label>
        <textarea
          id={`${idPrefix}-attributes`}
          rows={3}
          aria-describedby={`${idPrefix}-attributes-hint`}
          value={attributes}
          onChange={(e) => onAttributes(e.target.value)}
        />
        <p className="hint" id={`${idPrefix}-attributes-hint`}>
          One <code>name = value</code> a line, read by rules as <code>$user.name</code>.
        </p>
      </div>
    </div>
  );
}

/** Roles and attributes of one user, in a dialog. */
function EditUserDialog({
  user,
  onSave,
  onClose,
}: {
  user: AppUser;
  onSave: (body: { roles: string[]; attributes: AppUser['attributes'] }) => Promise<void>;
  onClose: () => void;
}) {
  const [roles, setRoles] = useState(user.roles.join(', '));
  const [attributes, setAttributes] = useState(attributesText(user.attributes));
  return (
    <ConfirmDialog
      title={`Edit ${user.email}`}
      confirmLabel="Save user"
      tone="primary"
      onConfirm={() =>
        onSave({ roles: parseRoles(roles), attributes: parseAttributes(attributes) })
      }
      onClose={onClose}
    >
      <RoleAndAttributeFields
        idPrefix="edit-user"
        roles={roles}
        attributes={attributes}
        onRoles={setRoles}
        onAttributes={setAttributes}
      />
    </ConfirmDialog>
  );
}
