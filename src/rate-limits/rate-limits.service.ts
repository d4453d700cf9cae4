import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { DomainError, ErrorCode } from '../common/domain-error';
import { MetricsService, ThrottledCaller } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.service';
import { LeasedThrottlerStorage } from './leased-throttler-storage';
import { LocalThrottlerStorage } from './local-throttler-storage';
import { RedisThrottlerStorage, ThrottlerStorageRecord } from './redis-throttler-storage';

/** Every ceiling here is per minute (CONTRACT.md §5 `rateLimitPerMinute`, §2 sign-in). */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** One counted ceiling: a bucket (who), its limit per minute, and who it is for (metrics). */
export interface RateLimitCheck {
  /**
   * What is counted, e.g. `key:<id>`, `anonymous:<appId>:<address>`, `app-user:<userId>`,
   * `login:account:<email>`.
   */
  bucket: string;
  /** Requests allowed per minute, ≥ 1. */
  limit: number;
  /** Who it is for: the `caller` label of the 429 counter. */
  caller: ThrottledCaller;
}

/**
 * The `RateLimit-*` response headers of a counted request (IETF draft
 * draft-ietf-httpapi-ratelimit-headers: `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` in seconds, `RateLimit-Policy` as `<limit>;w=<window seconds>`).
 */
export type RateLimitHeaders = Record<string, string>;

/**
 * Counts requests against per-minute ceilings with `@nestjs/throttler` storages: in Redis
 * ({@link RedisThrottlerStorage}, shared by every instance, through the leases of
 * {@link LeasedThrottlerStorage} for high limits) while Redis answers, else in this
 * process ({@link LocalThrottlerStorage}, the same fixed window), so an outage never fails open (each
 * instance still enforces the ceiling on its own) and never fails hard (no request waits on
 * Redis or errors because of it). Sharing resumes as soon as Redis answers again.
 */
@Injectable()
export class RateLimitsService implements OnApplicationShutdown {
  private readonly local = new LocalThrottlerStorage();
  private readonly shared: LeasedThrottlerStorage | null;

  constructor(
    private readonly redis: RedisService,
    private readonly metrics: MetricsService,
  ) {
    this.shared = redis.commands
      ? new LeasedThrottlerStorage(new RedisThrottlerStorage(redis.commands))
      : null;
  }

  /**
   * Counts one request against `check`.
   * @returns the `RateLimit-*` headers to send with the answer.
   * @throws DomainError TOO_MANY_REQUESTS (429) `Rate limit exceeded` over the ceiling, with
   * `retry-after` in whole seconds ≥ 1 and the `RateLimit-*` headers (CONTRACT.md §6).
   */
  async consume(check: RateLimitCheck): Promise<RateLimitHeaders> {
    const record = await this.count(check);
    const reset = Math.max(
      1,
      Math.ceil(record.isBlocked ? record.timeToBlockExpire : record.timeToExpire),
    );
    const headers: RateLimitHeaders = {
      'ratelimit-limit': String(check.limit),
      'ratelimit-remaining': String(Math.max(0, check.limit - record.totalHits)),
      'ratelimit-reset': String(reset),
      'ratelimit-policy': `${check.limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`,
    };
    if (record.isBlocked || record.totalHits > check.limit) {
      this.metrics.rateLimited(check.caller);
      throw new DomainError(ErrorCode.TooManyRequests, 'Rate limit exceeded', [], {
        ...headers,
        'retry-after': String(reset),
      });
    }
    return headers;
  }

  onApplicationShutdown(): void {
    this.local.clear();
  }

  private async count(check: RateLimitCheck): Promise<ThrottlerStorageRecord> {
    const args = [
      check.bucket,
      RATE_LIMIT_WINDOW_MS,
      check.limit,
      RATE_LIMIT_WINDOW_MS,
      'rate',
    ] as const;
    if (this.shared && this.redis.state() === 'ok') {
      try {
        return await this.shared.increment(...args);
      } catch {
        // Redis went away mid-request (RedisService logs the outage once): count here instead.
      }
    }
    return this.local.increment(...args);
  }
}
