import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { describeWith } from '../support/services';

/**
 * The service as an operator runs it (CONTRACT.md §8): the built process in production mode, its
 * own logs read whole. A quiet start that never prints the demo key in production; JSON log lines
 * with a request id; no key, password, token, metrics token, platform secret or datasource
 * password in any line; SIGTERM lets an in-flight request finish, refuses new connections and
 * exits 0.
 */

/** Polls `check` every 50 ms, at most 200 times. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

describeWith('postgres')('The service process in production', () => {
  const adminPassword = secret('admin-pw');
  const wrongPassword = secret('wrong-pw');
  const platformSecret = secret('platform-secret-0123456789');
  const metricsToken = secret('metrics-token');
  const datasourcePassword = secret('ds-pw');
  let dataDir: string;
  let db: PgDatabase;
  let service: ServiceProcess;
  const seen: string[] = [];

  const http = async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(service.baseUrl + path, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tg-ops-'));
    db = await createPgDatabase('tg_ops');
    await db.exec('CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL)');
    await db.exec(`INSERT INTO customers (name) VALUES ('Ada'), ('Grace'), ('Edsger')`);
    service = await startServiceProcess({
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${join(dataDir, 'platform.db')}`,
      PLATFORM_SECRET: platformSecret,
      ADMIN_EMAIL: 'ops@e2e.test',
      ADMIN_PASSWORD: adminPassword,
      METRICS_TOKEN: metricsToken,
      DEMO: '1',
      SHUTDOWN_TIMEOUT_MS: '30000',
    });
  });

  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves keys and sessions, logs every request as JSON with its id and never a secret, and stops gracefully', async () => {
    expect(
      (
        await http('POST', '/api/auth/login', {
          body: { email: 'ops@e2e.test', password: wrongPassword },
        })
      ).status,
    ).toBe(401);
    const login = await http('POST', '/api/auth/login', {
      body: { email: 'ops@e2e.test', password: adminPassword },
    });
    expect(login.status).toBe(200);
    const admin = { authorization: `Bearer ${login.body.token}` };
    seen.push(login.body.token);

    const app = (
      await http('POST', '/api/apps', { headers: admin, body: { name: 'ops', address: 'ops' } })
    ).body;
    const url = new URL(db.url);
    url.password = datasourcePassword;
    const ds = await http('POST', `/api/apps/${app.id}/datasources`, {
      headers: admin,
      body: { name: 'crm', type: 'postgres', url: url.toString() },
    });
    expect(ds.status).toBe(201);
    await http('POST', `/api/apps/${app.id}/model/import`, {
      headers: admin,
      body: { datasourceId: ds.body.id, tables: ['customers'] },
    });
    const api = await http('POST', `/api/apps/${app.id}/apis`, {
      headers: admin,
      body: {
        name: 'customers',
        table: 'customers',
        actions: { select: true, insert: false, update: false, delete: false },
      },
    });
    await http('POST', `/api/apps/${app.id}/apis/${api.body.id}/publish`, { headers: admin });
    await http('POST', `/api/apps/${app.id}/versions/publish`, { headers: admin });
    const created = await http('POST', '/api/admin/api-keys', {
      headers: admin,
      body: { name: 'ops', scope: [{ appId: app.id, endpoints: 'all' }] },
    });
    const key: string = created.body.key;
    seen.push(key);

    const query = { query: '{ getCustomers(order: [{ id: ASC }]) { name } }' };
    const served = await http('POST', '/api/graphql/ops', {
      body: query,
      headers: { 'x-api-key': key, 'x-request-id': 'ops-request-1' },
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-request-id')).toBe('ops-request-1');
    expect(served.body.data.getCustomers).toHaveLength(3);
    const inUrl = await http('GET', `/api/graphql/ops?query=%7BcountCustomers%7D&api_key=${key}`);
    expect(inUrl.status).toBe(400);
    const metrics = await fetch(`${service.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    expect(await metrics.text()).toContain('tablegraph_graphql_requests_total{app="');

    // An in-flight request when SIGTERM arrives: held by a lock on its table.
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE customers IN ACCESS EXCLUSIVE MODE');
    const inFlight = http('POST', '/api/graphql/ops', {
      body: query,
      headers: { 'x-api-key': key },
    });
    expect(
      await eventually(async () => {
        const rows = await db.exec(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
          [db.name],
        );
        return Number(rows[0].n) > 0;
      }),
    ).toBe(true);
    service.signal('SIGTERM');
    // New connections are refused while the request in flight goes on.
    expect(
      await eventually(async () => {
        try {
          await fetch(`${service.baseUrl}/health`);
          return false;
        } catch {
          return true;
        }
      }),
    ).toBe(true);
    await locker.query('COMMIT');
    await locker.end();
    const finished = await inFlight;
    expect(finished.status).toBe(200);
    expect(finished.body.data.getCustomers).toHaveLength(3);
    expect(await service.exited).toBe(0);

    const output = service.output();
    // Quiet start: no route mapping, no demo key in production.
    expect(output).not.toMatch(/Mapped \{/);
    expect(output).toContain('its key is not printed in production');
    expect(output).not.toMatch(/tgk_[A-Za-z0-9_-]{20,}/);
    for (const value of [
      adminPassword,
      wrongPassword,
      platformSecret,
      metricsToken,
      datasourcePassword,
      ...seen,
    ]) {
      expect(output.includes(value)).toBe(false);
    }
    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; req?: { id: string; path: string } });
    const requests = lines.filter((line) => line.msg === 'request completed');
    expect(requests.length).toBeGreaterThanOrEqual(10);
    expect(
      requests.every((line) => typeof line.req?.id === 'string' && line.req.id.length > 0),
    ).toBe(true);
    expect(requests.some((line) => line.req?.id === 'ops-request-1')).toBe(true);
    expect(lines.some((line) => line.msg.startsWith('SIGTERM'))).toBe(true);
  });
});
