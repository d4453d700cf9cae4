import Database from 'better-sqlite3';

/** SQL function registered on every SQLite connection: Unicode lower-casing for LIKE (SQLite's own is ASCII-only). */
export const CASEFOLD = 'tg_casefold';

/**
 * Opens a SQLite datasource file as every connection of the service must see it: integers as
 * BigInt (64-bit values never lose digits), foreign keys enforced (off by default, sqlite.org
 * foreignkeys.html §2), `tg_casefold` for case-insensitive LIKE, and a busy timeout.
 * @param busyTimeoutMs how long a statement waits for a lock before SQLITE_BUSY.
 */
export function openSqliteConnection(file: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
  db.defaultSafeIntegers(true);
  db.pragma('foreign_keys = ON');
  db.function(CASEFOLD, { deterministic: true }, (v: unknown) =>
    v === null ? null : String(v).toLowerCase(),
  );
  return db;
}

/** What one statement gave back, in the port's shape (`StatementResult`). */
export interface SqliteResult {
  rows: Record<string, unknown>[];
  affected: number | undefined;
}

/**
 * Runs one statement on a connection: rows for statements that return rows (SELECT, RETURNING),
 * the changed-row count for writes (with RETURNING: the rows returned), undefined for a SELECT.
 */
export function runSqlite(db: Database.Database, sql: string, params: unknown[]): SqliteResult {
  // A Buffer arrives in a worker thread as a plain Uint8Array, which better-sqlite3 does not bind.
  params = params.map((p) =>
    p instanceof Uint8Array && !Buffer.isBuffer(p)
      ? Buffer.from(p.buffer, p.byteOffset, p.byteLength)
      : p,
  );
  const statement = db.prepare(sql);
  const isWrite =
    /^\s*(INSERT|UPDATE|DELETE|REPLACE|WITH)\b/i.test(sql) && !/^\s*SELECT\b/i.test(sql);
  if (statement.reader) {
    const rows = statement.all(...(params as never[])) as Record<string, unknown>[];
    return { rows, affected: isWrite ? rows.length : undefined };
  }
  const info = statement.run(...(params as never[]));
  return { rows: [], affected: info.changes };
}
