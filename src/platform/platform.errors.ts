import { DomainError, ErrorCode } from '../common/domain-error';

/** Errors of the platform module (accounts, sessions, apps, versions). */
export const PlatformErrors = {
  badCredentials: () => new DomainError(ErrorCode.Unauthenticated, 'Wrong email or password'),
  noSession: () => new DomainError(ErrorCode.Unauthenticated, 'Sign in first: no valid session'),
  adminOnly: () => new DomainError(ErrorCode.Forbidden, 'Only administrators may do this'),
  builderOnly: () =>
    new DomainError(ErrorCode.Forbidden, 'Only builders and administrators may do this'),
  emailTaken: (email: string) =>
    new DomainError(ErrorCode.Conflict, `An account with email "${email}" exists already`),
  addressTaken: (address: string) =>
    new DomainError(ErrorCode.Conflict, `The address "${address}" is taken; choose another`),
  domainTaken: (domain: string) =>
    new DomainError(ErrorCode.Conflict, `The domain "${domain}" belongs to another app`),
  versionConflict: () =>
    new DomainError(
      ErrorCode.Conflict,
      'The working version changed meanwhile; send the change again',
    ),
};
