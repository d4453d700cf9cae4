import { useEffect, useMemo, useState } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router';
import { whenSignedOut } from '../shared/api';
import type { Account } from '../shared/types';
import { EditorPage } from './editor/EditorPage';
import { HomePage } from './home/HomePage';
import { KeysPage } from './keys/KeysPage';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';
import { SessionContext } from './session';
import { SignInPage } from './sign-in/SignInPage';

/**
 * The pages (CONTRACT.md §10) and their URLs, which the service maps to this app
 * (`src/pages/page-routes.ts`): `/sign-in`, `/` (apps and their Table APIs), `/keys`,
 * `/apps/:appId/apis/new` and `/apps/:appId/apis/:apiId` (the Table API editor).
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
      navigate(`/sign-in?next=${encodeURIComponent(location.pathname)}`);
    });
    return () => whenSignedOut(null);
  }, [navigate, location.pathname]);

  return (
    <SessionContext.Provider value={session}>
      <Routes>
        <Route element={<Layout />}>
          <Route path="/sign-in" element={<SignInPage />} />
          <Route path="/" element={<HomePage />} />
          <Route path="/keys" element={<KeysPage />} />
          <Route path="/apps/:appId/apis/new" element={<EditorPage key="new" />} />
          <Route path="/apps/:appId/apis/:apiId" element={<EditorPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </SessionContext.Provider>
  );
}
