import type MysqlDriver from 'mysql2/promise';
import type { Connection, Pool, PoolOptions, ResultSetHeader } from 'mysql2/promise';
import { parseMysqlUrl } from '../datasource-urls';
import type { PoolConnection } from 'mysql2/promise';
import { DomainError } from '../../common/domain-error';
import type {
  CompiledQuery,
  PoolOptions as DatasourcePoolOptions,
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

let mysqlDriver: typeof MysqlDriver | undefined;

/**
 * The `mysql2` package, loaded the first time a MySQL/MariaDB datasource is opened (a service
 * without one never holds it in memory).
 */
function mysql(): typeof MysqlDriver {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return (mysqlDriver ??= require('mysql2/promise') as typeof MysqlDriver);
}

/**
 * What every pooled connection runs before its first statement:
 * - `time_zone = '+00:00'`: TIMESTAMP values are converted between the session zone and UTC on
 *   the way in and out (MySQL "MySQL Server Time Zone Support"; MariaDB "Time Zones"), so pinning
 *   the session to UTC makes them read and write as UTC instants whatever the server's or the
 *   process's zone. DATETIME and DATE are never converted.
 * - an explicit `sql_mode` with `STRICT_ALL_TABLES` (MySQL "Server SQL Modes", "Strict SQL
 *   Mode"): a value too long for its column, a missing required value or an invalid date is
 *   refused with an error instead of being truncated or replaced by a warning. The mode is set in
 *   full, not appended to the server's, so server settings such as `ANSI_QUOTES`,
 *   `PIPES_AS_CONCAT` or `NO_BACKSLASH_ESCAPES` never change what the compiled SQL means. Every
 *   mode named exists in MySQL 5.7, 8.x and MariaDB 10.x/11.x.
 */
export const MYSQL_SESSION_SQL =
  "SET SESSION time_zone = '+00:00', " +
  "SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'";

/** Prepared statements each connection keeps (the server caps them all together: `max_prepared_stmt_count`, 16382 by default). */
const PREPARED_STATEMENTS_PER_CONNECTION = 256;

export { parseMysqlUrl } from '../datasource-urls';
export type { MysqlUrlParts } from '../datasource-urls';

/**
 * A DECIMAL filter or write value, bound as the binary protocol's DECIMAL type rather than as
 * text. MySQL compares a DECIMAL column with a string operand as double-precision numbers (MySQL
 * "Type Conversion in Expression Evaluation"), which loses digits beyond about 15; with a decimal
 * operand the comparison is exact. Prints as its text, so logs and `String()` show the number.
 */
export class MysqlDecimal {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A compiled parameter as mysql2's `execute` must send it (COM_STMT_EXECUTE, MySQL Client/Server
 * Protocol "Binary Protocol Value"):
 * - a whole JS number or a BigInt → LONGLONG (signed, or unsigned above 2^63−1): exact, and
 *   accepted where the server wants an integer (`LIMIT ?`; mysql2 would send numbers as DOUBLE).
 *   A BigInt beyond 64 bits goes as text and the server refuses or converts it.
 * - {@link MysqlDecimal} → DECIMAL; a boolean → 1/0; `undefined` → NULL (mysql2 throws on it);
 *   a Date → DATETIME written in UTC (the pool's `timezone: 'Z'`, matching the UTC session).
 * Everything else (strings, fractional numbers, null, Buffers) goes as mysql2 infers it.
 */
export function toMysqlParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return mysql().TypedParameter.TINY(value ? 1 : 0);
  if (typeof value === 'number' && Number.isSafeInteger(value))
    return mysql().TypedParameter.LONGLONG(value);
  if (typeof value === 'bigint') {
    if (value >= INT64_MIN && value <= INT64_MAX) return mysql().TypedParameter.LONGLONG(value);
    if (value > INT64_MAX && value <= UINT64_MAX)
      return mysql().TypedParameter.LONGLONG.unsigned(value);
    return value.toString();
  }
  if (value instanceof MysqlDecimal) return mysql().TypedParameter.DECIMAL(value.text);
  return value;
}

/** The callback-style connection mysql2's pool hands to its `connection` event. */
interface CoreConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
  destroy(): void;
}

/**
 * A {@link SqlPool} over a `mysql2/promise` pool (the MySQL/MariaDB adapter). Not TypeORM: its
 * MySQL runner calls mysql2's `query()`, which interpolates values into the SQL text client-side,
 * whereas every statement here runs through `execute()`, a server-side prepared statement, so
 * every value reaches the server as a bound parameter (CONTRACT.md §6).
 *
 * Driver settings that keep values exact and zone-free: `dateStrings` (DATE/DATETIME/TIMESTAMP as
 * the server's text, never a JS Date in the process zone), `supportBigNumbers` +
 * `bigNumberStrings` (BIGINT as text), `decimalNumbers: false` (DECIMAL as text), `jsonStrings`,
 * the `FOUND_ROWS` client flag (an UPDATE reports the rows it matched, not only those it changed:
 * MySQL `mysql_affected_rows()` / CLIENT_FOUND_ROWS), `LOCAL_FILES` off (no `LOAD DATA LOCAL`).
 * Each new connection runs {@link MYSQL_SESSION_SQL} first: mysql2 queues commands per connection,
 * so it runs before any statement; if it fails, the connection is destroyed and the statements
 * queued behind it fail rather than run unpinned. `resetOnRelease` stays off, which would undo it.
 *
 * The server's own deadline (`max_statement_time`, or `max_execution_time` for SELECT on MySQL)
 * cannot answer over a connection that went silent, and MySQL bounds no write: every statement
 * also has a client-side deadline ({@link clientDeadlineMs}). Past it the statement is killed on
 * the server (`KILL QUERY`, from a connection of its own, best effort), its connection destroyed
 * (never lent again) and the caller answered TIMEOUT. TCP keep-alive finds idle connections
 * whose peer vanished.
 */
export class MysqlPool implements SqlPool {
  /** Connections (mysql2's core objects) `verifyConnection` accepted, each physical connection once. */
  private readonly verified = new WeakSet<object>();
  private version: string | null = null;
  /** The last error of a connection's session setup (that connection was destroyed). */
  private sessionError: Error | null = null;

  private constructor(
    private readonly pool: Pool,
    private readonly limits: DatasourcePoolOptions,
    private readonly connectionConfig: PoolOptions,
  ) {}

  /**
   * Opens the pool and runs one statement on it (reading the server version), so an unreachable
   * server, wrong credentials, an unknown database or a session that cannot be pinned fail here;
   * then `options.verifyConnection` (when given) checks that first connection. The connection
   * wait (`connectTimeout`) is `acquireTimeoutMs`, as PostgreSQL's is, so a silent port costs no
   * more than a closed one is made to.
   * @param sessionSql what each new connection runs first; {@link MYSQL_SESSION_SQL} but in tests.
   * @throws DomainError INVALID_INPUT for a URL that is not a mysql URL; the driver's error when the
   * server refuses or cannot be reached; what `verifyConnection` throws.
   */
  static async open(
    url: string,
    options: { poolSize: number } & Partial<DatasourcePoolOptions>,
    sessionSql: string = MYSQL_SESSION_SQL,
  ): Promise<MysqlPool> {
    const limits: DatasourcePoolOptions = {
      statementTimeoutMs: 5_000,
      acquireTimeoutMs: 2_000,
      ...options,
    };
    const parts = parseMysqlUrl(url);
    const config: PoolOptions = {
      host: parts.host,
      port: parts.port,
      user: parts.user,
      password: parts.password,
      database: parts.database,
      ...(parts.ssl ? { ssl: {} } : {}),
      connectionLimit: options.poolSize,
      maxIdle: options.poolSize,
      idleTimeout: 30_000,
      waitForConnections: true,
      queueLimit: 0,
      connectTimeout: limits.acquireTimeoutMs,
      enableKeepAlive: true,
      keepAliveInitialDelay: KEEP_ALIVE_INITIAL_DELAY_MS,
      resetOnRelease: false,
      charset: 'UTF8MB4_GENERAL_CI',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      jsonStrings: true,
      multipleStatements: false,
      maxPreparedStatements: PREPARED_STATEMENTS_PER_CONNECTION,
      flags: ['FOUND_ROWS', '-LOCAL_FILES'],
    };
    const pool = mysql().createPool(config);
    const opened = new MysqlPool(pool, limits, config);
    pool.on('connection', (connection: unknown) => {
      const conn = connection as CoreConnection;
      conn.query(sessionSql, (error) => {
        if (error) {
          opened.sessionError = error;
          conn.destroy();
          return;
        }
        // The server's own deadline per statement: MariaDB max_statement_time (seconds), else
        // MySQL max_execution_time (milliseconds, SELECT only) (MariaDB KB "Aborting Statements
        // that Exceed a Certain Time to Execute"; MySQL "Server System Variables").
        conn.query(`SET SESSION max_statement_time = ${limits.statementTimeoutMs / 1000}`, (e) => {
          if (e)
            conn.query(
              `SET SESSION max_execution_time = ${limits.statementTimeoutMs}`,
              () => undefined,
            );
        });
      });
    });
    try {
      // Straight on the pool, so the driver's own error (whose code decides what the builder
      // who registers it is told, connect-failures.ts) comes out.
      const first = await pool.getConnection();
      try {
        const [rows] = await first.query('SELECT VERSION() AS `version`');
        opened.version = String((rows as { version?: unknown }[])[0]?.version ?? '');
      } catch (error) {
        first.release();
        throw error;
      }
      // verify() destroys the connection when it refuses it, else it goes back to the pool.
      await opened.verify(first);
      first.release();
    } catch (error) {
      await pool.end().catch(() => undefined);
      if (error instanceof DomainError) throw error;
      // The statement failed because its session could not be pinned: that is the cause to report.
      throw opened.sessionError ?? error;
    }
    return opened;
  }

  /**
   * Runs one prepared statement. Rows for SELECT and `INSERT … RETURNING`; `affected` is the
   * server's affected-row count for writes (rows found, for UPDATE), the number of returned rows
   * for a write that returns rows, undefined for a SELECT. TIMEOUT at the server's deadline or at
   * {@link clientDeadlineMs}; DATASOURCE_UNAVAILABLE for a lost server; other driver errors
   * propagate unchanged.
   *
   * Rows are charged to `options.rows` one by one as mysql2 parses them ({@link executeStreaming}).
   * When the sink refuses one, the connection is destroyed at once (socket included) and the call
   * rejects with the sink's refusal: the protocol has no way to leave a result set half read but
   * reading the rest (MySQL Client/Server Protocol, "Text/Binary Resultset"), which would move
   * the whole page over the network, and a `KILL QUERY` needs a connection of its own anyway. The
   * server stops the statement as its next write fails; the pool opens a new connection later.
   */
  async run(query: CompiledQuery, options: RunOptions = {}): Promise<StatementResult> {
    options.signal?.throwIfAborted();
    const held = this.hold(await this.acquire());
    try {
      return await this.runHeld(held, query, options);
    } finally {
      held.release();
    }
  }

  /**
   * Runs `work` in `START TRANSACTION READ ONLY` on one connection and always rolls back (see
   * {@link SqlPool.readOnly}). A write to a non-temporary table, directly or from a stored
   * function, is refused by the server with error 1792 ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
   * (MySQL "START TRANSACTION … READ ONLY"; MariaDB KB "START TRANSACTION"), answered as
   * `DatasourceErrors.readOnly`. Each statement has {@link run}'s deadlines, cancellation and
   * row charging; a connection given up at the client deadline is destroyed, not rolled back.
   */
  async readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T> {
    return this.inReadOnly((held) =>
      work(async (query, options = {}) => {
        options.signal?.throwIfAborted();
        try {
          return await this.runHeld(held, query, options);
        } catch (error) {
          throw readOnlyRefusal(error);
        }
      }),
    );
  }

  /**
   * `work` on a held connection inside `START TRANSACTION READ ONLY` (or, with `readOnly` false,
   * a plain `START TRANSACTION`), always rolled back.
   */
  private async inReadOnly<T>(
    work: (held: HeldConnection) => Promise<T>,
    readOnly = true,
  ): Promise<T> {
    const held = this.hold(await this.acquire());
    try {
      try {
        await held.within(() =>
          held.connection.query(readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION'),
        );
      } catch (error) {
        throw this.classify(error);
      }
      return await work(held);
    } finally {
      if (!held.gaveUp && !held.isDiscarded)
        await held.within(() => held.connection.rollback()).catch(() => undefined);
      held.release();
    }
  }

  /**
   * The column definitions the server sends for `sql` when it prepares it (COM_STMT_PREPARE:
   * MySQL Client/Server Protocol, "COM_STMT_PREPARE Response"; mysql2 `prepare()`), on one
   * connection inside `START TRANSACTION READ ONLY` … `ROLLBACK`: nothing is executed. MySQL and
   * MariaDB refuse to even prepare a write in a read-only transaction (error 1792), so a write
   * (`isRead` false) is prepared in a plain transaction, rolled back too: preparing executes
   * nothing. Empty for a statement that returns no rows. The prepared statement is closed at once
   * and leaves mysql2's statement cache.
   * @throws the driver's error when the server refuses the statement; TIMEOUT,
   *   DATASOURCE_UNAVAILABLE as {@link run}.
   */
  async describe(sql: string, isRead: boolean): Promise<MysqlColumnDefinition[]> {
    return this.inReadOnly(async (held) => {
      try {
        const prepared = await held.within(() => held.connection.prepare(sql));
        // mysql2's promise wrapper keeps the prepared statement's column definitions on its
        // callback-style `statement` (lib/promise/prepared_statement_info.js).
        const columns =
          (prepared as unknown as { statement?: { columns?: MysqlColumnDefinition[] } }).statement
            ?.columns ?? [];
        // unprepare, not close(): mysql2 caches prepared statements per connection by their SQL,
        // and close() leaves the closed one in that cache, where a later execute() of the same
        // SQL would find a statement the server no longer knows.
        held.connection.unprepare(sql);
        return columns.map((c) => ({
          name: c.name,
          orgTable: c.orgTable,
          orgName: c.orgName,
          columnType: c.columnType,
          columnLength: c.columnLength,
          characterSet: c.characterSet,
          flags: c.flags,
          extendedTypeName: c.extendedTypeName,
          extendedFormat: c.extendedFormat,
        }));
      } catch (error) {
        throw this.classify(error);
      }
    }, isRead);
  }

  /** {@link run}'s statement on a connection already held (released by the caller). */
  private async runHeld(
    held: HeldConnection,
    query: CompiledQuery,
    options: RunOptions,
  ): Promise<StatementResult> {
    const kill = () => void this.killQuery(held.connection.threadId);
    options.signal?.addEventListener('abort', kill, { once: true });
    const reader = new RowReader(options.rows);
    try {
      return await held.within(() => executeStreaming(held, query, reader));
    } catch (error) {
      if (reader.refusal) throw reader.refusal.reason;
      if (options.signal?.aborted) throw options.signal.reason;
      throw this.classify(error);
    } finally {
      options.signal?.removeEventListener('abort', kill);
    }
  }

  /**
   * Runs `work` in one transaction on one connection (see {@link SqlPool.transaction}), at READ
   * COMMITTED. Every statement, `START TRANSACTION` and `COMMIT` included, has the deadlines of {@link run}; a
   * connection given up at the client deadline is destroyed, not rolled back (the server rolls
   * back as it ends).
   */
  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    const held = this.hold(await this.acquire());
    const statement = async <R>(run: () => Promise<R>): Promise<R> => {
      try {
        return await held.within(run);
      } catch (error) {
        throw this.classify(error);
      }
    };
    try {
      // READ COMMITTED, as on PostgreSQL and SQL Server (InnoDB's default is REPEATABLE READ); the
      // statement sets the level of the next transaction only (MySQL "SET TRANSACTION").
      await statement(() =>
        held.connection.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED'),
      );
      await statement(() => held.connection.beginTransaction());
      const result = await work((query) => statement(() => execute(held.connection, query)));
      await statement(() => held.connection.commit());
      return result;
    } catch (error) {
      if (!held.gaveUp) await held.within(() => held.connection.rollback()).catch(() => undefined);
      throw error;
    } finally {
      held.release();
    }
  }

  /**
   * Runs `verifyConnection` on a connection new to it (once per physical connection, so a host
   * name that resolves to another server later is checked on the connection that reached it),
   * each statement within the client-side deadline. A connection it refuses, or that fails it, is
   * destroyed, never lent again.
   * @throws what the check throws; the driver's error (or the deadline's) when its statements fail.
   */
  private async verify(connection: PoolConnection): Promise<void> {
    const check = this.limits.verifyConnection;
    if (!check || this.verified.has(connection.connection)) return;
    const held = this.hold(connection);
    try {
      await check((query) => held.within(() => execute(connection, query)));
      this.verified.add(connection.connection);
    } catch (error) {
      connection.destroy();
      (connection.connection as unknown as { stream?: { destroy(): void } }).stream?.destroy();
      throw error;
    }
  }

  /** `connection` with the client-side deadline of this pool; a statement past it is killed. */
  private hold(connection: PoolConnection): HeldConnection {
    return new HeldConnection(
      connection,
      clientDeadlineMs(this.limits.statementTimeoutMs),
      (threadId) => void this.killQuery(threadId),
    );
  }

  /**
   * A connection of the pool within `acquireTimeoutMs` (mysql2's pool has no wait limit of its
   * own; one that arrives later is handed back), checked by `verifyConnection` when it is new.
   * @throws DomainError DATASOURCE_UNAVAILABLE when none came in time or the server is down; the
   *   check's own `DomainError` when it refuses the connection (TIMEOUT or DATASOURCE_UNAVAILABLE
   *   when its statements could not run).
   */
  private async acquire(): Promise<PoolConnection> {
    const connection = await this.connectionWithin();
    try {
      await this.verify(connection);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const classified = this.classify(error);
      throw classified instanceof DomainError ? classified : DatasourceErrors.unavailable();
    }
    return connection;
  }

  /** {@link acquire} without the check. @throws DomainError DATASOURCE_UNAVAILABLE. */
  private async connectionWithin(): Promise<PoolConnection> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const pending = this.pool.getConnection();
    try {
      return await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            reject(DatasourceErrors.unavailable());
          }, this.limits.acquireTimeoutMs);
        }),
      ]);
    } catch {
      if (timedOut) pending.then((c) => c.release()).catch(() => undefined);
      // No connection: the server is down, refuses connections, or the pool stayed full.
      throw DatasourceErrors.unavailable();
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A timeout (the server's, or the client's deadline) or a lost server in the contract's terms;
   * any other error as it came.
   */
  private classify(error: unknown): unknown {
    const errno = (error as { errno?: unknown }).errno;
    // 1969 MariaDB max_statement_time, 3024 MySQL max_execution_time.
    if (errno === 1969 || errno === 3024 || error instanceof ClientDeadlineExceeded) {
      return DatasourceErrors.timeout(this.limits.statementTimeoutMs);
    }
    return isMysqlUnavailable(error) ? DatasourceErrors.unavailable() : error;
  }

  /** Stops what a connection runs, from a connection of its own (MariaDB/MySQL `KILL QUERY`). */
  private async killQuery(threadId: number): Promise<void> {
    const single = { ...this.connectionConfig };
    for (const key of [
      'connectionLimit',
      'maxIdle',
      'idleTimeout',
      'waitForConnections',
      'queueLimit',
    ]) {
      delete (single as Record<string, unknown>)[key];
    }
    let killer: Connection | undefined;
    try {
      killer = await mysql().createConnection(single);
      await killer.query(`KILL QUERY ${Number(threadId)}`);
    } catch {
      // The statement still ends at the server's own deadline.
    } finally {
      await killer?.end().catch(() => undefined);
    }
  }

  /** `SELECT VERSION()`, e.g. `10.11.19-MariaDB-0+deb12u1` or `8.4.3`; read once, then cached. */
  async serverVersion(): Promise<string> {
    if (this.version === null) {
      const { rows } = await this.run({ sql: 'SELECT VERSION() AS `version`', params: [] });
      this.version = String(rows[0]?.version ?? '');
    }
    return this.version;
  }

  /** Ends every connection of the pool. */
  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A pool connection while a caller holds it, with a client-side deadline per statement: a
 * statement unanswered past it rejects with {@link ClientDeadlineExceeded}, `onGiveUp` is told
 * the connection's thread (to kill the statement on the server), and the connection is destroyed
 * on release instead of going back to the pool. mysql2 has no deadline of its own for a statement.
 */
class HeldConnection {
  /** Set once a statement passed the deadline: the connection is then never used again. */
  gaveUp: ClientDeadlineExceeded | null = null;
  /** Set by {@link discard}: the connection is destroyed already. */
  private discarded = false;

  /** Whether {@link discard} destroyed the connection (nothing more may run on it). */
  get isDiscarded(): boolean {
    return this.discarded;
  }

  constructor(
    readonly connection: PoolConnection,
    private readonly deadlineMs: number,
    private readonly onGiveUp: (threadId: number) => void,
  ) {}

  /**
   * Runs `statement` (one command on the connection) and waits for it at most the deadline.
   * @throws what `statement` throws; {@link ClientDeadlineExceeded} at the deadline, or at once
   * (without running it) when an earlier statement passed it.
   */
  async within<T>(statement: () => Promise<T>): Promise<T> {
    if (this.gaveUp) throw this.gaveUp;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.gaveUp = new ClientDeadlineExceeded(this.deadlineMs);
        this.onGiveUp(this.connection.threadId);
        reject(this.gaveUp);
      }, this.deadlineMs);
    });
    try {
      return await Promise.race([statement(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Hands the connection back to the pool, or destroys it when a statement passed the deadline. */
  release(): void {
    if (this.discarded) return;
    if (!this.gaveUp) {
      this.connection.release();
      return;
    }
    this.discard();
  }

  /**
   * Destroys the connection now, in the middle of a statement if need be: it leaves the pool and
   * its socket is destroyed outright (destroy() alone ends it gracefully, which a silent peer
   * never completes, and would read the rest of a result set meanwhile). Nothing more is read
   * from it.
   */
  discard(): void {
    if (this.discarded) return;
    this.discarded = true;
    this.connection.destroy();
    (this.connection.connection as unknown as { stream?: { destroy(): void } }).stream?.destroy();
  }
}

/** A result column as the server describes it when it prepares a statement (mysql2 `ColumnDefinition`). */
export interface MysqlColumnDefinition {
  name: string;
  /** The table it is read from (its real name), or `''` for an expression. */
  orgTable: string;
  orgName: string;
  /** The protocol's type code (MySQL `enum_field_types`: 3 LONG, 12 DATETIME, 246 NEWDECIMAL…). */
  columnType?: number;
  columnLength?: number;
  /** 63 is `binary`: a BLOB/STRING of bytes rather than text. */
  characterSet?: number;
  /** Column flags: 1 NOT_NULL, 32 UNSIGNED (MySQL `NOT_NULL_FLAG`, `UNSIGNED_FLAG`). */
  flags: number | string[];
  /** MariaDB ≥ 10.5 extended metadata: `uuid`, `inet6`, `point`… */
  extendedTypeName?: string;
  /** MariaDB ≥ 10.5 extended metadata: `json`. */
  extendedFormat?: string;
}

/** The events of mysql2's `Execute` command in emitter mode (`lib/commands/execute.js`, `query.js`). */
interface ExecuteCommand {
  on(event: 'fields', listener: (fields: unknown[] | undefined) => void): this;
  on(event: 'result', listener: (row: unknown) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'end', listener: () => void): this;
}

/** mysql2's callback-style connection under a promise one, as {@link executeStreaming} uses it. */
interface StreamingConnection {
  execute(sql: string, values: unknown[]): ExecuteCommand;
}

/**
 * One prepared statement on a held connection, its rows handed to `reader` one at a time as
 * mysql2 parses them: the command has no callback, so it emits each row (`result`) and keeps
 * none itself (mysql2 `Query.row`). The first row the reader refuses destroys the connection
 * ({@link HeldConnection.discard}) and rejects with the reader's refusal. A write answers its
 * header (`result` with no `fields` before it), a write with RETURNING its rows.
 * @throws the driver's error; the reader's refusal.
 */
function executeStreaming(
  held: HeldConnection,
  query: CompiledQuery,
  reader: RowReader,
): Promise<StatementResult> {
  return new Promise((resolve, reject) => {
    let inResultSet = false;
    let header: unknown;
    // mysql2 emits `end` after `error` too: the first outcome settles the statement.
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const core = held.connection.connection as unknown as StreamingConnection;
    core
      .execute(query.sql, query.params.map(toMysqlParameter))
      .on('fields', (fields) => {
        if (fields) inResultSet = true;
      })
      .on('result', (row) => {
        if (settled) return;
        if (!inResultSet) header = row;
        else if (!reader.accept(row as Record<string, unknown>)) {
          held.discard();
          fail(reader.refusal?.reason);
        }
      })
      .on('error', fail)
      .on('end', () => {
        if (settled) return;
        settled = true;
        resolve(resultOf(query, inResultSet ? reader.rows : header));
      });
  });
}

/**
 * A statement's result in the port's shape: rows for SELECT and `INSERT … RETURNING`; `affected`
 * the server's affected-row count for writes (rows found, for UPDATE), the number of returned rows
 * for a write that returns rows, undefined for a SELECT.
 */
function resultOf(query: CompiledQuery, result: unknown): StatementResult {
  if (Array.isArray(result)) {
    const rows = result as Record<string, unknown>[];
    return {
      rows,
      affected: /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(query.sql) ? rows.length : undefined,
    };
  }
  const header = result as ResultSetHeader | undefined;
  if (!header) return { rows: [], affected: undefined };
  // insertId is 0 when the INSERT generated no key (mysql2 ResultSetHeader).
  return {
    rows: [],
    affected: header.affectedRows,
    ...(header.insertId ? { insertId: header.insertId } : {}),
  };
}

/** One prepared statement on a connection, in the port's result shape. */
async function execute(connection: PoolConnection, query: CompiledQuery): Promise<StatementResult> {
  const [result] = await connection.execute(
    query.sql,
    query.params.map(toMysqlParameter) as never[],
  );
  return resultOf(query, result);
}

/** Errors of a MySQL/MariaDB server that is down, gone or refusing more connections. */
function isMysqlUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  if (
    e.errno === 1040 ||
    e.errno === 1053 ||
    e.errno === 2002 ||
    e.errno === 2003 ||
    e.errno === 2013
  ) {
    return true;
  }
  const codes = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENOTFOUND',
    'PROTOCOL_CONNECTION_LOST',
    'EPIPE',
  ];
  return typeof e.code === 'string' && codes.includes(e.code);
}
