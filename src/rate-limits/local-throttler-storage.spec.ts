import { LOCAL_BUCKETS, LocalThrottlerStorage } from './local-throttler-storage';

describe('LocalThrottlerStorage', () => {
  afterEach(() => jest.useRealTimers());

  it('counts a fixed window per key that the first hit starts, refusing over the limit until it ends', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const storage = new LocalThrottlerStorage();
    const hit = () => storage.increment('key:a', 60_000, 2, 60_000, 'rate');
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    jest.setSystemTime(1_000_000 + 20_500);
    expect(await hit()).toMatchObject({ totalHits: 2, timeToExpire: 40, isBlocked: false });
    expect(await hit()).toEqual({
      totalHits: 3,
      timeToExpire: 40,
      isBlocked: true,
      timeToBlockExpire: 40,
    });
    // Another key and another throttler name count apart.
    expect(await storage.increment('key:b', 60_000, 2, 60_000, 'rate')).toMatchObject({
      totalHits: 1,
    });
    expect(await storage.increment('key:a', 60_000, 2, 60_000, 'login')).toMatchObject({
      totalHits: 1,
    });
    // The window ends: the next hit starts a new one.
    jest.setSystemTime(1_000_000 + 60_000);
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('counts every hit of a busy key, and keeps at most LOCAL_BUCKETS keys, the least recently counted going first', async () => {
    const storage = new LocalThrottlerStorage();
    for (let i = 0; i < 50_000; i++) await storage.increment('busy', 60_000, 1e9, 60_000, 'rate');
    expect((await storage.increment('busy', 60_000, 1e9, 60_000, 'rate')).totalHits).toBe(50_001);
    for (let i = 0; i <= LOCAL_BUCKETS; i++)
      await storage.increment(`k${i}`, 60_000, 5, 60_000, 'rate');
    // The least recently counted bucket ('busy') went first.
    expect((await storage.increment('busy', 60_000, 1e9, 60_000, 'rate')).totalHits).toBe(1);
  });
});
