import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, describeError, get, patch, post, request, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Feedback, Loading } from '../../shared/ui';
import { AppFrame } from '../apps/AppFrame';
import { readerDateTime } from '../../shared/reader-dates';
import type { Datasource, LiveTable } from '../model/model-types';
import { ConnectionFields } from './ConnectionFields';
import {
  connectionProblems,
  connectionUrl,
  emptyConnection,
  typeLabel,
  type ConnectionParts,
} from './connection';

/** An error as the pages show it. */
type Problem = { message: string; details: string[] };

/**
 * A datasource as its routes answer it here: with the zone its dates without zone are read in,
 * and whether a read-only login is set (README "Datasources"; the login itself is never answered).
 */
type DatasourceDetails = Datasource & { timeZone?: string; readOnlyLogin?: boolean };

/** The IANA zone names the browser knows, UTC first (the service checks the name again). */
function timeZoneNames(): string[] {
  const names = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.(
    'timeZone',
  );
  return ['UTC', ...(names ?? []).filter((n) => n !== 'UTC')];
}

/**
 * An app's datasources (`/apps/:appId/datasources`, issue 27 item 2): each with its type, when it
 * was added and whether the service reaches it now (it lists the live tables), a form to change
 * its name, connection (credentials are never shown back: a new connection is typed whole), time
 * zone and read-only login (whether one is set, never the login), and deleting it (the `409` naming the Table APIs in the way, then `?force=true`); below, the
 * form adding one, with "Test connection" (`POST …/datasources/test`) before saving.
 */
export function DatasourcesPage() {
  return <AppFrame section="Datasources">{(app) => <Datasources app={app} />}</AppFrame>;
}

/** The page for a loaded app. */
function Datasources({ app }: { app: App }) {
  const list = useLoad(
    () => get<DatasourceDetails[]>(`/api/apps/${seg(app.id)}/datasources`),
    app.id,
  );
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <p className="lead">
        A datasource is a database this app serves tables of. The connection is stored encrypted and
        never shown again.
      </p>
      <Feedback notice={notice} error={null} />
      {list.loading && !list.data && <Loading what="datasources" />}
      <ErrorMessage error={list.error} />
      {list.data?.length === 0 && <p>No datasources yet: add the first below.</p>}
      {list.data?.map((ds) => (
        <DatasourceCard
          key={ds.id}
          app={app}
          datasource={ds}
          onChanged={(text) => {
            setNotice(text);
            list.reload();
          }}
        />
      ))}
      <AddDatasource
        app={app}
        onAdded={(ds) => {
          setNotice(`Datasource “${ds.name}” added.`);
          list.reload();
        }}
      />
    </>
  );
}

/** Whether the service reaches a datasource now: it lists the live tables and views. */
function ConnectionStatus({ app, ds }: { app: App; ds: Datasource }) {
  const [checks, setChecks] = useState(0);
  const live = useLoad(
    () => get<LiveTable[]>(`/api/apps/${seg(app.id)}/datasources/${seg(ds.id)}/tables`),
    `${ds.id}:${checks}`,
  );
  return (
    <div className="status-line">
      <p role="status" aria-live="polite">
        {live.loading ? (
          'Checking the connection…'
        ) : live.error ? (
          <span className="status status--bad">Not reachable: {live.error.message}</span>
        ) : (
          <span className="status status--good">
            Connected: {live.data?.length ?? 0}{' '}
            {live.data?.length === 1 ? 'table or view' : 'tables and views'}
          </span>
        )}
      </p>
      <button
        type="button"
        className="button button--secondary button--small"
        onClick={() => setChecks((n) => n + 1)}
        disabled={live.loading}
      >
        Check again<span className="visually-hidden"> the connection of {ds.name}</span>
      </button>
    </div>
  );
}

/** One datasource: facts, status, editing and deleting. */
function DatasourceCard({
  app,
  datasource: ds,
  onChanged,
}: {
  app: App;
  datasource: DatasourceDetails;
  onChanged: (notice: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  // Counts saved edits: each checks the (new) connection again.
  const [saves, setSaves] = useState(0);
  const [deleting, setDeleting] = useState<null | 'ask' | Problem>(null);
  const path = `/api/apps/${seg(app.id)}/datasources/${seg(ds.id)}`;

  async function remove(force: boolean) {
    try {
      await request<void>('DELETE', force ? `${path}?force=true` : path);
    } catch (e) {
      if (!force && e instanceof ApiError && e.status === 409) return setDeleting(describeError(e));
      throw e;
    }
    setDeleting(null);
    onChanged(`Datasource “${ds.name}” deleted.`);
  }

  return (
    <section className="card" aria-labelledby={`ds-${ds.id}`}>
      <div className="card__header">
        <h2 id={`ds-${ds.id}`}>{ds.name}</h2>
        <Link to={`/apps/${seg(app.id)}/model#ds-${ds.id}`}>
          Tables<span className="visually-hidden"> of {ds.name}</span> in the data model
        </Link>
      </div>
      <dl className="facts">
        <dt>Type</dt>
        <dd>{typeLabel(ds.type)}</dd>
        <dt>Added</dt>
        <dd>{readerDateTime(ds.createdAt)}</dd>
        <dt>Time zone</dt>
        <dd>{ds.timeZone ?? 'UTC'}</dd>
        {ds.type !== 'sqlite' && (
          <>
            <dt>Read-only login</dt>
            <dd>
              {ds.readOnlyLogin
                ? 'Set: query-kind SQL APIs run with it'
                : ds.type === 'mssql'
                  ? 'None: query-kind SQL APIs cannot be published'
                  : 'None: query-kind SQL APIs run with the connection’s login, read-only'}
            </dd>
          </>
        )}
      </dl>
      <ConnectionStatus key={saves} app={app} ds={ds} />
      {editing ? (
        <EditDatasource
          app={app}
          ds={ds}
          onDone={(saved) => {
            setEditing(false);
            if (!saved) return;
            setSaves((n) => n + 1);
            onChanged(`Datasource “${saved.name}” saved.`);
          }}
        />
      ) : (
        <div className="actions">
          <button
            type="button"
            className="button button--secondary"
            onClick={() => setEditing(true)}
          >
            Edit connection<span className="visually-hidden"> of {ds.name}</span>
          </button>
          <button
            type="button"
            className="button button--danger-outline"
            onClick={() => setDeleting('ask')}
          >
            Delete<span className="visually-hidden"> datasource {ds.name}</span>
          </button>
        </div>
      )}
      {deleting === 'ask' && (
        <ConfirmDialog
          key="ask"
          title={`Delete the datasource “${ds.name}”?`}
          confirmLabel="Delete datasource"
          onConfirm={() => remove(false)}
          onClose={() => setDeleting(null)}
        >
          <p>
            Its tables leave the data model of every version. The database itself is not touched.
          </p>
        </ConfirmDialog>
      )}
      {deleting !== null && deleting !== 'ask' && (
        <ConfirmDialog
          key="force"
          title={`Table APIs use “${ds.name}”`}
          confirmLabel="Delete datasource and those APIs"
          onConfirm={() => remove(true)}
          onClose={() => setDeleting(null)}
        >
          <p>{deleting.message}</p>
          <p>Delete the datasource together with those Table APIs?</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/**
 * Tries a connection (`POST …/datasources/test`), answering the line to show: the server's
 * version, or what failed (the service says which part to check and never echoes the URL).
 */
async function tryConnection(app: App, parts: ConnectionParts): Promise<string> {
  const { serverVersion } = await post<{ serverVersion: string }>(
    `/api/apps/${seg(app.id)}/datasources/test`,
    { type: parts.type, url: connectionUrl(parts) },
  );
  return `Connection works: ${typeLabel(parts.type)} ${serverVersion.split(/[\s,(]/)[0]}.`;
}

/** Runs a form action with its busy flag, notice and error. */
function useAction() {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  async function run(action: () => Promise<string | null>) {
    setBusy(true);
    setNotice(null);
    setError(null);
    try {
      setNotice(await action());
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }
  return { busy, notice, error, run, setError };
}

/** The form adding a datasource (`POST …/datasources`, which tries the connection first). */
function AddDatasource({ app, onAdded }: { app: App; onAdded: (ds: Datasource) => void }) {
  const [name, setName] = useState('');
  const [parts, setParts] = useState(emptyConnection());
  const action = useAction();

  function problems(): string[] {
    return [...(name.trim() ? [] : ['Give the datasource a name.']), ...connectionProblems(parts)];
  }

  function test() {
    const missing = connectionProblems(parts);
    if (missing.length)
      return action.setError({ message: 'Not ready to connect:', details: missing });
    void action.run(() => tryConnection(app, parts));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const missing = problems();
    if (missing.length)
      return action.setError({ message: 'The datasource cannot be added yet:', details: missing });
    void action.run(async () => {
      const ds = await post<Datasource>(`/api/apps/${seg(app.id)}/datasources`, {
        name: name.trim(),
        type: parts.type,
        url: connectionUrl(parts),
      });
      setName('');
      setParts(emptyConnection(parts.type));
      onAdded(ds);
      return null;
    });
  }

  return (
    <section aria-labelledby="add-ds-heading">
      <h2 id="add-ds-heading">Add a datasource</h2>
      <form className="form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="new-ds-name">Datasource name</label>
          <input
            id="new-ds-name"
            value={name}
            maxLength={200}
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <ConnectionFields prefix="new-ds" parts={parts} onChange={setParts} />
        <div className="actions">
          <button
            type="button"
            className="button button--secondary"
            onClick={test}
            disabled={action.busy}
          >
            Test connection
          </button>
          <button type="submit" className="button" disabled={action.busy}>
            {action.busy ? 'Connecting…' : 'Add datasource'}
          </button>
        </div>
      </form>
      <Feedback notice={action.notice} error={action.error} />
    </section>
  );
}

/**
 * Changes a datasource's name and/or connection (`PATCH …/datasources/:dsId`). The connection
 * fields start empty: the stored one is never shown back. Left empty, the connection stays.
 */
function EditDatasource({
  app,
  ds,
  onDone,
}: {
  app: App;
  ds: DatasourceDetails;
  onDone: (saved: Datasource | null) => void;
}) {
  const [name, setName] = useState(ds.name);
  const [parts, setParts] = useState(emptyConnection(ds.type));
  const [timeZone, setTimeZone] = useState(ds.timeZone ?? 'UTC');
  const [loginUser, setLoginUser] = useState('');
  const [loginPassword, setLoginPassword] = useState('');
  const [removeLogin, setRemoveLogin] = useState(false);
  const action = useAction();
  const prefix = `edit-${ds.id}`;
  const typed =
    parts.type === 'sqlite' ? parts.file !== '' : parts.host !== '' || parts.user !== '';

  function test() {
    const missing = connectionProblems(parts);
    if (missing.length)
      return action.setError({ message: 'Not ready to connect:', details: missing });
    void action.run(() => tryConnection(app, parts));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const missing = [
      ...(name.trim() ? [] : ['Give the datasource a name.']),
      ...(typed ? connectionProblems(parts) : []),
    ];
    if (missing.length) return action.setError({ message: 'Not saved:', details: missing });
    void action.run(async () => {
      const saved = await patch<Datasource>(`/api/apps/${seg(app.id)}/datasources/${seg(ds.id)}`, {
        name: name.trim(),
        ...(typed ? { url: connectionUrl(parts) } : {}),
        ...(timeZone !== (ds.timeZone ?? 'UTC') ? { timeZone } : {}),
        ...(removeLogin
          ? { readOnlyLogin: null }
          : loginUser.trim()
            ? { readOnlyLogin: { user: loginUser.trim(), password: loginPassword } }
            : {}),
      });
      onDone(saved);
      return null;
    });
  }

  return (
    <form
      className="form nested-form"
      onSubmit={submit}
      noValidate
      aria-labelledby={`${prefix}-heading`}
    >
      <h3 id={`${prefix}-heading`}>Edit {ds.name}</h3>
      <p className="hint">
        The current connection is not shown. Type a whole new one (host, database, user and
        password) to change it, or leave it empty to keep it.
      </p>
      <div className="field">
        <label htmlFor={`${prefix}-name`}>Name</label>
        <input
          id={`${prefix}-name`}
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <ConnectionFields prefix={prefix} parts={parts} onChange={setParts} fixedType />
      <div className="field">
        <label htmlFor={`${prefix}-time-zone`}>Time zone</label>
        <select
          id={`${prefix}-time-zone`}
          value={timeZone}
          aria-describedby={`${prefix}-time-zone-hint`}
          onChange={(e) => setTimeZone(e.target.value)}
        >
          {timeZoneNames().map((zone) => (
            <option key={zone}>{zone}</option>
          ))}
        </select>
        <p className="hint" id={`${prefix}-time-zone-hint`}>
          Where SQL APIs read a date and time without zone as an instant, it is read in this zone.
        </p>
      </div>
      {ds.type !== 'sqlite' && (
        <fieldset className="fieldset">
          <legend>Read-only login</legend>
          <p className="hint">
            A login that may only read this database: query-kind SQL APIs run with it
            {ds.type === 'mssql' ? ' (SQL Server needs one to publish them)' : ''}. It is tried,
            refused if it may write, and never shown again.{' '}
            {ds.readOnlyLogin ? 'One is set: type another to replace it.' : 'None is set.'}
          </p>
          <div className="field">
            <label htmlFor={`${prefix}-ro-user`}>Read-only user</label>
            <input
              id={`${prefix}-ro-user`}
              value={loginUser}
              maxLength={128}
              autoComplete="off"
              disabled={removeLogin}
              onChange={(e) => setLoginUser(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${prefix}-ro-password`}>Read-only password</label>
            <input
              id={`${prefix}-ro-password`}
              type="password"
              value={loginPassword}
              maxLength={1000}
              autoComplete="new-password"
              disabled={removeLogin}
              onChange={(e) => setLoginPassword(e.target.value)}
            />
          </div>
          {ds.readOnlyLogin && (
            <div className="check">
              <input
                id={`${prefix}-ro-remove`}
                type="checkbox"
                checked={removeLogin}
                onChange={(e) => setRemoveLogin(e.target.checked)}
              />
              <label htmlFor={`${prefix}-ro-remove`}>Remove the read-only login</label>
            </div>
          )}
        </fieldset>
      )}
      <div className="actions">
        <button type="button" className="button button--secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
        <button
          type="button"
          className="button button--secondary"
          onClick={test}
          disabled={action.busy || !typed}
        >
          Test connection<span className="visually-hidden"> of {ds.name}</span>
        </button>
        <button type="submit" className="button" disabled={action.busy}>
          Save datasource<span className="visually-hidden"> {ds.name}</span>
        </button>
      </div>
      <Feedback notice={action.notice} error={action.error} />
    </form>
  );
}
