import type { ReactNode } from 'react';
import { Link, NavLink, useParams } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, usePageTitle } from '../../shared/ui';

/** The pages of one app, in the order its navigation lists them. */
const SECTIONS = [
  { path: '', label: 'Overview' },
  { path: '/datasources', label: 'Datasources' },
  { path: '/model', label: 'Data model' },
  { path: '/enums', label: 'Enums' },
  { path: '/rows', label: 'Rows' },
  { path: '/webhooks', label: 'Webhooks' },
] as const;

/**
 * The frame of an app's pages (`/apps/:appId`, `…/datasources`, `…/model`, `…/enums`): loads
 * the app (`GET /api/apps/:appId`), titles the page "<section>: <app>", and shows a breadcrumb
 * back to all apps and the app's own navigation (the current page marked with
 * `aria-current="page"`), which also leads to the app's new Table API, users and rules, and
 * versions pages. `children` renders the page for the loaded app.
 */
export function AppFrame({
  section,
  children,
}: {
  section: (typeof SECTIONS)[number]['label'];
  children: (app: App, reload: () => void) => ReactNode;
}) {
  const { appId = '' } = useParams();
  const loaded = useLoad(() => get<App>(`/api/apps/${seg(appId)}`), appId);
  const app = loaded.data;
  usePageTitle(app ? `${section}: ${app.name}` : section);
  return (
    <>
      <p className="breadcrumbs">
        <Link to="/">Apps</Link> › {app?.name ?? '…'}
      </p>
      <PageHeading>
        {section === 'Overview'
          ? (app?.name ?? 'App')
          : `${section}${app ? ` of ${app.name}` : ''}`}
      </PageHeading>
      <nav aria-label="App" className="subnav">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.label}>
              <NavLink to={`/apps/${seg(appId)}${s.path}`} end>
                {s.label}
              </NavLink>
            </li>
          ))}
          <li>
            <Link to={`/apps/${seg(appId)}/apis/new`}>New Table API</Link>
          </li>
          <li>
            <Link to={`/apps/${seg(appId)}/access`}>Users and rules</Link>
          </li>
          <li>
            <Link to={`/apps/${seg(appId)}/versions`}>Versions</Link>
          </li>
        </ul>
      </nav>
      {loaded.loading && !app && <Loading what="the app" />}
      <ErrorMessage error={loaded.error} />
      {app && children(app, loaded.reload)}
    </>
  );
}
