import { LRUCache } from 'lru-cache';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import { leaseSize } from './leased-throttler-storage';

/** Leases one process keeps at most; the least recently used go first beyond it. */
const MAX_LEASES = 100_000;

/** One change of a bucket's points in the shared (Redis) window, as rate-limiter-flexible makes it. */
export type SharedChange = (
  bucket: string,
  points: number,
  how: 'consume' | 'reward' | 'penalty',
) => Promise<RateLimiterRes>;

/** What a spend did: the window's points spent or reserved after it, and when the window ends. */
export interface LeasedSpend {
  /** Points of the window reserved by every instance, less what this one holds unspent. */
  consumed: number;
  /** When the window ends, epoch milliseconds. */
  endsAt: number;
  /** Whether the window could pay: false leaves the lease untouched (nothing was spent). */
  paid: boolean;
}

interface Lease {
  /** Points of the window reserved in Redis by every instance, as Redis last answered. */
  reserved: number;
  /** Points reserved here and not yet spent. */
  left: number;
  /** Redis refused more: the window is full until it ends, without asking again. */
  full: boolean;
  endsAt: number;
  /** The points one reservation takes ({@link leaseSize} of the budget). */
  size: number;
}

/**
 * Cost points of a key's window reserved from Redis a batch at a time, so a request with a high
 * budget costs no Redis round trip (the same idea, sizes and bound as the request counter's
 * {@link leaseSize} leases, docs/adr/0008): an instance reserves `leaseSize(limit)` points (or a
 * request's own points when more) with one atomic `consume`, spends them here, and reserves again
 * when they run out. Points are reserved before they are spent, so all instances together never
 * spend more than the budget; what a lease holds unspent when the window ends is lost, so a key
 * may be refused up to (instances × lease) points early, at most ~0.1% of its budget per instance.
 * A refund goes back to this instance's lease; beyond one lease's size it is given back to Redis,
 * so other instances see it. Budgets under 2,000 points per window are not leased (every charge is
 * counted in Redis, exact): the caller uses its exact path when {@link leaseSize} is 1.
 *
 * Why: profiled, one Redis round trip per request was ~10% of a plain list query's CPU (issue 8),
 * and the cost charge made it one per keyed request again (issue 25's Q1 after issue 28).
 */
export class PointLeases {
  private readonly leases = new LRUCache<string, Lease>({ max: MAX_LEASES });
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly change: SharedChange) {}

  /**
   * Spends `points` (whole, ≥ 1) of `bucket`'s window of `limit` points, reserving a lease first
   * when this instance holds too few.
   * @returns the spend; `paid: false` when the window cannot pay (nothing is spent).
   * @throws what the shared change throws when Redis does not answer (nothing is spent).
   */
  async spend(bucket: string, limit: number, points: number): Promise<LeasedSpend> {
    for (;;) {
      const lease = this.current(bucket);
      if (lease && lease.left >= points) {
        lease.left -= points;
        return { consumed: lease.reserved - lease.left, endsAt: lease.endsAt, paid: true };
      }
      if (lease?.full) {
        return { consumed: lease.reserved - lease.left, endsAt: lease.endsAt, paid: false };
      }
      const pending = this.pending.get(bucket);
      if (pending) {
        await pending;
        continue;
      }
      const reserving = this.reserve(bucket, limit, points, lease).finally(() =>
        this.pending.delete(bucket),
      );
      this.pending.set(bucket, reserving);
      await reserving;
    }
  }

  /**
   * Settles a spend made in the window ending at `endsAt`: `difference` points more (> 0) or
   * fewer (< 0) than were spent. Nothing happens once that window has ended.
   * @returns the window's consumed points after it, or null when the window has ended.
   */
  async settle(bucket: string, endsAt: number, difference: number): Promise<number | null> {
    const lease = this.current(bucket);
    if (!lease || lease.endsAt !== endsAt) return null;
    if (difference < 0) {
      lease.left -= difference;
      const excess = lease.left - lease.size;
      if (excess > 0) {
        // A large refund goes back to Redis, so other instances can spend it.
        lease.left -= excess;
        lease.reserved -= excess;
        await this.change(bucket, excess, 'reward').catch(() => undefined);
      }
    } else if (difference > 0) {
      const fromLease = Math.min(lease.left, difference);
      lease.left -= fromLease;
      if (difference > fromLease) {
        // Charged, never refused: the request already ran.
        const res = await this.change(bucket, difference - fromLease, 'penalty');
        lease.reserved = res.consumedPoints;
      }
    }
    return lease.reserved - lease.left;
  }

  /** The lease of `bucket` in a window that has not ended. */
  private current(bucket: string): Lease | undefined {
    const lease = this.leases.get(bucket);
    return lease && lease.endsAt > Date.now() ? lease : undefined;
  }

  /**
   * Reserves enough for `points` plus a lease; when the window cannot hold all of it, keeps what
   * fits, gives the rest back and marks the window full.
   */
  private async reserve(
    bucket: string,
    limit: number,
    points: number,
    previous: Lease | undefined,
  ): Promise<void> {
    const size = leaseSize(limit);
    const wanted = Math.max(size, points - (previous?.left ?? 0));
    const res = await this.change(bucket, wanted, 'consume');
    // To the second, so every reservation of one window names it alike (settle finds it so).
    const endsAt = Math.round((Date.now() + res.msBeforeNext) / 1000) * 1000;
    // The previous lease's points count only if Redis is still in its window.
    const sameWindow = previous !== undefined && Math.abs(previous.endsAt - endsAt) <= 1000;
    const lease: Lease = {
      reserved: res.consumedPoints,
      left: (sameWindow ? previous.left : 0) + wanted,
      full: false,
      endsAt: sameWindow ? previous.endsAt : endsAt,
      size,
    };
    const over = Math.min(wanted, lease.reserved - limit);
    if (over > 0) {
      lease.reserved -= over;
      lease.left -= over;
      lease.full = true;
      await this.change(bucket, over, 'reward').catch(() => undefined);
    }
    this.leases.set(bucket, lease);
  }
}
