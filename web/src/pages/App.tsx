import { useEffect, useMemo, useState } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router';
import { whenSignedOut } from '../shared/api';
import { whenSignedOutElsewhere } from '../shared/session-channel';
import type { Account } from '../shared/types';
import { AppPage } from './apps/AppPage';
import { CreateAppPage } from './apps/CreateAppPage';
import { DatasourcesPage } from './datasources/DatasourcesPage';
import { AccessPage } from './access/AccessPage';
import { AppChooserPage } from './access/AccessIndexPage';
import { AccountsPage } from './accounts/AccountsPage';
import { EditorPage } from './editor/EditorPage';
import { HomePage } from './home/HomePage';
import { KeysPage } from './keys/KeysPage';
import { Layout } from './Layout';
import { EnumsPage } from './model/EnumsPage';
import { ModelPage } from './model/ModelPage';
import { NotFoundPage } from './NotFoundPage';
import { RowsPage } from './rows/RowsPage';
import { SessionContext } from './session';
import { SignInPage } from './sign-in/SignInPage';
import { SqlApiPage } from './sql-apis/SqlApiPage';
import { UNGUARDED } from './unsaved-changes';
import { VersionsPage } from './versions/VersionsPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

/**
 * The pages (CONTRACT.md §10) and their URLs, which the service maps to this app
 * (`src/pages/page-routes.ts`): `/sign-in`, `/` (apps and their Table APIs), `/keys`,
 * `/apps/new` (create an app), `/apps/:appId` (an app's overview), `…/datasources`, `…/model`
 * (the data model), `…/enums`, `/apps/:appId/apis/new` and `/apps/:appId/apis/:apiId` (the Table
 * API editor), `/apps/:appId/sql-apis/new` and `/apps/:appId/sql-apis/:id` (an SQL API, issue 26
 * item 5), `/apps/:appId/rows` and `/apps/:appId/rows/:table` (the row browser, issue 27 item
 * 6); any other URL
 * shows "Page not found". Users and row rules (`/access`, `/apps/:appId/access`), versions
 * (`/versions`, `/apps/:appId/versions`) and platform accounts (`/accounts`) are issue 27's
 * items 4, 5 and 7. Signing out in another tab of the browser signs this one out too.
 */
export function App({ initialAccount }: { initialAccount: Account | null }) {
  const [account, setAccount] = useState(initialAccount);
  const session = useMemo(() => ({ account, setAccount }), [account]);
  const navigate = useNavigate();
  const location = useLocation();

  useEffect(() => {
    // A request that finds the session gone (expired, signed out elsewhere) leads to sign-in.
    whenSignedOut(() => {
      setAccount(null);
      navigate(`/sign-in?next=${encodeURIComponent(location.pathname)}`, { state: UNGUARDED });
    });
    return () => whenSignedOut(null);
  }, [navigate, location.pathname]);

  useEffect(
    // Another tab signed this browser out (its session ended on the server): so is this one.
    () =>
      whenSignedOutElsewhere(() => {
        setAccount(null);
        navigate('/sign-in', { state: { ...UNGUARDED, signedOut: true } });
      }),
    [navigate],
  );

  return (
    <SessionContext.Provider value={session}>
      <Routes>
        <Route element={<Layout />}>
          <Route path="/sign-in" element={<SignInPage />} />
          <Route path="/" element={<HomePage />} />
          <Route path="/keys" element={<KeysPage />} />
          <Route path="/apps/new" element={<CreateAppPage />} />
          <Route path="/apps/:appId" element={<AppPage />} />
          <Route path="/apps/:appId/datasources" element={<DatasourcesPage />} />
          <Route path="/apps/:appId/model" element={<ModelPage />} />
          <Route path="/apps/:appId/enums" element={<EnumsPage />} />
          <Route path="/apps/:appId/apis/new" element={<EditorPage key="new" />} />
          <Route path="/apps/:appId/apis/:apiId" element={<EditorPage />} />
          <Route path="/apps/:appId/sql-apis/new" element={<SqlApiPage key="new" />} />
          <Route path="/apps/:appId/sql-apis/:id" element={<SqlApiPage />} />
          <Route path="/access" element={<AppChooserPage kind="access" key="access" />} />
          <Route path="/apps/:appId/access" element={<AccessPage />} />
          <Route path="/versions" element={<AppChooserPage kind="versions" key="versions" />} />
          <Route path="/apps/:appId/versions" element={<VersionsPage />} />
          <Route path="/apps/:appId/webhooks" element={<WebhooksPage />} />
          <Route path="/apps/:appId/rows" element={<RowsPage />} />
          <Route path="/apps/:appId/rows/:table" element={<RowsPage />} />
          <Route path="/accounts" element={<AccountsPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </SessionContext.Provider>
  );
}
