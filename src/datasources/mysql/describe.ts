import type { ColumnKind, SqlPool, StatementDescription } from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { statementRefusal } from '../core/statement-refusals';
import { DatasourceErrors } from '../datasources.errors';
import { mysqlKind } from './introspection';
import { MysqlPool, type MysqlColumnDefinition } from './pool';

/** MySQL `NOT_NULL_FLAG` and `UNSIGNED_FLAG` (MySQL Client/Server Protocol, "Column Definition Flags"). */
const NOT_NULL = 1;
const UNSIGNED = 32;
/** The character set number of `binary`: a string or blob column of bytes. */
const BINARY_CHARSET = 63;

/**
 * The protocol's type codes (MySQL `enum_field_types`) as the type names `information_schema`
 * spells, which `mysqlKind` maps. Strings and blobs are told apart by their character set.
 */
const TYPE_NAMES: Record<number, string> = {
  0: 'decimal',
  1: 'tinyint',
  2: 'smallint',
  3: 'int',
  4: 'float',
  5: 'double',
  7: 'timestamp',
  8: 'bigint',
  9: 'mediumint',
  10: 'date',
  11: 'time',
  12: 'datetime',
  13: 'year',
  14: 'date',
  16: 'bit',
  17: 'timestamp',
  18: 'datetime',
  19: 'time',
  245: 'json',
  246: 'decimal',
  247: 'enum',
  248: 'set',
  255: 'geometry',
};
/** String and blob type codes: VARCHAR, TINY/MEDIUM/LONG/BLOB, VAR_STRING, STRING. */
const STRING_TYPES = new Set([15, 249, 250, 251, 252, 253, 254]);

function flagsOf(column: MysqlColumnDefinition): number {
  return typeof column.flags === 'number' ? column.flags : 0;
}

/**
 * The type name and kind of a described column: the name `information_schema` would give
 * (`int unsigned`, `tinyint(1)`, `varchar`, `varbinary`) and `mysqlKind` of it, so a statement's
 * column gets the kind a table's column of that type gets. MariaDB's extended metadata (10.5+)
 * makes a `uuid` column uuid and a JSON column json. The NULL type (a bare `NULL`) has no kind.
 */
export function mysqlColumnType(column: MysqlColumnDefinition): {
  databaseType: string | null;
  kind: ColumnKind | null;
} {
  const code = column.columnType ?? -1;
  const unsigned = (flagsOf(column) & UNSIGNED) !== 0;
  if (column.extendedFormat === 'json') return { databaseType: 'json', kind: 'json' };
  if (column.extendedTypeName === 'uuid') return { databaseType: 'uuid', kind: 'uuid' };
  let name = TYPE_NAMES[code];
  if (!name && STRING_TYPES.has(code)) {
    const bytes = column.characterSet === BINARY_CHARSET;
    name =
      code === 15 || code === 253 ? (bytes ? 'varbinary' : 'varchar') : bytes ? 'blob' : 'text';
  }
  if (!name) return { databaseType: null, kind: null };
  let full = name;
  if ((name === 'tinyint' || name === 'bit') && column.columnLength === 1) full = `${name}(1)`;
  if (unsigned) full += ' unsigned';
  return { databaseType: full, kind: mysqlKind(name, full) };
}

/** Whether a driver error is the server refusing the statement (a server error number, not a lost connection). */
function isRefusal(error: unknown): boolean {
  const e = error as { errno?: unknown; sqlState?: unknown };
  return (
    typeof e.errno === 'number' &&
    e.errno >= 1000 &&
    e.errno < 2000 &&
    typeof e.sqlState === 'string'
  );
}

/**
 * MySQL's message without the SQL it quotes: a syntax error's `near '<text>' at line n` keeps
 * only its line (MySQL error 1064 `ER_PARSE_ERROR`).
 */
export function mysqlMessageWithoutSql(message: string): string {
  return message.replace(/ near '[\s\S]*' at line (\d+)/, ' at line $1');
}

/**
 * `Dialect.describeStatement` on MySQL/MariaDB (`MysqlPool.describe`): the column definitions
 * the server sends when it prepares the statement, inside a read-only transaction, each typed
 * and kinded as introspection does (`mysqlKind`). Nullability: the NOT_NULL flag (false when
 * set); a column read straight from a table without it is nullable, an expression without it
 * unknown (null); every column unknown under an outer join or grouping sets
 * (`ParsedStatement.outerJoin`). Parameters have no type on MySQL/MariaDB (COM_STMT_PREPARE
 * answers only their count): `databaseType` and `kind` null.
 * @throws `StatementRefusal` INVALID_STATEMENT with the server's message without SQL text; and
 *   for a write with RETURNING, whose columns MariaDB describes only by executing it.
 */
export async function describeMysqlStatement(
  pool: SqlPool,
  statement: ParsedStatement,
): Promise<StatementDescription> {
  if (!(pool instanceof MysqlPool)) throw new Error('A MySQL statement needs a MySQL pool');
  let columns: MysqlColumnDefinition[];
  try {
    columns = await pool.describe(statement.sql, statement.isRead);
  } catch (error) {
    throw statementRefusal(error, isRefusal, mysqlMessageWithoutSql);
  }
  if (!columns.length && !statement.isRead && /\bRETURNING\b/i.test(statement.sql)) {
    // MariaDB answers a write's RETURNING columns only when it executes it, never when it
    // prepares it (seen on 10.11): describing them would mean writing.
    throw DatasourceErrors.invalidStatement(
      'MariaDB does not describe the rows a write returns (RETURNING) without running it: make it a write without RETURNING, or read the rows with a query-kind SQL API',
    );
  }
  return {
    parameters: statement.names.map((name) => ({ name, databaseType: null, kind: null })),
    columns: columns.map((c) => {
      const notNull = (flagsOf(c) & NOT_NULL) !== 0;
      const nullable = statement.outerJoin ? null : notNull ? false : c.orgTable ? true : null;
      return { name: c.name, ...mysqlColumnType(c), nullable };
    }),
  };
}
