import { Link } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, usePageTitle } from '../../shared/ui';

/**
 * Which app's users and rules, or versions, to open (`/access`, `/versions`): every app with a
 * link to its page of that kind.
 */
export function AppChooserPage({ kind }: { kind: 'access' | 'versions' }) {
  const title = kind === 'access' ? 'Users and rules' : 'Versions';
  usePageTitle(title);
  const apps = useLoad(() => get<App[]>('/api/apps'), 'apps');
  return (
    <>
      <PageHeading>{title}</PageHeading>
      <p className="lead">
        {kind === 'access'
          ? 'Each app has its own users, roles and row rules. Choose an app.'
          : 'Compare your working version of an app with its main version, and publish it. Choose an app.'}
      </p>
      {apps.loading && !apps.data && <Loading what="apps" />}
      <ErrorMessage error={apps.error} />
      {apps.data?.length === 0 && <p>No apps yet.</p>}
      {apps.data && apps.data.length > 0 && (
        <ul className="app-links">
          {apps.data.map((app) => (
            <li key={app.id}>
              <Link to={`/apps/${seg(app.id)}/${kind}`}>
                {kind === 'access' ? `Users and rules of ${app.name}` : `Versions of ${app.name}`}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
