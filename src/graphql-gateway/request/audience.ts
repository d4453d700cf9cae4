import { hash } from 'node:crypto';
import { scopeCoversApi, scopeForApp, type ScopeEntry } from '../../api-keys/api-keys.service';
import type { Caller } from '../gateway-context';
import type { ApiAction } from '../operations/operation-kind';

/** What decides whether a root field is in a schema: its API, action, publication and public switch. */
export interface RootFieldFacts {
  apiId: string;
  action: ApiAction;
  published: boolean;
  public: boolean;
}

/**
 * The schema a caller sees (DESIGN.md "audience"; CONTRACT.md §6 "Sees is literal"): the cache
 * key's third part and which root fields it holds. Callers of one audience share one schema.
 */
export interface AudienceView {
  /** `builder`, `app-user`, `anonymous`, `published` or `key:<scope hash>`. */
  key: string;
  includes(field: RootFieldFacts): boolean;
}

/** Every published operation: what app users see, and what refusals are checked against. */
export const PUBLISHED: AudienceView = { key: 'published', includes: (f) => f.published };

/** Every API of a working version, drafts included: what a builder sees. */
export const BUILDER: AudienceView = { key: 'builder', includes: () => true };
const APP_USER: AudienceView = { key: 'app-user', includes: (f) => f.published };
const ANONYMOUS: AudienceView = {
  key: 'anonymous',
  includes: (f) => f.published && f.public,
};

/**
 * The audience of a caller at one app: a builder sees every API of their working version (drafts
 * marked), an app user every published API, an anonymous caller the published actions switched
 * public, a key the published APIs in its scope for this app. Keys whose scope for the app names
 * the same endpoints share `key:<hash>` (so one cached schema serves them all).
 */
export function audienceOf(caller: Caller, appId: string): AudienceView {
  switch (caller.kind) {
    case 'builder':
      return BUILDER;
    case 'app-user':
      return APP_USER;
    case 'anonymous':
      return ANONYMOUS;
    case 'key': {
      const entry = scopeForApp(caller.principal, appId);
      if (!entry) return { key: 'key:none', includes: () => false };
      let audience = KEY_AUDIENCES.get(entry);
      if (!audience) {
        const endpoints = entry.endpoints === 'all' ? 'all' : [...entry.endpoints].sort().join(',');
        audience = {
          key: `key:${hash('sha256', endpoints, 'base64url').slice(0, 22)}`,
          includes: (f) => f.published && scopeCoversApi(entry, f.apiId),
        };
        KEY_AUDIENCES.set(entry, audience);
      }
      return audience;
    }
  }
}

/**
 * The audience of a key's scope entry, made once per entry: a remembered key hands every request
 * the same entry (`ApiKeysService.authenticate`), so its scope is not hashed again per request.
 */
const KEY_AUDIENCES = new WeakMap<ScopeEntry, AudienceView>();
