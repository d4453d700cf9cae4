import { useState, type FormEvent } from 'react';
import { describeError, post } from '../../shared/api';
import type { App, CreatedApiKey, ScopeEntry, TableApi } from '../../shared/types';
import { ErrorMessage, VisuallyHidden } from '../../shared/ui';

/** An app a key may be scoped to, with its published Table APIs (what a key can reach). */
export interface ScopableApp {
  app: App;
  published: TableApi[];
}

/** What the form holds for one ticked app. */
interface Pick {
  restrict: boolean;
  endpoints: string[];
}

/** The problems of the form, before it is sent (the service checks again). */
function problemsOf(name: string, picks: Map<string, Pick>, apps: ScopableApp[]): string[] {
  const problems: string[] = [];
  if (!name.trim()) problems.push('Give the key a name.');
  if (picks.size === 0) problems.push('Tick at least one app.');
  for (const { app } of apps) {
    const pick = picks.get(app.id);
    if (pick?.restrict && pick.endpoints.length === 0)
      problems.push(
        `Pick at least one endpoint of ${app.name}, or untick “Restrict to specific endpoints”.`,
      );
  }
  return problems;
}

/** The key's scope (CONTRACT.md §5): each ticked app, with `"all"` or the chosen endpoints. */
function scopeOf(picks: Map<string, Pick>): ScopeEntry[] {
  return [...picks].map(([appId, pick]) => ({
    appId,
    endpoints: pick.restrict ? pick.endpoints : 'all',
  }));
}

/**
 * Creates a key (CONTRACT.md §5 `POST /api/admin/api-keys`): a name, the apps ticked (ticking an
 * app grants all its endpoints), and per app "Restrict to specific endpoints" among its published
 * Table APIs (the box is named "… of <app>", so each app's is told apart); optionally a rate
 * limit, a cost budget (README "Cost budgets") and an expiry.
 */
export function CreateKeyForm({
  apps,
  onCreated,
}: {
  apps: ScopableApp[];
  onCreated: (key: CreatedApiKey) => void;
}) {
  const [name, setName] = useState('');
  const [picks, setPicks] = useState(new Map<string, Pick>());
  const [rate, setRate] = useState('');
  const [points, setPoints] = useState('');
  const [expires, setExpires] = useState('');
  // `mcpDeletes` (README "Agents (MCP)"): MCP's delete_row, off unless ticked.
  const [deletes, setDeletes] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);

  function change(appId: string, pick: Pick | null) {
    setPicks((old) => {
      const next = new Map(old);
      if (pick) next.set(appId, pick);
      else next.delete(appId);
      return next;
    });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problems = problemsOf(name, picks, apps);
    if (problems.length) {
      setError({ message: 'The key cannot be created yet:', details: problems });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const created = await post<CreatedApiKey>('/api/admin/api-keys', {
        name: name.trim(),
        scope: scopeOf(picks),
        ...(rate ? { rateLimitPerMinute: Number(rate) } : {}),
        ...(points ? { pointsPerMinute: Number(points) } : {}),
        ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
        ...(deletes ? { mcpDeletes: true } : {}),
      });
      setName('');
      setPicks(new Map());
      setRate('');
      setPoints('');
      setExpires('');
      setDeletes(false);
      onCreated(created);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <ErrorMessage error={error} />
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          value={name}
          maxLength={200}
          required
          aria-describedby="key-name-hint"
          onChange={(e) => setName(e.target.value)}
        />
        <p className="hint" id="key-name-hint">
          Who or what uses the key, e.g. “Shop front-end”.
        </p>
      </div>
      <fieldset className="fieldset">
        <legend>Apps the key may call</legend>
        {apps.length === 0 && <p>There are no apps yet.</p>}
        {apps.map(({ app, published }) => {
          const pick = picks.get(app.id);
          const appBox = `key-app-${app.id}`;
          return (
            <div key={app.id} className="scope-app">
              <div className="check">
                <input
                  type="checkbox"
                  id={appBox}
                  checked={Boolean(pick)}
                  aria-describedby={`${appBox}-hint`}
                  onChange={(e) =>
                    change(app.id, e.target.checked ? { restrict: false, endpoints: [] } : null)
                  }
                />
                <label htmlFor={appBox}>{app.name}</label>
                <span className="hint" id={`${appBox}-hint`}>
                  {pick?.restrict ? 'only the endpoints chosen below' : 'all endpoints'}
                </span>
              </div>
              {pick && (
                <div className="nested">
                  <div className="check">
                    <input
                      type="checkbox"
                      id={`${appBox}-restrict`}
                      checked={pick.restrict}
                      onChange={(e) => change(app.id, { ...pick, restrict: e.target.checked })}
                    />
                    <label htmlFor={`${appBox}-restrict`}>
                      Restrict to specific endpoints<VisuallyHidden> of {app.name}</VisuallyHidden>
                    </label>
                  </div>
                  {pick.restrict && (
                    <fieldset className="fieldset nested">
                      <legend>Endpoints of {app.name}</legend>
                      {published.length === 0 && <p>{app.name} has no published Table APIs.</p>}
                      {published.map((api) => {
                        const box = `${appBox}-api-${api.id}`;
                        const on = pick.endpoints.includes(api.id);
                        return (
                          <div key={api.id} className="check">
                            <input
                              type="checkbox"
                              id={box}
                              checked={on}
                              onChange={() =>
                                change(app.id, {
                                  ...pick,
                                  endpoints: on
                                    ? pick.endpoints.filter((id) => id !== api.id)
                                    : [...pick.endpoints, api.id],
                                })
                              }
                            />
                            <label htmlFor={box}>{api.name}</label>
                            <span className="hint">table {api.table}</span>
                          </div>
                        );
                      })}
                    </fieldset>
                  )}
                </div>
              )}
            </div>
          );
        })}
      </fieldset>
      <div className="field-row">
        <div className="field">
          <label htmlFor="key-rate">Rate limit, requests per minute (optional)</label>
          <input
            id="key-rate"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={rate}
            aria-describedby="key-rate-hint"
            onChange={(e) => setRate(e.target.value)}
          />
          <p className="hint" id="key-rate-hint">
            Empty: the service’s default.
          </p>
        </div>
        <div className="field">
          <label htmlFor="key-points">Cost budget, points per minute (optional)</label>
          <input
            id="key-points"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={points}
            aria-describedby="key-points-hint"
            onChange={(e) => setPoints(e.target.value)}
          />
          <p className="hint" id="key-points-hint">
            A request costs a point per 100 rows it reads (at least 1), 10 per write. Empty: the
            service’s default.
          </p>
        </div>
        <div className="field">
          <label htmlFor="key-expires">Expires (optional)</label>
          <input
            id="key-expires"
            type="datetime-local"
            value={expires}
            aria-describedby="key-expires-hint"
            onChange={(e) => setExpires(e.target.value)}
          />
          <p className="hint" id="key-expires-hint">
            Empty: never. In your time zone.
          </p>
        </div>
      </div>
      <div className="check">
        <input
          type="checkbox"
          id="key-mcp-deletes"
          checked={deletes}
          aria-describedby="key-mcp-deletes-hint"
          onChange={(e) => setDeletes(e.target.checked)}
        />
        <label htmlFor="key-mcp-deletes">Allow deletes through MCP</label>
        <span className="hint" id="key-mcp-deletes-hint">
          Lets AI agents call delete_row with this key; off by default. GraphQL deletes follow the
          scope alone.
        </span>
      </div>
      <button type="submit" className="button" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}
