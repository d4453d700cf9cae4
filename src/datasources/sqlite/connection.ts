import Database from 'better-sqlite3';
import { rowBytes } from '../core/row-bytes';

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

/**
 * What one statement gave back, in the port's shape (`StatementResult`), with the estimated size
 * of its rows (`rowBytes`). `stopped`: a read that passed its byte limit, stopped at the row that
 * passed it; its rows are left out (empty) and `bytes` counts them up to that row.
 */
export interface SqliteResult {
  rows: Record<string, unknown>[];
  affected: number | undefined;
  bytes: number;
  stopped?: true;
}

/**
 * Runs one statement on a connection: rows for statements that return rows (SELECT, RETURNING),
 * the changed-row count for writes (with RETURNING: the rows returned), undefined for a SELECT.
 * A read steps through its rows (`iterate()`) and stops at the first one past `maxBytes`
 * (better-sqlite3 resets the statement when the iteration ends early), so a page past the
 * request's budget is never built whole. A write with RETURNING is always read to its end: its
 * changes are made at the first step (SQLite docs, "The RETURNING Clause", 7), and a stop would
 * not undo them.
 * @param maxBytes bytes of rows a read may hold (the request's `RowSink.bytesLeft()`).
 */
export function runSqlite(
  db: Database.Database,
  sql: string,
  params: unknown[],
  maxBytes = Infinity,
): SqliteResult {
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
    // better-sqlite3's `readonly`: the statement makes no direct change to the database.
    const limit = statement.readonly ? maxBytes : Infinity;
    const rows: Record<string, unknown>[] = [];
    let bytes = 0;
    for (const row of statement.iterate(...(params as never[])) as Iterable<
      Record<string, unknown>
    >) {
      bytes += rowBytes(row);
      if (bytes > limit) return { rows: [], affected: undefined, bytes, stopped: true };
      rows.push(row);
    }
    return { rows, affected: isWrite ? rows.length : undefined, bytes };
  }
  const info = statement.run(...(params as never[]));
  return { rows: [], affected: info.changes, bytes: 0 };
}
