import { useState, type FormEvent } from 'react';
import { describeError } from '../../shared/api';
import { ErrorMessage, Feedback, Loading } from '../../shared/ui';
import { useLoad } from '../../shared/use-load';
import type { AppUser } from './access-types';
import { queryAs, readColumnsAs, readOperationsAs } from './graphql-as';

/** What "view as" found: the query it sent and the rows (and count) the user got. */
interface ViewResult {
  user: AppUser;
  operation: string;
  query: string;
  columns: string[];
  rows: Record<string, unknown>[];
  total: number | null;
}

/** Most rows "view as" shows. */
const TAKE = 50;

/** A cell value for people. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * "View as" (issue 27 item 4): the rows a chosen app user gets from one of their `get<Base>`
 * operations, through the app's GraphQL endpoint as that user (`x-view-as-user`, graphql-as.ts):
 * the same version (main), schema (the app users' one: published APIs), row rules and plan as
 * the user's own call, so what shows here is what they get; drafts and unpublished rules are not
 * in it. The query it sends is shown with the rows.
 */
export function ViewAsSection({ address, users }: { address: string; users: AppUser[] }) {
  const active = users.filter((u) => !u.disabled);
  // Until one is chosen, the first active user.
  const [chosenUser, setUserId] = useState<string | null>(null);
  const userId = active.some((u) => u.id === chosenUser) ? chosenUser! : (active[0]?.id ?? '');
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ViewResult | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const user = active.find((u) => u.id === userId);
  // The user's own get operations, read from their schema (the app users' one).
  const operations = useLoad(
    () => (userId ? readOperationsAs(address, userId) : Promise.resolve([])),
    `${address}:${userId}`,
  );
  const operation = operations.data?.find((o) => o.name === chosen) ?? operations.data?.[0];

  async function show(event: FormEvent) {
    event.preventDefault();
    if (!user || !operation) return;
    setBusy(true);
    setError(null);
    try {
      const columns = await readColumnsAs(address, user.id, operation.rowType);
      const count = operation.hasCount ? ` total: count${operation.name.slice(3)}` : '';
      // A row type of navigation fields only still needs one field to select.
      const selection = columns.length ? columns.join(' ') : '__typename';
      const query = `{ rows: ${operation.name}(take: ${TAKE}) { ${selection} }${count} }`;
      const data = await queryAs<{ rows: Record<string, unknown>[]; total?: number }>(
        address,
        user.id,
        query,
      );
      setResult({
        user,
        operation: operation.name,
        query,
        columns,
        rows: data.rows,
        total: data.total ?? null,
      });
    } catch (e) {
      setResult(null);
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="view-as-heading" className="card">
      <h2 id="view-as-heading">View as an app user</h2>
      <p className="hint">
        The rows a user gets from their own call to this app’s GraphQL endpoint: the main version
        (what is published), their roles’ rules, read only.
      </p>
      {active.length === 0 ? (
        <p>No active app users to view as.</p>
      ) : (
        <form className="inline-form" onSubmit={show}>
          <div className="field">
            <label htmlFor="view-as-user">App user</label>
            <select
              id="view-as-user"
              value={userId}
              onChange={(e) => {
                setUserId(e.target.value);
                setResult(null);
                setError(null);
              }}
            >
              {active.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="view-as-operation">Operation</label>
            <select
              id="view-as-operation"
              value={operation?.name ?? ''}
              onChange={(e) => setChosen(e.target.value)}
            >
              {operations.data?.length === 0 && <option value="">No get operation</option>}
              {operations.data?.map((o) => (
                <option key={o.name} value={o.name}>
                  {o.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button" disabled={busy || !operation}>
            {busy ? 'Reading…' : 'Show rows'}
          </button>
        </form>
      )}
      {operations.loading && !operations.data && userId && <Loading what="operations" />}
      <ErrorMessage error={operations.error} />
      {operations.data?.length === 0 && (
        <p>This user can call no get operation: no Table API is published in the main version.</p>
      )}
      <Feedback notice={null} error={error} />
      {busy && <Loading what="rows" />}
      {result && (
        <div aria-live="polite">
          <p>
            <strong>{result.user.email}</strong> gets {result.rows.length} row
            {result.rows.length === 1 ? '' : 's'} from <code>{result.operation}</code>
            {result.total !== null && ` (count: ${result.total})`}
            {result.rows.length === TAKE && `; the first ${TAKE} are shown`}.
          </p>
          <p className="hint">
            Sent as {result.user.email}: <code>{result.query}</code>
          </p>
          {result.rows.length > 0 && (
            // Focusable, so a keyboard can scroll the rows sideways on a narrow screen.
            <div
              className="table-scroll"
              tabIndex={0}
              role="region"
              aria-label={`Rows of ${result.operation}, scrollable`}
            >
              <table className="table">
                <caption className="visually-hidden">
                  Rows {result.user.email} gets from {result.operation}
                </caption>
                <thead>
                  <tr>
                    {result.columns.map((c) => (
                      <th scope="col" key={c}>
                        {c}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {result.rows.map((row, i) => (
                    <tr key={i}>
                      {result.columns.map((c) => (
                        <td key={c}>{cell(row[c])}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
