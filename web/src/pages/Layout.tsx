import { useState } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { describeError, post } from '../shared/api';
import { ErrorMessage } from '../shared/ui';
import { useSession } from './session';

/**
 * The frame of every signed-in page: a skip link, the header with the navigation and the
 * signed-in account with its sign-out button (`POST /api/auth/logout`), and the page.
 */
export function Layout() {
  const { account, setAccount } = useSession();
  const navigate = useNavigate();
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  async function signOut() {
    try {
      await post('/api/auth/logout');
      setAccount(null);
      navigate('/sign-in', { state: { signedOut: true } });
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
    </>
  );
}
