import { Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError, ErrorCode } from '../common/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.service';
import { leaseSize } from './leased-throttler-storage';
import { PointLeases } from './point-leases';
import { RATE_LIMIT_WINDOW_MS } from './rate-limits.service';

/**
 * What a request's cost did to its key's budget: the `extensions.cost` of every answer to a key
 * (CONTRACT.md §11 "Cost budgets", README "Cost budgets"). Points are whole numbers ≥ 0;
 * `resetAt` is when the minute's window ends, ISO 8601 UTC with milliseconds.
 */
export interface CostReport {
  /** Points charged before execution, from the request's estimate. */
  requested: number;
  /** Points the request really cost, from the rows it read; null when it was refused unrun. */
  actual: number | null;
  /** Points left in the window after the request. */
  remaining: number;
  /** The key's points per minute. */
  limit: number;
  resetAt: string;
}

/** A charge made before execution, to be settled with {@link CostBudgetsService.settle}. */
export interface CostCharge {
  bucket: string;
  limit: number;
  requested: number;
  /** Points of the window spent after this charge. */
  consumed: number;
  /** When the window ends, epoch milliseconds. */
  resetAt: number;
  /** Whether the points were counted in Redis (shared) or in this process. */
  shared: boolean;
  /** Whether they came from this instance's lease of the window ({@link PointLeases}). */
  leased: boolean;
}

/**
 * The 429 of a budget that cannot pay for a request: `Cost budget exceeded` (CONTRACT.md §11),
 * with `retry-after` and the `RateLimit-*` headers of the budget, and the report for the answer's
 * `extensions.cost`. Nothing was charged.
 */
export class CostBudgetExceeded extends DomainError {
  constructor(
    readonly report: CostReport,
    headers: Record<string, string>,
  ) {
    super(
      ErrorCode.TooManyRequests,
      'Cost budget exceeded',
      [
        `the request costs ${report.requested} points; ${report.remaining} of the key's ${report.limit} points per minute remain until ${report.resetAt}`,
      ],
      headers,
    );
  }
}

/** Redis keys of the budgets: `tablegraph:cost:key:<id>`, beside the request counters' `tablegraph:rate:`. */
export const COST_PREFIX = 'tablegraph:cost';

/** A point count no key reaches in a window: the limiters never refuse; the key's own limit does. */
const UNBOUNDED_POINTS = Number.MAX_SAFE_INTEGER;

/**
 * Per-key cost budgets (issue 28 item 4): points per minute spent by each request's estimated
 * cost before it runs, settled from what it really read afterwards (Shopify's requested vs.
 * actual cost, PEERS.md §H4). Counted with rate-limiter-flexible: `RateLimiterRedis` (one Lua
 * script per change, atomic across instances) while Redis answers, else `RateLimiterMemory` in
 * this process, the same fallback as {@link RateLimitsService} so an outage never fails open or
 * hard. The limiters hold one fixed window of {@link RATE_LIMIT_WINDOW_MS} per key and never
 * refuse themselves: each key's own `pointsPerMinute` is compared here, so keys with different
 * budgets share one limiter. Budgets of 2,000 points per minute and more are spent from leases
 * reserved in Redis a batch at a time ({@link PointLeases}), so such a key's request costs no
 * Redis round trip; smaller budgets are counted charge by charge, exact.
 */
@Injectable()
export class CostBudgetsService {
  private readonly local = new RateLimiterMemory({
    keyPrefix: COST_PREFIX,
    points: UNBOUNDED_POINTS,
    duration: RATE_LIMIT_WINDOW_MS / 1000,
  });
  private readonly sharedLimiter: RateLimiterRedis | null;
  private readonly leases: PointLeases | null;

  constructor(
    private readonly redis: RedisService,
    private readonly metrics: MetricsService,
  ) {
    this.sharedLimiter = redis.commands
      ? new RateLimiterRedis({
          storeClient: redis.commands,
          keyPrefix: COST_PREFIX,
          points: UNBOUNDED_POINTS,
          duration: RATE_LIMIT_WINDOW_MS / 1000,
        })
      : null;
    const shared = this.sharedLimiter;
    this.leases = shared
      ? new PointLeases((bucket, points, how) => shared[how](bucket, points))
      : null;
  }

  /**
   * Charges `points` (a whole number ≥ 1) to `bucket` (e.g. `key:<id>`) whose budget is `limit`
   * points per minute. A request the window cannot pay for is given its points back at once and
   * refused.
   * @returns the charge, for {@link settle}.
   * @throws CostBudgetExceeded (429 `Cost budget exceeded`) when the window's points would pass
   * `limit`; also when `points` alone exceed `limit` (no window could pay it).
   */
  async charge(bucket: string, limit: number, points: number): Promise<CostCharge> {
    const leased = await this.chargeLeased(bucket, limit, points);
    if (leased) return leased;
    const { res, shared } = await this.change(bucket, points, 'consume');
    const charge: CostCharge = {
      bucket,
      limit,
      requested: points,
      consumed: res.consumedPoints,
      // To the second: the same window reads the same whatever the milliseconds of the call.
      resetAt: Math.round((Date.now() + res.msBeforeNext) / 1000) * 1000,
      shared,
      leased: false,
    };
    if (res.consumedPoints > limit) {
      await this.change(bucket, points, 'reward', shared).catch(() => undefined);
      this.refuse({ ...charge, consumed: res.consumedPoints - points });
    }
    return charge;
  }

  /**
   * A charge spent from this instance's lease, for budgets large enough to lease while Redis
   * answers; null otherwise, or when Redis fails (the caller counts the charge its exact way).
   * @throws CostBudgetExceeded as {@link charge}.
   */
  private async chargeLeased(
    bucket: string,
    limit: number,
    points: number,
  ): Promise<CostCharge | null> {
    if (!this.leases || leaseSize(limit) === 1 || this.redis.state() !== 'ok') return null;
    let spend;
    try {
      spend = await this.leases.spend(bucket, limit, points);
    } catch {
      return null;
    }
    const charge: CostCharge = {
      bucket,
      limit,
      requested: points,
      consumed: spend.consumed,
      resetAt: spend.endsAt,
      shared: true,
      leased: true,
    };
    if (!spend.paid) this.refuse(charge);
    return charge;
  }

  /**
   * Refuses a request the window cannot pay; `charge.consumed` is the window's points without it.
   * @throws CostBudgetExceeded always.
   */
  private refuse(charge: CostCharge): never {
    const report = this.report(charge, null);
    this.metrics.rateLimited('key');
    throw new CostBudgetExceeded(report, {
      ...this.headers(report),
      'retry-after': String(Math.max(1, Math.ceil((charge.resetAt - Date.now()) / 1000))),
    });
  }

  /**
   * Settles a charge with the points the request really cost (`actual`, whole ≥ 0): the
   * difference is given back when the estimate was higher, and charged (never refused: the
   * request already ran) when lower. Within the charge's window only: a later window is not
   * touched, so a refund never lends points to the next minute.
   * @returns the answer's `extensions.cost`.
   */
  async settle(charge: CostCharge, actual: number): Promise<CostReport> {
    const difference = actual - charge.requested;
    let consumed = charge.consumed + difference;
    if (charge.leased) {
      const settled =
        difference === 0
          ? charge.consumed
          : await this.leases!.settle(charge.bucket, charge.resetAt, difference).catch(() => null);
      return this.report({ ...charge, consumed: settled ?? charge.consumed }, actual);
    }
    if (difference !== 0 && Date.now() < charge.resetAt) {
      try {
        const { res } = await this.change(
          charge.bucket,
          Math.abs(difference),
          difference > 0 ? 'penalty' : 'reward',
          charge.shared,
        );
        consumed = res.consumedPoints;
      } catch {
        // The window is counted where the charge was made; if that store went away, the estimate
        // stands (the window ends within a minute anyway).
        consumed = charge.consumed;
      }
    }
    return this.report({ ...charge, consumed }, actual);
  }

  /** The `RateLimit-*` headers of a budget (IETF draft-ietf-httpapi-ratelimit-headers). */
  headers(report: CostReport): Record<string, string> {
    const reset = Math.max(1, Math.ceil((Date.parse(report.resetAt) - Date.now()) / 1000));
    return {
      'ratelimit-limit': String(report.limit),
      'ratelimit-remaining': String(report.remaining),
      'ratelimit-reset': String(reset),
      'ratelimit-policy': `${report.limit};w=${RATE_LIMIT_WINDOW_MS / 1000};comment="cost points"`,
    };
  }

  private report(charge: CostCharge, actual: number | null): CostReport {
    return {
      requested: charge.requested,
      actual,
      remaining: Math.max(0, charge.limit - Math.max(0, charge.consumed)),
      limit: charge.limit,
      resetAt: new Date(charge.resetAt).toISOString(),
    };
  }

  /**
   * One change of a bucket's points, in Redis when it answers (or, with `shared` given, where
   * the charge was counted), else in this process.
   */
  private async change(
    bucket: string,
    points: number,
    how: 'consume' | 'reward' | 'penalty',
    shared?: boolean,
  ): Promise<{ res: RateLimiterRes; shared: boolean }> {
    const useShared = shared ?? (this.sharedLimiter !== null && this.redis.state() === 'ok');
    if (useShared && this.sharedLimiter) {
      try {
        return { res: await this.sharedLimiter[how](bucket, points), shared: true };
      } catch (error) {
        if (shared === true) throw error;
        // Redis went away mid-request (RedisService logs the outage once): count here instead.
      }
    }
    return { res: await this.local[how](bucket, points), shared: false };
  }
}
