import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';

/** Prefix of every counter this service keeps in Redis. */
export const RATE_LIMIT_PREFIX = 'tablegraph:rate:';

/**
 * One fixed window per counter, counted in one round trip and atomically (Redis runs a script
 * as a whole: https://redis.io/docs/latest/develop/interact/programmability/eval-intro/): the
 * first hit starts the window (`PEXPIRE`), every call adds `ARGV[2]` hits; returns the hits so
 * far and the window's remaining milliseconds.
 */
const HIT_SCRIPT = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { hits, ttl }
`;

/** What the throttler's storages answer (the record type is not exported by the package). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface HitCommand {
  tablegraphHit(key: string, windowMs: number, hits: number): Promise<[number, number]>;
}

/**
 * `@nestjs/throttler`'s storage on Redis, shared by every instance (CONTRACT.md §6 429; issue
 * "several instances"): a fixed window of `ttl` milliseconds per key, counted by a Lua script
 * (`EVALSHA`, one round trip). A caller over the limit stays refused until the window ends
 * (`blockDuration` is the window). Times in the record are whole seconds, as the throttler's own
 * storage gives them.
 *
 * Fails (rejects) when Redis does not answer; {@link RateLimitsService} then counts in process.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly redis: Redis & HitCommand;

  constructor(redis: Redis) {
    if (!('tablegraphHit' in redis)) {
      redis.defineCommand('tablegraphHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    }
    this.redis = redis as Redis & HitCommand;
  }

  /**
   * Counts one hit of `key` in its window of `ttl` milliseconds.
   * @returns `totalHits` (this hit included), `timeToExpire` (s), `isBlocked` (hits > limit),
   * `timeToBlockExpire` (s, 0 unless blocked).
   */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const { total, remainingMs } = await this.reserve(key, ttl, 1, throttlerName);
    return windowRecord(total, remainingMs, limit);
  }

  /**
   * Adds `hits` to `key`'s window of `ttl` milliseconds at once (a lease, see
   * {@link LeasedThrottlerStorage}).
   * @returns `total` hits of the window with these, and its `remainingMs`.
   * @throws what ioredis throws when Redis does not answer.
   */
  async reserve(
    key: string,
    ttl: number,
    hits: number,
    throttlerName: string,
  ): Promise<{ total: number; remainingMs: number }> {
    const [total, remainingMs] = await this.redis.tablegraphHit(
      `${RATE_LIMIT_PREFIX}${throttlerName}:${key}`,
      ttl,
      hits,
    );
    return { total, remainingMs };
  }
}

/**
 * The throttler's record of a fixed window: `totalHits` (this hit included), `timeToExpire` in
 * whole seconds ≥ 1, `isBlocked` when hits exceed `limit`, `timeToBlockExpire` (the same seconds
 * when blocked, else 0). Shared by the Redis and the in-process storage, which count alike.
 */
export function windowRecord(
  hits: number,
  remainingMs: number,
  limit: number,
): ThrottlerStorageRecord {
  const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
  const isBlocked = hits > limit;
  return {
    totalHits: hits,
    timeToExpire: seconds,
    isBlocked,
    timeToBlockExpire: isBlocked ? seconds : 0,
  };
}
