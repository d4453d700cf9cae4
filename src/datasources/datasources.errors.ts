import { DomainError, ErrorCode } from '../common/domain-error';
import type { ConnectFailure } from './connect-failures';
import type { DatasourceType } from './core/dialect';
import { serverName } from './own-store';

/** What a builder should check, by the kind of failure (see `connect-failures.ts`). */
const CONNECT_ADVICE: Record<ConnectFailure, (server: string) => string> = {
  unreachable: (server) =>
    `no ${server} server accepted the connection at that host and port: it may be down, ` +
    `unreachable from the service, slow to answer or not a ${server} server; check the host, ` +
    'the port and the TLS setting',
  login: (server) =>
    `the ${server} server refused the login; check the user name and the password, and that ` +
    'this user may connect to the database',
  database: (server) =>
    `the ${server} server has no database of that name; check the database in the URL`,
};

/** Why the statement port refused an SQL API's statement ({@link StatementRefusal}). */
export type StatementRefusalReason = 'INVALID_STATEMENT' | 'READ_ONLY';

/**
 * A refusal of an SQL API's statement by its database (issue 26): a DomainError INVALID_INPUT
 * (400; GraphQL `BAD_USER_INPUT`) whose `reason` tells which: `INVALID_STATEMENT`, the database
 * could not prepare or describe it (syntax, unknown table or column; the database's message
 * without SQL text), or `READ_ONLY`, the statement tried to write inside a read-only transaction
 * (`SqlPool.readOnly`). The message never quotes SQL.
 */
export class StatementRefusal extends DomainError {
  constructor(
    readonly reason: StatementRefusalReason,
    message: string,
  ) {
    super(ErrorCode.InvalidInput, message);
  }
}

/** Errors of the datasources module. */
export const DatasourceErrors = {
  /**
   * The connection could not be opened; `reason` is the driver's, with any password removed.
   * Only for SQLite files (confined to the app's folder, nothing to scan): network datasources
   * answer {@link DatasourceErrors.connectFailed}.
   */
  unreachable: (reason: string) =>
    new DomainError(
      ErrorCode.DatasourceUnreachable,
      `Could not connect to the datasource: ${reason}`,
    ),
  /**
   * A network datasource could not be opened: one message per kind of failure, never the
   * driver's words, so registration tells a closed port, a silent one, an HTTP server and another
   * database apart by nothing (issue 22, item 9; `connect-failures.ts`).
   */
  connectFailed: (type: DatasourceType, failure: ConnectFailure) =>
    new DomainError(
      ErrorCode.DatasourceUnreachable,
      `Could not connect to the datasource: ${CONNECT_ADVICE[failure](serverName(type))}`,
    ),
  /** A statement ran past the deadline (CONTRACT.md §6 Limits: `TIMEOUT`). */
  timeout: (ms: number) =>
    new DomainError(
      ErrorCode.Timeout,
      `The query ran past the ${ms / 1000} s statement time limit; narrow the filter or page with take/skip`,
    ),
  /** The datasource is down or its pool gave no connection in time (`DATASOURCE_UNAVAILABLE`). */
  unavailable: () =>
    new DomainError(
      ErrorCode.DatasourceUnavailable,
      "The app's database is unavailable or busy; try again shortly",
    ),
  /**
   * A PostgreSQL materialized view created `WITH NO DATA` and never refreshed: it has no rows to
   * give until its owner runs `REFRESH MATERIALIZED VIEW` (`CONFLICT`: retrying cannot help).
   */
  notPopulated: () =>
    new DomainError(
      ErrorCode.Conflict,
      'A materialized view this query reads has no data yet: the database owner must run REFRESH MATERIALIZED VIEW on it',
    ),
  /**
   * A write inside a read-only transaction (`SqlPool.readOnly`): PostgreSQL SQLSTATE 25006,
   * MySQL/MariaDB error 1792, SQLite SQLITE_READONLY under `query_only`.
   */
  readOnly: () =>
    new StatementRefusal(
      'READ_ONLY',
      "The statement tried to write, and a query-kind SQL API's statement cannot write: make it a mutation-kind SQL API, or remove the write (a data-modifying WITH, a function that writes)",
    ),
  /**
   * A query-kind SQL API on a SQL Server datasource that has no read-only login (any more):
   * SQL Server has no read-only transaction, so the read is not run at all (README "SQL APIs").
   * `API_UNAVAILABLE`: the caller cannot fix it; the builder sets the login on the datasource.
   */
  readOnlyLoginMissing: () =>
    new DomainError(
      ErrorCode.ApiUnavailable,
      "This SQL API cannot run: its SQL Server datasource has no read-only login; the app's builder must set one on the datasource",
    ),
  /**
   * The database refused to prepare or describe a statement; `reason` is its message without
   * SQL text (each dialect strips it).
   */
  invalidStatement: (reason: string) =>
    new StatementRefusal('INVALID_STATEMENT', `The database refused the statement: ${reason}`),
  unsupportedType: (type: string) =>
    new DomainError(
      ErrorCode.InvalidInput,
      `Datasource type "${type}" is not supported; use postgres, mysql, mssql or sqlite`,
    ),
};
