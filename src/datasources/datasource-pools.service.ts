import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CompiledQuery, DatasourceType, Dialect } from './dialect';
import { DatasourceErrors } from './datasources.errors';
import { PostgresDialect } from './postgres.dialect';
import { SqliteDialect } from './sqlite.dialect';

/** What one statement gave back: its rows (SELECT, RETURNING) and the rows it changed. */
export interface StatementResult {
  rows: Record<string, unknown>[];
  /** Rows inserted, updated or deleted; undefined where the driver does not say (SELECT). */
  affected: number | undefined;
}

/** A datasource ready for queries: its dialect and a way to run compiled SQL on its pool. */
export interface DatasourceConnection {
  dialect: Dialect;
  /** Runs one statement with bound parameters. Driver errors propagate (see `Dialect.translateError`). */
  run(query: CompiledQuery): Promise<StatementResult>;
}

/** Datasource types whose adapter exists today (CONTRACT.md §3 lists the four targets). */
export const SUPPORTED_TYPES: DatasourceType[] = ['postgres', 'sqlite'];

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
 * One bounded pool per datasource (TypeORM DataSource over the driver's pool), opened lazily on
 * first use and closed on shutdown. Counts the statements it runs: the e2e suite reads the count
 * to prove relations load in batches.
 */
@Injectable()
export class DatasourcePoolsService implements OnApplicationShutdown {
  private readonly logger = new Logger('DatasourcePools');
  private readonly dialects: Partial<Record<DatasourceType, Dialect>> = {
    postgres: new PostgresDialect(),
    sqlite: new SqliteDialect(),
  };
  private readonly pools = new Map<string, Promise<DataSource>>();
  /** Statements run through {@link DatasourceConnection.run} since start. */
  statementsExecuted = 0;

  /** The adapter for a type. @throws DomainError INVALID_INPUT for an unsupported type. */
  dialect(type: string): Dialect {
    const dialect = this.dialects[type as DatasourceType];
    if (!dialect) throw DatasourceErrors.unsupportedType(type);
    return dialect;
  }

  /**
   * Opens a short-lived connection, runs `use`, and closes it (for trying a URL and importing).
   * @throws DomainError DATASOURCE_UNREACHABLE with the driver's reason, password removed.
   */
  async withConnection<T>(type: string, url: string, use: (db: DataSource, dialect: Dialect) => Promise<T>): Promise<T> {
    const dialect = this.dialect(type);
    const db = new DataSource({ ...dialect.connectionOptions(url), poolSize: 1 } as never);
    try {
      await db.initialize();
    } catch (error) {
      throw DatasourceErrors.unreachable(redactUrl((error as Error).message, url));
    }
    try {
      return await use(db, dialect);
    } finally {
      await db.destroy().catch(() => undefined);
    }
  }

  /** The pooled connection of a datasource, opened on first use. */
  connection(datasourceId: string, type: string, url: string): DatasourceConnection {
    const dialect = this.dialect(type);
    return {
      dialect,
      run: async (query) => {
        const db = await this.pool(datasourceId, dialect, url);
        this.statementsExecuted++;
        const runner = db.createQueryRunner();
        try {
          const result = await runner.query(query.sql, query.params, true);
          return { rows: (result.records ?? []) as Record<string, unknown>[], affected: result.affected };
        } finally {
          await runner.release();
        }
      },
    };
  }

  /** Closes and forgets a datasource's pool (after its URL changed or it was deleted). */
  async close(datasourceId: string): Promise<void> {
    const pool = this.pools.get(datasourceId);
    this.pools.delete(datasourceId);
    if (pool) await (await pool.catch(() => null))?.destroy().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((id) => this.close(id)));
  }

  private pool(id: string, dialect: Dialect, url: string): Promise<DataSource> {
    let pool = this.pools.get(id);
    if (!pool) {
      const db = new DataSource(dialect.connectionOptions(url));
      pool = db.initialize().catch((error: Error) => {
        this.pools.delete(id);
        this.logger.warn(`Datasource ${id} unreachable: ${redactUrl(error.message, url)}`);
        throw DatasourceErrors.unreachable(redactUrl(error.message, url));
      });
      this.pools.set(id, pool);
    }
    return pool;
  }
}
