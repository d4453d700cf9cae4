import { DomainError, ErrorCode } from '../common/domain-error';

/** Errors of the datasources module. */
export const DatasourceErrors = {
  /** The connection could not be opened; `reason` is the driver's, with any password removed. */
  unreachable: (reason: string) =>
    new DomainError(
      ErrorCode.DatasourceUnreachable,
      `Could not connect to the datasource: ${reason}`,
    ),
  unsupportedType: (type: string) =>
    new DomainError(
      ErrorCode.InvalidInput,
      `Datasource type "${type}" is not supported; use postgres, mysql, mssql or sqlite`,
    ),
};
