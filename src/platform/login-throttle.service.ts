import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { DomainError, ErrorCode } from '../common/domain-error';

/** Sign-in attempts per account (or app user) per minute: more than a person types, fewer than a guesser needs. */
export const LOGIN_ATTEMPTS_PER_ACCOUNT = 10;
/** Sign-in attempts per client address per minute, every account together. */
export const LOGIN_ATTEMPTS_PER_ADDRESS = 30;
const WINDOW_MS = 60_000;

/**
 * Throttles sign-in (CONTRACT.md §2: "Login is throttled per account and per client address"),
 * for platform accounts and app users alike. Counters live in `@nestjs/throttler`'s storage, in
 * process: the one place to swap for the shared Redis storage when rate limits cross instances.
 */
@Injectable()
export class LoginThrottleService implements OnApplicationShutdown {
  private readonly storage = new ThrottlerStorageService();

  /**
   * Counts one sign-in attempt for `account` (an email, optionally scoped, e.g. `appId:email`)
   * from `address`.
   * @throws DomainError TOO_MANY_REQUESTS (429) with `retry-after` in whole seconds ≥ 1.
   */
  async attempt(account: string, address: string): Promise<void> {
    const checks: [string, number][] = [
      [`account:${account.trim().toLowerCase()}`, LOGIN_ATTEMPTS_PER_ACCOUNT],
      [`address:${address}`, LOGIN_ATTEMPTS_PER_ADDRESS],
    ];
    for (const [key, limit] of checks) {
      const record = await this.storage.increment(key, WINDOW_MS, limit, WINDOW_MS, 'login');
      if (record.isBlocked || record.totalHits > limit) {
        const seconds = Math.max(1, Math.ceil(record.timeToBlockExpire || record.timeToExpire));
        throw new DomainError(
          ErrorCode.TooManyRequests,
          `Too many sign-in attempts; try again in ${seconds} seconds`,
          [],
          { 'retry-after': String(seconds) },
        );
      }
    }
  }

  onApplicationShutdown(): void {
    this.storage.onApplicationShutdown();
  }
}
