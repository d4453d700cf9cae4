import { realpathSync, statSync } from 'node:fs';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { DatabaseIdentity, DatasourceType } from './core/dialect';

/*
 * The service's own metadata store is never a datasource (issue 22, item 1): a builder who could
 * import its `account` and `api_key` tables would read every hash and make themselves
 * administrator through their working version. A datasource is refused when, once connected,
 * - it is the store itself: its identity ({@link DatabaseIdentity.keys}, read by each adapter's
 *   `identify()`) shares a key with the store's, whatever host name, alias or address reached it;
 * - or it holds a copy of the store: one schema with every table of {@link STORE_FINGERPRINT}
 *   (a restored backup, on any server).
 * `DatasourcePoolsService` runs the check on every new connection of a datasource (PostgreSQL and
 * MySQL/MariaDB) or when its pool opens (SQL Server, SQLite), at registration and ever after, so a
 * DNS or alias change after registration cannot bypass it.
 */

/**
 * Tables that, all in one schema, mark a copy of the service's metadata store: the accounts, the
 * key hashes and the versioned definitions (`prisma-free-migrations/1763683200000-initial-schema.ts`;
 * `own-store.spec.ts` checks them against the migrations). `account` and `api_key` alone are
 * common in other applications' databases; with `app_version` they are this service's.
 */
export const STORE_FINGERPRINT = ['account', 'api_key', 'app_version'] as const;

/**
 * One key of a {@link DatabaseIdentity}: the type, then the parts that together identify a
 * database, as one unambiguous text (JSON, so no separator inside a part can make two keys equal).
 */
export function identityKey(type: DatasourceType, ...parts: (string | number | bigint)[]): string {
  return JSON.stringify([type, ...parts.map(String)]);
}

/**
 * The keys of a SQLite database file: its real path (`fs.realpathSync`, through every symbolic
 * link) and its device and inode, so a hard link to the same file under another name matches
 * too. None when the file cannot be looked at (nothing to compare; the table check still runs).
 */
export function sqliteFileKeys(file: string): string[] {
  try {
    const real = realpathSync(file);
    const stat = statSync(real, { bigint: true });
    return [
      identityKey('sqlite', 'path', real),
      identityKey('sqlite', 'inode', stat.dev, stat.ino),
    ];
  } catch {
    return [];
  }
}

/** Whether two identities share a key: the two connections reached the same database. */
export function sameDatabase(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return a.keys.some((key) => b.keys.includes(key));
}

/**
 * A refusal by the store check (the datasource is the store or a copy of it, `INVALID_INPUT`), or
 * a failure to run it (`DATASOURCE_UNAVAILABLE`). Its own class so the pools can tell it from a
 * driver's failure: it is never reworded as "could not connect", and GraphQL callers get
 * `DATASOURCE_UNAVAILABLE` while the log says why.
 */
export class StoreGuardError extends DomainError {}

/** The user-facing name of each type's server, for messages. */
const SERVER_NAMES: Record<DatasourceType, string> = {
  postgres: 'PostgreSQL',
  mysql: 'MySQL/MariaDB',
  mssql: 'SQL Server',
  sqlite: 'SQLite',
};

/** The server name of a datasource type as messages show it (`PostgreSQL`, `MySQL/MariaDB`, …). */
export function serverName(type: DatasourceType): string {
  return SERVER_NAMES[type];
}

/**
 * The refusal of a datasource that is the service's own store, or holds a copy of it; null when
 * it may be used.
 * @param store the metadata store's identity (null: unknown, e.g. an in-memory store; only the
 *   copy check applies then).
 * @param found the datasource connection's identity.
 */
export function ownStoreRefusal(
  type: DatasourceType,
  store: DatabaseIdentity | null,
  found: DatabaseIdentity,
): StoreGuardError | null {
  if (store && sameDatabase(store, found))
    return new StoreGuardError(
      ErrorCode.InvalidInput,
      `This datasource is the service's own metadata store (the same ${serverName(type)} database, ` +
        'whatever address reached it); it can never be a datasource. Register a database of your ' +
        "app's own, with a login that has no rights on the service's store",
    );
  if (found.storeCopy !== null)
    return new StoreGuardError(
      ErrorCode.InvalidInput,
      `This database holds the tables of a copy of the service's metadata store ` +
        `(${STORE_FINGERPRINT.join(', ')} in ${JSON.stringify(found.storeCopy)}), with its ` +
        'accounts and key hashes; it can never be a datasource. Register a database without them',
    );
  return null;
}

/** The store check could not run (the store's identity was not readable): nothing is opened. */
export function storeCheckFailed(): StoreGuardError {
  return new StoreGuardError(
    ErrorCode.DatasourceUnavailable,
    'The service could not check this datasource against its own metadata store; try again shortly',
  );
}
