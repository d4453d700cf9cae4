import { Link } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App, TableApi } from '../../shared/types';
import { ACTION_NAMES } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, StatusBadge, usePageTitle } from '../../shared/ui';

/** An app with the Table APIs of the signed-in builder's working version. */
interface AppWithApis {
  app: App;
  apis: TableApi[];
}

/** Every app, each with its Table APIs (`GET /api/apps`, `GET /api/apps/:appId/apis`). */
async function loadApps(): Promise<AppWithApis[]> {
  const apps = await get<App[]>('/api/apps');
  return Promise.all(
    apps.map(async (app) => ({
      app,
      apis: await get<TableApi[]>(`/api/apps/${seg(app.id)}/apis`),
    })),
  );
}

/** The actions an API has switched on, in words. */
function actionsInWords(api: TableApi): string {
  const on = ACTION_NAMES.filter((a) => api.actions[a]);
  return on.length ? on.join(', ') : 'none';
}

/**
 * The signed-in home: each app with its Table APIs (as the builder's working version has them),
 * a link to edit each and to try it in the test tab, and a link to create one.
 */
export function HomePage() {
  usePageTitle('Apps');
  const loaded = useLoad(loadApps, 'apps');
  return (
    <>
      <PageHeading>Apps</PageHeading>
      <p className="lead">
        Table APIs you create or change here go to your working version; publish it to make them
        reach API keys.
      </p>
      {loaded.loading && !loaded.data && <Loading what="apps" />}
      <ErrorMessage error={loaded.error} />
      <p>
        <Link className="button" to="/apps/new">
          New app
        </Link>
      </p>
      {loaded.data?.length === 0 && <p>No apps yet: create the first one.</p>}
      {loaded.data?.map(({ app, apis }) => (
        <section key={app.id} className="card" aria-labelledby={`app-${app.id}`}>
          <div className="card__header">
            <h2 id={`app-${app.id}`}>
              <Link to={`/apps/${seg(app.id)}`}>{app.name}</Link>
            </h2>
            <Link className="button" to={`/apps/${seg(app.id)}/apis/new`}>
              New Table API<span className="visually-hidden"> in {app.name}</span>
            </Link>
          </div>
          <p>
            GraphQL endpoint: <code>/api/graphql/{app.address}</code> ·{' '}
            <Link to={`/apps/${seg(app.id)}/datasources`}>
              Datasources<span className="visually-hidden"> of {app.name}</span>
            </Link>{' '}
            ·{' '}
            <Link to={`/apps/${seg(app.id)}/model`}>
              Data model<span className="visually-hidden"> of {app.name}</span>
            </Link>
          </p>
          {apis.length === 0 ? (
            <p>No Table APIs yet.</p>
          ) : (
            <table className="table">
              <caption className="visually-hidden">Table APIs of {app.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Table</th>
                  <th scope="col">Actions</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="visually-hidden">Links</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {apis.map((api) => (
                  <tr key={api.id}>
                    <th scope="row">
                      <Link to={`/apps/${seg(app.id)}/apis/${seg(api.id)}`}>{api.name}</Link>
                    </th>
                    <td>{api.table}</td>
                    <td>{actionsInWords(api)}</td>
                    <td>
                      <StatusBadge status={api.status} />
                    </td>
                    <td>
                      <a href={`/api/apps/${seg(app.id)}/apis/${seg(api.id)}/test`}>
                        Test tab<span className="visually-hidden"> of {api.name}</span>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ))}
    </>
  );
}
