import { DomainError } from '../../common/domain-error';
import { DatasourceErrors } from '../datasources.errors';

/** Longest database message a statement refusal quotes, in characters. */
const MESSAGE_MAX = 300;

/**
 * The refusal `Dialect.describeStatement` answers for an error of the database (issue 26: "the
 * database's message minus any SQL text"): a `DomainError` (TIMEOUT, DATASOURCE_UNAVAILABLE, a
 * READ_ONLY refusal) as it came; a write the read-only transaction refused ({@link
 * isReadOnlyWrite}: MariaDB refuses one already when preparing it) as `DatasourceErrors.readOnly`,
 * the same answer as at a call; an error `isRefusal` recognises as the database refusing the
 * statement, `DatasourceErrors.invalidStatement` with its first line, `strip` applied (each
 * dialect removes the SQL text its database quotes) and at most {@link MESSAGE_MAX} characters;
 * anything else as it came (an internal error, never shown).
 */
export function statementRefusal(
  error: unknown,
  isRefusal: (error: unknown) => boolean,
  strip: (message: string) => string = (m) => m,
): unknown {
  if (error instanceof DomainError) return error;
  if (isReadOnlyWrite(error)) return DatasourceErrors.readOnly();
  if (!isRefusal(error)) return error;
  const raw = String((error as { message?: unknown }).message ?? '');
  let message = strip(raw.split('\n')[0]).trim();
  if (message.length > MESSAGE_MAX) message = `${message.slice(0, MESSAGE_MAX - 1)}…`;
  return DatasourceErrors.invalidStatement(message || 'no reason given');
}

/** PostgreSQL SQLSTATE 25006 read_only_sql_transaction (docs, "SET TRANSACTION"). */
const POSTGRES_READ_ONLY_TRANSACTION = '25006';
/** MySQL/MariaDB error 1792 ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION. */
const MYSQL_READ_ONLY_TRANSACTION = 1792;
/** SQLite's result code for a write under `PRAGMA query_only` (better-sqlite3 `SqliteError.code`). */
const SQLITE_READONLY = 'SQLITE_READONLY';
/**
 * SQL Server errors a read-only login answers a write with: 229 "The %ls permission was denied on
 * the object …" (only for INSERT, UPDATE, DELETE: a SELECT denied is no write), 262 "%ls permission
 * denied in database …" (CREATE TABLE, …), 3906 "Failed to update database … because the database
 * is read-only" (SQL Server docs, "Database engine events and errors").
 */
const MSSQL_PERMISSION_DENIED = 229;
const MSSQL_DATABASE_PERMISSION_DENIED = 262;
const MSSQL_DATABASE_READ_ONLY = 3906;

/**
 * Whether a driver error is the database refusing a write inside a query kind's read-only
 * transaction (`SqlPool.readOnly`): PostgreSQL SQLSTATE 25006, MySQL/MariaDB errno 1792, SQLite
 * SQLITE_READONLY (`query_only`), SQL Server a write the read-only login may not make (229 for
 * INSERT/UPDATE/DELETE, 262, 3906). The one place this is decided: every pool's `readOnly` and
 * {@link statementRefusal} answer it as `DatasourceErrors.readOnly` (README "SQL APIs:
 * statements": "a query-kind SQL API's statement cannot write", make it a mutation kind).
 */
export function isReadOnlyWrite(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno, number, message } = error as {
    code?: unknown;
    errno?: unknown;
    number?: unknown;
    message?: unknown;
  };
  if (code === POSTGRES_READ_ONLY_TRANSACTION || code === SQLITE_READONLY) return true;
  if (errno === MYSQL_READ_ONLY_TRANSACTION) return true;
  if (number === MSSQL_DATABASE_PERMISSION_DENIED || number === MSSQL_DATABASE_READ_ONLY)
    return true;
  return (
    number === MSSQL_PERMISSION_DENIED &&
    /^The (INSERT|UPDATE|DELETE) permission was denied/.test(String(message ?? ''))
  );
}

/**
 * `error` as a query kind's read-only transaction answers it: {@link isReadOnlyWrite} as
 * `DatasourceErrors.readOnly`, anything else as it came.
 */
export function readOnlyRefusal(error: unknown): unknown {
  return isReadOnlyWrite(error) ? DatasourceErrors.readOnly() : error;
}

/**
 * Whether a driver error is the database refusing the login a read (PostgreSQL SQLSTATE 42501
 * insufficient_privilege, MySQL/MariaDB 1142 ER_TABLEACCESS_DENIED_ERROR, SQL Server 229 on
 * SELECT): a query kind read with a datasource's read-only login that may not read a table.
 */
export function isReadDenied(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno, number, message } = error as Record<string, unknown>;
  if (code === '42501' || errno === 1142) return true;
  return number === 229 && /^The SELECT permission was denied/.test(String(message ?? ''));
}
