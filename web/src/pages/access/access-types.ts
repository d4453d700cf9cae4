/**
 * The REST shapes of app users, row rules and version diffs (CONTRACT.md §4, §7; the service's
 * OpenAPI document at `/api/docs`), as the access and versions pages read and send them.
 */

/** Values an app user carries into rules as `$user.<attribute>`. */
export type Attributes = Record<string, string | number | boolean | null>;

/** An app user (`GET /api/apps/:appId/users`): never the password. */
export interface AppUser {
  id: string;
  email: string;
  roles: string[];
  attributes: Attributes;
  disabled: boolean;
}

/** A row rule: a filter in the GraphQL `where` language. */
export type Where = Record<string, unknown>;

/** One role's rules: a `where` per model table. */
export interface RoleRules {
  tables: Record<string, { where: Where }>;
}

/** `GET /api/apps/:appId/permissions`: rules by role, in the builder's working version. */
export type Permissions = Record<string, RoleRules>;

/** The built-in roles (CONTRACT.md §4): callers with no credentials, callers with a key. */
export const BUILT_IN_ROLES = ['anonymous', 'api_key'] as const;

/** A role name as the service takes it: a letter or `_`, then letters, digits, `_` or `-`. */
export const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

/** One change of a working version against main (`GET …/versions/diff`). */
export interface VersionChange {
  area: 'api' | 'table' | 'enum' | 'rule';
  change: 'added' | 'removed' | 'changed';
  name: string;
  details: string[];
}

/** `GET /api/apps/:appId/versions/diff`. */
export interface VersionDiff {
  mainRevision: number;
  workingRevision: number | null;
  changes: VersionChange[];
}
