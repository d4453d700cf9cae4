import type { ApiKey } from '../../shared/types';
import { VisuallyHidden } from '../../shared/ui';
import { formatWhen, keyState, Names, scopeInWords } from './key-words';

/**
 * Every key (CONTRACT.md §5 `GET /api/admin/api-keys`): name, prefix (never the key), scope in
 * words, state, last use ("never" until used), rate limit and expiry. Active keys have a Revoke
 * button; revoked ones stay listed, marked revoked, with no way back. On a narrow screen (a phone)
 * each key is a card of labelled lines instead of a row (`.table--cards`), so nothing scrolls
 * sideways.
 */
export function KeyTable({
  keys,
  names,
  onRevoke,
}: {
  keys: ApiKey[];
  names: Names;
  onRevoke: (key: ApiKey) => void;
}) {
  if (keys.length === 0) return <p>No keys yet.</p>;
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption className="visually-hidden">API keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scope</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            <th scope="col">Rate limit</th>
            <th scope="col">Cost budget</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const state = keyState(key);
            return (
              <tr key={key.id} className={state === 'Revoked' ? 'row--revoked' : undefined}>
                <th scope="row">{key.name}</th>
                <td data-label="Prefix">
                  <code>{key.prefix}…</code>
                </td>
                <td data-label="Scope">
                  <ul className="plain">
                    {scopeInWords(key.scope, names).map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                </td>
                <td data-label="Status">
                  <span className={`badge badge--${state.toLowerCase()}`}>{state}</span>
                </td>
                <td data-label="Last used">{formatWhen(key.lastUsedAt, 'never')}</td>
                <td data-label="Rate limit">
                  {key.rateLimitPerMinute.toLocaleString('en')} / minute
                </td>
                <td data-label="Cost budget">
                  {key.pointsPerMinute.toLocaleString('en')} points / minute
                </td>
                <td data-label="Expires">{formatWhen(key.expiresAt, 'never')}</td>
                <td>
                  {key.status === 'active' ? (
                    <button
                      type="button"
                      className="button button--danger-outline"
                      onClick={() => onRevoke(key)}
                    >
                      Revoke<VisuallyHidden> {key.name}</VisuallyHidden>
                    </button>
                  ) : (
                    <span className="muted">Cannot be reactivated</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
