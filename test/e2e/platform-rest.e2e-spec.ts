import Database from 'better-sqlite3';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { describeWith, SERVICE_URLS } from '../support/services';
import { placeSqliteFile } from '../support/sqlite-placement';

/** POST with a chosen Host header (fetch may not set Host). */
function postWithHost(
  baseUrl: string,
  path: string,
  host: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; body: any }> {
  const url = new URL(baseUrl + path);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('Platform REST over HTTP (SQLite metadata store)', () => {
  let run: RunningApp;
  let admin: string;
  let builder: string;

  beforeAll(async () => {
    run = await startApp();
    admin = await run.adminToken();
    const created = await run.http('POST', '/api/admin/accounts', {
      token: admin,
      body: { email: 'builder@e2e.test', password: 'builder-password', role: 'builder' },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toMatch(/password/i);
    builder = (
      await run.http('POST', '/api/auth/login', {
        body: { email: 'builder@e2e.test', password: 'builder-password' },
      })
    ).body.token;
  });

  afterAll(() => run?.close());

  it('signs in with a token and an HttpOnly SameSite=Strict cookie; wrong credentials get 401', async () => {
    const ok = await run.http('POST', '/api/auth/login', { body: ADMIN });
    expect(ok.status).toBe(200);
    expect(ok.body.account).toEqual({ id: expect.any(String), email: ADMIN.email, role: 'admin' });
    const cookie = ok.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const viaCookie = await run.http('GET', '/api/apps', {
      headers: { cookie: cookie.split(';')[0] },
    });
    expect(viaCookie.status).toBe(200);
    const wrong = await run.http('POST', '/api/auth/login', {
      body: { email: ADMIN.email, password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('answers 401 without a session and 403 for a builder on administrator routes', async () => {
    expect((await run.http('GET', '/api/apps')).status).toBe(401);
    expect((await run.http('GET', '/api/apps', { token: 'not-a-token' })).status).toBe(401);
    expect((await run.http('GET', '/api/apps', { token: builder })).status).toBe(200);
    expect((await run.http('GET', '/api/admin/api-keys', { token: builder })).status).toBe(403);
    expect(
      (
        await run.http('POST', '/api/admin/accounts', {
          token: builder,
          body: { email: 'x@y.z', password: 'longenough', role: 'admin' },
        })
      ).status,
    ).toBe(403);
  });

  it('lists every problem of an invalid body in one 400', async () => {
    const res = await run.http('POST', '/api/apps', {
      token: builder,
      body: { address: 'A!', extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.join('\n')).toMatch(/name/);
    expect(res.body.details.join('\n')).toMatch(/address/);
    expect(res.body.details.join('\n')).toMatch(/extra/);
  });

  it('creates apps with unique addresses, 404s unknown ids, and sets a domain', async () => {
    const app = await run.http('POST', '/api/apps', {
      token: builder,
      body: { name: 'Shop', address: 'shop' },
    });
    expect(app.status).toBe(201);
    expect(app.body).toEqual({
      id: expect.any(String),
      name: 'Shop',
      address: 'shop',
      domain: null,
    });
    expect(
      (
        await run.http('POST', '/api/apps', {
          token: builder,
          body: { name: 'Again', address: 'shop' },
        })
      ).status,
    ).toBe(409);
    expect((await run.http('GET', '/api/apps/no-such-id', { token: builder })).status).toBe(404);
    const patched = await run.http('PATCH', `/api/apps/${app.body.id}`, {
      token: builder,
      body: { domain: 'shop.example.com' },
    });
    expect(patched.body.domain).toBe('shop.example.com');
    expect(
      (
        await run.http('PATCH', `/api/apps/${app.body.id}`, {
          token: builder,
          body: { domain: 'not a host' },
        })
      ).status,
    ).toBe(400);
  });

  it('tries a datasource before saving it and never echoes its URL or password', async () => {
    const app = await run.http('POST', '/api/apps', {
      token: builder,
      body: { name: 'Ds', address: 'ds-test' },
    });
    const secretUrl = 'postgres://someone:TopSecretPw@127.0.0.1:1/none';
    const bad = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
      token: builder,
      body: { name: 'x', type: 'postgres', url: secretUrl },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Could not connect/);
    expect(JSON.stringify(bad.body)).not.toContain('TopSecretPw');
    const missingFile = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
      token: builder,
      body: { name: 'x', type: 'sqlite', url: 'sqlite:/no/such/file.db' },
    });
    expect(missingFile.status).toBe(400);
    // Only files in the datasource folder: never the metadata store or any other server file.
    const store = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
      token: builder,
      body: { name: 'x', type: 'sqlite', url: `sqlite:${run.dataDir}/platform.db` },
    });
    expect(store.status).toBe(400);
    expect(store.body.message).toMatch(/own datasource folder/);
    expect(store.body.message).not.toContain(run.dataDir);
    const escape = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
      token: builder,
      body: { name: 'x', type: 'sqlite', url: 'sqlite:../platform.db' },
    });
    expect(escape.status).toBe(400);
    const unsupported = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
      token: builder,
      body: { name: 'x', type: 'oracle', url: 'x' },
    });
    expect(unsupported.status).toBe(400);
  });

  describeWith('postgres')('on a real server', () => {
    it("tells a refused login and a missing database apart, in the service's words (issue 22 item 9)", async () => {
      const app = await run.http('POST', '/api/apps', {
        token: builder,
        body: { name: 'Ds reasons', address: 'ds-reasons' },
      });
      const register = (url: string) =>
        run.http('POST', `/api/apps/${app.body.id}/datasources`, {
          token: builder,
          body: { name: 'x', type: 'postgres', url },
        });
      const server = new URL(SERVICE_URLS.postgres);
      const login = await register(
        `postgres://no_such_role_tg:Unexpectedly-p@${server.host}/postgres`,
      );
      expect(login.status).toBe(400);
      expect(login.body).toEqual({
        statusCode: 400,
        code: 'DATASOURCE_UNREACHABLE',
        message:
          'Could not connect to the datasource: the PostgreSQL server refused the login; check ' +
          'the user name and the password, and that this user may connect to the database',
      });
      const url = new URL(SERVICE_URLS.postgres);
      url.pathname = '/no_such_database_tg';
      const missing = await register(url.toString());
      expect(missing.body.message).toBe(
        'Could not connect to the datasource: the PostgreSQL server has no database of that ' +
          'name; check the database in the URL',
      );
      // The server's own words (role and database names) are never echoed.
      expect(JSON.stringify([login.body, missing.body])).not.toMatch(/no_such|Unexpectedly/);
    });
  });

  it('refuses unknown tables on import, bad fields trees, and publishing without an action', async () => {
    const app = (
      await run.http('POST', '/api/apps', {
        token: builder,
        body: { name: 'Model', address: 'model-test' },
      })
    ).body;
    const ds = await run.http('POST', `/api/apps/${app.id}/datasources`, {
      token: builder,
      body: {
        name: 'sales',
        type: 'sqlite',
        url: placeSqliteFile(run.dataDir, app.id, loadSalesIntoSqlite(run.dataDir)),
      },
    });
    expect(ds.status).toBe(201);
    const again = await run.http('POST', `/api/apps/${app.id}/datasources`, {
      token: builder,
      body: { name: 'sales', type: 'sqlite', url: 'sqlite:sales.db' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/sales/);
    const unknown = await run.http('POST', `/api/apps/${app.id}/model/import`, {
      token: builder,
      body: { datasourceId: ds.body.id, tables: ['orders', 'nope'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual(['no table "nope"']);
    const imported = await run.http('POST', `/api/apps/${app.id}/model/import`, {
      token: builder,
      body: { datasourceId: ds.body.id, tables: ['orders', 'customers'] },
    });
    expect(imported.status).toBe(201);
    // Only two of three tables: orders → customers both ways, no order_lines navigation.
    const orders = imported.body.find((t: { name: string }) => t.name === 'orders');
    expect(orders.relations.map((r: { name: string }) => r.name)).toEqual(['customer']);

    const badTree = await run.http('POST', `/api/apps/${app.id}/apis`, {
      token: builder,
      body: {
        name: 'orders',
        table: 'orders',
        actions: { select: true, insert: false, update: false, delete: false },
        fields: { id: true, nope: true, customer: true },
      },
    });
    expect(badTree.status).toBe(400);
    expect(badTree.body.details).toHaveLength(2);
    const noAction = await run.http('POST', `/api/apps/${app.id}/apis`, {
      token: builder,
      body: {
        name: 'orders',
        table: 'orders',
        actions: { select: false, insert: false, update: false, delete: false },
      },
    });
    expect(noAction.status).toBe(201);
    expect(noAction.body.status).toBe('draft');
    const publish = await run.http('POST', `/api/apps/${app.id}/apis/${noAction.body.id}/publish`, {
      token: builder,
    });
    expect(publish.status).toBe(400);
    const dup = await run.http('POST', `/api/apps/${app.id}/apis`, {
      token: builder,
      body: {
        name: 'Orders',
        table: 'customers',
        actions: { select: true, insert: false, update: false, delete: false },
      },
    });
    expect(dup.status).toBe(409);

    // Deactivating a table takes its API out of the schema on the next request.
    const api = await run.http('PATCH', `/api/apps/${app.id}/apis/${noAction.body.id}`, {
      token: builder,
      body: { actions: { select: true, insert: false, update: false, delete: false } },
    });
    expect(api.status).toBe(200);
    const q = (query: string) =>
      run.http('POST', '/api/graphql/model-test', { token: builder, body: { query } });
    expect((await q('{ countOrders }')).body.data.countOrders).toBe(12);
    expect(
      (
        await run.http('PATCH', `/api/apps/${app.id}/model/tables/orders`, {
          token: builder,
          body: { active: false },
        })
      ).body.active,
    ).toBe(false);
    expect((await q('{ countOrders }')).status).toBe(400);
  });

  it('refreshes columns on re-import and deletes Table APIs', async () => {
    const app = (
      await run.http('POST', '/api/apps', {
        token: builder,
        body: { name: 'Refresh', address: 'refresh-test' },
      })
    ).body;
    const url = placeSqliteFile(
      run.dataDir,
      app.id,
      loadSalesIntoSqlite(run.dataDir, 'refresh.db'),
    );
    const ds = (
      await run.http('POST', `/api/apps/${app.id}/datasources`, {
        token: builder,
        body: { name: 'sales', type: 'sqlite', url },
      })
    ).body;
    const fieldsOf = async () => {
      const res = await run.http('POST', `/api/apps/${app.id}/model/import`, {
        token: builder,
        body: { datasourceId: ds.id, tables: ['customers'] },
      });
      expect(res.status).toBe(201);
      return res.body[0].fields.map((f: { name: string }) => f.name);
    };
    expect(await fieldsOf()).toEqual(['id', 'name', 'email', 'city', 'created_at']);
    const db = new Database(join(run.dataDir, 'datasources', app.id, 'refresh.db'));
    db.exec(
      'ALTER TABLE customers ADD COLUMN vip BOOLEAN; ALTER TABLE customers DROP COLUMN city;',
    );
    db.close();
    expect(await fieldsOf()).toEqual(['id', 'name', 'email', 'created_at', 'vip']);
    const listed = await run.http('GET', `/api/apps/${app.id}/model/tables`, { token: builder });
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].tables).toHaveLength(1);

    const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
      token: builder,
      body: {
        name: 'customers',
        table: 'customers',
        actions: { select: true, insert: false, update: false, delete: false },
      },
    });
    expect(
      (await run.http('GET', `/api/apps/${app.id}/apis/${api.body.id}`, { token: builder })).body
        .name,
    ).toBe('customers');
    expect(
      (await run.http('DELETE', `/api/apps/${app.id}/apis/${api.body.id}`, { token: builder }))
        .status,
    ).toBe(204);
    expect(
      (await run.http('GET', `/api/apps/${app.id}/apis/${api.body.id}`, { token: builder })).status,
    ).toBe(404);
    expect((await run.http('GET', `/api/apps/${app.id}/apis`, { token: builder })).body).toEqual(
      [],
    );
  });

  it('answers on the app domain by Host, keeps keys out of URLs, and reports health', async () => {
    const app = (
      await run.http('POST', '/api/apps', {
        token: builder,
        body: { name: 'Dom', address: 'dom-test' },
      })
    ).body;
    await run.http('PATCH', `/api/apps/${app.id}`, {
      token: builder,
      body: { domain: 'dom.example.org' },
    });
    const byHost = await postWithHost(
      run.baseUrl,
      '/api/graphql',
      'dom.example.org',
      { query: '{ __typename }' },
      builder,
    );
    expect(byHost.status).toBe(200);
    expect(byHost.body.data).toEqual({ __typename: 'Query' });
    const unknownHost = await postWithHost(run.baseUrl, '/api/graphql', 'nobody.example.org', {
      query: '{ __typename }',
    });
    expect(unknownHost.status).toBe(404);
    expect(unknownHost.body.errors[0].message).toBe('App not found');
    const health = await run.http('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', checks: { metadata: 'ok' } });
    // Without METRICS_TOKEN there is no metrics route at all.
    expect((await run.http('GET', '/metrics', { token: builder })).status).toBe(404);
  });
});

describe('Demo app (DEMO=1 on an empty store)', () => {
  let run: RunningApp;
  afterAll(() => run?.close());

  it('creates the demo app with a key that reads demo rows, as the printed curl does', async () => {
    run = await startApp({ env: { DEMO: '1' } });
    const config = loadConfig(
      {
        DATA_DIR: run.dataDir,
        PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij',
        DEMO: '1',
      },
      { demo: true },
    );
    const demo = await seedDemo(run.app, config);
    expect(demo?.address).toBe('demo');
    const res = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': demo!.key },
      body: {
        query:
          '{ getOrders(take: 3, order: [{id: DESC}]) { id status total customer { name } order_lines { quantity product { name } } } countOrders }',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.countOrders).toBe(20);
    expect(res.body.data.getOrders.map((o: { id: string }) => o.id)).toEqual(['20', '19', '18']);
    expect(res.body.data.getOrders[0].customer.name).toEqual(expect.any(String));
    expect(res.body.data.getOrders[0].order_lines.length).toBeGreaterThan(0);
    // A second start on the same store does not seed again.
    expect(await seedDemo(run.app, config)).toBeNull();
  });
});

describeWith('postgres')('Metadata store on PostgreSQL', () => {
  let db: PgDatabase;
  afterAll(() => db?.drop());

  it('runs the same migrations on PostgreSQL and keeps definitions across restarts', async () => {
    db = await createPgDatabase('tg_meta');
    const first = await startApp({ databaseUrl: db.url });
    const token = await first.adminToken();
    const app = await first.http('POST', '/api/apps', {
      token,
      body: { name: 'Kept', address: 'kept' },
    });
    expect(app.status).toBe(201);
    await first.close();
    const second = await startApp({ databaseUrl: db.url });
    try {
      const apps = await second.http('GET', '/api/apps', { token: await second.adminToken() });
      expect(apps.body.map((a: { address: string }) => a.address)).toEqual(['kept']);
      const tables = await db.exec(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'account',
        'api_key',
        'app',
        'app_user',
        'app_version',
        'datasource',
        'migrations',
        'webhook_delivery',
        'webhook_endpoint',
      ]);
    } finally {
      await second.close();
    }
    expect(SERVICE_URLS.postgres).toMatch(/^postgres/);
  });
});
