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
  StatementSelectPlan,
  CompiledQuery,
  Condition,
  StatementRunner,
  TableRef,
  WriteContext,
} from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { describeMssqlStatement } from './describe';
import { MssqlCompiler } from './compiler';
import { translateMssqlError } from './errors';
import { mssqlLoginWrites } from './read-only-login';
import { identifyMssql, introspectMssql, listMssqlTables } from './introspection';
import { MssqlConfig, MssqlPool, parseMssqlUrl } from './pool';
import { formatMssqlValue, mssqlBindValue } from './values';

/**
 * SQL Server adapter (`mssql` v12 over tedious; SQL Server 2012+ for OFFSET/FETCH).
 *
 * - Identifiers in brackets, `]` doubled (SQL Server docs, "Database identifiers"); placeholders
 *   `@p1, @p2…` bound by {@link MssqlPool}.
 * - Pages: `ORDER BY … OFFSET @p ROWS [FETCH NEXT @p ROWS ONLY]` (docs, "SELECT - ORDER BY
 *   clause"); the planner's order always ends with the primary key, so pages are stable. FETCH
 *   refuses 0 rows (error 10744), so `take: 0` compiles to a false filter. ORDER BY names are
 *   qualified by the table (`[customer].[id]`): a bare name in ORDER BY would sort by a select-list
 *   alias of the same name first, i.e. by the text of a decimal read as text.
 * - NULL is the smallest value: first under ASC, last under DESC, natively (docs, "ORDER BY").
 * - `contains`/`startsWith`/`endsWith`: `LOWER(CAST(col AS NVARCHAR(MAX))) COLLATE
 *   Latin1_General_100_BIN2 LIKE LOWER(@p) ESCAPE '\'`, so case is ignored and nothing else is,
 *   whatever the column's collation (case- or accent-sensitive or not); `%`, `_`, `[` and `\` are
 *   escaped (docs, "LIKE": `[` opens a character class).
 * - Writes read back with `OUTPUT INSERTED.… INTO` a table variable declared with the columns'
 *   types, then `SELECT … FROM` it (docs, "OUTPUT clause"; ADR 0016), placed before `VALUES`/
 *   `DEFAULT VALUES` and before `WHERE`: a table with an enabled trigger refuses OUTPUT without
 *   INTO (error 334). Several rows go in as `MERGE … ON 1 = 0` so each keeps its position.
 * - Decimal-kind columns (`decimal`, `numeric`, `money`, `smallmoney`) are read as
 *   `CONVERT(NVARCHAR(64), col, 2) AS [col]` in select and OUTPUT lists: tedious returns them as JS
 *   numbers, which lose digits; style 2 keeps money's four decimals (style 0 would round to two) and
 *   does not apply to decimal/numeric (docs, "CAST and CONVERT", money styles).
 * - Values (CONTRACT.md §6): with `useUTC` tedious gives `datetime`/`datetime2`/`smalldatetime` and
 *   `date` as Dates whose UTC fields are the stored value, `datetimeoffset` as the instant; they
 *   are formatted from UTC fields only, so the process time zone never applies. `bigint` comes as
 *   exact text, `bit` as boolean, `uniqueidentifier` lower-cased.
 */
export class MssqlDialect extends MssqlCompiler implements Dialect {
  readonly type = 'mssql' as const;

  /**
   * Opens a pool to `url` (see {@link parseMssqlUrl} for its shape).
   * @throws DomainError INVALID_INPUT for a malformed URL; the driver's ConnectionError when the
   *   server cannot be reached or refuses the login.
   */
  async open(url: string, options: PoolOptions): Promise<SqlPool> {
    const config = this.connectionConfig(url, options.poolSize);
    // The service's statement deadline is the request timeout; the pool waits as long as allowed.
    return MssqlPool.open(
      {
        ...config,
        requestTimeout: options.statementTimeoutMs,
        pool: { ...config.pool, acquireTimeoutMillis: options.acquireTimeoutMs },
      },
      options.statementTimeoutMs,
      options.verifyConnection,
    );
  }

  /** The pool configuration of `url`; see {@link parseMssqlUrl}. @throws DomainError INVALID_INPUT. */
  connectionConfig(url: string, poolSize = 10): MssqlConfig {
    return parseMssqlUrl(url, poolSize);
  }

  /** OUTPUT exists on every supported version (2005+). */
  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /** Who a connection reached: {@link identifyMssql}. */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
    return identifyMssql(run);
  }

  /** What a connection's login may write: {@link mssqlLoginWrites}. */
  loginWrites(run: StatementRunner): Promise<string[]> {
    return mssqlLoginWrites(run);
  }

  /** Tables and views of the database: {@link listMssqlTables}. */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    return listMssqlTables(pool);
  }

  /** Columns, keys and kind of tables: {@link introspectMssql}. */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    return introspectMssql(pool, tables);
  }

  /** {@link Dialect.describeStatement}: see `describeMssqlStatement` (`describe.ts`). */
  describeStatement(pool: SqlPool, statement: ParsedStatement): Promise<StatementDescription> {
    return describeMssqlStatement(pool, statement);
  }

  /**
   * {@link Dialect.compileStatementSelect} with SQL Server's paging: `OFFSET … FETCH` needs an
   * ORDER BY, `(SELECT NULL)` when none is asked (docs, "ORDER BY Clause": OFFSET/FETCH), and
   * refuses `FETCH NEXT 0` (a false filter stands for `take: 0`, as in `compileSelect`). A
   * statement with a WITH or its own ORDER BY cannot be a derived table on SQL Server (without
   * TOP/OFFSET): the server refuses it, and describing it succeeds.
   */
  override compileStatementSelect(plan: StatementSelectPlan): CompiledQuery {
    if (plan.take !== 0) return super.compileStatementSelect(plan);
    const none: Condition = { kind: 'or', items: [] };
    return super.compileStatementSelect({
      ...plan,
      where: { kind: 'and', items: [plan.where, none] },
      take: 1,
    });
  }

  /** `OFFSET … FETCH` needs an ORDER BY: `(SELECT NULL)`, no order promised (as without one). */
  protected override unorderedStatementOrder(): string {
    return ' ORDER BY (SELECT NULL)';
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateMssqlError(error, context);
  }

  /** A value as tedious binds it: {@link mssqlBindValue}. */
  bindValue(column: ModelColumn, value: unknown): unknown {
    return mssqlBindValue(column, value);
  }

  /** The contract's output form of a tedious value: {@link formatMssqlValue}. */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatMssqlValue(column, raw);
  }
}
