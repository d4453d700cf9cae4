import { DomainError, ErrorCode } from '../common/domain-error';
import type { MetricsService } from '../metrics/metrics.service';
import { leaseSize } from '../rate-limits/leased-throttler-storage';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import type { RedisService } from '../redis/redis.service';
import {
  LOGIN_COUNTER_CEILING,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS,
  LOGIN_FAILURES_PER_ADDRESS,
  LoginThrottleService,
} from './login-throttle.service';
import { liveEndedSessions } from './sessions.service';

/** The throttle on the in-process storage (no Redis), as one instance without `REDIS_URL` runs it. */
function throttle() {
  const metrics = { rateLimited: jest.fn() };
  const redis = { commands: null, state: () => 'off' } as unknown as RedisService;
  const limits = new RateLimitsService(redis, metrics as unknown as MetricsService);
  return {
    service: new LoginThrottleService(limits, metrics as unknown as MetricsService),
    metrics,
  };
}

const wrong = () => Promise.reject(new DomainError(ErrorCode.Unauthenticated, 'Wrong'));
const right = () => Promise.resolve('signed in');
const statusOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 200,
    (e: DomainError) => (e.code === ErrorCode.TooManyRequests ? 429 : 401),
  );

describe('LoginThrottleService', () => {
  it('reads counters that Redis counts hit by hit (no leases)', () => {
    expect(leaseSize(LOGIN_COUNTER_CEILING)).toBe(1);
    expect(LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS).toBeLessThan(LOGIN_FAILURES_PER_ADDRESS);
    expect(LOGIN_FAILURES_PER_ADDRESS).toBeLessThan(LOGIN_FAILURES_PER_ACCOUNT);
  });

  it('counts failures only, per account and address', async () => {
    const { service, metrics } = throttle();
    for (let i = 0; i < 20; i++)
      expect(await service.attempt('a@x', '1.1.1.1', right)).toBe('signed in');
    for (let i = 0; i < 10; i++)
      expect(await statusOf(service.attempt('a@x', '1.1.1.1', wrong))).toBe(401);
    const refused = await service.attempt('A@X ', '1.1.1.1', right).catch((e: DomainError) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(metrics.rateLimited).toHaveBeenCalledWith('login');
    // Refusals do not count: another address, and another account from this one, go on.
    expect(await statusOf(service.attempt('a@x', '2.2.2.2', right))).toBe(200);
    expect(await statusOf(service.attempt('b@x', '1.1.1.1', right))).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 as one (issue 22 item 12)', async () => {
    const { service } = throttle();
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS; i++)
      expect(await statusOf(service.attempt('a@x', `2001:db8:1:2::${i + 1}`, wrong))).toBe(401);
    expect(await statusOf(service.attempt('a@x', '2001:db8:1:2:ffff::9', right))).toBe(429);
    expect(await statusOf(service.attempt('a@x', '2001:db8:1:3::1', right))).toBe(200);
  });

  it('does not count errors that are no wrong password', async () => {
    const { service } = throttle();
    const broken = () => Promise.reject(new Error('store down'));
    for (let i = 0; i < 15; i++)
      await expect(service.attempt('a@x', '1.1.1.1', broken)).rejects.toThrow('store down');
    expect(await statusOf(service.attempt('a@x', '1.1.1.1', right))).toBe(200);
  });

  it('counts attempts being verified, so a burst is refused past the ceiling', async () => {
    const { service } = throttle();
    let verified = 0;
    const slowWrong = async () => {
      verified++;
      await new Promise((r) => setTimeout(r, 20));
      return wrong();
    };
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => statusOf(service.attempt('a@x', '1.1.1.1', slowWrong))),
    );
    expect(verified).toBe(LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS);
    expect(burst.filter((s) => s === 401)).toHaveLength(10);
    expect(burst.filter((s) => s === 429)).toHaveLength(30);
  });

  it('past the account-wide ceiling refuses only addresses that failed on the account', async () => {
    const { service } = throttle();
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++)
      expect(await statusOf(service.attempt('a@x', `10.0.${i % 25}.1`, wrong))).toBe(401);
    expect(await statusOf(service.attempt('a@x', '10.0.0.1', right))).toBe(429);
    expect(await statusOf(service.attempt('a@x', '10.9.9.9', right))).toBe(200);
  });

  it('refuses an address past its own ceiling, for every account', async () => {
    const { service } = throttle();
    for (let i = 0; i < LOGIN_FAILURES_PER_ADDRESS; i++)
      expect(await statusOf(service.attempt(`u${i}@x`, '3.3.3.3', wrong))).toBe(401);
    expect(await statusOf(service.attempt('fresh@x', '3.3.3.3', right))).toBe(429);
    expect(await statusOf(service.attempt('fresh@x', '4.4.4.4', right))).toBe(200);
  });
});

describe('liveEndedSessions', () => {
  it('keeps the sessions whose tokens have not expired, and survives bad text', () => {
    const text = JSON.stringify([
      { sid: 'a', exp: 100 },
      { sid: 'b', exp: 300 },
      { sid: 3, exp: 400 },
      null,
    ]);
    expect(liveEndedSessions(text, 200)).toEqual([{ sid: 'b', exp: 300 }]);
    expect(liveEndedSessions('not json', 0)).toEqual([]);
    expect(liveEndedSessions('{}', 0)).toEqual([]);
  });
});
