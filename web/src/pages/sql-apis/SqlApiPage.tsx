import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { describeError, get, patch, post, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import {
  ErrorMessage,
  Feedback,
  Loading,
  PageHeading,
  StatusBadge,
  usePageTitle,
  VisuallyHidden,
} from '../../shared/ui';
import type { AppEnum, Datasource } from '../model/model-types';
import { UNGUARDED } from '../unsaved-changes';

/** The kinds a builder may confirm for an argument or column (README "SQL APIs": all but `array`). */
const KINDS = [
  'text',
  'int',
  'float',
  'bigint',
  'decimal',
  'boolean',
  'date',
  'time',
  'duration',
  'timestamp',
  'timestamptz',
  'json',
  'uuid',
  'binary',
] as const;

/** What the database proposed for an argument or column (`proposed` of the REST answer). */
interface Proposal {
  databaseType: string | null;
  kind: string | null;
  nullable: boolean | null;
}

/** One argument or column of an SQL API; `kind` is `type` for an argument. */
interface Described {
  name: string;
  type?: string | null;
  kind?: string | null;
  nullable: boolean;
  enum?: string;
  proposed: Proposal;
  confirmed?: boolean;
}

/** An SQL API as `GET /api/apps/:appId/sql-apis/:id` answers it. */
interface SqlApi {
  id: string;
  name: string;
  datasourceId: string;
  statement: string;
  kind: 'query' | 'mutation';
  filterable: boolean;
  public: boolean;
  status: 'draft' | 'published';
  arguments: Described[];
  columns: Described[];
}

/** The fields of the form, as the create and update bodies take them. */
interface SqlApiForm {
  name: string;
  datasourceId: string;
  statement: string;
  kind: 'query' | 'mutation';
  filterable: boolean;
  public: boolean;
}

/** What the page needs, loaded at once. */
interface SqlApiData {
  app: App;
  datasources: Datasource[];
  enums: AppEnum[];
  api: SqlApi | null;
}

/** The app, its datasources and enums, and the SQL API (none when new). */
async function loadSqlApi(appId: string, id: string | undefined): Promise<SqlApiData> {
  const base = `/api/apps/${seg(appId)}`;
  const [app, datasources, enums, api] = await Promise.all([
    get<App>(base),
    get<Datasource[]>(`${base}/datasources`),
    get<AppEnum[]>(`${base}/enums`),
    id ? get<SqlApi>(`${base}/sql-apis/${seg(id)}`) : Promise.resolve(null),
  ]);
  return { app, datasources, enums, api };
}

const formOf = (api: SqlApi): SqlApiForm => ({
  name: api.name,
  datasourceId: api.datasourceId,
  statement: api.statement,
  kind: api.kind,
  filterable: api.filterable,
  public: api.public,
});

/**
 * The SQL API page (issue 26 item 5, README "SQL APIs") at `/apps/:appId/sql-apis/new` and
 * `/apps/:appId/sql-apis/:id`: the statement and its settings (saved through
 * `POST`/`PATCH /api/apps/:appId/sql-apis…`, a refusal shown with its line and column), the
 * arguments and columns the database described with the builder's confirmations (each a `PATCH
 * …/arguments/:name` or `…/columns/:name`), and Publish with the service's reasons when it refuses.
 */
export function SqlApiPage() {
  const { appId = '', id } = useParams();
  const loaded = useLoad(() => loadSqlApi(appId, id), `${appId}/${id ?? 'new'}`);
  usePageTitle(id ? (loaded.data?.api?.name ?? 'SQL API') : 'New SQL API');
  if (loaded.error)
    return (
      <>
        <PageHeading>SQL API</PageHeading>
        <ErrorMessage error={loaded.error} />
        <p>
          <Link to="/">Back to your apps</Link>
        </p>
      </>
    );
  if (!loaded.data) return <Loading what="the SQL API" />;
  return <SqlApiEditor key={loaded.data.api?.id ?? 'new'} data={loaded.data} />;
}

/** The page for loaded data. */
function SqlApiEditor({ data }: { data: SqlApiData }) {
  const { app, datasources, enums } = data;
  const navigate = useNavigate();
  const location = useLocation();
  const [saved, setSaved] = useState(data.api);
  const [form, setForm] = useState<SqlApiForm>(
    data.api
      ? formOf(data.api)
      : {
          name: '',
          datasourceId: datasources[0]?.id ?? '',
          statement: '',
          kind: 'query',
          filterable: false,
          public: false,
        },
  );
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const [notice, setNotice] = useState<string | null>(
    (location.state as { notice?: string } | null)?.notice ?? null,
  );
  const [busy, setBusy] = useState(false);
  const appPath = `/api/apps/${seg(app.id)}`;
  const dirty = !saved || JSON.stringify(formOf(saved)) !== JSON.stringify(form);

  /** Runs one request, showing its notice or the service's refusal. */
  async function act(run: () => Promise<string | null>) {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setNotice(await run());
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  function save(event: FormEvent) {
    event.preventDefault();
    void act(async () => {
      if (!saved) {
        const created = await post<SqlApi>(`${appPath}/sql-apis`, form);
        navigate(`/apps/${seg(app.id)}/sql-apis/${seg(created.id)}`, {
          replace: true,
          state: {
            ...UNGUARDED,
            notice: `Saved “${created.name}” as a draft in your working version; the database described it below.`,
          },
        });
        return null;
      }
      const updated = await patch<SqlApi>(`${appPath}/sql-apis/${seg(saved.id)}`, form);
      setSaved(updated);
      setForm(formOf(updated));
      return 'Saved in your working version.';
    });
  }

  function confirm(part: 'arguments' | 'columns', name: string, body: Record<string, unknown>) {
    if (!saved) return;
    void act(async () => {
      const updated = await patch<SqlApi>(
        `${appPath}/sql-apis/${seg(saved.id)}/${part}/${seg(name)}`,
        body,
      );
      setSaved(updated);
      return `Confirmed ${part === 'arguments' ? 'argument' : 'column'} “${name}”.`;
    });
  }

  function publish() {
    if (!saved) return;
    void act(async () => {
      await post(`${appPath}/sql-apis/${seg(saved.id)}/publish`);
      setSaved(await get<SqlApi>(`${appPath}/sql-apis/${seg(saved.id)}`));
      return 'Published in your working version. Publish the working version (from a Table API’s editor) so API keys reach it.';
    });
  }

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/">Apps</Link> › <Link to={`/apps/${seg(app.id)}`}>{app.name}</Link>
      </p>
      <PageHeading>{saved ? `SQL API “${saved.name}”` : 'New SQL API'}</PageHeading>
      <p className="lead">
        <StatusBadge status={saved ? saved.status : 'new'} /> In {app.name}. Changes go to your
        working version of the app.
      </p>
      {saved && (
        <p>
          <a
            className="button button--secondary"
            href={`${appPath}/apis/${seg(saved.id)}/test`}
            target="_blank"
            rel="noopener"
          >
            Open the test tab<VisuallyHidden> (opens in a new tab)</VisuallyHidden>
          </a>{' '}
          <span className="hint">GraphiQL on your working version, with a starter query.</span>
        </p>
      )}
      <Feedback notice={notice} error={error} />
      <form className="form" onSubmit={save} noValidate>
        <div className="field">
          <label htmlFor="sql-name">API name</label>
          <input
            id="sql-name"
            value={form.name}
            maxLength={63}
            required
            aria-describedby="sql-name-hint"
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
          <p className="hint" id="sql-name-hint">
            The GraphQL field’s name. A letter, then letters, digits or _.
          </p>
        </div>
        <div className="field">
          <label htmlFor="sql-datasource">Datasource</label>
          <select
            id="sql-datasource"
            value={form.datasourceId}
            onChange={(e) => setForm({ ...form, datasourceId: e.target.value })}
          >
            {datasources.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="sql-kind">Kind</label>
          <select
            id="sql-kind"
            value={form.kind}
            onChange={(e) => setForm({ ...form, kind: e.target.value as SqlApiForm['kind'] })}
          >
            <option value="query">Query (a read, run read-only and rolled back)</option>
            <option value="mutation">Mutation (a statement that writes)</option>
          </select>
        </div>
        <div className="field field--check">
          <input
            id="sql-filterable"
            type="checkbox"
            checked={form.filterable}
            onChange={(e) => setForm({ ...form, filterable: e.target.checked })}
          />
          <label htmlFor="sql-filterable">Filterable (where, order and skip around the rows)</label>
        </div>
        <div className="field field--check">
          <input
            id="sql-public"
            type="checkbox"
            role="switch"
            checked={form.public}
            onChange={(e) => setForm({ ...form, public: e.target.checked })}
          />
          <label htmlFor="sql-public">Public (anonymous callers may call it once published)</label>
        </div>
        <div className="field">
          <label htmlFor="sql-statement">SQL statement</label>
          <textarea
            id="sql-statement"
            value={form.statement}
            rows={10}
            spellCheck={false}
            style={{ fontFamily: 'monospace', width: '100%', boxSizing: 'border-box' }}
            aria-describedby="sql-statement-hint"
            onChange={(e) => setForm({ ...form, statement: e.target.value })}
          />
          <p className="hint" id="sql-statement-hint">
            One statement in the datasource’s SQL; <code>:name</code> is an argument.
          </p>
        </div>
        <div className="actions actions--bar">
          <button type="submit" className="button" disabled={busy || !dirty}>
            {saved ? 'Save changes' : 'Save draft'}
          </button>
          {saved && (
            <button
              type="button"
              className="button button--primary"
              disabled={busy || dirty}
              onClick={publish}
            >
              Publish
            </button>
          )}
        </div>
      </form>
      {saved && (
        <>
          <DescribedTable
            title="Arguments"
            part="arguments"
            rows={saved.arguments}
            enums={enums}
            busy={busy}
            onConfirm={confirm}
          />
          <DescribedTable
            title="Columns"
            part="columns"
            rows={saved.columns}
            enums={enums}
            busy={busy}
            onConfirm={confirm}
          />
        </>
      )}
    </>
  );
}

/** The arguments or columns: the database's proposal beside the builder's confirmation. */
function DescribedTable({
  title,
  part,
  rows,
  enums,
  busy,
  onConfirm,
}: {
  title: string;
  part: 'arguments' | 'columns';
  rows: Described[];
  enums: AppEnum[];
  busy: boolean;
  onConfirm: (part: 'arguments' | 'columns', name: string, body: Record<string, unknown>) => void;
}) {
  const headingId = `${part}-heading`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {rows.length === 0 ? (
        <p>None.</p>
      ) : (
        <table className="table table--cards">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Database proposed</th>
              <th scope="col">Confirmed</th>
              <th scope="col">Confirm</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <DescribedRow
                key={row.name}
                part={part}
                row={row}
                enums={enums}
                busy={busy}
                onConfirm={onConfirm}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One argument or column with its controls; Confirm sends kind, nullable and enum at once. */
function DescribedRow({
  part,
  row,
  enums,
  busy,
  onConfirm,
}: {
  part: 'arguments' | 'columns';
  row: Described;
  enums: AppEnum[];
  busy: boolean;
  onConfirm: (part: 'arguments' | 'columns', name: string, body: Record<string, unknown>) => void;
}) {
  const current = (part === 'arguments' ? row.type : row.kind) ?? '';
  const [kind, setKind] = useState(current);
  const [nullable, setNullable] = useState(row.nullable);
  const [enumName, setEnumName] = useState(row.enum ?? '');
  const id = `${part}-${row.name}`;
  const p = row.proposed;
  return (
    <tr>
      <th scope="row">
        <code>{row.name}</code>
      </th>
      <td data-label="Database proposed">
        {p.databaseType ?? 'no type'}
        {p.kind ? ` (${p.kind})` : ''}
        {p.nullable === null ? '' : p.nullable ? ', nullable' : ', not null'}
      </td>
      <td data-label="Confirmed">
        {row.confirmed ? 'Yes' : 'No'}: {current || 'no kind'}
        {row.nullable ? ', nullable' : ', not null'}
        {row.enum ? `, enum ${row.enum}` : ''}
      </td>
      <td data-label="Confirm">
        <div className="field">
          <label htmlFor={`${id}-kind`}>Kind of {row.name}</label>
          <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">Choose…</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <div className="field field--check">
          <input
            id={`${id}-nullable`}
            type="checkbox"
            checked={nullable}
            onChange={(e) => setNullable(e.target.checked)}
          />
          <label htmlFor={`${id}-nullable`}>{row.name} may be null</label>
        </div>
        <div className="field">
          <label htmlFor={`${id}-enum`}>Enum of {row.name}</label>
          <select id={`${id}-enum`} value={enumName} onChange={(e) => setEnumName(e.target.value)}>
            <option value="">None</option>
            {enums.map((e) => (
              <option key={e.name} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          className="button button--secondary"
          disabled={busy || kind === ''}
          onClick={() =>
            onConfirm(part, row.name, { kind, nullable, enum: enumName === '' ? null : enumName })
          }
        >
          Confirm {row.name}
        </button>
      </td>
    </tr>
  );
}
