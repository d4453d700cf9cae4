import type { CompiledQuery, DatasourceType } from './dialect';
import { parameterColumn } from './sql-compiler';

/** MySQL/MariaDB server errors that mean "this value does not fit that column" (MySQL error reference). */
const MYSQL_INVALID_VALUE = new Set([
  1264, // ER_WARN_DATA_OUT_OF_RANGE
  1265, // WARN_DATA_TRUNCATED
  1292, // ER_TRUNCATED_WRONG_VALUE
  1416, // ER_CANT_CREATE_GEOMETRY_OBJECT
  3037, // ER_GIS_INVALID_DATA
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1367, // ER_ILLEGAL_VALUE_FOR_TYPE
  1411, // ER_WRONG_VALUE_FOR_TYPE
  1690, // ER_DATA_OUT_OF_RANGE
  3140, // ER_INVALID_JSON_TEXT
  4025, // ER_CONSTRAINT_FAILED (MariaDB CHECK)
]);

/** SQL Server errors of the same meaning (sys.messages): conversion failures and overflows. */
const MSSQL_INVALID_VALUE = new Set([220, 241, 242, 244, 245, 248, 8114, 8115, 8169, 517, 547]);

/**
 * Whether a driver error means a value of the request cannot be held or compared by its column
 * (out of range, malformed text for the type, a NUL character, invalid JSON): a caller's mistake,
 * never `INTERNAL_SERVER_ERROR` (CONTRACT.md §6 Error codes). PostgreSQL: SQLSTATE class 22
 * "data exception" (PostgreSQL docs, Appendix A) but 22001; MySQL/MariaDB and SQL Server: the error numbers
 * above; SQLite: `SQLITE_MISMATCH` (a non-integer rowid) and `SQLITE_TOOBIG`.
 */
export function isInvalidValueError(type: DatasourceType, error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; number?: unknown; message?: unknown };
  switch (type) {
    case 'postgres':
      // 22001 (string too long) is the VALUE_TOO_LONG refusal, translated with its field.
      if (typeof e.code === 'string' && e.code.startsWith('22') && e.code !== '22001') return true;
      // `tsvector`/`tsquery` refuse malformed text as 42601 "syntax error in tsvector"; a syntax
      // error of the statement itself comes at parse time, never with a bound parameter's context.
      return e.code === '42601' && parameterIndex(error) !== null;
    case 'mysql':
      return typeof e.errno === 'number' && MYSQL_INVALID_VALUE.has(e.errno);
    case 'mssql': {
      const message = typeof e.message === 'string' ? e.message : '';
      // 547 is also a foreign-key refusal; only its CHECK form is an invalid value.
      if (e.number === 547) return message.includes('CHECK');
      return typeof e.number === 'number' && MSSQL_INVALID_VALUE.has(e.number);
    }
    case 'sqlite':
      return e.code === 'SQLITE_MISMATCH' || e.code === 'SQLITE_TOOBIG';
  }
}

/**
 * The column whose value an {@link isInvalidValueError} error refused, where the database says
 * which parameter it was: PostgreSQL (≥ 13) reports a parameter its type's input function refused
 * with the context `unnamed portal parameter $2 = '...'` (the `where` field of the error, never
 * shown to callers), and the statement's compiler noted which column each parameter is compared
 * with or written to (`parameterColumn`). Null for the other databases, or when the parameter
 * has no column.
 */
export function invalidValueField(
  type: DatasourceType,
  error: unknown,
  query: CompiledQuery,
): string | null {
  if (type !== 'postgres') return null;
  const index = parameterIndex(error);
  return index === null ? null : parameterColumn(query, index);
}

/**
 * The 0-based index of the bound parameter a PostgreSQL error is about: its context (`where`)
 * reads `unnamed portal parameter $2 = '...'` when the parameter's type refused its text
 * (PostgreSQL ≥ 13, whatever `log_parameter_max_length_on_error` says of the value). Else null.
 */
function parameterIndex(error: unknown): number | null {
  const where = (error as { where?: unknown } | null)?.where;
  const n = typeof where === 'string' ? /\bportal parameter \$(\d+)\b/.exec(where)?.[1] : undefined;
  return n === undefined ? null : Number(n) - 1;
}
