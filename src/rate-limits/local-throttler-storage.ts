import type { ThrottlerStorage } from '@nestjs/throttler';
import { LRUCache } from 'lru-cache';
import { ThrottlerStorageRecord, windowRecord } from './redis-throttler-storage';

/** Counters one process keeps at most; the least recently counted go first beyond it. */
export const LOCAL_BUCKETS = 100_000;

interface Window {
  hits: number;
  /** When the window ends, epoch milliseconds. */
  endsAt: number;
}

/**
 * `@nestjs/throttler`'s storage in this process, with the same rule as {@link RedisThrottlerStorage}:
 * a fixed window of `ttl` milliseconds per key that the first hit starts, one more hit per
 * request, refused over the limit until the window ends. Used without Redis (one instance) and
 * while Redis does not answer.
 *
 * Why not the throttler's own `ThrottlerStorageService`: it keeps one expiry time per hit and
 * filters the whole list on every hit, so a request's cost grows with the requests of the last
 * minute (profiled: at 1,800 requests/s on one key, ~17% of the process's CPU and a new array of
 * ~100,000 entries per request), and its map of keys grows with every distinct caller until a
 * sweep. Here a hit is O(1) and the buckets are an LRU of {@link LOCAL_BUCKETS}; an ended window
 * is replaced by the next hit.
 */
export class LocalThrottlerStorage implements ThrottlerStorage {
  private readonly windows = new LRUCache<string, Window>({ max: LOCAL_BUCKETS });

  /**
   * Counts one hit on `key` (named `throttlerName`, as the Redis keys are).
   * @param ttl the window in milliseconds; `limit` the hits it allows. Times in the record are
   * whole seconds ≥ 1, as the Redis storage gives them.
   */
  increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const name = `${throttlerName}:${key}`;
    let window = this.windows.get(name);
    if (!window || window.endsAt <= now) {
      window = { hits: 0, endsAt: now + ttl };
      this.windows.set(name, window);
    }
    window.hits++;
    return Promise.resolve(windowRecord(window.hits, window.endsAt - now, limit));
  }

  /** Forgets every window (shutdown). */
  clear(): void {
    this.windows.clear();
  }
}
