import type { ApiKey, ScopeEntry } from '../../shared/types';

/** Names to put into words: app names by id, Table API names by id. */
export interface Names {
  apps: Map<string, string>;
  apis: Map<string, string>;
}

/**
 * A key's scope in words, one line per app: `Demo store: all endpoints`, or the chosen
 * endpoints' names (`Demo store: orders, customers`). Ids without a name (removed since) say so.
 */
export function scopeInWords(scope: ScopeEntry[], names: Names): string[] {
  return scope.map((entry) => {
    const app = names.apps.get(entry.appId) ?? 'a removed app';
    if (entry.endpoints === 'all') return `${app}: all endpoints`;
    const apis = entry.endpoints.map((id) => names.apis.get(id) ?? 'a removed endpoint');
    return `${app}: ${apis.length ? apis.join(', ') : 'no endpoints'}`;
  });
}

/** A key's state for people: revoked, expired (its `expiresAt` passed), or active. */
export function keyState(key: ApiKey, now = Date.now()): 'Active' | 'Revoked' | 'Expired' {
  if (key.status === 'revoked') return 'Revoked';
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= now) return 'Expired';
  return 'Active';
}

const when = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

/** A time for people (in the browser's zone), or `otherwise` when there is none. */
export function formatWhen(iso: string | null, otherwise: string): string {
  return iso ? when.format(new Date(iso)) : otherwise;
}
