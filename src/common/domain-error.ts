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
