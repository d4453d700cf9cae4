import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.service';
import { describeWith, SERVICE_URLS } from '../../test/support/services';
import { COST_PREFIX, CostBudgetExceeded, CostBudgetsService } from './cost-budgets.service';

/** Two service instances over one Redis: what each charges, the other sees. */
describeWith('redis')('CostBudgetsService on a real Redis (README "Cost budgets")', () => {
  const redisServices: RedisService[] = [];
  let first: CostBudgetsService;
  let second: CostBudgetsService;
  let bucket: string;

  const instance = async (): Promise<CostBudgetsService> => {
    const redis = new RedisService({ redisUrl: SERVICE_URLS.redis } as AppConfig);
    redisServices.push(redis);
    if (redis.state() !== 'ok') await once(redis.commands!, 'ready');
    return new CostBudgetsService(redis, new MetricsService(redis));
  };

  beforeAll(async () => {
    first = await instance();
    second = await instance();
  });
  beforeEach(() => {
    bucket = `key:${randomUUID()}`;
  });
  afterAll(() => {
    for (const redis of redisServices) redis.onModuleDestroy();
  });

  it('charges requests across instances and refuses the one the window cannot pay, charging it nothing', async () => {
    const a = await first.charge(bucket, 100, 60);
    expect(a.consumed).toBe(60);
    const refusal = await second.charge(bucket, 100, 50).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(CostBudgetExceeded);
    const exceeded = refusal as CostBudgetExceeded;
    expect(exceeded.message).toBe('Cost budget exceeded');
    expect(exceeded.report).toMatchObject({
      requested: 50,
      actual: null,
      remaining: 40,
      limit: 100,
    });
    expect(Number(exceeded.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(exceeded.headers['ratelimit-remaining']).toBe('40');
    // The refused request gave its points back: 40 still fit.
    const b = await second.charge(bucket, 100, 40);
    expect(b.consumed).toBe(100);
  });

  it('refunds what the estimate overcharged and charges what it missed, on the shared window', async () => {
    const charge = await first.charge(bucket, 1_000, 300);
    const refunded = await first.settle(charge, 20);
    expect(refunded).toMatchObject({ requested: 300, actual: 20, remaining: 980, limit: 1_000 });
    const next = await second.charge(bucket, 1_000, 10);
    expect(next.consumed).toBe(30);
    const charged = await second.settle(next, 110);
    expect(charged.remaining).toBe(1_000 - 130);
    expect(Date.parse(charged.resetAt)).toBeGreaterThan(Date.now());
  });

  describe('budgets large enough to lease (2,000 points per minute and more)', () => {
    /** The window's points Redis holds for `bucket` (rate-limiter-flexible's key). */
    const reservedInRedis = async (): Promise<number> =>
      Number(await redisServices[0].commands!.get(`${COST_PREFIX}:${bucket}`));

    it('pays many requests from one reservation, without a Redis round trip each', async () => {
      let last;
      for (let i = 0; i < 50; i++) last = await first.charge(bucket, 1_000_000, 1);
      expect(last).toMatchObject({ leased: true, shared: true, consumed: 50 });
      // One lease of 100 points (a thousandth of the budget, at most 100) paid all 50.
      expect(await reservedInRedis()).toBe(100);
    });

    it('never lets instances together spend more than the budget', async () => {
      const limit = 10_000;
      let paid = 0;
      for (let open = [first, second]; open.length > 0;) {
        for (const budgets of [...open]) {
          const charged = await budgets.charge(bucket, limit, 7).then(
            () => true,
            (error: unknown) => {
              expect(error).toBeInstanceOf(CostBudgetExceeded);
              return false;
            },
          );
          if (charged) paid += 7;
          else open = open.filter((b) => b !== budgets);
        }
      }
      expect(paid).toBeLessThanOrEqual(limit);
      // Each instance may leave at most one lease (10 points) and one request unspent.
      expect(paid).toBeGreaterThan(limit - 2 * (10 + 7));
      expect(await reservedInRedis()).toBeLessThanOrEqual(limit);
    });

    it('gives a large refund back to Redis, so other instances can spend it', async () => {
      const charge = await first.charge(bucket, 1_000_000, 5_000);
      expect(await reservedInRedis()).toBe(5_000);
      const report = await first.settle(charge, 1);
      expect(report).toMatchObject({ requested: 5_000, actual: 1, remaining: 999_999 });
      // The instance keeps one lease (100 points) and gives the rest back.
      expect(await reservedInRedis()).toBe(101);
    });

    it('charges a settle beyond its lease to the shared window', async () => {
      const charge = await first.charge(bucket, 1_000_000, 1);
      const report = await first.settle(charge, 1_000);
      expect(report.remaining).toBe(1_000_000 - 1_000);
      // The lease of 100 paid 100 of the 1,000; the other 900 went to Redis.
      expect(await reservedInRedis()).toBe(1_000);
    });
  });

  it('refuses a request that costs more than the whole budget', async () => {
    await expect(first.charge(bucket, 10, 11)).rejects.toBeInstanceOf(CostBudgetExceeded);
    const fits = await first.charge(bucket, 10, 10);
    expect(fits.consumed).toBe(10);
  });
});

describe('CostBudgetsService without Redis', () => {
  it('counts in this process with the same rules', async () => {
    const redis = new RedisService({ redisUrl: null } as AppConfig);
    const budgets = new CostBudgetsService(redis, new MetricsService(redis));
    const bucket = `key:${randomUUID()}`;
    const charge = await budgets.charge(bucket, 5, 5);
    expect(charge.shared).toBe(false);
    await expect(budgets.charge(bucket, 5, 1)).rejects.toBeInstanceOf(CostBudgetExceeded);
    const settled = await budgets.settle(charge, 2);
    expect(settled.remaining).toBe(3);
    await expect(budgets.charge(bucket, 5, 3)).resolves.toMatchObject({ consumed: 5 });
  });

  it('falls back to this process while Redis is away, never failing the request', async () => {
    // A Redis that refuses connections: its state is down from the start.
    const redis = new RedisService({ redisUrl: 'redis://127.0.0.1:1' } as AppConfig);
    try {
      const budgets = new CostBudgetsService(redis, new MetricsService(redis));
      const charge = await budgets.charge(`key:${randomUUID()}`, 100, 7);
      expect(charge).toMatchObject({ shared: false, consumed: 7 });
    } finally {
      redis.onModuleDestroy();
    }
  });
});
