import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { EventsService } from '../../src/events/events.service';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { describeWith, SERVICE_URLS } from '../support/services';

/**
 * Issue 22, item 5: nobody locks an account out of sign-in. Only failed sign-ins count; they are
 * counted per (account, client address), with a higher ceiling per account across addresses and
 * one per address across accounts. An address without failures on an account signs in while
 * another address is refused; the same holds for app users; the counters are shared by every
 * instance through Redis.
 */

/** Sign-in from a given client address (the service trusts one proxy hop in these suites). */
function signIn(run: RunningApp, from: string, email: string, password: string, appId?: string) {
  return run.http('POST', appId ? `/api/apps/${appId}/auth/login` : '/api/auth/login', {
    body: { email, password },
    headers: { 'x-forwarded-for': from },
  });
}

/** A random IPv4 address in 10/8: counters outlive an app in Redis, so reruns never collide. */
function randomAddress(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/** `times` statuses of the same sign-in, one after another. */
async function statuses(times: number, attempt: () => Promise<{ status: number }>) {
  const seen: number[] = [];
  for (let i = 0; i < times; i++) seen.push((await attempt()).status);
  return seen;
}

describe('Sign-in throttling (one instance, counters in process)', () => {
  let run: RunningApp;
  let admin: string;

  beforeAll(async () => {
    run = await startApp({ env: { TRUST_PROXY: '1' } });
    admin = await run.adminToken();
  });
  afterAll(() => run?.close());

  async function createAccount(role: 'admin' | 'builder' = 'builder') {
    const account = {
      email: `acct-${randomBytes(4).toString('hex')}@e2e.test`,
      password: 'account-password-1',
    };
    const res = await run.http('POST', '/api/admin/accounts', {
      token: admin,
      body: { ...account, role },
    });
    expect(res.status).toBe(201);
    return account;
  }

  it('refuses the address that failed 10 times, and still signs the administrator in from another address', async () => {
    const attacker = randomAddress();
    const wrong = await statuses(10, () => signIn(run, attacker, ADMIN.email, 'wrong-password'));
    expect(wrong).toEqual(Array(10).fill(401));
    const refused = await signIn(run, attacker, ADMIN.email, 'wrong-password');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.message).toMatch(/Too many sign-in attempts/);
    // The right password from the refused address is refused too: no oracle for the guesser.
    expect((await signIn(run, attacker, ADMIN.email, ADMIN.password)).status).toBe(429);
    // The administrator, from an address without failures, is not locked out.
    const owner = await signIn(run, randomAddress(), ADMIN.email, ADMIN.password);
    expect(owner.status).toBe(200);
    expect(owner.body.account.email).toBe(ADMIN.email);
    // And the attacker's address may still try other accounts (its own ceiling is separate).
    const other = await createAccount();
    expect((await signIn(run, attacker, other.email, other.password)).status).toBe(200);
  });

  it('counts failures only: an account signs in many times a minute from one address', async () => {
    const account = await createAccount();
    const from = randomAddress();
    const ok = await statuses(15, () => signIn(run, from, account.email, account.password));
    expect(ok).toEqual(Array(15).fill(200));
    // Its failure allowance is untouched by those sign-ins.
    const wrong = await statuses(10, () => signIn(run, from, account.email, 'wrong-password'));
    expect(wrong).toEqual(Array(10).fill(401));
    expect((await signIn(run, from, account.email, account.password)).status).toBe(429);
  });

  it('past the account-wide ceiling refuses addresses that failed, and lets an address without failures in', async () => {
    const account = await createAccount();
    const addresses = Array.from({ length: 20 }, () => randomAddress());
    // 100 failures, 5 from each of 20 addresses: no address reaches its own 10.
    for (const from of addresses) {
      const wrong = await statuses(5, () => signIn(run, from, account.email, 'wrong-password'));
      expect(wrong).toEqual(Array(5).fill(401));
    }
    // Over the account's ceiling, an address that failed on it is refused, right password or not.
    expect((await signIn(run, addresses[0], account.email, account.password)).status).toBe(429);
    // An address without failures still signs in...
    const fresh = randomAddress();
    expect((await signIn(run, fresh, account.email, account.password)).status).toBe(200);
    // ...but gets one guess only while the account is under attack.
    const guesser = randomAddress();
    expect((await signIn(run, guesser, account.email, 'wrong-password')).status).toBe(401);
    expect((await signIn(run, guesser, account.email, account.password)).status).toBe(429);
  });

  it('refuses one address spraying 30 failures over many accounts, for every account', async () => {
    const sprayer = randomAddress();
    const wrong = await statuses(30, () =>
      signIn(run, sprayer, `nobody-${randomBytes(4).toString('hex')}@e2e.test`, 'wrong-password'),
    );
    expect(wrong).toEqual(Array(30).fill(401));
    const account = await createAccount();
    expect((await signIn(run, sprayer, account.email, account.password)).status).toBe(429);
    expect((await signIn(run, randomAddress(), account.email, account.password)).status).toBe(200);
  });

  it('lets at most 10 of 40 concurrent wrong passwords of one address be tried', async () => {
    const account = await createAccount();
    const from = randomAddress();
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => signIn(run, from, account.email, 'wrong-password')),
    );
    const tried = burst.filter((r) => r.status === 401).length;
    expect(tried).toBeGreaterThanOrEqual(1);
    expect(tried).toBeLessThanOrEqual(10);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(40 - tried);
  });

  it('throttles app users the same way', async () => {
    const app = (
      await run.http('POST', '/api/apps', {
        token: admin,
        body: { name: 'Throttled', address: `thr-${randomBytes(3).toString('hex')}` },
      })
    ).body;
    const user = { email: 'ana@shop.test', password: 'ana-password-1' };
    expect(
      (
        await run.http('POST', `/api/apps/${app.id}/users`, {
          token: admin,
          body: { ...user, roles: ['customer'] },
        })
      ).status,
    ).toBe(201);
    const from = randomAddress();
    const ok = await statuses(12, () => signIn(run, from, user.email, user.password, app.id));
    expect(ok).toEqual(Array(12).fill(200));
    const attacker = randomAddress();
    const wrong = await statuses(10, () => signIn(run, attacker, user.email, 'wrong', app.id));
    expect(wrong).toEqual(Array(10).fill(401));
    expect((await signIn(run, attacker, user.email, user.password, app.id)).status).toBe(429);
    const owner = await signIn(run, randomAddress(), user.email, user.password, app.id);
    expect(owner.status).toBe(200);
    expect(owner.body.token).toEqual(expect.any(String));
  });
});

describeWith('postgres')('Sign-in throttling on two instances', () => {
  describeWith('redis')('sharing Redis', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;

    beforeAll(async () => {
      meta = await createPgDatabase('tg_meta');
      const env = { REDIS_URL: SERVICE_URLS.redis, TRUST_PROXY: '1' };
      a = await startApp({ databaseUrl: meta.url, env });
      b = await startApp({
        databaseUrl: meta.url,
        env: { ...env, SQLITE_DATASOURCE_DIR: join(a.dataDir, 'datasources') },
      });
      for (const run of [a, b]) {
        for (let i = 0; i < 200 && run.app.get(EventsService).redisState() !== 'ok'; i++)
          await new Promise((r) => setTimeout(r, 50));
        expect(run.app.get(EventsService).redisState()).toBe('ok');
      }
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await meta?.drop();
    });

    it('counts the failures of one address on A and B together, and lets another address in on either', async () => {
      const account = {
        email: `shared-${randomBytes(4).toString('hex')}@e2e.test`,
        password: 'shared-password-1',
      };
      expect(
        (
          await a.http('POST', '/api/admin/accounts', {
            token: await a.adminToken(),
            body: { ...account, role: 'builder' },
          })
        ).status,
      ).toBe(201);
      const attacker = randomAddress();
      const wrong = await statuses(10, async () => {
        const on = Math.random() < 0.5 ? a : b;
        return signIn(on, attacker, account.email, 'wrong-password');
      });
      expect(wrong).toEqual(Array(10).fill(401));
      expect((await signIn(a, attacker, account.email, account.password)).status).toBe(429);
      expect((await signIn(b, attacker, account.email, account.password)).status).toBe(429);
      expect((await signIn(b, randomAddress(), account.email, account.password)).status).toBe(200);
      expect((await signIn(a, randomAddress(), account.email, account.password)).status).toBe(200);
      // Successes on both instances never count.
      const from = randomAddress();
      const ok = await statuses(12, () =>
        signIn(Math.random() < 0.5 ? a : b, from, account.email, account.password),
      );
      expect(ok).toEqual(Array(12).fill(200));
    });
  });
});
