import { DomainError, ErrorCode } from '../common/domain-error';

/** Why a key was refused at the GraphQL endpoint; messages are CONTRACT.md §6's, exactly. */
export const ApiKeyErrors = {
  invalid: () => new DomainError(ErrorCode.Unauthenticated, 'Invalid API key'),
  revoked: () => new DomainError(ErrorCode.Unauthenticated, 'API key revoked'),
  expired: () => new DomainError(ErrorCode.Unauthenticated, 'API key expired'),
  projectOutOfScope: () =>
    new DomainError(ErrorCode.Forbidden, 'API key not authorised for this project'),
  endpointOutOfScope: () =>
    new DomainError(ErrorCode.Forbidden, 'API key not authorised for this endpoint'),
  alreadyRevoked: () =>
    new DomainError(
      ErrorCode.Conflict,
      'This key is revoked already; a revoked key cannot be reactivated',
    ),
};
