import { DomainError, ErrorCode } from '../common/domain-error';
import type { DatabaseRefusal } from '../datasources/core/dialect';
import { HTTP_STATUS_OF } from '../common/http-error.filter';

/** The one map from domain error codes to GraphQL `extensions.code`. */
export const GRAPHQL_CODE_OF: Record<ErrorCode, string> = {
  [ErrorCode.InvalidInput]: 'BAD_USER_INPUT',
  [ErrorCode.Unauthenticated]: 'UNAUTHENTICATED',
  [ErrorCode.Forbidden]: 'FORBIDDEN',
  [ErrorCode.NotFound]: 'NOT_FOUND',
  [ErrorCode.Conflict]: 'CONFLICT',
  [ErrorCode.DatasourceUnreachable]: 'DATASOURCE_UNAVAILABLE',
  [ErrorCode.UnsupportedMediaType]: 'BAD_REQUEST',
  [ErrorCode.TooManyRequests]: 'RATE_LIMITED',
  [ErrorCode.QueryTooComplex]: 'QUERY_TOO_COMPLEX',
  [ErrorCode.Timeout]: 'TIMEOUT',
  [ErrorCode.DatasourceUnavailable]: 'DATASOURCE_UNAVAILABLE',
  [ErrorCode.ApiUnavailable]: 'API_UNAVAILABLE',
  [ErrorCode.Internal]: 'INTERNAL_SERVER_ERROR',
};

/**
 * A write the database (or the model's own length rule) refused. Shown to the caller as a
 * GraphQL error with `extensions.code` (UNIQUE_VIOLATION, FOREIGN_KEY_VIOLATION,
 * NOT_NULL_VIOLATION, VALUE_TOO_LONG, INVALID_VALUE; TRANSACTION_CONFLICT for a deadlock or lock
 * wait timeout, which may be sent again) and `extensions.field` (CONTRACT.md §6).
 */
export class DatabaseRefusalError extends Error {
  /**
   * @param cause the driver's error, when the refusal was read from one: a write translates it
   * again with its own context to name the field (`runWrite`).
   */
  constructor(
    readonly refusal: DatabaseRefusal,
    cause?: unknown,
  ) {
    super(refusal.message, cause === undefined ? undefined : { cause });
    this.name = 'DatabaseRefusalError';
  }
}

/** An HTTP-level refusal of the endpoint: status and GraphQL-shaped body (CONTRACT.md §6). */
export interface GatewayRefusal {
  status: number;
  /** Response headers of the refusal (e.g. `retry-after`). */
  headers: Record<string, string>;
  body: { errors: { message: string; extensions: { code: string } }[] };
}

/** Renders a domain error as the endpoint's refusal body. */
export function refusalOf(error: DomainError): GatewayRefusal {
  return {
    status: HTTP_STATUS_OF[error.code],
    headers: error.headers,
    body: {
      errors: [{ message: error.message, extensions: { code: GRAPHQL_CODE_OF[error.code] } }],
    },
  };
}
