import { DomainError, ErrorCode } from '../common/domain-error';

/** Errors of the datasources module. */
export const DatasourceErrors = {
  /** The connection could not be opened; `reason` is the driver's, with any password removed. */
  unreachable: (reason: string) =>
    new DomainError(
      ErrorCode.DatasourceUnreachable,
      `Could not connect to the datasource: ${reason}`,
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
  unsupportedType: (type: string) =>
    new DomainError(
      ErrorCode.InvalidInput,
      `Datasource type "${type}" is not supported; use postgres, mysql, mssql or sqlite`,
    ),
};
