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
  lastAdministrator: () =>
    new DomainError(
      ErrorCode.Conflict,
      'This change would leave no active administrator: make another account an administrator first',
    ),
  wrongCurrentPassword: () =>
    new DomainError(ErrorCode.InvalidInput, 'The current password is wrong', [
      'currentPassword is not the current password',
    ]),
  accountChanged: () =>
    new DomainError(
      ErrorCode.Conflict,
      'The account changed meanwhile; sign in again and send the change again',
    ),
  versionConflict: () =>
    new DomainError(
      ErrorCode.Conflict,
      'The working version changed meanwhile; send the change again',
    ),
};
