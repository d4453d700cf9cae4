import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { EventsService } from '../../src/events/events.service';
import { VersionsService } from '../../src/platform/versions.service';
import { RedisService } from '../../src/redis/redis.service';
import { RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { SERVICE_URLS, describeWith } from '../support/services';
import { placeSqliteFile } from '../support/sqlite-placement';

/**
 * Two instances on one PostgreSQL metadata store and Redis (CONTRACT.md §5, §7): keys and version
 * heads are cached in process, yet a revocation is refused and a published change is served on
 * the other instance's very next request; with Redis gone the caches are bypassed (revocation
 * still holds at once), and sharing resumes when it returns.
 */

/** A free loopback port for a test-owned redis-server. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startRedis(port: number): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

/** Polls `check` every 50 ms, at most 200 times. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function setUpApp(a: RunningApp, address: string) {
  const token = await a.adminToken();
  const app = (await a.http('POST', '/api/apps', { token, body: { name: address, address } })).body;
  const url = placeSqliteFile(a.dataDir, app.id, loadSalesIntoSqlite(a.dataDir, `${address}.db`));
  const ds = (
    await a.http('POST', `/api/apps/${app.id}/datasources`, {
      token,
      body: { name: 'sales', type: 'sqlite', url },
    })
  ).body;
  await a.http('POST', `/api/apps/${app.id}/model/import`, {
    token,
    body: { datasourceId: ds.id, tables: ['customers', 'orders'] },
  });
  const select = { select: true, insert: false, update: false, delete: false };
  const api = (
    await a.http('POST', `/api/apps/${app.id}/apis`, {
      token,
      body: { name: 'customers', table: 'customers', actions: select },
    })
  ).body;
  await a.http('POST', `/api/apps/${app.id}/apis/${api.id}/publish`, { token });
  await a.http('POST', `/api/apps/${app.id}/versions/publish`, { token });
  const key = async (rateLimitPerMinute?: number) =>
    (
      await a.http('POST', '/api/admin/api-keys', {
        token,
        body: { name: 'k', scope: [{ appId: app.id, endpoints: 'all' }], rateLimitPerMinute },
      })
    ).body as {
      id: string;
      key: string;
    };
  return { appId: app.id as string, apiId: api.id as string, token, key };
}

/** The value of one sample of a Prometheus counter in `text` (0 when absent). */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

const METRICS_TOKEN = 'e2e-metrics-token-0123456789';

describeWith('postgres')('Two instances sharing PostgreSQL and Redis', () => {
  const count = (run: RunningApp, address: string, key: string) =>
    run.http('POST', `/api/graphql/${address}`, {
      body: { query: '{ countCustomers }' },
      headers: { 'x-api-key': key },
    });

  describeWith('redis')('with the shared Redis', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;

    beforeAll(async () => {
      meta = await createPgDatabase('tg_meta');
      const env = {
        REDIS_URL: SERVICE_URLS.redis,
        METRICS_TOKEN,
        ANONYMOUS_RATE_LIMIT_PER_MINUTE: '4',
        // As behind one load balancer: the client address is the last X-Forwarded-For hop.
        TRUST_PROXY: '1',
      };
      a = await startApp({ databaseUrl: meta.url, env });
      // Instances of one deployment share the SQLite datasource folders, as they share the store.
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

    it('caches a key on B, and refuses it on B at once after A revokes it', async () => {
      const { key } = await setUpApp(a, 'two-a');
      const k = await key();
      expect((await count(b, 'two-a', k.key)).status).toBe(200);
      const reads = b.app.get(ApiKeysService).keyReads;
      expect((await count(b, 'two-a', k.key)).status).toBe(200);
      expect(b.app.get(ApiKeysService).keyReads).toBe(reads);
      const token = await a.adminToken();
      expect((await a.http('POST', `/api/admin/api-keys/${k.id}/revoke`, { token })).status).toBe(
        200,
      );
      // Redis delivers the event asynchronously; the very next request must not be served.
      const next = await count(b, 'two-a', k.key);
      if (next.status === 200) {
        // Only possible if the event had not arrived yet: it must within moments.
        expect(await eventually(async () => (await count(b, 'two-a', k.key)).status === 401)).toBe(
          true,
        );
      } else {
        expect(next.status).toBe(401);
        expect(next.body.errors[0].message).toBe('API key revoked');
      }
    });

    it('serves a change published through A on B', async () => {
      const { appId, token, key } = await setUpApp(a, 'two-b');
      const k = await key();
      const get = () =>
        b.http('POST', '/api/graphql/two-b', {
          body: { query: '{ getCustomers(take: 1) { id } }' },
          headers: { 'x-api-key': k.key },
        });
      expect((await get()).status).toBe(200);
      const apis = (await a.http('GET', `/api/apps/${appId}/apis`, { token })).body as {
        id: string;
      }[];
      await a.http('PATCH', `/api/apps/${appId}/apis/${apis[0].id}`, {
        token,
        body: { actions: { select: false, insert: false, update: false, delete: false } },
      });
      const orders = (
        await a.http('POST', `/api/apps/${appId}/apis`, {
          token,
          body: {
            name: 'orders',
            table: 'orders',
            actions: { select: true, insert: false, update: false, delete: false },
          },
        })
      ).body;
      await a.http('POST', `/api/apps/${appId}/apis/${orders.id}/publish`, { token });
      expect((await a.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
        200,
      );
      expect(
        await eventually(async () => {
          const res = await b.http('POST', '/api/graphql/two-b', {
            body: { query: '{ countOrders }' },
            headers: { 'x-api-key': k.key },
          });
          return res.status === 200 && typeof res.body.data?.countOrders === 'number';
        }),
      ).toBe(true);
    });
    it('refuses the sixth request of a key with a ceiling of 5 across A and B together', async () => {
      const { key } = await setUpApp(a, 'two-limit');
      const k = await key(5);
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await count(i % 2 ? b : a, 'two-limit', k.key));
      expect(answers.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers[0].headers.get('ratelimit-limit')).toBe('5');
      expect(answers[4].headers.get('ratelimit-remaining')).toBe('0');
      expect(answers[0].headers.get('ratelimit-policy')).toBe('5;w=60');
      const refused = answers[5];
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].message).toBe('Rate limit exceeded');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      // Another key of the same app has its own ceiling.
      expect((await count(b, 'two-limit', (await key(5)).key)).status).toBe(200);
    });

    it('limits anonymous callers per address and app, across A and B', async () => {
      const { appId, apiId, token } = await setUpApp(a, 'two-anon');
      await a.http('PATCH', `/api/apps/${appId}/apis/${apiId}`, {
        token,
        body: { public: { select: true, insert: false, update: false, delete: false } },
      });
      await a.http('POST', `/api/apps/${appId}/versions/publish`, { token });
      const anonymous = (run: RunningApp) =>
        run.http('POST', '/api/graphql/two-anon', { body: { query: '{ countCustomers }' } });
      expect(await eventually(async () => (await anonymous(b)).status === 200)).toBe(true);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await anonymous(i % 2 ? a : b)).status);
      // The ceiling is 4 a minute: the request that saw the change first counted too.
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[3]).toBe(429);
      // Another app's anonymous ceiling is its own.
      const other = await setUpApp(a, 'two-anon-other');
      await a.http('PATCH', `/api/apps/${other.appId}/apis/${other.apiId}`, {
        token,
        body: { public: { select: true, insert: false, update: false, delete: false } },
      });
      await a.http('POST', `/api/apps/${other.appId}/versions/publish`, { token });
      expect(
        await eventually(
          async () =>
            (
              await b.http('POST', '/api/graphql/two-anon-other', {
                body: { query: '{ countCustomers }' },
              })
            ).status === 200,
        ),
      ).toBe(true);
    });

    it('counts sign-in attempts of one account, and of one address, on A and B together', async () => {
      // Redis outlives a test run: a fresh account and address keep reruns within a minute apart.
      const run = randomBytes(3);
      const address = `10.${run[0]}.${run[1]}.${run[2]}`;
      const login = (on: RunningApp, email: string, from: string) =>
        on.http('POST', '/api/auth/login', {
          body: { email, password: 'wrong-password' },
          headers: { 'x-forwarded-for': from },
        });
      const email = `nobody-${run.toString('hex')}@e2e.test`;
      const perAccount = [];
      for (let i = 0; i < 11; i++)
        perAccount.push((await login(i % 2 ? b : a, email, address)).status);
      expect(perAccount.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(perAccount[10]).toBe(429);
      // 10 attempts from this address counted so far (the refused one stopped at its account);
      // 30 a minute are allowed, whatever the account.
      const perAddress = [];
      for (let i = 0; i < 21; i++) {
        perAddress.push((await login(i % 2 ? b : a, `other-${i}-${email}`, address)).status);
      }
      expect(perAddress.slice(0, 20).every((s) => s === 401)).toBe(true);
      expect(perAddress[20]).toBe(429);
      // Another address is not affected.
      expect((await login(b, `fresh-${email}`, `${address}1`)).status).toBe(401);
    });

    it('builds a changed schema once for 50 concurrent requests (single-flight, read from /metrics)', async () => {
      const { appId, apiId, token, key } = await setUpApp(a, 'two-flight');
      const k = await key();
      expect((await count(b, 'two-flight', k.key)).status).toBe(200);
      const versions = b.app.get(VersionsService);
      const before = (await versions.mainHead(appId))!.revision;
      await a.http('PATCH', `/api/apps/${appId}/apis/${apiId}`, {
        token,
        body: { public: { select: true, insert: false, update: false, delete: false } },
      });
      await a.http('POST', `/api/apps/${appId}/versions/publish`, { token });
      expect(
        await eventually(async () => (await versions.mainHead(appId))!.revision !== before),
      ).toBe(true);
      const metrics = async () =>
        (await b.http('GET', '/metrics', { token: METRICS_TOKEN })).body as string;
      expect((await b.http('GET', '/metrics')).status).toBe(401);
      expect((await b.http('GET', '/metrics', { token: `${METRICS_TOKEN}x` })).status).toBe(401);
      const builds = sample(await metrics(), 'tablegraph_schema_build_duration_seconds_count');
      const burst = await Promise.all(
        Array.from({ length: 50 }, () => count(b, 'two-flight', k.key)),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(50).fill(200));
      const after = await metrics();
      expect(sample(after, 'tablegraph_schema_build_duration_seconds_count')).toBe(builds + 1);
      expect(sample(after, 'tablegraph_schema_cache_hits_total')).toBeGreaterThanOrEqual(49);
    });
  });

  describe('with a Redis that goes away and comes back', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;
    let redis: ChildProcess;
    let port: number;

    beforeAll(async () => {
      port = await freePort();
      redis = startRedis(port);
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

    it('keeps answering and refusing revoked keys at once without Redis, then shares again', async () => {
      const { key } = await setUpApp(a, 'gone');
      const first = await key();
      expect((await count(b, 'gone', first.key)).status).toBe(200);

      redis.kill('SIGKILL');
      expect(await eventually(() => b.app.get(EventsService).redisState() === 'down')).toBe(true);
      expect((await count(b, 'gone', first.key)).status).toBe(200);
      const token = await a.adminToken();
      await a.http('POST', `/api/admin/api-keys/${first.id}/revoke`, { token });
      // No event can arrive: B reads the store because its caches are not trusted without Redis.
      expect((await count(b, 'gone', first.key)).status).toBe(401);
      expect((await b.http('GET', '/health')).status).toBe(200);

      redis = startRedis(port);
      expect(await eventually(() => b.app.get(EventsService).redisState() === 'ok')).toBe(true);
      expect(await eventually(() => a.app.get(EventsService).redisState() === 'ok')).toBe(true);
      const second = await key();
      expect((await count(b, 'gone', second.key)).status).toBe(200);
      await a.http('POST', `/api/admin/api-keys/${second.id}/revoke`, { token });
      expect(
        await eventually(async () => (await count(b, 'gone', second.key)).status === 401),
      ).toBe(true);
    });

    it('keeps each ceiling per instance while Redis is away (no 500s), and shares it again after', async () => {
      const { key } = await setUpApp(a, 'gone-limit');
      const redisOf = (run: RunningApp) => run.app.get(RedisService);
      expect(
        await eventually(() => redisOf(a).state() === 'ok' && redisOf(b).state() === 'ok'),
      ).toBe(true);
      const during = await key(3);

      redis.kill('SIGKILL');
      expect(await eventually(() => redisOf(b).state() === 'down')).toBe(true);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await count(b, 'gone-limit', during.key)).status);
      // Never fails open, never fails hard: B counts on its own.
      expect(statuses).toEqual([200, 200, 200, 429]);
      const unknown = await count(b, 'gone-limit', 'tgk_not-a-key-at-all');
      expect(unknown.status).toBe(401);
      const health = await b.http('GET', '/health');
      expect(health.status).toBe(200);
      expect(health.body.checks.redis).toBe('down');

      redis = startRedis(port);
      expect(
        await eventually(() => redisOf(a).state() === 'ok' && redisOf(b).state() === 'ok'),
      ).toBe(true);
      const after = await key(3);
      const shared = [];
      for (let i = 0; i < 4; i++)
        shared.push((await count(i % 2 ? b : a, 'gone-limit', after.key)).status);
      expect(shared).toEqual([200, 200, 200, 429]);
      expect((await b.http('GET', '/health')).body.checks.redis).toBe('ok');
    });
  });
});
