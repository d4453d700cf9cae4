import { useState } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { describeError, post } from '../shared/api';
import { ConfirmDialog } from '../shared/ConfirmDialog';
import { announceSignedOut } from '../shared/session-channel';
import { ErrorMessage } from '../shared/ui';
import { useSession } from './session';
import { hasUnsavedChanges, UNGUARDED } from './unsaved-changes';

/**
 * The frame of every signed-in page: a skip link, the header with the navigation and the
 * signed-in account with its sign-out button, and the page. Signing out ends the session on the
 * service (`POST /api/auth/logout`: a copy of the cookie is refused from then on), signs out the
 * browser's other tabs (session-channel.ts), and asks first when the page holds unsaved changes.
 */
export function Layout() {
  const { account, setAccount } = useSession();
  const navigate = useNavigate();
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  const [confirming, setConfirming] = useState(false);

  /** Ends the session on the service, tells the other tabs, and goes to sign-in. */
  async function endSession() {
    await post('/api/auth/logout');
    announceSignedOut();
    setAccount(null);
    navigate('/sign-in', { state: { ...UNGUARDED, signedOut: true } });
  }

  /** Signs out, after asking when a page holds unsaved changes. */
  async function signOut() {
    if (hasUnsavedChanges()) return setConfirming(true);
    try {
      await endSession();
    } catch (e) {
      setError(describeError(e));
    }
  }

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          TableGraph
        </Link>
        {account && (
          <nav aria-label="Main">
            <ul>
              <li>
                <NavLink to="/" end>
                  Apps
                </NavLink>
              </li>
              <li>
                <NavLink to="/keys">API keys</NavLink>
              </li>
              <li>
                <NavLink to="/access">Users and rules</NavLink>
              </li>
              <li>
                <NavLink to="/versions">Versions</NavLink>
              </li>
              {account.role === 'admin' && (
                <li>
                  <NavLink to="/accounts">Accounts</NavLink>
                </li>
              )}
            </ul>
          </nav>
        )}
        {account && (
          <div className="account">
            <span>
              Signed in as <strong>{account.email}</strong> (
              {account.role === 'admin' ? 'administrator' : 'builder'})
            </span>
            <button type="button" className="button button--secondary" onClick={signOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" className="page">
        <ErrorMessage error={error} />
        <Outlet />
      </main>
      {confirming && (
        <ConfirmDialog
          title="Sign out without saving?"
          confirmLabel="Sign out without saving"
          cancelLabel="Stay signed in"
          onConfirm={async () => {
            await endSession();
            setConfirming(false);
          }}
          onClose={() => setConfirming(false)}
        >
          <p>This page has changes you have not saved. Signing out now loses them.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
