/**
 * Error codes every module raises through {@link DomainError}. One place maps them to HTTP
 * statuses (`http-error.filter.ts`) and one to GraphQL `extensions.code`
 * (`graphql-gateway/graphql-errors.ts`).
 */
export enum ErrorCode {
  InvalidInput = 'INVALID_INPUT',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  DatasourceUnreachable = 'DATASOURCE_UNREACHABLE',
  /** A body in another media type than `application/json` (CONTRACT.md §2). */
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  /** A throttle's ceiling reached; carries `retry-after` (CONTRACT.md §2, §6). */
  TooManyRequests = 'TOO_MANY_REQUESTS',
  /** A request whose worst-case rows exceed the ceiling (CONTRACT.md §6 Limits). */
  QueryTooComplex = 'QUERY_TOO_COMPLEX',
  /** A statement ran past its deadline (CONTRACT.md §6 Limits). */
  Timeout = 'TIMEOUT',
  /** A datasource that is down or whose pool gives no connection in time (CONTRACT.md §6). */
  DatasourceUnavailable = 'DATASOURCE_UNAVAILABLE',
  /** The app's definition cannot be served (CONTRACT.md §6 Error codes). */
  ApiUnavailable = 'API_UNAVAILABLE',
  Internal = 'INTERNAL',
}

/**
 * A refusal a caller can act on. `message` is safe to show (no SQL, no secret); `details`
 * lists every problem when there are several (e.g. each invalid body field).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: string[] = [],
    /** Response headers the refusal carries (e.g. `retry-after` on 429), any transport. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** `404` for a missing resource, named by kind and id. */
export function notFound(kind: string, id: string): DomainError {
  return new DomainError(ErrorCode.NotFound, `${kind} "${id}" not found`);
}

/** `400` with every problem listed. */
export function invalidInput(message: string, details: string[] = []): DomainError {
  return new DomainError(ErrorCode.InvalidInput, message, details);
}
