import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DomainError, ErrorCode } from '../common/domain-error';
import { connectFailureOf } from './connect-failures';
import { redactUrl } from './datasource-urls';
import type {
  CompiledQuery,
  ConnectionCheck,
  DatabaseIdentity,
  DatasourceType,
  Dialect,
  RunOptions,
  SqlPool,
  StatementResult,
} from './core/dialect';
import { DatasourceErrors } from './datasources.errors';
import { MssqlDialect } from './mssql/dialect';
import { MysqlDialect } from './mysql/dialect';
import { ownStoreRefusal, sqliteFileKeys, storeCheckFailed, StoreGuardError } from './own-store';
import { PostgresDialect } from './postgres/dialect';
import { SqliteDialect } from './sqlite/dialect';

/** A datasource ready for queries: its dialect and a way to run compiled SQL on its pool. */
export interface DatasourceConnection {
  dialect: Dialect;
  /**
   * Runs one statement with bound parameters. Driver errors propagate (see
   * `Dialect.translateError`). `signal` cancels the statement when it fires.
   */
  run(query: CompiledQuery, options?: RunOptions): Promise<StatementResult>;
  /** Runs `work` in one transaction (see `SqlPool.transaction`); its statements are counted too. */
  transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T>;
  /**
   * Runs `work` in a read-only transaction that is always rolled back (see `SqlPool.readOnly`:
   * a write is refused with `StatementRefusal` READ_ONLY); its statements are counted too.
   */
  readOnly<T>(
    work: (
      run: (query: CompiledQuery, options?: RunOptions) => Promise<StatementResult>,
    ) => Promise<T>,
  ): Promise<T>;
}

/**
 * How long the metadata store's identity is kept before it is read again: a new datasource
 * connection costs the store one catalog read at most this often.
 */
const STORE_IDENTITY_TTL_MS = 60_000;

/**
 * One bounded pool per datasource, opened by its adapter on first use and closed on shutdown.
 * Counts the statements it runs: the e2e suites read the count to prove relations load in
 * batches and limits hold before any SQL.
 */
@Injectable()
export class DatasourcePoolsService implements OnApplicationShutdown {
  private readonly logger = new Logger('DatasourcePools');
  private readonly dialects: Partial<Record<DatasourceType, Dialect>> = {
    postgres: new PostgresDialect(),
    mysql: new MysqlDialect(),
    mssql: new MssqlDialect(),
    sqlite: new SqliteDialect(),
  };
  private readonly pools = new Map<string, Promise<SqlPool>>();
  /** Statements run through {@link DatasourceConnection.run} since start. */
  statementsExecuted = 0;
  /** The metadata store's identity and when it was read ({@link storeIdentity}). */
  private storeIdentityRead: { identity: Promise<DatabaseIdentity | null>; at: number } | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** The metadata store's connection: only read, to tell the store apart from a datasource. */
    @InjectDataSource() private readonly metadata: DataSource,
  ) {}

  /** The adapter for a type. @throws DomainError INVALID_INPUT for an unsupported type. */
  dialect(type: string): Dialect {
    const dialect = this.dialects[type as DatasourceType];
    if (!dialect) throw DatasourceErrors.unsupportedType(type);
    return dialect;
  }

  /**
   * Opens a short-lived one-connection pool, runs `use`, and closes it (trying a URL, listing and
   * importing tables). The connection is checked as every one is ({@link open}).
   * @throws DomainError DATASOURCE_UNREACHABLE saying which kind of failure it was (never the
   *   driver's words for a network datasource; see `connect-failures.ts`), no sooner than
   *   `DATASOURCE_ACQUIRE_TIMEOUT_MS` after the attempt began when no server of the type answered;
   *   INVALID_INPUT for the service's own store or a copy of it (`own-store.ts`).
   */
  async withConnection<T>(
    type: string,
    url: string,
    use: (pool: SqlPool, dialect: Dialect) => Promise<T>,
  ): Promise<T> {
    const dialect = this.dialect(type);
    const pool = await this.open(dialect, url, 1, true);
    try {
      return await use(pool, dialect);
    } finally {
      await pool.close().catch(() => undefined);
    }
  }

  /**
   * The pooled connection of a datasource, opened on first use. A connection its pool opens later
   * that turns out to reach the service's own store (a host name now resolving to it) is refused:
   * the caller gets DATASOURCE_UNAVAILABLE, the log says why, and the pool is closed.
   * @param readOnlyUrl the URL of the datasource's read-only login (README "Datasources"), or
   *   null: when given, `readOnly` runs on a second pool of that login (as large as the first,
   *   opened on its first use); without it, on the datasource's own pool, except on SQL Server,
   *   where nothing else keeps a read from writing, so `readOnly` is refused
   *   (`DatasourceErrors.readOnlyLoginMissing`, API_UNAVAILABLE) before any connection.
   */
  connection(
    datasourceId: string,
    type: string,
    url: string,
    readOnlyUrl: string | null = null,
  ): DatasourceConnection {
    const dialect = this.dialect(type);
    const refused = (error: unknown): unknown => {
      if (!(error instanceof StoreGuardError)) return error;
      this.logger.warn(`Datasource ${datasourceId} refused: ${error.message}`);
      void this.close(datasourceId);
      return DatasourceErrors.unavailable();
    };
    return {
      dialect,
      run: async (query, options) => {
        const pool = await this.pool(datasourceId, dialect, url);
        this.statementsExecuted++;
        return pool.run(query, options).catch((error: unknown) => {
          throw refused(error);
        });
      },
      transaction: async (work) => {
        const pool = await this.pool(datasourceId, dialect, url);
        return pool
          .transaction((run) =>
            work((query) => {
              this.statementsExecuted++;
              return run(query);
            }),
          )
          .catch((error: unknown) => {
            throw refused(error);
          });
      },
      readOnly: async (work) => {
        const pool = await this.readOnlyPool(datasourceId, dialect, url, readOnlyUrl);
        return pool
          .readOnly((run) =>
            work((query, options) => {
              this.statementsExecuted++;
              return run(query, options);
            }),
          )
          .catch((error: unknown) => {
            throw refused(error);
          });
      },
    };
  }

  /**
   * The pool a datasource's read-only transactions run on ({@link connection}): its read-only
   * login's, kept under `<id>/read-only`, else its own (never on SQL Server).
   * @throws DomainError API_UNAVAILABLE on SQL Server without a read-only login; as {@link pool}.
   */
  private readOnlyPool(
    id: string,
    dialect: Dialect,
    url: string,
    readOnlyUrl: string | null,
  ): Promise<SqlPool> {
    if (readOnlyUrl !== null) return this.pool(readOnlyPoolId(id), dialect, readOnlyUrl);
    if (dialect.type === 'mssql') return Promise.reject(DatasourceErrors.readOnlyLoginMissing());
    return this.pool(id, dialect, url);
  }

  /**
   * Closes and forgets a datasource's pools, its read-only login's too (after its URL or login
   * changed, or it was deleted).
   */
  async close(datasourceId: string): Promise<void> {
    await Promise.all([datasourceId, readOnlyPoolId(datasourceId)].map((id) => this.closePool(id)));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((id) => this.closePool(id)));
  }

  private async closePool(id: string): Promise<void> {
    const pool = this.pools.get(id);
    this.pools.delete(id);
    if (pool) await (await pool.catch(() => null))?.close().catch(() => undefined);
  }

  /**
   * Opens a pool through its adapter, every new connection checked against the metadata store
   * ({@link verifier}), the whole opening bounded by `DATASOURCE_ACQUIRE_TIMEOUT_MS` plus
   * `STATEMENT_TIMEOUT_MS` (whatever a driver's own connect timeout is).
   * @param trial a builder's short-lived connection ({@link withConnection}): when no server of
   *   the type answered, the refusal comes no sooner than `DATASOURCE_ACQUIRE_TIMEOUT_MS` after
   *   the attempt began, the time a silent port takes, so a closed port is not told apart by time.
   * @throws DomainError INVALID_INPUT (the URL, the store check), DATASOURCE_UNAVAILABLE (the
   *   store check could not run), DATASOURCE_UNREACHABLE (see {@link withConnection}).
   */
  private async open(
    dialect: Dialect,
    url: string,
    poolSize: number,
    trial = false,
  ): Promise<SqlPool> {
    const { statementTimeoutMs, acquireTimeoutMs } = this.config.datasources;
    const started = Date.now();
    if (dialect.type === 'sqlite') await this.refuseStoreFile(url);
    try {
      return await withinDeadline(
        dialect.open(url, {
          poolSize,
          statementTimeoutMs,
          acquireTimeoutMs,
          verifyConnection: this.verifier(dialect),
        }),
        acquireTimeoutMs + statementTimeoutMs,
      );
    } catch (error) {
      if (
        error instanceof StoreGuardError ||
        (error instanceof DomainError && error.code === ErrorCode.InvalidInput)
      )
        throw error;
      const reason = this.driverReason(dialect.type, error, url);
      if (dialect.type === 'sqlite') throw DatasourceErrors.unreachable(reason);
      const failure = connectFailureOf(dialect.type, error);
      this.logger.log(`A ${dialect.type} datasource connection failed (${failure}): ${reason}`);
      if (trial && failure === 'unreachable') await sleep(started + acquireTimeoutMs - Date.now());
      throw DatasourceErrors.connectFailed(dialect.type, failure);
    }
  }

  /**
   * A driver's message fit for a log (and, for a SQLite file, for the builder): the URL's
   * secrets removed by its parts (`redactUrl`), and a SQLite file's server path replaced.
   */
  private driverReason(type: DatasourceType, error: unknown, url: string): string {
    const message = error instanceof Error ? error.message : String(error);
    const redacted = redactUrl(message, url);
    if (type !== 'sqlite') return redacted;
    const file = url.slice('sqlite:'.length);
    return file ? redacted.split(file).join('<datasource file>') : redacted;
  }

  /**
   * The check every new connection of a datasource passes ({@link PoolOptions.verifyConnection}):
   * who it reached (`Dialect.identify`) must not be the metadata store, nor hold a copy of it
   * (`ownStoreRefusal`, issue 22 item 1).
   * @throws StoreGuardError INVALID_INPUT for the store or a copy; DATASOURCE_UNAVAILABLE when the
   *   store's own identity could not be read.
   */
  private verifier(dialect: Dialect): ConnectionCheck {
    return async (run) => {
      const found = await dialect.identify(run);
      const refusal = ownStoreRefusal(dialect.type, await this.storeIdentity(), found);
      if (refusal) throw refusal;
    };
  }

  /**
   * Refuses a SQLite file that is the metadata store (a hard link to it passes the app-folder
   * rules) before it is opened at all: a second connection through another name of a WAL-mode
   * file would keep a write-ahead log of its own.
   * @throws StoreGuardError (see {@link verifier}).
   */
  private async refuseStoreFile(url: string): Promise<void> {
    const found = { keys: sqliteFileKeys(url.slice('sqlite:'.length)), storeCopy: null };
    const refusal = ownStoreRefusal('sqlite', await this.storeIdentity(), found);
    if (refusal) throw refusal;
  }

  /**
   * The metadata store's identity, from its own connection: PostgreSQL through the same
   * `identify()` as a PostgreSQL datasource, SQLite from its file (`sqliteFileKeys`); null for an
   * in-memory store (nothing can reach it). Read again once {@link STORE_IDENTITY_TTL_MS} have
   * passed (a restarted PostgreSQL server has another start time) and after a failed read.
   * @throws StoreGuardError DATASOURCE_UNAVAILABLE when it cannot be read.
   */
  private storeIdentity(): Promise<DatabaseIdentity | null> {
    const now = Date.now();
    if (!this.storeIdentityRead || now - this.storeIdentityRead.at > STORE_IDENTITY_TTL_MS) {
      const read = {
        at: now,
        identity: this.readStoreIdentity().catch((error: unknown) => {
          if (this.storeIdentityRead === read) this.storeIdentityRead = undefined;
          this.logger.warn(
            `The metadata store's identity could not be read: ${(error as Error).message}`,
          );
          throw storeCheckFailed();
        }),
      };
      this.storeIdentityRead = read;
    }
    return this.storeIdentityRead.identity;
  }

  /** {@link storeIdentity}, read now. @throws Error when the store cannot be read. */
  private async readStoreIdentity(): Promise<DatabaseIdentity | null> {
    const options = this.metadata.options;
    if (options.type === 'postgres')
      return this.dialect('postgres').identify(async (query) => ({
        rows: (await this.metadata.query(query.sql, query.params)) as Record<string, unknown>[],
        affected: undefined,
      }));
    if (options.type === 'better-sqlite3') {
      const file = String(options.database);
      return file === ':memory:' ? null : { keys: sqliteFileKeys(file), storeCopy: null };
    }
    throw new Error(`metadata store of type ${options.type}`);
  }

  private pool(id: string, dialect: Dialect, url: string): Promise<SqlPool> {
    let pool = this.pools.get(id);
    if (!pool) {
      pool = this.open(dialect, url, this.config.datasources.poolSize).catch((error: Error) => {
        this.pools.delete(id);
        this.logger.warn(`Datasource ${id} unreachable: ${error.message}`);
        // Callers of the GraphQL endpoint learn that it is down, never the driver's words, nor
        // that it is the service's store (the log says so).
        throw error instanceof DomainError &&
          error.code === ErrorCode.InvalidInput &&
          !(error instanceof StoreGuardError)
          ? error
          : DatasourceErrors.unavailable();
      });
      this.pools.set(id, pool);
    }
    return pool;
  }
}

/** The key of a datasource's read-only login's pool beside its own (ids are UUIDs: no clash). */
function readOnlyPoolId(datasourceId: string): string {
  return `${datasourceId}/read-only`;
}

/**
 * `opening`, or a rejection once `ms` have passed; a pool that opens after that is closed.
 * @throws Error when the deadline passes first (any other error as `opening` rejects).
 */
async function withinDeadline(opening: Promise<SqlPool>, ms: number): Promise<SqlPool> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  try {
    return await Promise.race([
      opening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          late = true;
          reject(new Error(`The connection did not open within ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (late) void opening.then((pool) => pool.close()).catch(() => undefined);
  }
}
