import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/domain-error';
import { RateLimitsService } from '../rate-limits/rate-limits.service';

/** Sign-in attempts per account (or app user) per minute: more than a person types, fewer than a guesser needs. */
export const LOGIN_ATTEMPTS_PER_ACCOUNT = 10;
/** Sign-in attempts per client address per minute, every account together. */
export const LOGIN_ATTEMPTS_PER_ADDRESS = 30;

/**
 * Throttles sign-in (CONTRACT.md §2: "Login is throttled per account and per client address"),
 * for platform accounts and app users alike, on every instance together ({@link RateLimitsService}:
 * Redis when it answers, else per instance).
 */
@Injectable()
export class LoginThrottleService {
  constructor(private readonly limits: RateLimitsService) {}

  /**
   * Counts one sign-in attempt for `account` (an email, optionally scoped, e.g. `appId:email`)
   * from `address`.
   * @throws DomainError TOO_MANY_REQUESTS (429) with `retry-after` in whole seconds ≥ 1.
   */
  async attempt(account: string, address: string): Promise<void> {
    const checks = [
      {
        bucket: `login:account:${account.trim().toLowerCase()}`,
        limit: LOGIN_ATTEMPTS_PER_ACCOUNT,
      },
      { bucket: `login:address:${address}`, limit: LOGIN_ATTEMPTS_PER_ADDRESS },
    ];
    for (const check of checks) {
      try {
        await this.limits.consume({ ...check, caller: 'login' });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const seconds = error.headers['retry-after'];
        // Sign-in answers only `retry-after`: the RateLimit-* headers describe API traffic.
        throw new DomainError(
          error.code,
          `Too many sign-in attempts; try again in ${seconds} seconds`,
          [],
          { 'retry-after': seconds },
        );
      }
    }
  }
}
