import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { describeError, post, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { ErrorMessage, PageHeading, usePageTitle } from '../../shared/ui';

/** The address rule of CONTRACT.md §3: 2 to 63 lower-case letters, digits and dashes. */
const ADDRESS = /^[a-z0-9-]{2,63}$/;

/** An address suggested from a name: lower case, runs of other characters as one dash. */
export function addressFrom(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}

/** The problems of the form, before it is sent (the service checks again). */
function problemsOf(name: string, address: string): string[] {
  const problems: string[] = [];
  if (!name.trim()) problems.push('Give the app a name.');
  if (!ADDRESS.test(address))
    problems.push('The address takes 2 to 63 lower-case letters, digits and dashes.');
  return problems;
}

/**
 * Creates an app (`/apps/new`, `POST /api/apps`, issue 27 item 1): a name and its address (the
 * GraphQL endpoint `/api/graphql/<address>`, suggested from the name until edited). Then on to
 * the app's datasources, the next step.
 */
export function CreateAppPage() {
  usePageTitle('New app');
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [addressEdited, setAddressEdited] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const shownAddress = addressEdited ? address : addressFrom(name);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problems = problemsOf(name, shownAddress);
    if (problems.length)
      return setError({ message: 'The app cannot be created yet:', details: problems });
    setBusy(true);
    setError(null);
    try {
      const app = await post<App>('/api/apps', { name: name.trim(), address: shownAddress });
      navigate(`/apps/${seg(app.id)}/datasources`, { state: { created: app.name } });
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  }

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/">Apps</Link> › New app
      </p>
      <PageHeading>New app</PageHeading>
      <p className="lead">
        An app is one GraphQL endpoint over one or more databases. Next you add its datasource and
        import tables.
      </p>
      <form className="form" onSubmit={submit} noValidate>
        <ErrorMessage error={error} />
        <div className="field">
          <label htmlFor="new-app-name">App name</label>
          <input
            id="new-app-name"
            value={name}
            maxLength={200}
            required
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="new-app-address">Address</label>
          <input
            id="new-app-address"
            value={shownAddress}
            maxLength={63}
            required
            autoComplete="off"
            spellCheck={false}
            aria-describedby="new-app-address-hint"
            onChange={(e) => {
              setAddressEdited(true);
              setAddress(e.target.value);
            }}
          />
          <p className="hint" id="new-app-address-hint">
            Its endpoint becomes <code>/api/graphql/{shownAddress || '<address>'}</code>. 2 to 63
            lower-case letters, digits and dashes; it cannot change later.
          </p>
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Creating…' : 'Create app'}
        </button>
      </form>
    </>
  );
}
