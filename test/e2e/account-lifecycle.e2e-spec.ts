import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { EventsService } from '../../src/events/events.service';
import { SessionsService } from '../../src/platform/sessions.service';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { describeWith, SERVICE_URLS } from '../support/services';

/**
 * Issue 22, item 6: platform accounts have a lifecycle. Sign-out ends the session at once; a
 * password change, a role change, disabling an account or an administrator's "sign out
 * everywhere" ends all of the account's sessions at once (a token version per account, carried in
 * the session and checked on every request, on every instance); administrators change role,
 * password and the disabled switch of any account, but no change may leave no active
 * administrator.
 */

/** Polls `check` every 50 ms, at most 200 times. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** The lifecycle routes over one running service (its own metadata store). */
function lifecycle(runOf: () => RunningApp) {
  const run = () => runOf();
  const login = async (email: string, password: string) => {
    const res = await run().http('POST', '/api/auth/login', { body: { email, password } });
    return res;
  };
  const tokenOf = async (email: string, password: string) => {
    const res = await login(email, password);
    expect(res.status).toBe(200);
    return res.body.token as string;
  };
  /** A fresh administrator session (a suite's test may have ended the harness's cached one). */
  const adminToken = () => tokenOf(ADMIN.email, ADMIN.password);
  const newAccount = async (role: 'admin' | 'builder' = 'builder') => {
    const account = {
      email: `${role}-${randomBytes(4).toString('hex')}@e2e.test`,
      password: 'first-password-1',
    };
    const res = await run().http('POST', '/api/admin/accounts', {
      token: await adminToken(),
      body: { ...account, role },
    });
    expect(res.status).toBe(201);
    return { ...account, id: res.body.id as string };
  };
  const apps = (token: string) => run().http('GET', '/api/apps', { token });
  const patch = async (id: string, body: unknown, token?: string) =>
    run().http('PATCH', `/api/admin/accounts/${id}`, {
      token: token ?? (await adminToken()),
      body,
    });
  return { login, tokenOf, adminToken, newAccount, apps, patch };
}

describe('Platform account lifecycle (SQLite metadata store)', () => {
  let run: RunningApp;
  const { login, tokenOf, newAccount, apps, patch } = lifecycle(() => run);

  beforeAll(async () => {
    run = await startApp();
  });
  afterAll(() => run?.close());

  it('ends the session at sign-out (bearer and cookie), on REST and the GraphQL endpoint', async () => {
    const builder = await newAccount();
    const token = await tokenOf(builder.email, builder.password);
    const other = await tokenOf(builder.email, builder.password);
    const address = `out-${randomBytes(3).toString('hex')}`;
    expect(
      (await run.http('POST', '/api/apps', { token, body: { name: address, address } })).status,
    ).toBe(201);
    const graphql = () =>
      run.http('POST', `/api/graphql/${address}`, { token, body: { query: '{ __typename }' } });
    expect((await graphql()).status).toBe(200);
    const out = await run.http('POST', '/api/auth/logout', { token });
    expect(out.status).toBe(204);
    expect((await apps(token)).status).toBe(401);
    expect((await graphql()).status).toBe(401);
    // Signing out again with the ended token is harmless.
    expect((await run.http('POST', '/api/auth/logout', { token })).status).toBe(204);
    // Another session of the account (another browser) stays signed in.
    expect((await apps(other)).status).toBe(200);

    // The page's way: the cookie, sent with the service's own Origin.
    const signedIn = await login(builder.email, builder.password);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
    expect((await run.http('GET', '/api/apps', { headers: { cookie } })).status).toBe(200);
    const outByCookie = await run.http('POST', '/api/auth/logout', {
      headers: { cookie, origin: run.baseUrl },
    });
    expect(outByCookie.status).toBe(204);
    expect(outByCookie.headers.get('set-cookie') ?? '').toMatch(/tg_session=;/);
    expect((await run.http('GET', '/api/apps', { headers: { cookie } })).status).toBe(401);
    // A cross-site sign-out is refused and ends nothing.
    const again = (await login(builder.email, builder.password)).headers.get('set-cookie') ?? '';
    const againCookie = again.split(';')[0];
    const crossSite = await run.http('POST', '/api/auth/logout', {
      headers: { cookie: againCookie, origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect((await run.http('GET', '/api/apps', { headers: { cookie: againCookie } })).status).toBe(
      200,
    );
  });

  it('lists accounts for administrators, never with a password or its hash', async () => {
    const builder = await newAccount();
    const listed = await run.http('GET', '/api/admin/accounts', { token: await run.adminToken() });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(
      expect.arrayContaining([
        {
          id: builder.id,
          email: builder.email,
          role: 'builder',
          disabled: false,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        expect.objectContaining({ email: ADMIN.email, role: 'admin', disabled: false }),
      ]),
    );
    expect(JSON.stringify(listed.body)).not.toMatch(/password|hash|argon|version/i);
    const token = await tokenOf(builder.email, builder.password);
    expect((await run.http('GET', '/api/admin/accounts', { token })).status).toBe(403);
    expect((await run.http('GET', '/api/admin/accounts')).status).toBe(401);
  });

  it('ends every session of an account when an administrator sets its password', async () => {
    const builder = await newAccount();
    const first = await tokenOf(builder.email, builder.password);
    const second = await tokenOf(builder.email, builder.password);
    const res = await patch(builder.id, { password: 'second-password-2' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: builder.id,
      email: builder.email,
      role: 'builder',
      disabled: false,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain('second-password-2');
    expect((await apps(first)).status).toBe(401);
    expect((await apps(second)).status).toBe(401);
    expect((await login(builder.email, builder.password)).status).toBe(401);
    expect((await apps(await tokenOf(builder.email, 'second-password-2'))).status).toBe(200);
  });

  it('ends the sessions of an account whose role changes, and signs it in with the new role', async () => {
    const builder = await newAccount();
    const asBuilder = await tokenOf(builder.email, builder.password);
    expect((await run.http('GET', '/api/admin/api-keys', { token: asBuilder })).status).toBe(403);
    const promoted = await patch(builder.id, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('admin');
    expect((await apps(asBuilder)).status).toBe(401);
    const signedIn = await login(builder.email, builder.password);
    expect(signedIn.body.account.role).toBe('admin');
    const asAdmin = signedIn.body.token as string;
    expect((await run.http('GET', '/api/admin/api-keys', { token: asAdmin })).status).toBe(200);
    // Demoted again: the administrator session ends at once.
    expect((await patch(builder.id, { role: 'builder' })).status).toBe(200);
    expect((await run.http('GET', '/api/admin/api-keys', { token: asAdmin })).status).toBe(401);
    // Setting the role it already has changes nothing and ends nothing.
    const current = await tokenOf(builder.email, builder.password);
    expect((await patch(builder.id, { role: 'builder' })).status).toBe(200);
    expect((await apps(current)).status).toBe(200);
  });

  it('disables an account (sessions ended, sign-in refused) and enables it again', async () => {
    const builder = await newAccount();
    const token = await tokenOf(builder.email, builder.password);
    const disabled = await patch(builder.id, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    expect((await apps(token)).status).toBe(401);
    const refused = await login(builder.email, builder.password);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Wrong email or password');
    const enabled = await patch(builder.id, { disabled: false });
    expect(enabled.body.disabled).toBe(false);
    // Enabling does not bring the old sessions back.
    expect((await apps(token)).status).toBe(401);
    expect((await apps(await tokenOf(builder.email, builder.password))).status).toBe(200);
  });

  it('signs an account out everywhere on an administrator request', async () => {
    const builder = await newAccount();
    const tokens = [
      await tokenOf(builder.email, builder.password),
      await tokenOf(builder.email, builder.password),
    ];
    const res = await run.http('POST', `/api/admin/accounts/${builder.id}/logout`, {
      token: await run.adminToken(),
    });
    expect(res.status).toBe(204);
    for (const token of tokens) expect((await apps(token)).status).toBe(401);
    expect((await apps(await tokenOf(builder.email, builder.password))).status).toBe(200);
    expect(
      (
        await run.http('POST', `/api/admin/accounts/no-such-account/logout`, {
          token: await run.adminToken(),
        })
      ).status,
    ).toBe(404);
  });

  it('changes its own password, ending its other sessions and keeping the new one', async () => {
    const builder = await newAccount();
    const other = await tokenOf(builder.email, builder.password);
    const token = await tokenOf(builder.email, builder.password);
    const wrong = await run.http('POST', '/api/auth/password', {
      token,
      body: { currentPassword: 'not-it-at-all', newPassword: 'my-new-password-3' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/current password/);
    expect((await apps(token)).status).toBe(200);
    const changed = await run.http('POST', '/api/auth/password', {
      token,
      body: { currentPassword: builder.password, newPassword: 'my-new-password-3' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.account).toEqual({ id: builder.id, email: builder.email, role: 'builder' });
    expect(changed.headers.get('set-cookie') ?? '').toMatch(/tg_session=[^;]+; .*HttpOnly/i);
    expect(JSON.stringify(changed.body)).not.toContain('my-new-password-3');
    expect((await apps(token)).status).toBe(401);
    expect((await apps(other)).status).toBe(401);
    expect((await apps(changed.body.token)).status).toBe(200);
    expect((await login(builder.email, builder.password)).status).toBe(401);
    expect((await login(builder.email, 'my-new-password-3')).status).toBe(200);
    const short = await run.http('POST', '/api/auth/password', {
      token: changed.body.token,
      body: { currentPassword: 'my-new-password-3', newPassword: 'short' },
    });
    expect(short.status).toBe(400);
    expect((await run.http('POST', '/api/auth/password', { body: {} })).status).toBe(401);
  });

  it('validates changes, 404s unknown accounts and refuses builders', async () => {
    const builder = await newAccount();
    const bad = await patch(builder.id, {
      role: 'root',
      disabled: 'yes',
      password: 'short',
      tokenVersion: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toHaveLength(4);
    expect(JSON.stringify(bad.body)).not.toContain('short');
    expect((await patch('no-such-account', { disabled: true })).status).toBe(404);
    const token = await tokenOf(builder.email, builder.password);
    expect((await patch(builder.id, { role: 'admin' }, token)).status).toBe(403);
  });
});

/** The last-administrator rule, on one metadata store. */
function lastAdministratorRule(runOf: () => RunningApp) {
  const lifecycleRoutes = lifecycle(runOf);
  const { tokenOf, newAccount, patch } = lifecycleRoutes;
  return async () => {
    const run = runOf();
    const adminToken = await lifecycleRoutes.adminToken();
    const self = (await run.http('GET', '/api/admin/accounts', { token: adminToken })).body as {
      id: string;
      email: string;
      role: string;
    }[];
    const admin = self.find((a) => a.email === ADMIN.email)!;
    for (const change of [{ role: 'builder' }, { disabled: true }]) {
      const refused = await patch(admin.id, change, adminToken);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/no active administrator/);
    }
    // Nothing changed, nothing ended.
    expect((await run.http('GET', '/api/admin/accounts', { token: adminToken })).status).toBe(200);

    // Two administrators demoting themselves at the same moment: exactly one may.
    const second = await newAccount('admin');
    const secondToken = await tokenOf(second.email, second.password);
    const both = await Promise.all([
      patch(admin.id, { role: 'builder' }, adminToken),
      patch(second.id, { role: 'builder' }, secondToken),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const listed = (
      await run.http('GET', '/api/admin/accounts', {
        token: both[0].status === 200 ? secondToken : adminToken,
      })
    ).body as { id: string; role: string; disabled: boolean }[];
    expect(listed.filter((a) => a.role === 'admin' && !a.disabled)).toHaveLength(1);
    // Put the first administrator back for the suites' other tests.
    if (both[0].status === 200) {
      expect((await patch(admin.id, { role: 'admin' }, secondToken)).status).toBe(200);
    }
  };
}

describe('The last active administrator (SQLite metadata store)', () => {
  let run: RunningApp;
  beforeAll(async () => {
    run = await startApp();
  });
  afterAll(() => run?.close());

  it('cannot demote or disable itself, even racing another', () =>
    lastAdministratorRule(() => run)());
});

describeWith('postgres')('Platform account lifecycle on PostgreSQL', () => {
  let db: PgDatabase;
  let run: RunningApp;
  beforeAll(async () => {
    db = await createPgDatabase('tg_meta');
    run = await startApp({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await run?.close();
    await db?.drop();
  });

  it('keeps one active administrator when two demote themselves at once', () =>
    lastAdministratorRule(() => run)());

  it('waits for a demotion another instance has not committed yet, then refuses the last one', async () => {
    const { tokenOf, newAccount, patch } = lifecycle(() => run);
    const first = await newAccount('admin');
    const second = await newAccount('admin');
    const secondToken = await tokenOf(second.email, second.password);
    // Every administrator but these two steps down, so they are the last two.
    await db.exec(`UPDATE account SET role = 'builder' WHERE id NOT IN ($1, $2)`, [
      first.id,
      second.id,
    ]);
    // Another instance demotes the first, in a transaction it has not committed yet.
    await db.exec('BEGIN');
    await db.exec(`UPDATE account SET role = 'builder' WHERE id = $1`, [first.id]);
    let answered = false;
    const demotion = patch(second.id, { role: 'builder' }, secondToken).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((r) => setTimeout(r, 500));
    // The service waits for the other transaction rather than deciding from what it saw.
    expect(answered).toBe(false);
    await db.exec('COMMIT');
    const res = await demotion;
    expect(res.status).toBe(409);
    const admins = await db.exec(`SELECT id FROM account WHERE role = 'admin' AND NOT disabled`);
    expect(admins).toEqual([{ id: second.id }]);
  });
});

describeWith('postgres')('Platform sessions on two instances', () => {
  describeWith('redis')('sharing Redis', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;
    const { tokenOf, newAccount, patch } = lifecycle(() => a);

    beforeAll(async () => {
      meta = await createPgDatabase('tg_meta');
      const env = { REDIS_URL: SERVICE_URLS.redis };
      a = await startApp({ databaseUrl: meta.url, env });
      b = await startApp({
        databaseUrl: meta.url,
        env: { ...env, SQLITE_DATASOURCE_DIR: join(a.dataDir, 'datasources') },
      });
      expect(await eventually(() => a.app.get(EventsService).redisState() === 'ok')).toBe(true);
      expect(await eventually(() => b.app.get(EventsService).redisState() === 'ok')).toBe(true);
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await meta?.drop();
    });

    /** Whether B refuses `token` on its next request, or within moments (Redis delivers events asynchronously). */
    async function refusedOnB(token: string): Promise<boolean> {
      const next = await b.http('GET', '/api/apps', { token });
      if (next.status === 401) return true;
      return eventually(async () => (await b.http('GET', '/api/apps', { token })).status === 401);
    }

    it('caches a session on B, and refuses it on B once it signs out on A', async () => {
      const builder = await newAccount();
      const token = await tokenOf(builder.email, builder.password);
      expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
      const sessions = b.app.get(SessionsService);
      const reads = sessions.accountReads;
      expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
      // Served from B's cache: only the event can tell B the session ended.
      expect(sessions.accountReads).toBe(reads);
      expect((await a.http('POST', '/api/auth/logout', { token })).status).toBe(204);
      expect(await refusedOnB(token)).toBe(true);
    });

    it('refuses on B the sessions of an account disabled, demoted or re-passworded on A', async () => {
      for (const change of [{ disabled: true }, { password: 'changed-password-9' }]) {
        const builder = await newAccount();
        const token = await tokenOf(builder.email, builder.password);
        expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
        expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
        expect((await patch(builder.id, change)).status).toBe(200);
        expect(await refusedOnB(token)).toBe(true);
      }
      const admin = await newAccount('admin');
      const token = await tokenOf(admin.email, admin.password);
      expect((await b.http('GET', '/api/admin/api-keys', { token })).status).toBe(200);
      expect((await b.http('GET', '/api/admin/api-keys', { token })).status).toBe(200);
      expect((await patch(admin.id, { role: 'builder' })).status).toBe(200);
      expect(await refusedOnB(token)).toBe(true);
    });
  });

  describe('with a Redis that goes away', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;
    let redis: ChildProcess;
    const { tokenOf, newAccount } = lifecycle(() => a);

    beforeAll(async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
          const { port: free } = server.address() as { port: number };
          server.close(() => resolve(free));
        });
      });
      redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      meta = await createPgDatabase('tg_meta');
      const env = { REDIS_URL: `redis://127.0.0.1:${port}` };
      a = await startApp({ databaseUrl: meta.url, env });
      b = await startApp({
        databaseUrl: meta.url,
        env: { ...env, SQLITE_DATASOURCE_DIR: join(a.dataDir, 'datasources') },
      });
      expect(await eventually(() => b.app.get(EventsService).redisState() === 'ok')).toBe(true);
    });

    afterAll(async () => {
      redis?.kill('SIGKILL');
      await a?.close();
      await b?.close();
      await meta?.drop();
    });

    it('reads the account on every request while Redis is away, so a sign-out holds at once', async () => {
      const builder = await newAccount();
      const token = await tokenOf(builder.email, builder.password);
      expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
      redis.kill('SIGKILL');
      expect(await eventually(() => b.app.get(EventsService).redisState() === 'down')).toBe(true);
      const sessions = b.app.get(SessionsService);
      const reads = sessions.accountReads;
      expect((await b.http('GET', '/api/apps', { token })).status).toBe(200);
      expect(sessions.accountReads).toBe(reads + 1);
      expect((await a.http('POST', '/api/auth/logout', { token })).status).toBe(204);
      // No event can arrive: B does not trust its cache without Redis.
      expect((await b.http('GET', '/api/apps', { token })).status).toBe(401);
    });
  });
});
