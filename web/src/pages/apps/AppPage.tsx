import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, describeError, get, patch, request, seg } from '../../shared/api';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import type { App, TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Feedback, Loading, StatusBadge } from '../../shared/ui';
import type { Datasource, FullModelGroup, SqlApiSummary } from '../model/model-types';
import { AppFrame } from './AppFrame';

/** What the overview shows besides the app: its APIs, datasources and imported tables. */
interface Overview {
  apis: TableApi[];
  /** Null when the service offers no SQL APIs (an older service answers 404). */
  sqlApis: SqlApiSummary[] | null;
  datasources: Datasource[];
  importedTables: number;
}

/** Loads the overview of an app from the builder REST. */
async function loadOverview(appId: string): Promise<Overview> {
  const base = `/api/apps/${seg(appId)}`;
  const [apis, sqlApis, datasources, groups] = await Promise.all([
    get<TableApi[]>(`${base}/apis`),
    get<SqlApiSummary[]>(`${base}/sql-apis`).catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }),
    get<Datasource[]>(`${base}/datasources`),
    get<FullModelGroup[]>(`${base}/model/tables`),
  ]);
  const importedTables = groups.reduce((n, g) => n + g.tables.length, 0);
  return { apis, sqlApis, datasources, importedTables };
}

/**
 * An app's overview (`/apps/:appId`, issue 27 item 1): its GraphQL address and own domain, a
 * form to rename it and set the domain (`PATCH /api/apps/:appId`), its Table and SQL APIs with
 * their state, the next step of setting it up, and deleting it (`DELETE /api/apps/:appId`).
 */
export function AppPage() {
  return (
    <AppFrame section="Overview">
      {(app, reload) => <AppOverview app={app} onSaved={reload} />}
    </AppFrame>
  );
}

/** The overview of a loaded app. */
function AppOverview({ app, onSaved }: { app: App; onSaved: () => void }) {
  const overview = useLoad(() => loadOverview(app.id), app.id);
  const data = overview.data;
  return (
    <>
      <section aria-labelledby="address-heading" className="card">
        <h2 id="address-heading">Addresses</h2>
        <dl className="facts">
          <dt>GraphQL endpoint</dt>
          <dd>
            <code>/api/graphql/{app.address}</code>
          </dd>
          <dt>Own domain</dt>
          <dd>
            {app.domain ? (
              <>
                <code>{app.domain}</code> (requests to this host reach the app at{' '}
                <code>/api/graphql</code>)
              </>
            ) : (
              'None'
            )}
          </dd>
        </dl>
      </section>
      {overview.loading && !data && <Loading what="the app’s APIs" />}
      <ErrorMessage error={overview.error} />
      {data && <NextStep app={app} overview={data} />}
      {data && <ApiList app={app} overview={data} />}
      <AppSettings app={app} onSaved={onSaved} />
      <DeleteApp app={app} />
    </>
  );
}

/** What to do next while the app is not set up: add a datasource, then import tables. */
function NextStep({ app, overview }: { app: App; overview: Overview }) {
  if (overview.datasources.length === 0)
    return (
      <div className="message message--info">
        <p>
          Next step: <Link to={`/apps/${seg(app.id)}/datasources`}>add a datasource</Link>, the
          database whose tables this app serves.
        </p>
      </div>
    );
  if (overview.importedTables === 0)
    return (
      <div className="message message--info">
        <p>
          Next step:{' '}
          <Link to={`/apps/${seg(app.id)}/model`}>import tables into the data model</Link>, then
          create a Table API on one.
        </p>
      </div>
    );
  return null;
}

/** The app's Table APIs and SQL APIs with their state. */
function ApiList({ app, overview }: { app: App; overview: Overview }) {
  const { apis, sqlApis } = overview;
  return (
    <section aria-labelledby="apis-heading">
      <h2 id="apis-heading">APIs</h2>
      {apis.length === 0 && (sqlApis ?? []).length === 0 ? (
        <p>
          No APIs yet. <Link to={`/apps/${seg(app.id)}/apis/new`}>Create a Table API</Link>.
        </p>
      ) : (
        <table className="table table--cards">
          <caption className="visually-hidden">APIs of {app.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Reads</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {apis.map((api) => (
              <tr key={api.id}>
                <th scope="row">
                  <Link to={`/apps/${seg(app.id)}/apis/${seg(api.id)}`}>{api.name}</Link>
                </th>
                <td data-label="Kind">Table API</td>
                <td data-label="Reads">table {api.table}</td>
                <td data-label="State">
                  <StatusBadge status={api.status} />
                </td>
              </tr>
            ))}
            {(sqlApis ?? []).map((api) => (
              <tr key={api.id}>
                <th scope="row">
                  <Link to={`/apps/${seg(app.id)}/sql-apis/${seg(api.id)}`}>{api.name}</Link>
                </th>
                <td data-label="Kind">SQL API</td>
                <td data-label="Reads">
                  {api.kind === 'mutation' ? 'a statement that writes' : 'a query'}
                </td>
                <td data-label="State">
                  <StatusBadge status={api.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sqlApis !== null && overview.datasources.length > 0 && (
        <p>
          <Link to={`/apps/${seg(app.id)}/sql-apis/new`}>New SQL API</Link>
        </p>
      )}
      <p className="hint">
        States are those of your working version; publish it from a Table API’s editor to make them
        reach API keys.
      </p>
    </section>
  );
}

/** Renames the app and sets or removes its own domain (`PATCH /api/apps/:appId`). */
function AppSettings({ app, onSaved }: { app: App; onSaved: () => void }) {
  const [name, setName] = useState(app.name);
  const [domain, setDomain] = useState(app.domain ?? '');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setNotice(null);
    setError(null);
    try {
      const saved = await patch<App>(`/api/apps/${seg(app.id)}`, {
        name: name.trim(),
        domain: domain.trim() === '' ? null : domain.trim().toLowerCase(),
      });
      setNotice(
        `Saved: “${saved.name}”${saved.domain ? ` at ${saved.domain}` : ', no own domain'}.`,
      );
      onSaved();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Name and domain</h2>
      <form className="form" onSubmit={save} noValidate>
        <div className="field">
          <label htmlFor="app-name">App name</label>
          <input
            id="app-name"
            value={name}
            maxLength={200}
            required
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="app-domain">Own domain (optional)</label>
          <input
            id="app-domain"
            value={domain}
            maxLength={253}
            inputMode="url"
            autoComplete="off"
            aria-describedby="app-domain-hint"
            onChange={(e) => setDomain(e.target.value)}
          />
          <p className="hint" id="app-domain-hint">
            A host name such as <code>shop.example.com</code> whose requests reach this app. Empty:
            none. The address <code>{app.address}</code> cannot change.
          </p>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Saving…' : 'Save name and domain'}
        </button>
      </form>
      <Feedback notice={notice} error={error} />
    </section>
  );
}

/**
 * Deletes the app behind a confirmation; when the service refuses because Table APIs stand in
 * the way (`409`, naming them), a second confirmation offers to delete them too (`?force=true`).
 */
function DeleteApp({ app }: { app: App }) {
  const navigate = useNavigate();
  const [step, setStep] = useState<null | 'ask' | { message: string; details: string[] }>(null);
  const path = `/api/apps/${seg(app.id)}`;

  async function remove(force: boolean) {
    try {
      await request<void>('DELETE', force ? `${path}?force=true` : path);
    } catch (e) {
      if (!force && e instanceof ApiError && e.status === 409) {
        setStep(describeError(e));
        return;
      }
      throw e;
    }
    navigate('/', { state: { deleted: app.name } });
  }

  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete the app</h2>
      <p>
        Deletes its versions, datasources, app users and row rules; API keys lose it from their
        scope. This cannot be undone.
      </p>
      <button type="button" className="button button--danger" onClick={() => setStep('ask')}>
        Delete app<span className="visually-hidden"> {app.name}</span>
      </button>
      {step === 'ask' && (
        <ConfirmDialog
          key="ask"
          title={`Delete the app “${app.name}”?`}
          confirmLabel="Delete app"
          onConfirm={() => remove(false)}
          onClose={() => setStep(null)}
        >
          <p>Its endpoint stops answering at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {step !== null && step !== 'ask' && (
        <ConfirmDialog
          key="force"
          title={`“${app.name}” still has APIs`}
          confirmLabel="Delete app and its APIs"
          onConfirm={() => remove(true)}
          onClose={() => setStep(null)}
        >
          <p>{step.message}</p>
          {step.details.length > 0 && (
            <ul>
              {step.details.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
          <p>Delete the app together with them?</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
