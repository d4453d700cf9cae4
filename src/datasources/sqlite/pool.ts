import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import type {
  CompiledQuery,
  PoolOptions,
  RunOptions,
  SqlPool,
  StatementResult,
} from '../core/dialect';
import { Cancellation } from '../../common/cancellation';
import { readOnlyRefusal } from '../core/statement-refusals';
import { DatasourceErrors } from '../datasources.errors';
import { openSqliteConnection, runSqlite, type SqliteResult } from './connection';
import type {
  SqliteDescribedColumn,
  SqliteDescription,
  SqliteTask,
  SqliteTaskError,
} from './worker';

/**
 * Worker threads shared by every SQLite datasource of the process: at least 2, at most 4, so
 * SQLite work never blocks the event loop and one app's slow statements leave threads for others.
 */
export const SQLITE_THREADS = Math.min(4, Math.max(2, availableParallelism()));
/** Statements of one datasource running at once: one thread always stays free for other apps. */
export const SQLITE_STATEMENTS_PER_DATASOURCE = SQLITE_THREADS - 1;
/** How long a write transaction on the main thread waits for SQLite's lock before giving up. */
const MAIN_THREAD_BUSY_TIMEOUT_MS = 1_000;

/**
 * The compiled worker module: beside this file in `dist/`; when this file runs from TypeScript
 * sources (Jest), the build's copy (`npm test` builds first).
 */
function workerFile(): string {
  const beside = join(__dirname, 'worker.js');
  if (existsSync(beside)) return beside;
  return resolve(__dirname, '../../../dist/src/datasources/sqlite/worker.js');
}

let shared: Piscina | null = null;
let users = 0;

/** The process's SQLite worker pool, created with the first SQLite datasource. */
function workers(): Piscina {
  if (!shared) {
    shared = new Piscina({
      filename: workerFile(),
      minThreads: 1,
      maxThreads: SQLITE_THREADS,
      idleTimeout: 60_000,
    });
    // A result that arrives for a task already aborted is reported here; without a listener the
    // event would end the process. The task's caller has its answer (the abort) already.
    shared.on('error', () => undefined);
  }
  return shared;
}

/**
 * A counting gate: at most `limit` holders; a waiter gives up after `timeoutMs`.
 * Bounds the statements one datasource runs at once.
 */
class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** @throws DomainError DATASOURCE_UNAVAILABLE when no place frees within `timeoutMs`. */
  async enter(timeoutMs: number): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolvePlace, reject) => {
      const admit = () => {
        clearTimeout(timer);
        this.active++;
        resolvePlace();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(admit), 1);
        reject(DatasourceErrors.unavailable());
      }, timeoutMs);
      this.waiting.push(admit);
    });
  }

  leave(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/**
 * A {@link SqlPool} for a SQLite datasource file. Statements run in worker threads (piscina,
 * better-sqlite3 being synchronous), so a slow statement never delays another app; one past
 * `statementTimeoutMs`, or whose caller's signal fires, is stopped by terminating its thread.
 * At most {@link SQLITE_STATEMENTS_PER_DATASOURCE} statements of one file run at once; a caller
 * waits at most `acquireTimeoutMs` for a place (else `DATASOURCE_UNAVAILABLE`). Transactions
 * (writes checked against a row rule) are short and run on the main thread, one at a time per
 * file, on a connection of their own.
 */
export class SqlitePool implements SqlPool {
  private readonly gate = new Gate(SQLITE_STATEMENTS_PER_DATASOURCE);
  private transactions: Promise<unknown> = Promise.resolve();
  private mainConnection: Database.Database | null = null;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly options: PoolOptions,
  ) {}

  /**
   * Opens the pool, reads the SQLite version (which proves the file is a database), and runs
   * `options.verifyConnection` (when given) once: a file has no address to resolve again, and
   * the datasource's URL is confined to its app folder again at every open.
   * @throws the driver's error for a file that is no database; what `verifyConnection` throws.
   */
  static async open(file: string, options: PoolOptions): Promise<SqlitePool> {
    users++;
    const pool = new SqlitePool(file, options);
    try {
      await pool.serverVersion();
      await options.verifyConnection?.((query) => pool.run(query));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  async run(query: CompiledQuery, options: RunOptions = {}): Promise<StatementResult> {
    const outcome = (await this.runTask(query, options)) as SqliteResult;
    // The worker measured each row (`rowBytes`) and stopped past the bytes left when it started,
    // which never grow: charging what it read then throws the sink's refusal.
    options.rows?.chargeRows(outcome.rows.length, outcome.bytes);
    if (outcome.stopped) throw new Error('A SQLite read stopped past its byte limit was charged');
    return { rows: outcome.rows, affected: outcome.affected };
  }

  /**
   * Runs `work`, each of its statements a worker task of its own in a read-only transaction
   * always rolled back (`runReadOnly` in `worker.ts`: `PRAGMA query_only = ON`, `BEGIN`, the
   * statement, `ROLLBACK`, `query_only` OFF, on the thread's connection). The statements of one
   * `work` do not share a snapshot (each is its own transaction, possibly on another thread): a
   * query kind runs one. A write is refused by SQLite with SQLITE_READONLY, answered as
   * `DatasourceErrors.readOnly`. {@link run}'s deadline, cancellation and row charging apply.
   */
  async readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T> {
    return work(async (query, options = {}) => {
      let outcome: SqliteResult;
      try {
        outcome = (await this.runTask(query, options, { readOnly: true })) as SqliteResult;
      } catch (error) {
        throw readOnlyRefusal(error);
      }
      options.rows?.chargeRows(outcome.rows.length, outcome.bytes);
      if (outcome.stopped) throw new Error('A SQLite read stopped past its byte limit was charged');
      return { rows: outcome.rows, affected: outcome.affected };
    });
  }

  /**
   * The result columns of `sql` as better-sqlite3 prepares it on a worker (`describeSqlite` in
   * `worker.ts`), under `query_only`, with {@link run}'s deadline. Nothing is executed.
   * @throws the driver's error (syntax, unknown table or column); TIMEOUT, DATASOURCE_UNAVAILABLE.
   */
  async describe(sql: string): Promise<SqliteDescribedColumn[]> {
    const outcome = (await this.runTask({ sql, params: [] }, {}, { describe: true })) as
      SqliteDescription | SqliteResult;
    if (!('described' in outcome)) throw new Error('A SQLite describe answered no description');
    return outcome.described.columns;
  }

  /** One worker task within the gate, the deadline and the caller's signal. */
  private async runTask(
    query: CompiledQuery,
    options: RunOptions,
    mode: Pick<SqliteTask, 'readOnly' | 'describe'> = {},
  ): Promise<SqliteResult | SqliteDescription> {
    options.signal?.throwIfAborted();
    await this.gate.enter(this.options.acquireTimeoutMs);
    // One cancellation for the deadline and the caller's signal (not AbortSignal.timeout/any,
    // whose signals outlive young-generation collections on Node 20: see Cancellation).
    const signal = new Cancellation();
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      signal.abort(DatasourceErrors.timeout(this.options.statementTimeoutMs));
    }, this.options.statementTimeoutMs);
    const forward = () => signal.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', forward, { once: true });
    const task: SqliteTask = {
      file: this.file,
      sql: query.sql,
      params: query.params,
      busyTimeoutMs: this.options.acquireTimeoutMs,
      ...(options.rows ? { maxBytes: options.rows.bytesLeft() } : {}),
      ...mode,
    };
    let outcome: SqliteResult | SqliteDescription | SqliteTaskError;
    try {
      outcome = (await workers().run(task, { signal })) as
        SqliteResult | SqliteDescription | SqliteTaskError;
      if ('failed' in outcome) {
        const { name, message, code } = outcome.failed;
        throw Object.assign(new Error(message), { name, code });
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timedOut) throw DatasourceErrors.timeout(this.options.statementTimeoutMs);
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
        throw DatasourceErrors.unavailable();
      throw error;
    } finally {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', forward);
      this.gate.leave();
    }
    return outcome;
  }

  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    // One transaction at a time on the main-thread connection of this file.
    const previous = this.transactions;
    let release!: () => void;
    this.transactions = new Promise<void>((r) => (release = r));
    await previous.catch(() => undefined);
    try {
      this.mainConnection ??= openSqliteConnection(this.file, MAIN_THREAD_BUSY_TIMEOUT_MS);
      const db = this.mainConnection;
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
          throw DatasourceErrors.unavailable();
        throw error;
      }
      try {
        const result = await work(async (query) => runSqlite(db, query.sql, query.params));
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      release();
    }
  }

  async serverVersion(): Promise<string> {
    const { rows } = await this.run({ sql: 'SELECT sqlite_version() AS version', params: [] });
    return String(rows[0]?.version ?? '');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.mainConnection?.close();
    this.mainConnection = null;
    users--;
    if (users === 0 && shared) {
      const pool = shared;
      shared = null;
      await pool.destroy();
    }
  }
}
