'use strict';
/**
 * `npm run bench:attack` (issue 7): runs each attack class against the built service for
 * ATTACK_SECONDS (default 10) with ATTACK_CONCURRENCY (default 4) requests in flight, while a
 * normal request (`getCustomers(take: 5)`) is sent every 100 ms, and prints per class the
 * service's CPU seconds, its RSS growth, the refusals by code, and the normal request's latency.
 * Targets: ≤ 1 s of server CPU per attacking request, ≤ 50 MB RSS growth in total, a normal
 * request within 100 ms. Loopback only; every loop is bounded in time and count.
 */
const { spawn } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createSqliteDataset } = require('./dataset');
const { cpuMs, freePort, rssMb } = require('./process');

const SECONDS = Number(process.env.ATTACK_SECONDS || 10);
const CONCURRENCY = Number(process.env.ATTACK_CONCURRENCY || 4);
const MAX_REQUESTS = 5_000;
async function request(url, init) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let code = String(res.status);
    try {
      const body = JSON.parse(text);
      code = body.errors?.[0]?.extensions?.code ?? body.code ?? code;
    } catch {
      /* not JSON */
    }
    return { status: res.status, code, ms: performance.now() - t0 };
  } catch (error) {
    return { status: 0, code: error.name === 'TimeoutError' ? 'client timeout' : 'connection failed', ms: performance.now() - t0 };
  }
}

const percentile = (xs, p) => (xs.length ? xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : 0);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-attack-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dir,
      DEMO: '0',
      NODE_ENV: 'production',
      PLATFORM_SECRET: 'attack-platform-secret-0123456789-abcdefg',
      ADMIN_EMAIL: 'attack@localhost',
      ADMIN_PASSWORD: 'attack-password',
      STATEMENT_TIMEOUT_MS: process.env.STATEMENT_TIMEOUT_MS || '1000',
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise((resolve, reject) => {
      service.stdout.on('data', (d) => String(d).includes('listening on') && resolve());
      service.on('exit', (code) => reject(new Error(`service exited ${code}`)));
    });
    const json = async (method, path, body, token) => {
      const res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    };
    const { token } = await json('POST', '/api/auth/login', { email: 'attack@localhost', password: 'attack-password' });
    const app = await json('POST', '/api/apps', { name: 'Attack', address: 'attack' }, token);
    const folder = join(dir, 'datasources', app.id);
    mkdirSync(folder, { recursive: true });
    console.log('Generating a SQLite datasource (500,000 orders)…');
    createSqliteDataset(join(folder, 'big.db'), 5);
    const ds = await json('POST', `/api/apps/${app.id}/datasources`, { name: 'big', type: 'sqlite', url: 'sqlite:big.db' }, token);
    await json('POST', `/api/apps/${app.id}/model/import`, { datasourceId: ds.id, tables: ['customers', 'orders', 'order_lines', 'products'] }, token);
    const select = { select: true, insert: false, update: false, delete: false };
    for (const body of [
      { name: 'customers', table: 'customers', actions: select, public: { select: true }, fields: { id: true, name: true, orders: { id: true, status: true, customer: { id: true, orders: { id: true } } } } },
      { name: 'orders', table: 'orders', actions: select, fields: { id: true, status: true, total: true, customer: { id: true, orders: { id: true } } } },
    ]) {
      const api = await json('POST', `/api/apps/${app.id}/apis`, body, token);
      await json('POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, token);
    }
    await json('POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
    const { key } = await json('POST', '/api/admin/api-keys', { name: 'attack', scope: [{ appId: app.id, endpoints: 'all' }], rateLimitPerMinute: 1e9 }, token);
    const endpoint = `${base}/api/graphql/attack`;
    // The normal request goes to another app with its own datasource: what one app's attacker
    // costs the others (CONTRACT.md §6: other apps keep serving).
    const other = await json('POST', '/api/apps', { name: 'Other', address: 'other' }, token);
    const otherFolder = join(dir, 'datasources', other.id);
    mkdirSync(otherFolder, { recursive: true });
    createSqliteDataset(join(otherFolder, 'small.db'), 0.01);
    const otherDs = await json('POST', `/api/apps/${other.id}/datasources`, { name: 'small', type: 'sqlite', url: 'sqlite:small.db' }, token);
    await json('POST', `/api/apps/${other.id}/model/import`, { datasourceId: otherDs.id, tables: ['customers'] }, token);
    const otherApi = await json('POST', `/api/apps/${other.id}/apis`, { name: 'customers', table: 'customers', actions: { select: true, insert: false, update: false, delete: false } }, token);
    await json('POST', `/api/apps/${other.id}/apis/${otherApi.id}/publish`, undefined, token);
    await json('POST', `/api/apps/${other.id}/versions/publish`, undefined, token);
    const otherKey = (await json('POST', '/api/admin/api-keys', { name: 'other', scope: [{ appId: other.id, endpoints: 'all' }], rateLimitPerMinute: 1e9 }, token)).key;
    const normalRequest = () =>
      request(`${base}/api/graphql/other`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': otherKey },
        body: JSON.stringify({ query: '{ getCustomers(take: 5) { id name } }' }),
      });
    const gql = (query, variables, headers = { 'x-api-key': key }) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    let n = 0;
    const doubling = (depth) =>
      `{ getCustomers(take: 1) { ...F0 } } ` +
      Array.from({ length: depth }, (_, i) =>
        i === depth - 1 ? `fragment F${i} on Customers { id }` : `fragment F${i} on Customers { ...F${i + 1} orders { customer { ...F${i + 1} } } }`,
      ).join(' ');
    const aliases = Array.from({ length: 60 }, (_, i) => `a${i}: orders { id customer { orders { id } } }`).join(' ');
    const ors = (k) => `{ countOrders(where: {or: [${Array.from({ length: k }, (_, i) => `{status: {contains: "zz${i}"}}`).join(', ')}]}) }`;
    let deep = { name: { eq: 'x' } };
    for (let i = 0; i < 1000; i++) deep = { and: [deep] };

    const classes = {
      '1. distinct ~100 KB documents, no key': () => [
        endpoint,
        gql(`{ ${Array.from({ length: 900 }, (_, j) => `f${n++}_${j}_${'x'.repeat(90)}`).join(' ')} }`, undefined, {}),
      ],
      '2. fragments spreading the next twice (30 deep), no key': () => [endpoint, gql(doubling(30), undefined, {})],
      '3. 120 aliases through fragments over nested relations': () => [
        endpoint,
        gql(`{ x: getCustomers(take: 100) { ...C } y: getCustomers(take: 100) { ...C } } fragment C on Customers { ${aliases} }`),
      ],
      '4. cyclic fields tree with default pages': () => [endpoint, gql('{ getOrders { customer { orders { id } } } }')],
      '5a. 200-way or of contains over 500,000 rows': () => [endpoint, gql(ors(200))],
      '5b. 90-way or of contains over 500,000 rows (statement deadline)': () => [endpoint, gql(ors(90))],
      '6. huge skip, 40,000-item in, 1,000-deep variables, NUL, out-of-range id': () => {
        const k = n++ % 5;
        if (k === 0) return [endpoint, gql('{ getOrders(take: 1, skip: 100000000) { id } }')];
        if (k === 1) return [endpoint, gql('query($i: [ID!]) { countOrders(where: {id: {in: $i}}) }', { i: Array.from({ length: 40_000 }, (_, i) => String(i)) })];
        if (k === 2) return [endpoint, gql('query($w: OrdersFilter) { countOrders(where: $w) }', { w: deep })];
        if (k === 3) return [endpoint, gql('{ getCustomers(take: 1, where: {name: {eq: "a\\u0000b"}}) { id } }')];
        return [endpoint, gql('{ getOrders(where: {id: {eq: "99999999999999999999999"}}) { id } }')];
      },
      '7. keys in the URL (mixed case, array form, GET and POST)': () => {
        const forms = [`?API_KEY=${key}`, `?api_key[]=${key}`, `?X-Api-Key=${key}`];
        const q = forms[n++ % 3];
        return n % 2 ? [`${endpoint}${q}&query=%7B__typename%7D`, { method: 'GET' }] : [`${endpoint}${q}`, gql('{ __typename }', undefined, {})];
      },
      '8. form-encoded and text bodies to REST': () => [
        `${base}/api/apps`,
        { method: 'POST', headers: { 'content-type': n++ % 2 ? 'text/plain' : 'application/x-www-form-urlencoded' }, body: 'name=x&address=evil' },
      ],
    };

    // Warm up: both datasources opened, worker threads started, every route compiled once.
    for (let i = 0; i < 20; i++) {
      await normalRequest();
      await request(endpoint, gql('{ countOrders(where: {status: {eq: "paid"}}) }'));
    }
    const rssStart = rssMb(service.pid);
    let rssPeak = rssStart;
    const rows = [];
    for (const [name, make] of Object.entries(classes)) {
      console.log(name);
      const codes = {};
      const normal = [];
      let sent = 0;
      const cpu0 = cpuMs(service.pid);
      const end = Date.now() + SECONDS * 1000;
      const prober = (async () => {
        while (Date.now() < end) {
          const r = await normalRequest();
          normal.push(r.status === 200 ? r.ms : 10_000);
          rssPeak = Math.max(rssPeak, rssMb(service.pid));
          await new Promise((res) => setTimeout(res, 100));
        }
      })();
      const workers = Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end && sent < MAX_REQUESTS) {
          sent++;
          const [url, init] = make();
          const r = await request(url, init);
          codes[r.code] = (codes[r.code] ?? 0) + 1;
        }
      });
      await Promise.all([prober, ...workers]);
      const cpuS = (cpuMs(service.pid) - cpu0) / 1000;
      rows.push({
        name,
        sent,
        cpuS,
        perRequest: sent ? (cpuS * 1000) / sent : 0,
        codes,
        p50: percentile([...normal], 50),
        p99: percentile([...normal], 99),
        max: Math.max(...normal),
      });
    }
    const growth = Math.round(rssPeak - rssStart);
    const lines = [
      `# Attack benchmark ${new Date().toISOString().slice(0, 10)}`,
      '',
      `${SECONDS} s per class, ${CONCURRENCY} attacking requests in flight, a normal request to another app every 100 ms; STATEMENT_TIMEOUT_MS=${process.env.STATEMENT_TIMEOUT_MS || '1000'}; SQLite datasource with 500,000 orders. Service RSS ${Math.round(rssStart)} MB at start, peak ${Math.round(rssPeak)} MB (growth ${growth} MB; target ≤ 50 MB: ${growth <= 50 ? 'met' : 'missed'}).`,
      '',
      '| class | requests | server CPU s | CPU ms per request (≤ 1,000) | answers by code | normal request p50 / p99 / max ms (≤ 100) |',
      '|---|---:|---:|---:|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.sent} | ${r.cpuS.toFixed(1)} | ${r.perRequest.toFixed(1)} ${r.perRequest <= 1000 ? 'met' : 'missed'} | ${Object.entries(r.codes).map(([c, k]) => `${c}: ${k}`).join(', ')} | ${Math.round(r.p50)} / ${Math.round(r.p99)} / ${Math.round(r.max)} ${r.max <= 100 ? 'met' : 'missed'} |`,
      ),
      '',
    ];
    const report = lines.join('\n');
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', `attack-${new Date().toISOString().slice(0, 10)}.md`), report);
    console.log(`\n${report}`);
  } finally {
    service.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
