import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { ApiError, describeError, post } from '../../shared/api';
import { isSafeNextPath } from '../../shared/page-data';
import type { LoginAnswer } from '../../shared/types';
import { ErrorMessage, PageHeading, StatusMessage, usePageTitle } from '../../shared/ui';
import { useSession } from '../session';

/** The words for a refused sign-in (CONTRACT.md §2: 401 wrong credentials, 429 throttled). */
function signInError(error: unknown): { message: string; details: string[] } {
  if (error instanceof ApiError && error.status === 401)
    return { message: 'Wrong email or password.', details: [] };
  if (error instanceof ApiError && error.status === 429)
    return { message: 'Too many attempts. Wait a minute, then try again.', details: [] };
  return describeError(error);
}

/**
 * Sign-in for platform accounts (CONTRACT.md §2, §10): `POST /api/auth/login` sets the HttpOnly
 * session cookie; the answer's token is not kept anywhere. Then on to `?next=` (a path of this
 * service only) or the home page.
 */
export function SignInPage() {
  usePageTitle('Sign in');
  const { account, setAccount } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const next = params.get('next');
  const target = isSafeNextPath(next) ? next : '/';
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  function goOn() {
    // The test tab is served by the service itself (under /api), not by this app.
    if (target.startsWith('/api/')) window.location.assign(target);
    else navigate(target, { replace: true });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await post<LoginAnswer>('/api/auth/login', { email, password });
      setAccount(answer.account);
      goOn();
    } catch (e) {
      setError(signInError(e));
      setPassword('');
    } finally {
      setBusy(false);
    }
  }

  if (account) {
    return (
      <section className="narrow">
        <PageHeading>Signed in</PageHeading>
        <p>
          You are signed in as <strong>{account.email}</strong>.
        </p>
        <button type="button" className="button" onClick={goOn}>
          Continue
        </button>
      </section>
    );
  }

  return (
    <section className="narrow">
      <PageHeading>Sign in to TableGraph</PageHeading>
      {(location.state as { signedOut?: boolean } | null)?.signedOut && (
        <StatusMessage>You are signed out.</StatusMessage>
      )}
      <p>Use your platform account (administrator or builder).</p>
      <form
        onSubmit={submit}
        className="form"
        aria-describedby={error ? 'sign-in-error' : undefined}
      >
        <ErrorMessage error={error} id="sign-in-error" />
        <div className="field">
          <label htmlFor="email">Email</label>
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
