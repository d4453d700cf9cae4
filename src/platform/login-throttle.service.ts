import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '../common/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { addressBucket } from '../common/http-request';

/** Failed sign-ins of one account from one client address per minute before that pair is refused. */
export const LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS = 10;
/** Failed sign-ins from one client address per minute, every account together (password spraying). */
export const LOGIN_FAILURES_PER_ADDRESS = 30;
/**
 * Failed sign-ins of one account per minute, every address together. Past it, an address that
 * already failed on the account this minute is refused; an address without failures still gets
 * its attempt, so guessers spread over many addresses get one guess per address and nobody can
 * lock the account's owner out.
 */
export const LOGIN_FAILURES_PER_ACCOUNT = 100;
/**
 * The largest count a counter here shows: {@link RateLimitsService} counts ceilings under 2,000 hit
 * by hit in Redis (higher ones through leases, which would hide other instances' hits). A counter
 * past it reads as "more than anyone may have".
 */
export const LOGIN_COUNTER_CEILING = 1_999;

/** What one scope's counters say before an attempt. */
interface ScopeCount {
  /** Failed attempts of the window, plus attempts still being verified (this one excluded). */
  failures: number;
  /** Seconds until the window ends, ≥ 1. */
  reset: number;
}

/** Whether a sign-in refusal is a wrong password (the only refusal that counts as a failure). */
export function isWrongCredentials(error: unknown): boolean {
  return error instanceof DomainError && error.code === ErrorCode.Unauthenticated;
}

/**
 * Throttles sign-in (CONTRACT.md §2: "Login is throttled per account and per client address"),
 * for platform accounts and app users alike, on every instance together ({@link RateLimitsService}'s
 * `@nestjs/throttler` storages: Redis when it answers, else per instance). Only failures count
 * (issue 22, item 5), in three scopes: one account from one address
 * ({@link LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS}), one address across accounts
 * ({@link LOGIN_FAILURES_PER_ADDRESS}) and one account across addresses
 * ({@link LOGIN_FAILURES_PER_ACCOUNT}, which refuses only addresses that failed on it). So nobody
 * locks another person out: an address without failures signs in while another is refused.
 *
 * The storages only add hits, so each scope keeps two fixed-window counters, `tries` and
 * `settled`. An attempt adds one to both before the password is verified (reading them), and once
 * it ends as anything but a failure (signed in, refused here, another error) adds one more to
 * `settled`. Then `settled − tries` is the number of attempts settled, and `tries − (settled −
 * tries)` the failures plus the attempts still being verified. Counting an attempt before its
 * verification means a burst of concurrent guesses is refused past the ceiling instead of being
 * verified all at once. One instance reads a scope's two counters one attempt at a time, so the
 * counts are exact within an instance and off by at most one attempt per other instance.
 */
@Injectable()
export class LoginThrottleService {
  /** Reads in progress per scope (this instance): each read waits for the one before. */
  private readonly reading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly limits: RateLimitsService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Runs one sign-in attempt of `account` (an email, optionally scoped, e.g. `appId:email`) from
   * `address` under the throttle: refuses it before `verify` runs when a ceiling is reached, else
   * runs `verify` and counts it as a failure when it throws an error `isFailure` accepts (by
   * default a wrong email or password: UNAUTHENTICATED).
   * @returns what `verify` returns.
   * @throws DomainError TOO_MANY_REQUESTS (429) with `retry-after` in whole seconds ≥ 1, or what
   * `verify` throws.
   */
  async attempt<T>(
    account: string,
    address: string,
    verify: () => Promise<T>,
    isFailure: (error: unknown) => boolean = isWrongCredentials,
  ): Promise<T> {
    const name = account.trim().toLowerCase();
    // An IPv6 client counts as its /64 (issue 22 item 12), as on the GraphQL endpoint.
    const from = addressBucket(address);
    // An address has no spaces, so the pair's bucket names exactly one (address, account).
    const buckets = [
      `login:pair:${from} ${name}`,
      `login:address:${from}`,
      `login:account:${name}`,
    ];
    const [pair, fromAddress, ofAccount] = await Promise.all(buckets.map((b) => this.read(b)));
    const retryAfter =
      pair.failures >= LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS
        ? pair.reset
        : fromAddress.failures >= LOGIN_FAILURES_PER_ADDRESS
          ? fromAddress.reset
          : ofAccount.failures >= LOGIN_FAILURES_PER_ACCOUNT && pair.failures >= 1
            ? Math.min(ofAccount.reset, pair.reset)
            : null;
    if (retryAfter !== null) {
      await this.settle(buckets);
      this.metrics.rateLimited('login');
      // Sign-in answers only `retry-after`: the RateLimit-* headers describe API traffic.
      throw new DomainError(
        ErrorCode.TooManyRequests,
        `Too many sign-in attempts; try again in ${retryAfter} seconds`,
        [],
        { 'retry-after': String(retryAfter) },
      );
    }
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      if (!isFailure(error)) await this.settle(buckets);
      throw error;
    }
    await this.settle(buckets);
    return result;
  }

  /** Reads a scope's counters for a new attempt (counting it as being verified). */
  private read(bucket: string): Promise<ScopeCount> {
    return this.oneAtATime(bucket, async () => {
      const tries = await this.hit(`${bucket}:tries`);
      const settled = await this.hit(`${bucket}:settled`);
      const failures =
        tries.hits === null || settled.hits === null
          ? Infinity
          : Math.max(0, 2 * tries.hits - settled.hits - 1);
      return { failures, reset: tries.reset };
    });
  }

  /** Marks the attempt counted in these scopes as no failure. */
  private async settle(buckets: string[]): Promise<void> {
    await Promise.all(buckets.map((bucket) => this.hit(`${bucket}:settled`)));
  }

  /**
   * Adds one hit to a counter.
   * @returns the hits of its window with this one (null past {@link LOGIN_COUNTER_CEILING}) and
   * the seconds until the window ends.
   */
  private async hit(bucket: string): Promise<{ hits: number | null; reset: number }> {
    try {
      const headers = await this.limits.consume({
        bucket,
        limit: LOGIN_COUNTER_CEILING,
        caller: 'login',
      });
      return {
        hits: LOGIN_COUNTER_CEILING - Number(headers['ratelimit-remaining']),
        reset: Number(headers['ratelimit-reset']),
      };
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== ErrorCode.TooManyRequests) throw error;
      return { hits: null, reset: Number(error.headers['retry-after']) };
    }
  }

  /** Runs `task` after every earlier task of `key` on this instance has ended. */
  private oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.reading.get(key) ?? Promise.resolve();
    const run = before.then(task);
    const done = run.catch(() => undefined);
    this.reading.set(key, done);
    void done.then(() => {
      if (this.reading.get(key) === done) this.reading.delete(key);
    });
    return run;
  }
}
