import { Link, useParams } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App, ModelGroup, ModelTable, TableApi } from '../../shared/types';
import { ErrorMessage, Loading } from '../../shared/ui';
import { useLoad } from '../../shared/use-load';
import { AppFrame } from '../apps/AppFrame';
import { RowBrowser } from './RowBrowser';
import './rows.css';

/** The imported tables and Table APIs of an app's working version. */
interface Loaded {
  groups: ModelGroup[];
  apis: TableApi[];
}

async function loadTables(appId: string): Promise<Loaded> {
  const [groups, apis] = await Promise.all([
    get<ModelGroup[]>(`/api/apps/${seg(appId)}/model/tables`),
    get<TableApi[]>(`/api/apps/${seg(appId)}/apis`),
  ]);
  return { groups, apis };
}

/**
 * The APIs the row browser reads a table through: its Table APIs with select on, the one with the
 * most write actions first (then by name), so the default offers the most the table allows.
 */
export function readableApis(apis: TableApi[], table: string): TableApi[] {
  const writes = (a: TableApi) => +a.actions.insert + +a.actions.update + +a.actions.delete;
  return apis
    .filter((a) => a.table === table && a.actions.select)
    .sort((a, b) => writes(b) - writes(a) || a.name.localeCompare(b.name));
}

/**
 * The row browser (issue 27 item 6): `/apps/:appId/rows` lists the app's imported tables, each
 * with the Table API its rows are read through or, for a table without one, why not and a link to
 * create one; `/apps/:appId/rows/:table` browses one table's rows ({@link RowBrowser}) through
 * its Table API on the builder's working version, as the GraphiQL test tab calls it. A table
 * without a Table API with select is not browsed: the page says so and links the editor, because
 * the builder's GraphQL endpoint, the page's only way to rows, serves no operation for it.
 */
export function RowsPage() {
  const { table } = useParams();
  return (
    <AppFrame section="Rows">
      {(app) => <Rows app={app} table={table ?? null} key={table ?? ''} />}
    </AppFrame>
  );
}

/** The page for a loaded app: the table list, or one table's rows. */
function Rows({ app, table }: { app: App; table: string | null }) {
  const loaded = useLoad(() => loadTables(app.id), app.id);
  if (loaded.loading && !loaded.data) return <Loading what="the tables" />;
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  const { groups, apis } = loaded.data!;
  if (table === null) return <TableList app={app} groups={groups} apis={apis} />;

  const model = groups.flatMap((g) => g.tables).find((t) => t.name === table);
  const back = (
    <p>
      <Link to={`/apps/${seg(app.id)}/rows`}>All tables</Link>
    </p>
  );
  if (!model)
    return (
      <>
        {back}
        <p>
          No imported table is named {table}.{' '}
          <Link to={`/apps/${seg(app.id)}/model`}>Import tables in the data model</Link>.
        </p>
      </>
    );
  const readable = readableApis(apis, model.name);
  return (
    <>
      {back}
      <h2>Table {model.name}</h2>
      {!model.active ? (
        <p>
          {model.name} is not served: its Table APIs have no operations until you switch “Serve{' '}
          {model.name}” on in the <Link to={`/apps/${seg(app.id)}/model`}>data model</Link>.
        </p>
      ) : readable.length === 0 ? (
        <NoTableApi app={app} table={model} apis={apis.filter((a) => a.table === model.name)} />
      ) : (
        <RowBrowser app={app} table={model} apis={readable} />
      )}
    </>
  );
}

/** Why a table without a Table API that reads it has no rows here, and where to make one. */
function NoTableApi({ app, table, apis }: { app: App; table: ModelTable; apis: TableApi[] }) {
  return (
    <div className="message message--info">
      <p>
        Rows are read through a Table API, and {table.name} has none with the select action: the
        GraphQL endpoint serves no operation for it yet.
      </p>
      <ul>
        {apis.map((a) => (
          <li key={a.id}>
            <Link to={`/apps/${seg(app.id)}/apis/${seg(a.id)}`}>Switch select on in {a.name}</Link>
          </li>
        ))}
        <li>
          <Link to={`/apps/${seg(app.id)}/apis/new`}>Create a Table API</Link> for {table.name}
        </li>
      </ul>
    </div>
  );
}

/** What a Table API lets the browser do, in words: `read, add, edit, delete`. */
function actionWords(api: TableApi): string {
  const words = ['read'];
  if (api.actions.insert) words.push('add');
  if (api.actions.update) words.push('edit');
  if (api.actions.delete) words.push('delete');
  return words.join(', ');
}

/** The imported tables with how their rows can be browsed. */
function TableList({ app, groups, apis }: { app: App; groups: ModelGroup[]; apis: TableApi[] }) {
  const tables = groups.flatMap((g) => g.tables.map((t) => ({ datasource: g.datasource, t })));
  return (
    <>
      <p className="lead">
        The rows of each imported table, read and changed through its Table API on your working
        version, as the GraphiQL test tab runs it (drafts included).
      </p>
      {tables.length === 0 ? (
        <p>
          No imported tables yet.{' '}
          <Link to={`/apps/${seg(app.id)}/model`}>Import tables in the data model</Link>.
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption className="visually-hidden">Imported tables of {app.name}</caption>
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Datasource</th>
                <th scope="col">Read through</th>
                <th scope="col">Rows</th>
              </tr>
            </thead>
            <tbody>
              {tables.map(({ datasource, t }) => {
                const readable = readableApis(apis, t.name);
                return (
                  <tr key={`${datasource.id}:${t.name}`}>
                    <th scope="row">{t.name}</th>
                    <td data-label="Datasource">{datasource.name}</td>
                    <td data-label="Read through">
                      {!t.active
                        ? 'not served'
                        : readable.length
                          ? readable.map((a) => `${a.name} (${actionWords(a)})`).join('; ')
                          : 'no Table API with select'}
                    </td>
                    <td data-label="Rows">
                      {t.active && readable.length > 0 ? (
                        <Link to={`/apps/${seg(app.id)}/rows/${seg(t.name)}`}>
                          Browse rows<span className="visually-hidden"> of {t.name}</span>
                        </Link>
                      ) : !t.active ? (
                        <Link to={`/apps/${seg(app.id)}/model`}>
                          Serve it in the data model
                          <span className="visually-hidden"> ({t.name})</span>
                        </Link>
                      ) : (
                        <Link to={`/apps/${seg(app.id)}/apis/new`}>
                          Create a Table API<span className="visually-hidden"> for {t.name}</span>
                        </Link>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
