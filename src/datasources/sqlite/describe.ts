import type { SqlPool, StatementDescription } from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { statementRefusal } from '../core/statement-refusals';
import { sqliteKind } from './introspection';
import { SqlitePool } from './pool';

/** Whether a driver error is SQLite refusing the statement (SQLITE_ERROR and its extended codes, a RangeError of better-sqlite3). */
function isRefusal(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown };
  return (
    (typeof e.code === 'string' && e.code.startsWith('SQLITE_ERROR')) || e.name === 'RangeError'
  );
}

/**
 * `Dialect.describeStatement` on SQLite (`SqlitePool.describe`): better-sqlite3's `columns()` of
 * the prepared statement, on a worker under `query_only`. A column read straight from a table
 * has its declared type (`sqlite3_column_decltype`), kinded as introspection does
 * (`sqliteKind`), and its NOT NULL from `PRAGMA table_xinfo`; an expression has no type, kind
 * or nullability (null): the builder confirms them. Parameters have no type (SQLite binds any
 * value anywhere): `databaseType` and `kind` null. Every column's nullability is unknown under an
 * outer join or grouping sets (`ParsedStatement.outerJoin`).
 * @throws `StatementRefusal` INVALID_STATEMENT with SQLite's message (`no such table: t`, `near
 *   "FORM": syntax error`).
 */
export async function describeSqliteStatement(
  pool: SqlPool,
  statement: ParsedStatement,
): Promise<StatementDescription> {
  if (!(pool instanceof SqlitePool)) throw new Error('A SQLite statement needs a SQLite pool');
  let columns;
  try {
    columns = await pool.describe(statement.sql);
  } catch (error) {
    throw statementRefusal(error, isRefusal);
  }
  return {
    parameters: statement.names.map((name) => ({ name, databaseType: null, kind: null })),
    columns: columns.map((c) => ({
      name: c.name,
      databaseType: c.type,
      kind: c.type === null ? null : sqliteKind(c.type),
      nullable: statement.outerJoin || c.notNull === null ? null : !c.notNull,
    })),
  };
}
