import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { describeWith, SERVICE_URLS } from '../../test/support/services';
import { LeasedThrottlerStorage, leaseSize } from './leased-throttler-storage';
import { RATE_LIMIT_PREFIX, RedisThrottlerStorage } from './redis-throttler-storage';

const WINDOW = 60_000;

describe('leaseSize', () => {
  it('counts hit by hit under 2,000 per window, then a thousandth of the limit, at most 100', () => {
    expect(leaseSize(10)).toBe(1);
    expect(leaseSize(1_999)).toBe(1);
    expect(leaseSize(2_000)).toBe(2);
    expect(leaseSize(50_000)).toBe(50);
    expect(leaseSize(1_000_000_000)).toBe(100);
  });
});

describeWith('redis')('LeasedThrottlerStorage on a real Redis', () => {
  let redis: Redis;
  let bucket: string;
  const counted = async () => Number(await redis.get(`${RATE_LIMIT_PREFIX}rate:${bucket}`));
  /** One instance of the service: its own leases over the shared Redis. */
  const instance = () => new LeasedThrottlerStorage(new RedisThrottlerStorage(redis));

  beforeAll(() => {
    redis = new Redis(SERVICE_URLS.redis, { maxRetriesPerRequest: 1 });
  });
  beforeEach(() => {
    bucket = `test:${randomUUID()}`;
  });
  afterEach(async () => {
    await redis.del(`${RATE_LIMIT_PREFIX}rate:${bucket}`);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('counts every hit in Redis for a low limit, refusing the one past it', async () => {
    const storage = instance();
    const records = [];
    for (let i = 0; i < 4; i++)
      records.push(await storage.increment(bucket, WINDOW, 3, WINDOW, 'rate'));
    expect(records.map((r) => [r.totalHits, r.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(await counted()).toBe(4);
  });

  it('reserves hits a lease at a time for a high limit, counting each hit it spends', async () => {
    const storage = instance();
    const totals: number[] = [];
    for (let i = 0; i < 250; i++)
      totals.push((await storage.increment(bucket, WINDOW, 1_000_000, WINDOW, 'rate')).totalHits);
    expect(totals).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    // Three leases of 100 reserved for 250 hits.
    expect(await counted()).toBe(300);
  });

  it('shares one lease among concurrent requests', async () => {
    const storage = instance();
    const records = await Promise.all(
      Array.from({ length: 50 }, () =>
        storage.increment(bucket, WINDOW, 1_000_000, WINDOW, 'rate'),
      ),
    );
    expect(records.every((r) => !r.isBlocked)).toBe(true);
    expect(new Set(records.map((r) => r.totalHits)).size).toBe(50);
    expect(await counted()).toBe(100);
  });

  it('never serves more than the limit across instances, and refuses at most a lease per instance early', async () => {
    const limit = 4_000; // leases of 4
    const instances = [instance(), instance(), instance()];
    let served = 0;
    let refused = 0;
    for (let i = 0; i < 4_100; i++) {
      const record = await instances[i % 3].increment(bucket, WINDOW, limit, WINDOW, 'rate');
      if (record.isBlocked) refused++;
      else served++;
    }
    expect(served).toBeLessThanOrEqual(limit);
    expect(served).toBeGreaterThanOrEqual(limit - instances.length * (leaseSize(limit) - 1));
    expect(served + refused).toBe(4_100);
    // Once full, an instance refuses without asking Redis again.
    const before = await counted();
    await instances[0].increment(bucket, WINDOW, limit, WINDOW, 'rate');
    expect(await counted()).toBe(before);
  });
});
