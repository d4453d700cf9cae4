import type { EventEmitter } from 'node:events';
import { Client, FieldDef, Pool, PoolClient, PoolConfig, Query, QueryResult } from 'pg';
import { DomainError } from '../../common/domain-error';
import type {
  CompiledQuery,
  PoolOptions,
  RunOptions,
  SqlPool,
  StatementResult,
} from '../core/dialect';
import { DatasourceErrors } from '../datasources.errors';
import { RowReader } from '../core/row-bytes';
import { readOnlyRefusal } from '../core/statement-refusals';
import {
  ClientDeadlineExceeded,
  clientDeadlineMs,
  KEEP_ALIVE_INITIAL_DELAY_MS,
} from '../core/client-deadline';

/** SQLSTATE of a statement cancelled by `statement_timeout` or a cancel request (PostgreSQL docs, Appendix A). */
const QUERY_CANCELED = '57014';
/** SQLSTATE classes that mean the server or the connection is gone: 08 connection exception, 57P admin shutdown. */
const UNAVAILABLE_CODES = /^(08|57P0[1-3]|53300)/;
/** Node network errors of a server that cannot be reached. */
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/** SQLSTATE object_not_in_prerequisite_state (PostgreSQL docs, Appendix A). */
const NOT_IN_PREREQUISITE_STATE = '55000';

/**
 * Whether a driver error is PostgreSQL refusing to scan a materialized view that was created
 * `WITH NO DATA` (as `pg_dump` writes them) and never refreshed. Told by the SQLSTATE and the
 * server routine that raises it (`ExecOpenScanRelation`), not by the message, which follows the
 * server's `lc_messages`.
 */
export function isUnpopulatedMaterializedView(error: unknown): boolean {
  const e = error as { code?: unknown; routine?: unknown };
  return e.code === NOT_IN_PREREQUISITE_STATE && e.routine === 'ExecOpenScanRelation';
}

/** Whether a driver error means the database is down or no connection came in time. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.test(e.code) || NETWORK_ERRORS.has(e.code)))
    return true;
  const message = typeof e.message === 'string' ? e.message : '';
  // pg-pool's own words when no client came within connectionTimeoutMillis, or a client died.
  return /timeout exceeded when trying to connect|Connection terminated|connection is closed/i.test(
    message,
  );
}

/**
 * A {@link SqlPool} on `pg`'s own `Pool` (node-postgres, a well-kept pool). Bounded by
 * `poolSize`; a caller waits at most `acquireTimeoutMs` for a connection (pg-pool's
 * `connectionTimeoutMillis` covers queued requests too); every session has `statement_timeout`
 * (PostgreSQL docs, "Client Connection Defaults"), so the server stops a statement at the deadline
 * even when the client is gone. An aborted statement is cancelled with `pg_cancel_backend` from
 * another connection, so the database stops working for a caller that left.
 *
 * A connection is watched while a caller holds it ({@link HeldClient}): one that drops answers
 * DATASOURCE_UNAVAILABLE instead of ending the process (pg #1324, #2439, #3202), one that goes
 * silent answers TIMEOUT at {@link clientDeadlineMs} (pg #3399); either is then discarded. TCP
 * keep-alive finds idle connections whose peer vanished (pg #909).
 */
export class PostgresPool implements SqlPool {
  /** Connections `options.verifyConnection` accepted (each physical connection once). */
  private readonly verified = new WeakSet<PoolClient>();

  private constructor(
    private readonly pool: Pool,
    private readonly options: PoolOptions,
    private readonly config: PoolConfig,
  ) {}

  /**
   * Opens the pool and checks one connection: it connects, and `options.verifyConnection` (when
   * given) accepts it.
   * @param config connection settings (host, user, TLS, type parsers, session options).
   * @throws the driver's error when the server cannot be reached or refuses the login; what
   *   `verifyConnection` throws.
   */
  static async open(config: PoolConfig, options: PoolOptions): Promise<PostgresPool> {
    const pool = new Pool({
      ...config,
      max: options.poolSize,
      connectionTimeoutMillis: options.acquireTimeoutMs,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
      // The server's own deadline; `options` may already carry other `-c` settings.
      options: `${config.options ?? ''} -c statement_timeout=${options.statementTimeoutMs}`.trim(),
    });
    // An idle client whose server went away emits here; without a listener the process would crash.
    pool.on('error', () => undefined);
    const opened = new PostgresPool(pool, options, config);
    try {
      const held = new HeldClient(
        await pool.connect(),
        clientDeadlineMs(options.statementTimeoutMs),
      );
      await opened.verify(held);
      held.release();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return opened;
  }

  /**
   * Runs `options.verifyConnection` on a connection new to it, once per physical connection, so a
   * host name that resolves to another server later is checked on the connection that reached it.
   * A connection it refuses (or that fails it) is broken: released with the error, the pool ends it.
   * @throws what the check throws; the driver's error when its statements fail.
   */
  private async verify(held: HeldClient): Promise<void> {
    const check = this.options.verifyConnection;
    if (!check || this.verified.has(held.client)) return;
    try {
      await check((query) => runOn(held, query));
      this.verified.add(held.client);
    } catch (error) {
      held.broken ??= error instanceof Error ? error : new Error(String(error));
      held.release();
      throw error;
    }
  }

  /**
   * Runs one statement on a connection of the pool (see {@link SqlPool.run}): TIMEOUT at the
   * server's deadline, or at {@link clientDeadlineMs} when the server does not answer at all;
   * DATASOURCE_UNAVAILABLE when no connection comes in time or it drops mid-statement.
   *
   * Rows are charged to `options.rows` one by one as `pg` parses them (its `row` events; the
   * driver keeps none itself). When the sink refuses one, the statement is cancelled
   * (`pg_cancel_backend`), the rows still in flight are dropped as they arrive, and the call
   * rejects with the sink's refusal once the statement has ended: the connection stays usable.
   * A cancel is awaited before the connection goes back to the pool, so one that lands late never
   * hits the next statement on it (an idle backend ignores a cancel: PostgreSQL docs, "Canceling
   * Requests in Progress").
   */
  async run(query: CompiledQuery, options: RunOptions = {}): Promise<StatementResult> {
    options.signal?.throwIfAborted();
    const held = await this.acquire();
    try {
      return await this.runHeld(held, query, options);
    } finally {
      held.release();
    }
  }

  /**
   * Runs `work` in `BEGIN READ ONLY` on one connection and always rolls back (see
   * {@link SqlPool.readOnly}). A write, a data-modifying WITH or a function that writes is refused
   * by PostgreSQL with SQLSTATE 25006 read_only_sql_transaction (docs, "SET TRANSACTION": "the
   * following SQL commands are disallowed … INSERT, UPDATE, DELETE … when the table they would
   * write to is not a temporary table"; `nextval()` too), answered as `DatasourceErrors.readOnly`.
   * Each statement has {@link run}'s deadlines, cancellation and row charging.
   */
  async readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T> {
    const held = await this.acquire();
    try {
      try {
        await held.query('BEGIN READ ONLY');
      } catch (error) {
        throw this.classify(error, held);
      }
      return await work(async (query, options = {}) => {
        options.signal?.throwIfAborted();
        try {
          return await this.runHeld(held, query, options);
        } catch (error) {
          throw readOnlyRefusal(error);
        }
      });
    } finally {
      if (!held.broken) await held.query('ROLLBACK').catch(() => undefined);
      held.release();
    }
  }

  /**
   * What PostgreSQL tells about `sql` (its parameters `$1…$n`) without running it: the extended
   * protocol's Parse of the unnamed statement and its Describe (PostgreSQL docs, "Message Flow",
   * Extended Query: "ParameterDescription … followed by RowDescription or NoData"), on one
   * connection inside `BEGIN READ ONLY` … `ROLLBACK`. Nothing executes, so a write, a function
   * that writes and a WITH that writes are described alike, and nothing can be committed.
   * `parameterTypes`: one type OID per parameter as the server inferred it; `fields`: the
   * RowDescription (name, type OID, table OID and column number of a direct column), null for a
   * statement that returns no rows (NoData).
   * @throws the driver's error when PostgreSQL refuses the statement (syntax, unknown table…);
   *   TIMEOUT, DATASOURCE_UNAVAILABLE as {@link run}.
   */
  async describe(sql: string): Promise<{ parameterTypes: number[]; fields: FieldDef[] | null }> {
    const held = await this.acquire();
    const statement = async <R>(send: () => Promise<R>): Promise<R> => {
      try {
        return await send();
      } catch (error) {
        throw this.classify(error, held);
      }
    };
    try {
      await statement(() => held.query('BEGIN READ ONLY'));
      const describer = new StatementDescriber(sql);
      await statement(() =>
        held.query(sql, [], () => {
          held.client.query(describer as unknown as Query);
          return describer.done as unknown as Promise<QueryResult>;
        }),
      );
      return { parameterTypes: describer.parameterTypes, fields: describer.fields };
    } finally {
      if (!held.broken) await held.query('ROLLBACK').catch(() => undefined);
      held.release();
    }
  }

  /** {@link run}'s statement on a connection already held (released by the caller). */
  private async runHeld(
    held: HeldClient,
    query: CompiledQuery,
    options: RunOptions,
  ): Promise<StatementResult> {
    let cancelling: Promise<void> | undefined;
    const cancel = () => {
      cancelling ??= this.cancel(held.client);
    };
    options.signal?.addEventListener('abort', cancel, { once: true });
    const reader = new RowReader(options.rows);
    try {
      const result = await runOn(held, query, { reader, stop: cancel });
      if (reader.refusal) throw reader.refusal.reason;
      return result;
    } catch (error) {
      if (reader.refusal) throw reader.refusal.reason;
      if (options.signal?.aborted) throw options.signal.reason;
      throw this.classify(error, held);
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      await cancelling;
    }
  }

  /**
   * Runs `work` in one transaction on one connection (see {@link SqlPool.transaction}). Every
   * statement, `BEGIN` and `COMMIT` included, has the deadlines of {@link run}; a connection that
   * dropped or went silent is not rolled back (the server does, as the connection ends) but
   * discarded.
   */
  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    const held = await this.acquire();
    const statement = async <R>(run: () => Promise<R>): Promise<R> => {
      try {
        return await run();
      } catch (error) {
        throw this.classify(error, held);
      }
    };
    try {
      await statement(() => held.query('BEGIN'));
      const result = await work((query) => statement(() => runOn(held, query)));
      await statement(() => held.query('COMMIT'));
      return result;
    } catch (error) {
      if (!held.broken) await held.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      held.release();
    }
  }

  /** `SHOW server_version`, e.g. `16.4`. */
  async serverVersion(): Promise<string> {
    const { rows } = await this.run({ sql: 'SHOW server_version', params: [] });
    return String(rows[0]?.server_version ?? '');
  }

  /** Ends every connection of the pool (those held end as they are released). */
  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * A connection of the pool, watched while held, and checked by `options.verifyConnection` when
   * it is new.
   * @throws DomainError DATASOURCE_UNAVAILABLE when the server is down, refuses connections, or
   * the pool stayed full for `acquireTimeoutMs`; the check's own `DomainError` when it refuses
   * the connection (TIMEOUT or DATASOURCE_UNAVAILABLE when its statements could not run).
   */
  private async acquire(): Promise<HeldClient> {
    let held: HeldClient;
    try {
      held = new HeldClient(
        await this.pool.connect(),
        clientDeadlineMs(this.options.statementTimeoutMs),
      );
    } catch {
      throw DatasourceErrors.unavailable();
    }
    try {
      await this.verify(held);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const classified = this.classify(error, held);
      throw classified instanceof DomainError ? classified : DatasourceErrors.unavailable();
    }
    return held;
  }

  /**
   * A timeout (the server's, or the client's deadline), a lost server or connection, or a
   * materialized view never refreshed in the contract's terms; any other error as it came.
   */
  private classify(error: unknown, held: HeldClient): unknown {
    if (
      (error as { code?: unknown }).code === QUERY_CANCELED ||
      error instanceof ClientDeadlineExceeded
    ) {
      return DatasourceErrors.timeout(this.options.statementTimeoutMs);
    }
    if (isUnpopulatedMaterializedView(error)) return DatasourceErrors.notPopulated();
    // The connection emitted `error` while held: whatever the statement's own error says.
    if (held.broken || isUnavailable(error)) return DatasourceErrors.unavailable();
    return error;
  }

  /** Asks the server to cancel what `client` runs (PostgreSQL docs, "Server Signaling Functions"). */
  private async cancel(client: PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    if (!pid) return;
    // A connection of its own: the pool may be full of the very statements to cancel.
    // Bounded too: over a network that went silent the cancel would otherwise wait for ever.
    const canceller = new Client({
      ...this.config,
      connectionTimeoutMillis: this.options.acquireTimeoutMs,
      query_timeout: this.options.acquireTimeoutMs,
    });
    canceller.on('error', () => undefined);
    try {
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // The statement still ends at statement_timeout on the server.
    } finally {
      await canceller.end().catch(() => undefined);
    }
  }
}

/**
 * A pool client while a caller holds it. pg-pool listens for a client's `error` only while it is
 * idle (pg #1324, #2439, #3202): a connection that drops mid-statement would emit `error` with no
 * listener, which ends the process. This listens from checkout to release and remembers the
 * error. Each statement also has a client-side deadline ({@link clientDeadlineMs}): over a
 * connection that went silent the server's `statement_timeout` error can never arrive (pg #3399).
 * A client that broke either way goes back to the pool with the error (`release(err)`), so the
 * pool ends it (destroying its socket when a statement is still out) instead of lending it again.
 */
class HeldClient {
  /** What broke the connection while held: its `error` event, or a statement past the deadline. */
  broken: Error | null = null;
  private readonly onError = (error: Error): void => {
    this.broken ??= error;
  };

  constructor(
    readonly client: PoolClient,
    private readonly deadlineMs: number,
  ) {
    client.on('error', this.onError);
  }

  /**
   * Sends one statement and waits for it at most the client-side deadline.
   * @param send how the statement goes out: a plain query, or {@link stream}'s submitted one.
   * @throws what broke the connection, without sending, once it broke; the driver's error; or
   * {@link ClientDeadlineExceeded} at the deadline (the connection is then broken).
   */
  async query(
    text: string,
    values?: unknown[],
    send: () => Promise<QueryResult> = () => this.client.query({ text, values }),
  ): Promise<QueryResult> {
    if (this.broken) throw this.broken;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.broken ??= new ClientDeadlineExceeded(this.deadlineMs);
        reject(this.broken);
      }, this.deadlineMs);
    });
    try {
      return await Promise.race([send(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * {@link query}, its rows handed to `read.reader` one at a time as they arrive (`pg` emits
   * `row` and, with a listener and no callback, keeps no rows itself: `pg/lib/query.js`). The
   * first row the reader refuses calls `read.stop` (once); the rows after it are dropped. The
   * result's `rows` is empty: the rows are the reader's.
   * @throws as {@link query} does, once the statement ended.
   */
  async stream(text: string, values: unknown[], read: RowRead): Promise<QueryResult> {
    const submitted = new Query({ text, values });
    let stopped = false;
    const ended = new Promise<QueryResult>((resolve, reject) => {
      submitted.on('row', (row: Record<string, unknown>) => {
        if (!read.reader.accept(row) && !stopped) {
          stopped = true;
          read.stop();
        }
      });
      submitted.on('end', (result) => resolve(result as unknown as QueryResult));
      submitted.on('error', reject);
    });
    return this.query(text, values, () => {
      this.client.query(submitted);
      return ended;
    });
  }

  /** Gives the client back: a broken one with its error, so the pool discards it. */
  release(): void {
    // pg-pool's idle listener takes over `error` within release(): none is ever left unheard.
    this.client.release(this.broken ?? undefined);
    this.client.off('error', this.onError);
  }
}

/**
 * A pg "submittable" (an object with `submit(connection)`, which `client.query` runs in turn on
 * its connection, as pg-cursor does) that sends Parse of the unnamed statement, Describe of it and
 * Sync, and keeps the answers: ParameterDescription and NoData (which pg's client does not route,
 * read from the connection while this is active) and RowDescription. `done` settles at
 * ReadyForQuery, or with the server's error (pg routes it here, then the ReadyForQuery to no one).
 */
class StatementDescriber {
  parameterTypes: number[] = [];
  fields: FieldDef[] | null = null;
  readonly done: Promise<void>;
  private settle!: (error?: unknown) => void;
  private connection: EventEmitter | null = null;
  private readonly onParameters = (message: { dataTypeIDs: number[] }) => {
    this.parameterTypes = [...message.dataTypeIDs];
  };

  constructor(private readonly text: string) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => {
        this.connection?.off('parameterDescription', this.onParameters);
        if (error) reject(error);
        else resolve();
      };
    });
  }

  submit(connection: EventEmitter & DescribeConnection): void {
    this.connection = connection;
    connection.on('parameterDescription', this.onParameters);
    connection.parse({ text: this.text, types: [] });
    connection.describe({ type: 'S', name: '' });
    connection.sync();
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    this.fields = message.fields;
  }

  handleError(error: unknown): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle();
  }

  // Messages a Describe never brings; pg calls them only on a query that ran.
  handleParseComplete(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
}

/** What {@link StatementDescriber} sends on pg's connection (pg/lib/connection.js). */
interface DescribeConnection {
  parse(query: { text: string; types: number[] }): void;
  describe(message: { type: 'S' | 'P'; name: string }): void;
  sync(): void;
}

/** Where {@link HeldClient.stream} hands rows, and how it stops the statement after a refusal. */
interface RowRead {
  reader: RowReader;
  stop: () => void;
}

/**
 * One statement on a held client: rows, and the affected count of writes. With `read`, rows go
 * through its reader as they arrive ({@link HeldClient.stream}) and are the reader's.
 */
async function runOn(
  held: HeldClient,
  query: CompiledQuery,
  read?: RowRead,
): Promise<StatementResult> {
  const params = query.params as unknown[];
  const result = read
    ? await held.stream(query.sql, params, read)
    : await held.query(query.sql, params);
  const isSelect = result.command === 'SELECT' || result.command === 'SHOW';
  return {
    rows: read ? read.reader.rows : (result.rows as Record<string, unknown>[]),
    affected: isSelect ? undefined : (result.rowCount ?? undefined),
  };
}
