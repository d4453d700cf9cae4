'use strict';
/**
 * Benchmark of the GraphQL endpoint (autocannon), on the built service (`npm run bench` builds
 * first). Creates the dataset, sets the app up through the builder REST like a user would, then
 * measures three queries per datasource for BENCH_SECONDS (default 10) with BENCH_CONNECTIONS
 * (default 10) connections, and prints requests/s and latency. Loopback only.
 *
 *   npm run bench                     # SQLite datasource
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench   # + PostgreSQL
 */
require('reflect-metadata');
const autocannon = require('autocannon');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createApp } = require('../dist/src/bootstrap');
const { loadConfig } = require('../dist/src/config/app-config');
const { createSqliteDataset, createPostgresDataset } = require('./dataset');

const SIZE = { customers: 2000, ordersPerCustomer: 5, linesPerOrder: 3 };
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);

const QUERIES = {
  count: '{ countOrders(where: {status: {in: ["PAID", "SHIPPED"]}}) }',
  page: '{ getOrders(where: {total: {gt: 20}}, order: [{total: DESC}], take: 50, skip: 100) { id status total } }',
  nested: '{ getCustomers(take: 100, skip: 500) { id name orders(take: 5, order: [{total: DESC}]) { id total order_lines { product quantity } } } }',
};

async function json(base, method, path, body, token) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

async function setUp(base, token, address, type, url, tables) {
  const app = await json(base, 'POST', '/api/apps', { name: address, address }, token);
  const ds = await json(base, 'POST', `/api/apps/${app.id}/datasources`, { name: 'bench', type, url }, token);
  await json(base, 'POST', `/api/apps/${app.id}/model/import`, { datasourceId: ds.id, tables }, token);
  const actions = { select: true, insert: false, update: false, delete: false };
  const apis = [
    { name: 'orders', table: 'orders', actions },
    { name: 'customers', table: 'customers', actions, fields: { id: true, name: true, city: true, orders: { id: true, total: true, status: true, order_lines: { product: true, quantity: true } } } },
  ];
  for (const spec of apis) {
    const api = await json(base, 'POST', `/api/apps/${app.id}/apis`, spec, token);
    await json(base, 'POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, token);
  }
  await json(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
  const key = await json(base, 'POST', '/api/admin/api-keys', { name: `bench ${address}`, scope: [{ appId: app.id, endpoints: 'all' }], rateLimitPerMinute: 100000000 }, token);
  return key.key;
}

function measure(url, key, query) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: 'POST', connections: CONNECTIONS, duration: SECONDS, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-'));
  const config = loadConfig({ DATA_DIR: dir, PLATFORM_SECRET: 'bench-platform-secret-0123456789-abcdefgh', ADMIN_EMAIL: 'bench@localhost', ADMIN_PASSWORD: 'bench-password' }, { demo: false });
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
  const { token } = await json(base, 'POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' });
  const targets = [{ type: 'sqlite', url: createSqliteDataset(join(dir, 'datasources', 'bench.db'), SIZE), tables: ['customers', 'orders', 'order_lines'] }];
  let pg = null;
  if (process.env.BENCH_POSTGRES_URL) {
    pg = await createPostgresDataset(process.env.BENCH_POSTGRES_URL, 'tg_bench', SIZE);
    targets.push({ type: 'postgres', url: pg.url, tables: ['public.customers', 'public.orders', 'public.order_lines'] });
  }
  const results = [];
  try {
    for (const t of targets) {
      const key = await setUp(base, token, `bench-${t.type}`, t.type, t.url, t.tables);
      for (const [name, query] of Object.entries(QUERIES)) {
        const check = await fetch(`${base}/api/graphql/bench-${t.type}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) });
        const body = await check.json();
        if (body.errors) throw new Error(`${name} on ${t.type}: ${JSON.stringify(body.errors)}`);
        const r = await measure(`${base}/api/graphql/bench-${t.type}`, key, query);
        results.push({ datasource: t.type, query: name, 'req/s': Math.round(r.requests.average), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, errors: r.errors + r.non2xx });
      }
    }
  } finally {
    await app.close();
    if (pg) await pg.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${SIZE.customers} customers, ${SIZE.customers * SIZE.ordersPerCustomer} orders, ${SIZE.customers * SIZE.ordersPerCustomer * SIZE.linesPerOrder} lines; ${CONNECTIONS} connections, ${SECONDS}s each; node ${process.version}`);
  console.table(results);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
