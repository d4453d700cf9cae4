import { parseMssqlUrlParts } from '../datasource-urls';
import type {
  CompiledQuery,
  ConnectionCheck,
  RunOptions,
  SqlPool,
  StatementResult,
} from '../core/dialect';
import { DatasourceErrors } from '../datasources.errors';
import { RowReader } from '../core/row-bytes';
import { isReadOnlyWrite, readOnlyRefusal } from '../core/statement-refusals';

/**
 * The part of the `mssql` package (v12, tedious driver) this adapter uses. `mssql` ships no type
 * declarations and `@types/mssql` is not a dependency, so the shapes are declared here from the
 * package's own source (`lib/base/connection-pool.js`, `lib/base/request.js`).
 */
interface MssqlResult {
  /** Rows of the first result set; undefined when the statement returned none. */
  recordset?: Record<string, unknown>[];
  /** Rows affected, one entry per statement of the batch. */
  rowsAffected: number[];
}

export interface MssqlRequest {
  input(name: string, value: unknown): MssqlRequest;
  query(sql: string): Promise<MssqlResult>;
  cancel(): void;
  /**
   * Stream mode (node-mssql README, "Streaming"): rows are emitted (`row`) and never collected,
   * errors are emitted (`error`, possibly several), and `query()` resolves without rows once the
   * request is done, whether it failed or not.
   */
  stream?: boolean;
  on(event: 'row', listener: (row: Record<string, unknown>) => void): MssqlRequest;
  on(event: 'error', listener: (error: unknown) => void): MssqlRequest;
}

interface MssqlTransaction {
  begin(): Promise<MssqlTransaction>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  request(): MssqlRequest;
}

interface MssqlConnectionPool {
  connect(): Promise<MssqlConnectionPool>;
  request(): MssqlRequest;
  close(): Promise<void>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

interface MssqlModule {
  ConnectionPool: new (config: MssqlConfig) => MssqlConnectionPool;
  Transaction: new (pool: MssqlConnectionPool) => MssqlTransaction;
}

let mssqlDriver: MssqlModule | undefined;

/**
 * The `mssql` package, loaded the first time a SQL Server datasource is opened: it and tedious
 * hold ~10 MB of heap (~35 MB of RSS), which a service without SQL Server never needs.
 */
function mssql(): MssqlModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS package, typed above
  return (mssqlDriver ??= require('mssql') as MssqlModule);
}

/**
 * The `mssql` ConnectionPool configuration an URL becomes (node-mssql README, "Configuration";
 * tedious `ConnectionOptions`). Date handling is pinned so no process or session setting changes
 * a value:
 * - `useUTC: true`: tedious reads `datetime`/`datetime2`/`date`/`time` into Dates whose UTC fields
 *   are the stored value, and `datetimeoffset` as the UTC instant (tedious `value-parser.js`).
 * - `language: 'us_english'` and `dateFormat: 'ymd'`: server messages in English (their text
 *   names the column of a refusal) and date text read year-month-day whatever the login's default
 *   language (SQL Server docs, "SET LANGUAGE", "SET DATEFORMAT").
 * - `lowerCaseGuids: true`: uniqueidentifier values as lower-case text, as PostgreSQL prints uuid.
 */
export interface MssqlConfig {
  server: string;
  port: number;
  user?: string;
  password?: string;
  database?: string;
  connectionTimeout: number;
  requestTimeout: number;
  pool: { max: number; min: number; idleTimeoutMillis: number; acquireTimeoutMillis?: number };
  options: {
    encrypt: boolean;
    trustServerCertificate: boolean;
    useUTC: true;
    language: 'us_english';
    dateFormat: 'ymd';
    lowerCaseGuids: true;
    appName: string;
    instanceName?: string;
  };
}

/**
 * Parses a SQL Server datasource URL into the pool configuration.
 *
 * Shape: `mssql://user:password@host:port/database?encrypt=true&trustServerCertificate=true`
 * (`sqlserver://` is the same). User, password and database are percent-decoded; port defaults to
 * 1433 (SQL Server docs, "Configure a Server to Listen on a Specific TCP Port"); the database may be
 * left out (the login's default database is used). Query parameters, case-insensitive:
 * `encrypt` and `trustServerCertificate` (`true|false|1|0|yes|no`; driver defaults `true` and
 * `false`), `instanceName` (a named instance, resolved through SQL Browser, which then decides the
 * port), `connectTimeout` and `requestTimeout` (milliseconds; defaults 5000 and 15000).
 *
 * @param url the datasource URL; never echoed in an error, since it carries the password.
 * @param poolSize the pool's maximum number of connections.
 * @throws DomainError INVALID_INPUT when the URL is not an `mssql://`/`sqlserver://` URL, has no
 *   host, an invalid port, an unknown parameter (named) or a parameter value of the wrong type.
 */
export function parseMssqlUrl(url: string, poolSize = 10): MssqlConfig {
  const parts = parseMssqlUrlParts(url);
  return {
    server: parts.server,
    port: parts.port,
    user: parts.user,
    password: parts.password,
    database: parts.database,
    connectionTimeout: parts.connectTimeout ?? 5000,
    requestTimeout: parts.requestTimeout ?? 15000,
    pool: { max: poolSize, min: 0, idleTimeoutMillis: 30000 },
    options: {
      encrypt: parts.encrypt ?? true,
      trustServerCertificate: parts.trustServerCertificate ?? false,
      useUTC: true,
      language: 'us_english',
      dateFormat: 'ymd',
      lowerCaseGuids: true,
      appName: 'tablegraph',
      ...(parts.instanceName === undefined ? {} : { instanceName: parts.instanceName }),
    },
  };
}

/**
 * A {@link SqlPool} over an `mssql` ConnectionPool (tedious driver).
 *
 * `run` binds the n-th parameter as `@p<n>` (1-based) with `request.input('p<n>', value)`, letting
 * `mssql` pick the SQL type from the JS value (string → nvarchar, integer → int/bigint, other
 * number → float, boolean → bit, bigint → bigint, Buffer → varbinary; node-mssql README, "Data
 * Types"); rows are the first result set, `affected` the batch's last row count ({@link
 * affectedRows}), undefined for a SELECT. Driver errors (`RequestError`, see
 * `mssql-errors.ts`) propagate unchanged.
 */
export class MssqlPool implements SqlPool {
  private constructor(
    private readonly pool: MssqlConnectionPool,
    private readonly statementTimeoutMs: number,
  ) {}

  /**
   * Connects a pool with the given configuration (see {@link parseMssqlUrl}), then runs `verify`
   * (when given) once on it: the mssql pool does not expose its connections one by one. The
   * connect timeout is bounded by `pool.acquireTimeoutMillis` when that is set.
   * @throws the driver's `ConnectionError` when the server cannot be reached or the login fails;
   *   what `verify` throws.
   */
  static async open(
    config: MssqlConfig,
    statementTimeoutMs = config.requestTimeout,
    verify?: ConnectionCheck,
  ): Promise<MssqlPool> {
    // A connection is made while a caller waits for it: its connect timeout (the URL's
    // `connectTimeout` included) never outlasts the pool's acquire timeout (issue 22 item 12).
    const acquire = config.pool.acquireTimeoutMillis;
    const connectionTimeout =
      acquire === undefined
        ? config.connectionTimeout
        : Math.min(config.connectionTimeout, acquire);
    const pool = new (mssql().ConnectionPool)({ ...config, connectionTimeout });
    // A connection that fails after login is dropped by the pool (it fails validation) and the
    // request on it rejects with its own error; without a listener the event would crash the process.
    pool.on('error', () => undefined);
    const opened = new MssqlPool(pool, statementTimeoutMs);
    try {
      await pool.connect();
      await verify?.((query) => opened.run(query));
    } catch (error) {
      await pool.close().catch(() => undefined);
      throw error;
    }
    return opened;
  }

  /**
   * Runs a statement; `requestTimeout` is its deadline, and an aborted signal cancels it (TDS
   * attention). Its rows are charged to `options.rows` as they arrive ({@link streamOn}).
   */
  async run(query: CompiledQuery, options: RunOptions = {}): Promise<StatementResult> {
    options.signal?.throwIfAborted();
    const request = this.pool.request();
    const cancel = () => request.cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await streamOn(request, query, new RowReader(options.rows));
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw this.classify(error);
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }

  /** A timeout or a lost server in the contract's terms (mssql error codes); any other as it came. */
  private classify(error: unknown): unknown {
    const code = (error as { code?: unknown }).code;
    if (code === 'ETIMEOUT') return DatasourceErrors.timeout(this.statementTimeoutMs);
    if (
      code === 'ESOCKET' ||
      code === 'ECONNCLOSED' ||
      code === 'ENOTOPEN' ||
      code === 'EPOOLFULL'
    ) {
      return DatasourceErrors.unavailable();
    }
    return error;
  }

  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    const tx = new (mssql().Transaction)(this.pool);
    await tx.begin();
    try {
      const result = await work(async (query) => {
        try {
          return await runOn(tx.request(), query);
        } catch (error) {
          throw this.classify(error);
        }
      });
      await tx.commit();
      return result;
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs `work` in one transaction that is always rolled back (see {@link SqlPool.readOnly}).
   * SQL Server has no read-only transaction: what refuses a write is the datasource's read-only
   * login (a query-kind SQL API cannot be published without it, issue 26 item 4; the datasource's
   * read-only pool opens with it, `DatasourcePoolsService`), whose refusal is answered as
   * `DatasourceErrors.readOnly` (`isReadOnlyWrite`); a write that login may make is undone by the
   * rollback. Each statement streams its rows to
   * `options.rows` and is cancelled (TDS attention) when `options.signal` fires, as {@link run}.
   */
  async readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T> {
    const tx = new (mssql().Transaction)(this.pool);
    try {
      await tx.begin();
    } catch (error) {
      throw this.classify(error);
    }
    try {
      return await work(async (query, options = {}) => {
        options.signal?.throwIfAborted();
        const request = tx.request();
        const cancel = () => request.cancel();
        options.signal?.addEventListener('abort', cancel, { once: true });
        try {
          return await streamOn(request, query, new RowReader(options.rows));
        } catch (error) {
          if (options.signal?.aborted) throw options.signal.reason;
          if (isReadOnlyWrite(error)) throw readOnlyRefusal(error);
          throw this.classify(error);
        } finally {
          options.signal?.removeEventListener('abort', cancel);
        }
      });
    } finally {
      await tx.rollback().catch(() => undefined);
    }
  }

  /** `SERVERPROPERTY('ProductVersion')`, e.g. `16.0.4135.4` (SQL Server docs, "SERVERPROPERTY"). */
  async serverVersion(): Promise<string> {
    const { rows } = await this.run({
      sql: "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version]",
      params: [],
    });
    return String(rows[0]?.version ?? '');
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Binds a statement's parameters to a request as `@p1…@pN`. */
function bind(request: MssqlRequest, query: CompiledQuery): void {
  query.params.forEach((value, index) =>
    request.input(`p${index + 1}`, value === undefined ? null : value),
  );
}

/**
 * Runs one statement on a request of the pool in stream mode, its rows handed to `reader` one at
 * a time as tedious parses them. The first row the reader refuses cancels the request (TDS
 * attention: the server stops, the connection stays usable and goes back to the pool; tedious
 * `Connection.cancel`); rows after it are dropped, and the call rejects with the reader's refusal
 * once the request is done.
 * @throws the reader's refusal; else the request's first error (a `RequestError`).
 */
export async function streamOn(
  request: MssqlRequest,
  query: CompiledQuery,
  reader: RowReader,
): Promise<StatementResult> {
  bind(request, query);
  request.stream = true;
  let failure: { error: unknown } | null = null;
  let cancelled = false;
  request.on('row', (row) => {
    if (!reader.accept(row) && !cancelled) {
      cancelled = true;
      request.cancel();
    }
  });
  request.on('error', (error) => {
    failure ??= { error };
  });
  const result = await request.query(query.sql);
  if (reader.refusal) throw reader.refusal.reason;
  if (failure) throw (failure as { error: unknown }).error;
  const isSelect = /^\s*SELECT\b/i.test(query.sql);
  return { rows: reader.rows, affected: isSelect ? undefined : affectedRows(result.rowsAffected) };
}

/** Runs one statement on a request of a transaction, parameters `@p1…@pN`, its rows collected. */
async function runOn(request: MssqlRequest, query: CompiledQuery): Promise<StatementResult> {
  bind(request, query);
  const result = await request.query(query.sql);
  const isSelect = /^\s*SELECT\b/i.test(query.sql);
  return {
    rows: result.recordset ?? [],
    affected: isSelect ? undefined : affectedRows(result.rowsAffected),
  };
}

/**
 * The rows a write changed: the batch's last row count. A write that reads rows back is
 * `DECLARE @tg_out …; <write> OUTPUT … INTO @tg_out; SELECT … FROM @tg_out` (`MssqlCompiler`),
 * whose last count is the SELECT's, one row per written row; a plain write's is its own. An
 * enabled trigger's statements send their own counts (DONEINPROC) unless it sets NOCOUNT ON
 * (Microsoft docs, "SET NOCOUNT"), and it runs inside the statement that fired it, so its counts
 * come before that statement's: the first count may be the trigger's, the last never is.
 */
export function affectedRows(rowsAffected: readonly number[]): number | undefined {
  return rowsAffected.length ? rowsAffected[rowsAffected.length - 1] : undefined;
}
