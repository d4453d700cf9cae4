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
import { describeMysqlStatement } from './describe';
import { MysqlCompiler } from './compiler';
import { translateMysqlError } from './errors';
import { mysqlLoginWrites } from './read-only-login';
import { identifyMysql, introspectMysql, listMysqlTables } from './introspection';
import { MysqlPool } from './pool';
import { formatMysqlValue, mysqlBindValue, mysqlComparedAs } from './values';

/**
 * Compares a server version text with `major.minor`. MariaDB's handshake may prefix its version
 * with `5.5.5-` (for old replication clients); `VERSION()` does not, both are read.
 */
function versionAtLeast(version: string, major: number, minor: number): boolean {
  const m = /(\d+)\.(\d+)/.exec(version.replace(/^5\.5\.5-/, ''));
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

/**
 * MySQL and MariaDB adapter (`mysql2`, see {@link MysqlPool}). Backtick quoting (MySQL "Schema
 * Object Names"), `?` placeholders, `LIMIT ? OFFSET ?`. NULL is the smallest value in MySQL's
 * ORDER BY (MySQL "Sorting Rows": NULLs first under ASC, last under DESC), which is the
 * contract's order already. Case-insensitive literal matching lower-cases both sides under
 * `utf8mb4_bin`, so neither the column's collation (`_bin`, `_ci`, accent-insensitive `_ai_ci`)
 * nor its character set changes the result: `E` matches `e`, `e` never matches `é`.
 *
 * A datasource URL names one database (`mysql://user:pass@host:3306/shop`); its tables are
 * listed with that database as their schema, and every statement qualifies tables with it.
 * Needs window functions for batched one-to-many reads: MySQL ≥ 8.0, MariaDB ≥ 10.2.
 */
export class MysqlDialect extends MysqlCompiler implements Dialect {
  readonly type = 'mysql' as const;

  /** See {@link MysqlPool.open}. @throws DomainError INVALID_INPUT for a URL that is not a mysql URL. */
  async open(url: string, options: { poolSize: number } & Partial<PoolOptions>): Promise<SqlPool> {
    return MysqlPool.open(url, options);
  }

  /**
   * `insertReturning` on MariaDB ≥ 10.5 (MariaDB "INSERT...RETURNING", added in 10.5.0); MySQL
   * has no RETURNING, so `add<Base>` answers `true` there (CONTRACT.md §6). `updateReturning`
   * is false everywhere: neither has `UPDATE … RETURNING` (MariaDB has only INSERT/REPLACE/DELETE
   * … RETURNING), so the row is read back by its key. An unknown version is treated as MySQL.
   */
  capabilities(serverVersion: string | null): Capabilities {
    const mariadb = serverVersion !== null && /mariadb/i.test(serverVersion);
    return {
      insertReturning: mariadb && versionAtLeast(serverVersion ?? '', 10, 5),
      updateReturning: false,
      // ON DUPLICATE KEY UPDATE conflicts on every unique key of the table (MySQL and MariaDB).
      upsertMatchesAnyKey: true,
    };
  }

  /** Who a connection reached: {@link identifyMysql}. */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
    return identifyMysql(run);
  }

  /** What a connection's login may write: {@link mysqlLoginWrites}. */
  loginWrites(run: StatementRunner): Promise<string[]> {
    return mysqlLoginWrites(run);
  }

  /** Tables and views of the URL's database: {@link listMysqlTables}. */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    return listMysqlTables(pool);
  }

  /** Columns, keys and kind of tables: {@link introspectMysql}. */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    return introspectMysql(pool, tables);
  }

  /** See {@link translateMysqlError}. */
  /** {@link Dialect.describeStatement}: see `describeMysqlStatement` (`describe.ts`). */
  describeStatement(pool: SqlPool, statement: ParsedStatement): Promise<StatementDescription> {
    return describeMysqlStatement(pool, statement);
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateMysqlError(error, context);
  }

  /** How `eq` compares a column: {@link mysqlComparedAs}. */
  comparedAs(column: ModelColumn): string | null {
    return mysqlComparedAs(column);
  }

  /** A value as the pool binds it: {@link mysqlBindValue}. */
  bindValue(column: ModelColumn, value: unknown): unknown {
    return mysqlBindValue(column, value);
  }

  /** The contract's form of a driver value: {@link formatMysqlValue}. */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatMysqlValue(column, raw);
  }
}
