import { Link, useParams } from 'react-router';
import { get, seg } from '../../shared/api';
import type { App, ModelGroup, ModelTable, TableApi } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading, PageHeading, usePageTitle } from '../../shared/ui';
import type { AppUser, Permissions } from './access-types';
import { PermissionsSection } from './PermissionsSection';
import { UsersSection } from './UsersSection';
import { ViewAsSection } from './ViewAsSection';
import './access.css';

/** Everything the page shows of one app, loaded together. */
interface AccessData {
  app: App;
  users: AppUser[];
  permissions: Permissions;
  apis: TableApi[];
  tables: Map<string, ModelTable>;
}

/** The app, its users, its rules and Table APIs (working version) and its model tables. */
async function loadAccess(appId: string): Promise<AccessData> {
  const path = `/api/apps/${seg(appId)}`;
  const [app, users, permissions, apis, groups] = await Promise.all([
    get<App>(path),
    get<AppUser[]>(`${path}/users`),
    get<Permissions>(`${path}/permissions`),
    get<TableApi[]>(`${path}/apis`),
    get<ModelGroup[]>(`${path}/model/tables`),
  ]);
  const tables = new Map(groups.flatMap((g) => g.tables.map((t) => [t.name, t] as const)));
  return { app, users, permissions, apis, tables };
}

/**
 * App users and row rules of one app (issue 27 item 4, `/apps/:appId/access`): its users, its
 * roles with the permissions grid and rule editor, and "view as".
 */
export function AccessPage() {
  const { appId = '' } = useParams();
  const loaded = useLoad(() => loadAccess(appId), appId);
  const name = loaded.data?.app.name;
  usePageTitle(name ? `Users and rules of ${name}` : 'Users and rules');
  return (
    <div className="access-pages">
      <p className="breadcrumbs">
        <Link to="/access">Users and rules</Link>
      </p>
      <PageHeading>{name ? `Users and rules of ${name}` : 'Users and rules'}</PageHeading>
      {loaded.loading && !loaded.data && <Loading what="users and rules" />}
      <ErrorMessage error={loaded.error} />
      {loaded.data && (
        <>
          <UsersSection appId={appId} users={loaded.data.users} onChanged={loaded.reload} />
          <PermissionsSection
            appId={appId}
            apis={loaded.data.apis}
            tables={loaded.data.tables}
            permissions={loaded.data.permissions}
            users={loaded.data.users}
            onChanged={loaded.reload}
          />
          <ViewAsSection address={loaded.data.app.address} users={loaded.data.users} />
        </>
      )}
    </div>
  );
}
