import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ApiKeysService } from '../../src/api-keys/api-keys.service';
import { EventsService } from '../../src/events/events.service';
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
  const key = async () =>
    (
      await a.http('POST', '/api/admin/api-keys', {
        token,
        body: { name: 'k', scope: [{ appId: app.id, endpoints: 'all' }] },
      })
    ).body as {
      id: string;
      key: string;
    };
  return { appId: app.id as string, token, key };
}

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
      a = await startApp({ databaseUrl: meta.url, env: { REDIS_URL: SERVICE_URLS.redis } });
      // Instances of one deployment share the SQLite datasource folders, as they share the store.
      b = await startApp({
        databaseUrl: meta.url,
        env: {
          REDIS_URL: SERVICE_URLS.redis,
          SQLITE_DATASOURCE_DIR: join(a.dataDir, 'datasources'),
        },
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
  });
});
