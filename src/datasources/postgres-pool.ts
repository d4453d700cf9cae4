import { Client, Pool, PoolClient, PoolConfig } from 'pg';
import type { CompiledQuery, PoolOptions, RunOptions, SqlPool, StatementResult } from './dialect';
import { DatasourceErrors } from './datasources.errors';

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
 */
export class PostgresPool implements SqlPool {
  private constructor(
    private readonly pool: Pool,
    private readonly options: PoolOptions,
    private readonly config: PoolConfig,
  ) {}

  /**
   * Opens the pool and checks one connection.
   * @param config connection settings (host, user, TLS, type parsers, session options).
   * @throws the driver's error when the server cannot be reached or refuses the login.
   */
  static async open(config: PoolConfig, options: PoolOptions): Promise<PostgresPool> {
    const pool = new Pool({
      ...config,
      max: options.poolSize,
      connectionTimeoutMillis: options.acquireTimeoutMs,
      idleTimeoutMillis: 30_000,
      // The server's own deadline; `options` may already carry other `-c` settings.
      options: `${config.options ?? ''} -c statement_timeout=${options.statementTimeoutMs}`.trim(),
    });
    // An idle client whose server went away emits here; without a listener the process would crash.
    pool.on('error', () => undefined);
    try {
      (await pool.connect()).release();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PostgresPool(pool, options, config);
  }

  async run(query: CompiledQuery, options: RunOptions = {}): Promise<StatementResult> {
    options.signal?.throwIfAborted();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      // No connection: the server is down, refuses connections, or the pool stayed full.
      throw DatasourceErrors.unavailable();
    }
    const cancel = () => void this.cancel(client);
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await runOn(client, query);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw this.classify(error);
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      client.release();
    }
  }

  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      // No connection: the server is down, refuses connections, or the pool stayed full.
      throw DatasourceErrors.unavailable();
    }
    try {
      await client.query('BEGIN');
      const result = await work(async (query) => {
        try {
          return await runOn(client, query);
        } catch (error) {
          throw this.classify(error);
        }
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async serverVersion(): Promise<string> {
    const { rows } = await this.run({ sql: 'SHOW server_version', params: [] });
    return String(rows[0]?.server_version ?? '');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * A timeout, a lost server or a materialized view never refreshed in the contract's terms; any
   * other error as it came.
   */
  private classify(error: unknown): unknown {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) {
      return DatasourceErrors.timeout(this.options.statementTimeoutMs);
    }
    if (isUnpopulatedMaterializedView(error)) return DatasourceErrors.notPopulated();
    return isUnavailable(error) ? DatasourceErrors.unavailable() : error;
  }

  /** Asks the server to cancel what `client` runs (PostgreSQL docs, "Server Signaling Functions"). */
  private async cancel(client: PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    if (!pid) return;
    // A connection of its own: the pool may be full of the very statements to cancel.
    const canceller = new Client({
      ...this.config,
      connectionTimeoutMillis: this.options.acquireTimeoutMs,
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

/** One statement on a client: rows, and the affected count of writes. */
async function runOn(client: PoolClient, query: CompiledQuery): Promise<StatementResult> {
  const result = await client.query({ text: query.sql, values: query.params as unknown[] });
  const isSelect = result.command === 'SELECT' || result.command === 'SHOW';
  return {
    rows: result.rows as Record<string, unknown>[],
    affected: isSelect ? undefined : (result.rowCount ?? undefined),
  };
}
