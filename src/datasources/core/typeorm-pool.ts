import { DataSource, DataSourceOptions } from 'typeorm';
import type { CompiledQuery, SqlPool, StatementResult } from './dialect';

/**
 * A {@link SqlPool} over a TypeORM DataSource (the PostgreSQL and SQLite adapters): TypeORM owns
 * the driver's pool; statements run through a query runner with their bound parameters.
 */
export class TypeOrmPool implements SqlPool {
  private constructor(readonly dataSource: DataSource) {}

  /** Opens the DataSource. @throws the driver's error when the database cannot be reached. */
  static async open(options: DataSourceOptions): Promise<TypeOrmPool> {
    const dataSource = new DataSource(options);
    await dataSource.initialize();
    return new TypeOrmPool(dataSource);
  }

  async run(query: CompiledQuery): Promise<StatementResult> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(query.sql, query.params, true);
      return {
        rows: (result.records ?? []) as Record<string, unknown>[],
        affected: result.affected,
      };
    } finally {
      await runner.release();
    }
  }

  async transaction<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      const result = await work(async (query) => {
        const r = await runner.query(query.sql, query.params, true);
        return { rows: (r.records ?? []) as Record<string, unknown>[], affected: r.affected };
      });
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /**
   * Runs `work` in a transaction that is always rolled back. No read-only mode here (TypeORM's
   * runner has none for every driver): the adapters' own pools implement {@link SqlPool.readOnly}.
   */
  async readOnly<T>(
    work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      return await work(async (query) => {
        const r = await runner.query(query.sql, query.params, true);
        return { rows: (r.records ?? []) as Record<string, unknown>[], affected: r.affected };
      });
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }

  async serverVersion(): Promise<string> {
    return this.dataSource.driver.version ?? '';
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
