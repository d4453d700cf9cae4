import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type {
  CompiledQuery,
  DatasourceType,
  Dialect,
  RunOptions,
  SqlPool,
  StatementResult,
} from './dialect';
import { DomainError, ErrorCode } from '../common/domain-error';
import { DatasourceErrors } from './datasources.errors';
import { MssqlDialect } from './mssql.dialect';
import { MysqlDialect } from './mysql.dialect';
import { PostgresDialect } from './postgres.dialect';
import { SqliteDialect } from './sqlite.dialect';

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
}

/** Removes the password of `url` (and the URL itself) from a driver message. */
export function redactUrl(message: string, url: string): string {
  let out = message.split(url).join('<datasource url>');
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password) out = out.split(password).join('***');
  } catch {
    /* not a URL (sqlite:file): nothing secret in it */
  }
  return out;
}

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

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The adapter for a type. @throws DomainError INVALID_INPUT for an unsupported type. */
  dialect(type: string): Dialect {
    const dialect = this.dialects[type as DatasourceType];
    if (!dialect) throw DatasourceErrors.unsupportedType(type);
    return dialect;
  }

  /**
   * Opens a short-lived one-connection pool, runs `use`, and closes it (trying a URL, listing and
   * importing tables).
   * @throws DomainError DATASOURCE_UNREACHABLE with the driver's reason, password removed.
   */
  async withConnection<T>(
    type: string,
    url: string,
    use: (pool: SqlPool, dialect: Dialect) => Promise<T>,
  ): Promise<T> {
    const dialect = this.dialect(type);
    const pool = await this.open(dialect, url, 1);
    try {
      return await use(pool, dialect);
    } finally {
      await pool.close().catch(() => undefined);
    }
  }

  /** The pooled connection of a datasource, opened on first use. */
  connection(datasourceId: string, type: string, url: string): DatasourceConnection {
    const dialect = this.dialect(type);
    return {
      dialect,
      run: async (query, options) => {
        const pool = await this.pool(datasourceId, dialect, url);
        this.statementsExecuted++;
        return pool.run(query, options);
      },
      transaction: async (work) => {
        const pool = await this.pool(datasourceId, dialect, url);
        return pool.transaction((run) =>
          work((query) => {
            this.statementsExecuted++;
            return run(query);
          }),
        );
      },
    };
  }

  /** Closes and forgets a datasource's pool (after its URL changed or it was deleted). */
  async close(datasourceId: string): Promise<void> {
    const pool = this.pools.get(datasourceId);
    this.pools.delete(datasourceId);
    if (pool) await (await pool.catch(() => null))?.close().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((id) => this.close(id)));
  }

  private async open(dialect: Dialect, url: string, poolSize: number): Promise<SqlPool> {
    const { statementTimeoutMs, acquireTimeoutMs } = this.config.datasources;
    try {
      return await dialect.open(url, { poolSize, statementTimeoutMs, acquireTimeoutMs });
    } catch (error) {
      if ((error as { name?: string }).name === 'DomainError') throw error;
      throw DatasourceErrors.unreachable(redactUrl((error as Error).message, url));
    }
  }

  private pool(id: string, dialect: Dialect, url: string): Promise<SqlPool> {
    let pool = this.pools.get(id);
    if (!pool) {
      pool = this.open(dialect, url, this.config.datasources.poolSize).catch((error: Error) => {
        this.pools.delete(id);
        this.logger.warn(`Datasource ${id} unreachable: ${error.message}`);
        // Callers of the GraphQL endpoint learn that it is down, never the driver's words.
        throw error instanceof DomainError && error.code === ErrorCode.InvalidInput
          ? error
          : DatasourceErrors.unavailable();
      });
      this.pools.set(id, pool);
    }
    return pool;
  }
}
