import type { TlsOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import type {
  Capabilities,
  DatabaseIdentity,
  DatabaseRefusal,
  Dialect,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  PoolOptions,
  SqlPool,
  StatementDescription,
  StatementRunner,
  TableRef,
  WriteContext,
} from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { describePostgresStatement } from './describe';
import { UPSERT_INSERTED } from '../core/dialect';
import { postgresClientConfig } from '../datasource-urls';
import { PostgresCompiler } from './compiler';
import { translatePostgresError } from './errors';
import { postgresLoginWrites } from './read-only-login';
import { identifyPostgres, introspectPostgres, listPostgresTables } from './introspection';
import { PostgresPool } from './pool';
import { formatPostgresValue, postgresBindValue, postgresComparedAs, typeParsers } from './values';

/**
 * PostgreSQL adapter (`pg` through a TypeORM pool). Quoting with `"`, `$n` placeholders,
 * `ILIKE … ESCAPE '\'` for case-insensitive literal matching, explicit `NULLS FIRST/LAST` because
 * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY"). Assembles the
 * dialect's pieces: its SQL syntax (`compiler.ts`), catalog reads (`introspection.ts`), values
 * (`values.ts`), refusals (`errors.ts`) and pool (`pool.ts`).
 */
export class PostgresDialect extends PostgresCompiler implements Dialect {
  readonly type = 'postgres' as const;

  /**
   * `(xmax = 0)`: a row the upsert inserted has no deleting or locking transaction yet, while
   * ON CONFLICT DO UPDATE locks the existing row before it updates it, so the new version carries
   * the locker's id (PostgreSQL docs, "System Columns"; the documented row lock of "ON CONFLICT
   * Clause"). Checked against a racing insert by `test/e2e/upsert.e2e-spec.ts`.
   */
  protected override upsertStatus(): string {
    return `(xmax = 0) AS ${this.quote(UPSERT_INSERTED)}`;
  }

  /** Opens a {@link PostgresPool}: URL parsed by `postgresClientConfig`, dates as text, UTC sessions. */
  async open(url: string, options: PoolOptions): Promise<SqlPool> {
    return PostgresPool.open(this.clientConfig(url), options);
  }

  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /** Who a connection reached: {@link identifyPostgres}. */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
    return identifyPostgres(run);
  }

  /** What a connection's login may write: {@link postgresLoginWrites}. */
  loginWrites(run: StatementRunner): Promise<string[]> {
    return postgresLoginWrites(run);
  }

  /**
   * The `pg` settings of a datasource URL (allow-listed by `postgresClientConfig`): date/time
   * types kept as text, sessions in UTC (timestamptz text then always carries +00).
   * @throws DomainError INVALID_INPUT for a URL outside the allow-list.
   */
  clientConfig(url: string): PoolConfig {
    return { ...postgresClientConfig(url), types: typeParsers, options: '-c TimeZone=UTC' };
  }

  /** TypeORM options for the same settings (tests that drive TypeORM on a datasource). */
  connectionOptions(url: string): DataSourceOptions {
    const { types, options, ...config } = this.clientConfig(url);
    return {
      type: 'postgres',
      host: config.host,
      port: config.port,
      username: config.user,
      password: config.password as string | undefined,
      database: config.database,
      ssl: config.ssl as false | TlsOptions,
      extra: { types, options },
      logging: false,
    };
  }

  /** The tables and views a login sees: {@link listPostgresTables}. */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    return listPostgresTables(pool);
  }

  /** Columns, keys and kind of tables: {@link introspectPostgres}. */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    return introspectPostgres(pool, tables);
  }

  /** {@link Dialect.describeStatement}: see `describePostgresStatement` (`describe.ts`). */
  describeStatement(pool: SqlPool, statement: ParsedStatement): Promise<StatementDescription> {
    return describePostgresStatement(pool, statement);
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translatePostgresError(error, context);
  }

  /** A value as bound: {@link postgresBindValue}. */
  bindValue(column: ModelColumn, value: unknown): unknown {
    return postgresBindValue(column, value);
  }

  /** How `eq` compares a column: {@link postgresComparedAs}. */
  comparedAs(column: ModelColumn): string | null {
    return postgresComparedAs(column);
  }

  /** A value as read: {@link formatPostgresValue}. */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatPostgresValue(column, raw);
  }
}
