import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { request, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { ACTION_NAMES, type ActionName, type ModelTable, type TableApi } from '../../shared/types';
import { Feedback, VisuallyHidden } from '../../shared/ui';
import {
  BUILT_IN_ROLES,
  ROLE_NAME,
  type AppUser,
  type Permissions,
  type Where,
} from './access-types';
import { RuleEditor } from './RuleEditor';
import { ruleInWords } from './rule-words';

/** What a role gets from one action of one Table API, in words. */
function cellWords(role: string, api: TableApi, action: ActionName, ruled: boolean): string {
  if (!api.actions[action]) return 'Off';
  if (role === 'anonymous' && !api.public[action]) return 'Not public';
  return ruled ? 'Rows by rule' : 'All rows';
}

/**
 * Roles and the permissions grid (issue 27 item 4): every role (the built-in `anonymous` and
 * `api_key`, those users hold, those with rules, and any added here), and for the chosen role a
 * grid of Table API × action saying what it gets (off, not public, all rows, rows by rule), with
 * the rule in words and its editor. A rule is per role and table and bounds every action on that
 * table (CONTRACT.md §4), so one editor serves a row. Rules are saved in the builder's working
 * version (`PUT /api/apps/:appId/permissions/:role`): app users get them once it is published.
 */
export function PermissionsSection({
  appId,
  apis,
  tables,
  permissions,
  users,
  onChanged,
}: {
  appId: string;
  apis: TableApi[];
  tables: Map<string, ModelTable>;
  permissions: Permissions;
  users: AppUser[];
  onChanged: () => void;
}) {
  const [added, setAdded] = useState<string[]>([]);
  const roles = [
    ...new Set([
      ...BUILT_IN_ROLES,
      ...Object.keys(permissions),
      ...users.flatMap((u) => u.roles),
      ...added,
    ]),
  ];
  // Until one is chosen, the first role of the app's own (not built in), else anonymous.
  const [chosenRole, setRole] = useState<string | null>(null);
  const role =
    chosenRole ?? roles.find((r) => !(BUILT_IN_ROLES as readonly string[]).includes(r)) ?? roles[0];
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const [newRole, setNewRole] = useState('');
  const gridHeading = useRef<HTMLHeadingElement>(null);
  const rules = permissions[role]?.tables ?? {};

  function addRole(event: FormEvent) {
    event.preventDefault();
    const name = newRole.trim();
    if (!ROLE_NAME.test(name)) {
      setNotice(null);
      setError({
        message: 'A role name is a letter or _, then up to 62 letters, digits, _ or -.',
        details: [],
      });
      return;
    }
    if (!roles.includes(name)) setAdded((a) => [...a, name]);
    setRole(name);
    setNewRole('');
    setError(null);
    setNotice(`Role ${name} is chosen below; it is kept once it has a rule or a user holds it.`);
  }

  async function save(table: string, where: Where | null) {
    const next = { ...rules };
    if (where) next[table] = { where };
    else delete next[table];
    await request('PUT', `/api/apps/${seg(appId)}/permissions/${seg(role)}`, { tables: next });
    setEditing(null);
    setError(null);
    setNotice(
      where
        ? `The rule of ${role} on ${table} is saved in your working version.`
        : `${role} has no rule on ${table} in your working version: it sees every row.`,
    );
    onChanged();
    gridHeading.current?.focus();
  }

  const editingTable = editing ? tables.get(editing) : undefined;
  return (
    <section aria-labelledby="roles-heading" className="card">
      <h2 id="roles-heading">Roles and row rules</h2>
      <p className="hint">
        Rules are saved in your working version; app users, keys and anonymous callers get them once
        you <Link to={`/apps/${seg(appId)}/versions`}>publish your working version</Link>.
      </p>
      <Feedback notice={notice} error={error} />
      <div className="table-scroll">
        <table className="table table--cards">
          <caption className="visually-hidden">Roles</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Who holds it</th>
              <th scope="col">Tables with a rule</th>
              <th scope="col">
                <VisuallyHidden>Actions</VisuallyHidden>
              </th>
            </tr>
          </thead>
          <tbody>
            {roles.map((r) => {
              const holders = users.filter((u) => u.roles.includes(r)).length;
              const ruled = Object.keys(permissions[r]?.tables ?? {});
              return (
                <tr key={r}>
                  <th scope="row">{r}</th>
                  <td data-label="Who holds it">
                    {r === 'anonymous'
                      ? 'callers with no credentials'
                      : r === 'api_key'
                        ? 'every API key'
                        : `${holders} user${holders === 1 ? '' : 's'}`}
                  </td>
                  <td data-label="Tables with a rule">{ruled.join(', ') || 'none: every row'}</td>
                  <td>
                    {r in permissions && (
                      <button
                        type="button"
                        className="button button--danger-outline"
                        onClick={() => setDeleting(r)}
                      >
                        Delete rules<VisuallyHidden> of {r}</VisuallyHidden>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <form className="inline-form" onSubmit={addRole}>
        <div className="field">
          <label htmlFor="new-role">New role</label>
          <input id="new-role" value={newRole} onChange={(e) => setNewRole(e.target.value)} />
        </div>
        <button type="submit" className="button button--secondary">
          Add role
        </button>
      </form>

      <h3 id="grid-heading" ref={gridHeading} tabIndex={-1}>
        Permissions of {role}
      </h3>
      <div className="field">
        <label htmlFor="grid-role">Role</label>
        <select
          id="grid-role"
          value={role}
          onChange={(e) => {
            setRole(e.target.value);
            setEditing(null);
          }}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      {apis.length === 0 ? (
        <p>This app has no Table APIs yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table--cards permissions-grid">
            <caption>What {role} gets from each Table API action (your working version)</caption>
            <thead>
              <tr>
                <th scope="col">Table API</th>
                {ACTION_NAMES.map((a) => (
                  <th scope="col" key={a}>
                    {a}
                  </th>
                ))}
                <th scope="col">Row rule</th>
                <th scope="col">
                  <VisuallyHidden>Edit</VisuallyHidden>
                </th>
              </tr>
            </thead>
            <tbody>
              {apis.map((api) => {
                const where = rules[api.table]?.where;
                return (
                  <tr key={api.id}>
                    <th scope="row">
                      {api.name}
                      <span className="hint">
                        {' '}
                        table {api.table}
                        {api.status === 'draft' ? ', draft' : ''}
                      </span>
                    </th>
                    {ACTION_NAMES.map((a) => (
                      <td key={a} data-label={a}>
                        {cellWords(role, api, a, where !== undefined)}
                      </td>
                    ))}
                    <td data-label="Row rule">
                      {where === undefined ? 'none: every row' : ruleInWords(where)}
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button button--secondary"
                        disabled={!tables.has(api.table)}
                        onClick={() => setEditing(api.table)}
                      >
                        Edit rule
                        <VisuallyHidden>
                          {' '}
                          of {role} on {api.table} (API {api.name})
                        </VisuallyHidden>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {editing && editingTable && (
        <RuleEditor
          key={`${role}:${editing}`}
          role={role}
          table={editingTable}
          where={rules[editing]?.where}
          onSave={(where) => save(editing, where)}
          onCancel={() => {
            setEditing(null);
            gridHeading.current?.focus();
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete every rule of ${deleting}?`}
          confirmLabel="Delete rules"
          onConfirm={async () => {
            await request('DELETE', `/api/apps/${seg(appId)}/permissions/${seg(deleting)}`);
            setDeleting(null);
            setNotice(`${deleting} has no rules in your working version: it sees every row.`);
            onChanged();
          }}
          onClose={() => setDeleting(null)}
        >
          <p>
            In your working version, {deleting} then sees every row of every table. App users get
            this once you publish it.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
