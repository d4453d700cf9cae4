import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { openSqliteConnection, runSqlite, SqliteResult } from './connection';

/**
 * One statement for a worker thread: the datasource file, SQL and bound parameters, and the bytes
 * of rows a read may hold before it stops (`runSqlite`; absent: no limit).
 */
export interface SqliteTask {
  file: string;
  sql: string;
  params: unknown[];
  busyTimeoutMs: number;
  maxBytes?: number;
  /**
   * Run read-only (`SqlPool.readOnly`): `PRAGMA query_only = ON` then `BEGIN`, the statement,
   * `ROLLBACK` and `query_only` OFF again, on this thread's connection, whatever the statement
   * did ({@link runReadOnly}).
   */
  readOnly?: true;
  /**
   * Describe instead of run (`Dialect.describeStatement`): prepare the statement under
   * `query_only` and answer its result columns ({@link describeSqlite}); nothing runs.
   */
  describe?: true;
}

/**
 * Connections one worker thread keeps open at most. Each holds a file descriptor, its page cache
 * and prepared statements; a platform of thousands of SQLite apps would otherwise keep one per
 * app per thread for ever (bench:attack class 22.4: 2,000 apps, RSS +696 MB). The least recently
 * used is closed first and opened again by its next statement (~0.1 ms for a small file).
 */
export const SQLITE_CONNECTIONS_PER_THREAD = 64;

/** Connections of this worker thread, one per datasource file, opened on first use. */
const connections = new LRUCache<string, Database.Database>({
  max: SQLITE_CONNECTIONS_PER_THREAD,
  dispose: (db) => db.close(),
});

/** How many connections this thread holds open (tests read it). */
export function openConnections(): number {
  return connections.size;
}

/**
 * The piscina task of a SQLite worker thread (see `SqlitePool`): runs one statement on this
 * thread's connection to the file, off the main event loop. A statement past its deadline is
 * stopped by terminating the whole thread (piscina does so for an aborted running task), which
 * closes its connections; the next task opens them again.
 */
export default function runTask(
  task: SqliteTask,
): SqliteResult | SqliteDescription | SqliteTaskError {
  try {
    let db = connections.get(task.file);
    if (!db) {
      db = openSqliteConnection(task.file, task.busyTimeoutMs);
      connections.set(task.file, db);
    }
    if (task.describe) return describeSqlite(db, task.sql);
    if (task.readOnly)
      return runReadOnly(db, () => runSqlite(db, task.sql, task.params, task.maxBytes));
    // Checked here, row by row: a page past the budget never crosses to the main thread.
    return runSqlite(db, task.sql, task.params, task.maxBytes);
  } catch (error) {
    // Returned, not thrown: an error crossing the thread boundary loses its message.
    const e = error as { name?: unknown; message?: unknown; code?: unknown };
    return {
      failed: {
        name: String(e.name),
        message: String(e.message),
        code: typeof e.code === 'string' ? e.code : undefined,
      },
    };
  }
}

/**
 * Runs `work` with the connection read-only: `PRAGMA query_only = ON` ("prevents data changes
 * on database files … any attempt to CREATE, DELETE, DROP, INSERT, or UPDATE will result in an
 * SQLITE_READONLY error", sqlite.org "PRAGMA query_only") inside `BEGIN … ROLLBACK`; afterwards
 * (normally or on error) the transaction is rolled back and `query_only` set OFF again, so the
 * connection this thread keeps for the file is as before for the next task. A task stopped at its
 * deadline or cancelled ends the whole thread, closing the connection with its state.
 */
export function runReadOnly<T>(db: Database.Database, work: () => T): T {
  db.pragma('query_only = ON');
  try {
    db.exec('BEGIN');
    try {
      return work();
    } finally {
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  } finally {
    db.pragma('query_only = OFF');
  }
}

/** A result column of a described SQLite statement (better-sqlite3 `Statement.columns()`). */
export interface SqliteDescribedColumn {
  name: string;
  /** `sqlite3_column_decltype`: the declared type of a direct table column, else null. */
  type: string | null;
  /** The table and column it comes from, when it is a direct column (else null). */
  table: string | null;
  column: string | null;
  database: string | null;
  /** `PRAGMA table_xinfo` `notnull` of that column, or null for an expression. */
  notNull: boolean | null;
}

/** What {@link describeSqlite} answers. */
export interface SqliteDescription {
  described: { columns: SqliteDescribedColumn[] };
}

/**
 * Prepares `sql` under `query_only` ({@link runReadOnly}) and answers its result columns (none
 * for a statement that returns no rows), reading each direct column's
 * NOT NULL from `PRAGMA table_xinfo` (read-only). Nothing is executed: preparing compiles only.
 * @throws the driver's error (syntax, unknown table or column).
 */
export function describeSqlite(db: Database.Database, sql: string): SqliteDescription {
  return runReadOnly(db, () => {
    const statement = db.prepare(sql);
    if (!statement.reader) return { described: { columns: [] } };
    const notNull = new Map<string, Map<string, boolean>>();
    const columns = statement.columns().map((c): SqliteDescribedColumn => {
      let flag: boolean | null = null;
      if (c.table !== null && c.column !== null) {
        const key = `${c.database ?? 'main'}\u0000${c.table}`;
        let table = notNull.get(key);
        if (!table) {
          table = new Map();
          const rows = db
            .prepare('SELECT name, "notnull" AS nn FROM pragma_table_xinfo(?, ?)')
            .all(c.table, c.database ?? 'main') as { name: string; nn: number | bigint }[];
          for (const row of rows) table.set(row.name, Number(row.nn) === 1);
          notNull.set(key, table);
        }
        flag = table.get(c.column) ?? null;
      }
      return {
        name: c.name,
        type: c.type,
        table: c.table,
        column: c.column,
        database: c.database,
        notNull: flag,
      };
    });
    return { described: { columns } };
  });
}

/** A driver error of a task, as plain data (rebuilt as an Error on the main thread). */
export interface SqliteTaskError {
  failed: { name: string; message: string; code: string | undefined };
}
