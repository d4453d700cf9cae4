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
export default function runTask(task: SqliteTask): SqliteResult | SqliteTaskError {
  try {
    let db = connections.get(task.file);
    if (!db) {
      db = openSqliteConnection(task.file, task.busyTimeoutMs);
      connections.set(task.file, db);
    }
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

/** A driver error of a task, as plain data (rebuilt as an Error on the main thread). */
export interface SqliteTaskError {
  failed: { name: string; message: string; code: string | undefined };
}
