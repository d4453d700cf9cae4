'use strict';
/**
 * `npm run bench:attack`: attack classes against the built service, production settings, loopback
 * only; every loop is bounded in time and count, and every process started here is killed at the
 * end.
 *
 * Issue 7 (classes "1." to "8."): each class runs for ATTACK_SECONDS (default 10) with
 * ATTACK_CONCURRENCY (default 4) requests in flight, while a normal request
 * (`getCustomers(take: 5)`, another app) is sent every 100 ms; per class the service's CPU
 * seconds, its RSS growth, the refusals by code, and the normal request's latency. Targets: ≤ 1 s
 * of server CPU per attacking request, ≤ 50 MB RSS growth in total, a normal request within 100 ms.
 *
 * Issue 22 (classes "22.1" to "22.7", each on the service(s) it needs, a table each):
 * - 22.1 a builder registers the service's own metadata store (SQLite, and PostgreSQL in a
 *   throwaway database) as a datasource, by every route to it: none may be accepted;
 * - 22.2 a private Redis is stopped (`kill -STOP`) for ATTACK_SECONDS: anonymous calls, key calls
 *   and sign-ins answer within about a second, `/health` says Redis is down;
 * - 22.3 one key sends 100 aliased counts or nested pages per request while another key of the
 *   same app sends normal requests (SQLite with 500,000 orders, PostgreSQL with ATTACK_PG_SCALE ×
 *   100,000 orders);
 * - 22.4 ATTACK_APPS (default 2,000) apps, each called anonymously round-robin: requests/s, CPU
 *   per request, RSS growth and the schema cache's metrics per pass;
 * - 22.7 ATTACK_SLOW_SOCKETS (default 1,100) sockets that send half a request head, from one
 *   address and from eleven: what the connection caps close, and whether `/health` and a GraphQL
 *   request from another address still answer.
 *
 * ATTACK_CLASSES=22.3,22.4 runs only the classes whose names start with one of those prefixes (a
 * prefix matches a whole number: `2` is class 2, not 22.x); the report file of the day
 * (bench/results/attack-<date>.md) then keeps the other classes' figures and replaces those run.
 */
const { execFileSync, execSync } = require('node:child_process');
const {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const Database = require('better-sqlite3');
const { Client } = require('pg');
const { createPostgresDataset, createSqliteDataset } = require('./dataset');
const {
  cpuMs,
  emptyPostgresDatabase,
  fdLimit,
  httpRequest,
  latencies,
  openFds,
  percentile,
  rssMb,
  scrapeMetrics,
  slowSockets,
  startRedis,
  startService,
  rest,
} = require('./process');

const SECONDS = Number(process.env.ATTACK_SECONDS || 10);
const CONCURRENCY = Number(process.env.ATTACK_CONCURRENCY || 4);
const MAX_REQUESTS = 5_000;
const APPS = Number(process.env.ATTACK_APPS || 2_000);
const SETUP_SECONDS = Number(process.env.ATTACK_SETUP_SECONDS || 240);
const SLOW_SOCKETS = Number(process.env.ATTACK_SLOW_SOCKETS || 1_100);
const PG_SCALE = Number(process.env.ATTACK_PG_SCALE || 2);
const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const STATEMENT_TIMEOUT_MS = process.env.STATEMENT_TIMEOUT_MS || '1000';
const METRICS_TOKEN = 'attack-metrics-token-0123456789';
const ADMIN = { email: 'attack@localhost', password: 'attack-password' };
const SELECTION = (process.env.ATTACK_CLASSES || '')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);

/** Whether class `name` runs: no ATTACK_CLASSES, or a prefix that ends where a number does. */
const selected = (name) =>
  !SELECTION.length ||
  SELECTION.some((p) => name.startsWith(p) && !/\d/.test(name.charAt(p.length)));

/** The service's environment as production runs it, plus `extra`. */
const serviceEnv = (dir, extra = {}) => ({
  DATA_DIR: dir,
  DATABASE_URL: '',
  REDIS_URL: '',
  DEMO: '0',
  NODE_ENV: 'production',
  PLATFORM_SECRET: 'attack-platform-secret-0123456789-abcdefg',
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  STATEMENT_TIMEOUT_MS,
  METRICS_TOKEN,
  ...extra,
});

/** One request with fetch; its HTTP status, its error code (GraphQL or REST) and its time. */
async function request(url, init, timeoutMs = 10_000) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
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
    return {
      status: 0,
      code: error.name === 'TimeoutError' ? 'client timeout' : 'connection failed',
      ms: performance.now() - t0,
    };
  }
}

async function signIn(base) {
  const { token } = await rest(base)('POST', '/api/auth/login', ADMIN);
  return rest(base, token);
}

const gql = (query, variables, headers) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ query, variables }),
});
const count = (codes, code) => (codes[code] = (codes[code] ?? 0) + 1);
const showCodes = (codes) =>
  Object.entries(codes)
    .map(([c, k]) => `${c}: ${k}`)
    .join(', ') || '–';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SELECT_ONLY = { select: true, insert: false, update: false, delete: false };

/**
 * An app over a SQLite file (copied into its datasource folder) with one published Table API on
 * `customers`, public for reading when `anonymous`, and its version published.
 * @returns the app id and its GraphQL endpoint.
 */
async function setUpSmallApp(call, base, dir, address, template, anonymous = true) {
  const app = await call('POST', '/api/apps', { name: address, address });
  const folder = join(dir, 'datasources', app.id);
  mkdirSync(folder, { recursive: true });
  copyFileSync(template, join(folder, 'small.db'));
  const ds = await call('POST', `/api/apps/${app.id}/datasources`, {
    name: 'small',
    type: 'sqlite',
    url: 'sqlite:small.db',
  });
  await call('POST', `/api/apps/${app.id}/model/import`, {
    datasourceId: ds.id,
    tables: ['customers'],
  });
  const api = await call('POST', `/api/apps/${app.id}/apis`, {
    name: 'customers',
    table: 'customers',
    actions: SELECT_ONLY,
    ...(anonymous ? { public: { select: true } } : {}),
  });
  await call('POST', `/api/apps/${app.id}/apis/${api.id}/publish`);
  await call('POST', `/api/apps/${app.id}/versions/publish`);
  return { id: app.id, endpoint: `${base}/api/graphql/${address}` };
}

async function newKey(call, name, appId) {
  const { key } = await call('POST', '/api/admin/api-keys', {
    name,
    scope: [{ appId, endpoints: 'all' }],
    rateLimitPerMinute: 1e9,
    pointsPerMinute: 1e9,
  });
  return key;
}

/** The APIs of the attacked app (issue 7): customers (public) and orders, nested both ways. */
async function setUpAttackedApp(call, appId, datasourceId) {
  await call('POST', `/api/apps/${appId}/model/import`, {
    datasourceId,
    tables: ['customers', 'orders', 'order_lines', 'products'],
  });
  for (const body of [
    {
      name: 'customers',
      table: 'customers',
      actions: SELECT_ONLY,
      public: { select: true },
      fields: {
        id: true,
        name: true,
        orders: { id: true, status: true, customer: { id: true, orders: { id: true } } },
      },
    },
    {
      name: 'orders',
      table: 'orders',
      actions: SELECT_ONLY,
      fields: { id: true, status: true, total: true, customer: { id: true, orders: { id: true } } },
    },
  ]) {
    const api = await call('POST', `/api/apps/${appId}/apis`, body);
    await call('POST', `/api/apps/${appId}/apis/${api.id}/publish`);
  }
  await call('POST', `/api/apps/${appId}/versions/publish`);
}

/** What the report says about the code it measured. */
function provenance() {
  try {
    const head = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain -- src', { encoding: 'utf8' }).trim();
    return `commit ${head}${dirty ? ' with uncommitted changes in src/' : ''}`;
  } catch {
    return 'commit unknown';
  }
}

/**
 * Runs `workers` loops and a `prober` until `seconds` pass (each loop bounded by MAX_REQUESTS).
 * @returns what each loop collected.
 */
async function during(seconds, loops) {
  const end = Date.now() + seconds * 1000;
  return Promise.all(loops.map((loop) => loop(end)));
}

// ---------------------------------------------------------------------------------------------
// The service of issue 7's classes and 22.3: SQLite metadata, an app over 500,000 orders.

async function startMainService(cleanups) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-attack-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { child, base } = await startService(serviceEnv(dir));
  cleanups.push(() => child.kill('SIGKILL'));
  const call = await signIn(base);
  const app = await call('POST', '/api/apps', { name: 'Attack', address: 'attack' });
  const folder = join(dir, 'datasources', app.id);
  mkdirSync(folder, { recursive: true });
  console.log('Generating a SQLite datasource (500,000 orders)…');
  createSqliteDataset(join(folder, 'big.db'), 5);
  // The generation blocked this process for seconds: let it see the keep-alive connections the
  // service closed meanwhile, so the next request does not go out on one of them.
  await sleep(100);
  const ds = await call('POST', `/api/apps/${app.id}/datasources`, {
    name: 'big',
    type: 'sqlite',
    url: 'sqlite:big.db',
  });
  await setUpAttackedApp(call, app.id, ds.id);
  const key = await newKey(call, 'attack', app.id);
  // The normal request goes to another app with its own datasource: what one app's attacker
  // costs the others (CONTRACT.md §6: other apps keep serving).
  const template = join(dir, 'small-template.db');
  createSqliteDataset(template, 0.01);
  const other = await setUpSmallApp(call, base, dir, 'other', template, false);
  const otherKey = await newKey(call, 'other', other.id);
  const normalRequest = () =>
    request(
      other.endpoint,
      gql('{ getCustomers(take: 5) { id name } }', undefined, { 'x-api-key': otherKey }),
    );
  // Warm up: both datasources opened, worker threads started, every route compiled once.
  for (let i = 0; i < 20; i++) {
    await normalRequest();
    await request(
      `${base}/api/graphql/attack`,
      gql('{ countOrders(where: {status: {eq: "paid"}}) }', undefined, { 'x-api-key': key }),
    );
  }
  return {
    dir,
    child,
    base,
    call,
    app,
    key,
    normalRequest,
    endpoint: `${base}/api/graphql/attack`,
  };
}

// ---------------------------------------------------------------------------------------------
// Issue 7's classes.

async function issue7Classes(main) {
  const { base, endpoint, key, normalRequest, child } = main;
  const keyed = (query, variables, headers = { 'x-api-key': key }) =>
    gql(query, variables, headers);
  let n = 0;
  const doubling = (depth) =>
    `{ getCustomers(take: 1) { ...F0 } } ` +
    Array.from({ length: depth }, (_, i) =>
      i === depth - 1
        ? `fragment F${i} on Customers { id }`
        : `fragment F${i} on Customers { ...F${i + 1} orders { customer { ...F${i + 1} } } }`,
    ).join(' ');
  const aliases = Array.from(
    { length: 60 },
    (_, i) => `a${i}: orders { id customer { orders { id } } }`,
  ).join(' ');
  const ors = (k) =>
    `{ countOrders(where: {or: [${Array.from({ length: k }, (_, i) => `{status: {contains: "zz${i}"}}`).join(', ')}]}) }`;
  let deep = { name: { eq: 'x' } };
  for (let i = 0; i < 1000; i++) deep = { and: [deep] };

  const classes = {
    '1. distinct ~100 KB documents, no key': () => [
      endpoint,
      keyed(
        `{ ${Array.from({ length: 900 }, (_, j) => `f${n++}_${j}_${'x'.repeat(90)}`).join(' ')} }`,
        undefined,
        {},
      ),
    ],
    '2. fragments spreading the next twice (30 deep), no key': () => [
      endpoint,
      keyed(doubling(30), undefined, {}),
    ],
    '3. 120 aliases through fragments over nested relations': () => [
      endpoint,
      keyed(
        `{ x: getCustomers(take: 100) { ...C } y: getCustomers(take: 100) { ...C } } fragment C on Customers { ${aliases} }`,
      ),
    ],
    '4. cyclic fields tree with default pages': () => [
      endpoint,
      keyed('{ getOrders { customer { orders { id } } } }'),
    ],
    '5a. 200-way or of contains over 500,000 rows': () => [endpoint, keyed(ors(200))],
    '5b. 90-way or of contains over 500,000 rows (statement deadline)': () => [
      endpoint,
      keyed(ors(90)),
    ],
    '6. huge skip, 40,000-item in, 1,000-deep variables, NUL, out-of-range id': () => {
      const k = n++ % 5;
      if (k === 0) return [endpoint, keyed('{ getOrders(take: 1, skip: 100000000) { id } }')];
      if (k === 1)
        return [
          endpoint,
          keyed('query($i: [ID!]) { countOrders(where: {id: {in: $i}}) }', {
            i: Array.from({ length: 40_000 }, (_, i) => String(i)),
          }),
        ];
      if (k === 2)
        return [endpoint, keyed('query($w: OrdersFilter) { countOrders(where: $w) }', { w: deep })];
      if (k === 3)
        return [
          endpoint,
          keyed('{ getCustomers(take: 1, where: {name: {eq: "a\\u0000b"}}) { id } }'),
        ];
      return [
        endpoint,
        keyed('{ getOrders(where: {id: {eq: "99999999999999999999999"}}) { id } }'),
      ];
    },
    '7. keys in the URL (mixed case, array form, GET and POST)': () => {
      const forms = [`?API_KEY=${key}`, `?api_key[]=${key}`, `?X-Api-Key=${key}`];
      const q = forms[n++ % 3];
      return n % 2
        ? [`${endpoint}${q}&query=%7B__typename%7D`, { method: 'GET' }]
        : [`${endpoint}${q}`, keyed('{ __typename }', undefined, {})];
    },
    '8. form-encoded and text bodies to REST': () => [
      `${base}/api/apps`,
      {
        method: 'POST',
        headers: {
          'content-type': n++ % 2 ? 'text/plain' : 'application/x-www-form-urlencoded',
        },
        body: 'name=x&address=evil',
      },
    ],
  };

  const rssStart = rssMb(child.pid);
  let rssPeak = rssStart;
  const rows = [];
  for (const [name, make] of Object.entries(classes)) {
    if (!selected(name)) continue;
    console.log(name);
    const codes = {};
    const normal = [];
    let sent = 0;
    const cpu0 = cpuMs(child.pid);
    await during(SECONDS, [
      async (end) => {
        while (Date.now() < end) {
          const r = await normalRequest();
          normal.push(r.status === 200 ? r.ms : 10_000);
          rssPeak = Math.max(rssPeak, rssMb(child.pid));
          await sleep(100);
        }
      },
      ...Array.from({ length: CONCURRENCY }, () => async (end) => {
        while (Date.now() < end && sent < MAX_REQUESTS) {
          sent++;
          const [url, init] = make();
          count(codes, (await request(url, init)).code);
        }
      }),
    ]);
    const cpuS = (cpuMs(child.pid) - cpu0) / 1000;
    rows.push({
      name,
      sent,
      cpuS,
      perRequest: sent ? (cpuS * 1000) / sent : 0,
      codes,
      ...latencies(normal),
    });
  }
  if (!rows.length) return null;
  const growth = Math.round(rssPeak - rssStart);
  return [
    '## Issue 7 classes',
    '',
    `${SECONDS} s per class, ${CONCURRENCY} attacking requests in flight, a normal request to another app every 100 ms; STATEMENT_TIMEOUT_MS=${STATEMENT_TIMEOUT_MS}; SQLite datasource with 500,000 orders. Service RSS ${Math.round(rssStart)} MB at start, peak ${Math.round(rssPeak)} MB (growth ${growth} MB; target ≤ 50 MB: ${growth <= 50 ? 'met' : 'missed'}). Measured ${new Date().toISOString()}, ${provenance()}.`,
    '',
    '| class | requests | server CPU s | CPU ms per request (≤ 1,000) | answers by code | normal request p50 / p99 / max ms (≤ 100) |',
    '|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.sent} | ${r.cpuS.toFixed(1)} | ${r.perRequest.toFixed(1)} ${r.perRequest <= 1000 ? 'met' : 'missed'} | ${showCodes(r.codes)} | ${r.p50} / ${r.p99} / ${r.max} ${r.max <= 100 ? 'met' : 'missed'} |`,
    ),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// 22.1 The service's own metadata store registered as a datasource.

/** Registers each attempt; an accepted one is then asked to import the store's tables. */
async function tryRegistrations(call, appId, attempts) {
  const rows = [];
  for (const { label, type, url, control } of attempts) {
    const r = await call('POST', `/api/apps/${appId}/datasources`, { name: 'x', type, url }, true);
    let outcome = `${r.status} ${r.body?.code ?? ''}`.trim();
    let accepted = r.status < 300;
    if (accepted && !control) {
      const imp = await call(
        'POST',
        `/api/apps/${appId}/model/import`,
        { datasourceId: r.body.id, tables: ['account', 'api_key'] },
        true,
      );
      outcome += `; import of account, api_key: ${imp.status} ${imp.body?.code ?? ''}`;
      accepted = imp.status < 300 ? 'ACCEPTED, store tables imported' : 'ACCEPTED (import refused)';
    }
    const message = typeof r.body?.message === 'string' ? r.body.message : '';
    rows.push({ label, outcome, accepted, control, message: message.slice(0, 140) });
  }
  return rows;
}

async function ownStoreClass(cleanups) {
  const rows = [];
  // SQLite metadata (DATA_DIR/platform.db, src/config/app-config.ts).
  {
    const dir = mkdtempSync(join(tmpdir(), 'tg-attack-store-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { child, base } = await startService(serviceEnv(dir));
    try {
      const call = await signIn(base);
      const app = await call('POST', '/api/apps', { name: 'Store', address: 'store' });
      const folder = join(dir, 'datasources', app.id);
      mkdirSync(folder, { recursive: true });
      const store = join(dir, 'platform.db');
      symlinkSync(store, join(folder, 'link.db'));
      linkSync(store, join(folder, 'hard.db'));
      const src = new Database(store, { readonly: true, fileMustExist: true });
      src.exec(`VACUUM INTO '${join(folder, 'copy.db').replace(/'/g, "''")}'`);
      src.close();
      createSqliteDataset(join(folder, 'own.db'), 0.001);
      rows.push(
        ...(
          await tryRegistrations(call, app.id, [
            {
              label: 'path out of the app folder (`sqlite:../../platform.db`)',
              type: 'sqlite',
              url: 'sqlite:../../platform.db',
            },
            { label: 'absolute path of the store', type: 'sqlite', url: `sqlite:${store}` },
            {
              label: 'symbolic link to the store in the app folder',
              type: 'sqlite',
              url: 'sqlite:link.db',
            },
            {
              label: 'hard link to the store in the app folder',
              type: 'sqlite',
              url: 'sqlite:hard.db',
            },
            {
              label: 'a copy of the store (`VACUUM INTO`) in the app folder',
              type: 'sqlite',
              url: 'sqlite:copy.db',
            },
            {
              label: 'control: an ordinary SQLite file',
              type: 'sqlite',
              url: 'sqlite:own.db',
              control: true,
            },
          ])
        ).map((r) => ({ metadata: 'SQLite', ...r })),
      );
    } finally {
      child.kill('SIGKILL');
    }
  }
  // PostgreSQL metadata (DATABASE_URL) in a throwaway database.
  {
    const dir = mkdtempSync(join(tmpdir(), 'tg-attack-store-pg-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const meta = await emptyPostgresDatabase(PG, `tg_attack_meta_${process.pid}`);
    const copy = await emptyPostgresDatabase(PG, `tg_attack_copy_${process.pid}`);
    cleanups.push(
      () => meta.drop(),
      () => copy.drop(),
    );
    const { child, base } = await startService(serviceEnv(dir, { DATABASE_URL: meta.url }));
    try {
      const call = await signIn(base);
      const app = await call('POST', '/api/apps', { name: 'Store', address: 'store' });
      // A copy of the store's schema in another database of the same server (a restored backup):
      // pg_dump when it can read this server; else empty tables of the same names.
      let copied = 'schema copied with pg_dump';
      try {
        const schema = execFileSync('pg_dump', ['--schema-only', '--no-owner', meta.url], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=0', copy.url], {
          input: schema,
          stdio: ['pipe', 'ignore', 'ignore'],
        });
      } catch {
        copied = 'empty tables of the same names';
        const db = new Client({ connectionString: copy.url });
        await db.connect();
        await db.query(
          'CREATE TABLE account (id int); CREATE TABLE api_key (id int); CREATE TABLE app_version (id int)',
        );
        await db.end();
      }
      const via = (host) => {
        const u = new URL(meta.url);
        u.hostname = host;
        return u.toString();
      };
      rows.push(
        ...(
          await tryRegistrations(call, app.id, [
            { label: "the store's own URL (DATABASE_URL)", type: 'postgres', url: meta.url },
            { label: 'the store through `localhost`', type: 'postgres', url: via('localhost') },
            { label: 'the store through `127.1`', type: 'postgres', url: via('127.1') },
            {
              label: 'the store through `[::ffff:127.0.0.1]`',
              type: 'postgres',
              url: via('[::ffff:127.0.0.1]'),
            },
            {
              label: `a copy of the store in another database (${copied})`,
              type: 'postgres',
              url: copy.url,
            },
            {
              label: "control: the server's `postgres` database",
              type: 'postgres',
              url: PG,
              control: true,
            },
          ])
        ).map((r) => ({ metadata: 'PostgreSQL', ...r })),
      );
    } finally {
      child.kill('SIGKILL');
    }
  }
  const attacks = rows.filter((r) => !r.control);
  const accepted = attacks.filter((r) => r.accepted);
  return [
    "### 22.1 the service's own metadata store as a datasource",
    '',
    `A builder registers the store by every route to it (SQLite metadata in DATA_DIR, PostgreSQL metadata in a throwaway database of the local server); an accepted registration is then asked to import \`account\` and \`api_key\`. ${attacks.length} registrations attempted, ${attacks.length - accepted.length} refused, ${accepted.length} accepted (target: none accepted: ${accepted.length ? 'missed' : 'met'}). Measured ${new Date().toISOString()}, ${provenance()}.`,
    '',
    '| metadata store | attempt | answer (status, code) | accepted | message |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.metadata} | ${r.label} | ${r.outcome} | ${r.control ? (r.accepted ? 'yes (control)' : 'no (control refused!)') : r.accepted ? `**${r.accepted === true ? 'yes' : r.accepted}**` : 'no'} | ${r.message.replace(/\|/g, '\\|')} |`,
    ),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// 22.2 A stalled Redis.

async function stalledRedisClass(cleanups) {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const dir = mkdtempSync(join(tmpdir(), 'tg-attack-redis-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { child, base } = await startService(serviceEnv(dir, { REDIS_URL: redis.url }));
  let outageLogs = 0;
  child.stdout.on(
    'data',
    (d) => (outageLogs += (String(d).match(/Redis is unreachable/g) ?? []).length),
  );
  child.stderr.on(
    'data',
    (d) => (outageLogs += (String(d).match(/Redis is unreachable/g) ?? []).length),
  );
  try {
    const call = await signIn(base);
    const template = join(dir, 'small-template.db');
    createSqliteDataset(template, 0.01);
    const app = await setUpSmallApp(call, base, dir, 'stall', template);
    const key = await newKey(call, 'stall', app.id);
    const kinds = {
      'anonymous call': () => request(app.endpoint, gql('{ getCustomers(take: 5) { id name } }')),
      'key call': () =>
        request(
          app.endpoint,
          gql('{ getCustomers(take: 5) { id name } }', undefined, { 'x-api-key': key }),
        ),
      'sign-in': () =>
        request(`${base}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ADMIN),
        }),
    };
    const inFlight = { 'anonymous call': 2, 'key call': 2, 'sign-in': 1 };
    for (const make of Object.values(kinds)) for (let i = 0; i < 5; i++) await make();
    const phases = [];
    const runPhase = async (label, seconds) => {
      const results = Object.fromEntries(Object.keys(kinds).map((k) => [k, { codes: {}, ms: [] }]));
      const health = { states: {}, ms: [] };
      await during(seconds, [
        ...Object.entries(kinds).flatMap(([kind, make]) =>
          Array.from({ length: inFlight[kind] }, () => async (end) => {
            for (let i = 0; Date.now() < end && i < MAX_REQUESTS; i++) {
              const r = await make();
              count(results[kind].codes, r.code);
              results[kind].ms.push(r.ms);
            }
          }),
        ),
        async (end) => {
          while (Date.now() < end) {
            const r = await httpRequest(`${base}/health`, { timeoutMs: 10_000 });
            let state = r.error ?? String(r.status);
            try {
              const body = JSON.parse(r.text);
              state = `${r.status} redis ${body.checks?.redis ?? 'not reported'}`;
            } catch {
              /* not JSON */
            }
            count(health.states, state);
            health.ms.push(r.ms);
            await sleep(250);
          }
        },
      ]);
      phases.push({ label, results, health });
    };
    console.log('22.2 Redis answering');
    await runPhase('Redis answering', 3);
    console.log('22.2 Redis stopped (SIGSTOP)');
    redis.pause();
    const logsBefore = outageLogs;
    try {
      await runPhase(`Redis stopped (SIGSTOP, ${SECONDS} s)`, SECONDS);
    } finally {
      redis.resume();
    }
    const outageLogsDuring = outageLogs - logsBefore;
    console.log('22.2 Redis resumed (SIGCONT)');
    await sleep(3_000);
    await runPhase('after SIGCONT (3 s later)', 3);
    const stalled = phases[1];
    const worst = Math.max(...Object.values(stalled.results).map((r) => latencies(r.ms).max));
    const lines = [
      '### 22.2 a stalled Redis',
      '',
      `A second service uses a private \`redis-server\` (REDIS_URL), stopped with \`kill -STOP\` for ${SECONDS} s and resumed with \`kill -CONT\`; ${inFlight['anonymous call']} anonymous calls, ${inFlight['key call']} key calls and ${inFlight['sign-in']} sign-in in flight at all times, \`/health\` every 250 ms. Slowest answer while stopped: ${worst} ms (target: every answer within about a second: ${worst <= 1_200 ? 'met' : 'missed'}). Outage warnings logged while stopped: ${outageLogsDuring}. Measured ${new Date().toISOString()}, ${provenance()}.`,
      '',
      '| phase | caller | answers | answers by code | p50 / p99 / max ms |',
      '|---|---|---:|---|---|',
    ];
    for (const p of phases) {
      for (const [kind, r] of Object.entries(p.results)) {
        const l = latencies(r.ms);
        lines.push(
          `| ${p.label} | ${kind} | ${r.ms.length} | ${showCodes(r.codes)} | ${l.p50} / ${l.p99} / ${l.max} |`,
        );
      }
      const l = latencies(p.health.ms);
      lines.push(
        `| ${p.label} | \`GET /health\` | ${p.health.ms.length} | ${showCodes(p.health.states)} | ${l.p50} / ${l.p99} / ${l.max} |`,
      );
    }
    lines.push('');
    return lines.join('\n');
  } finally {
    child.kill('SIGKILL');
    redis.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 22.3 One key monopolises its app's pool.

async function poolMonopolyClass(main, cleanups) {
  const { call, base } = main;
  const targets = [
    {
      label: 'SQLite, 500,000 orders',
      endpoint: main.endpoint,
      attacker: main.key,
      victim: await newKey(call, 'victim', main.app.id),
    },
  ];
  console.log(
    `Generating a PostgreSQL datasource (${(PG_SCALE * 100_000).toLocaleString('en')} orders)…`,
  );
  const pg = await createPostgresDataset(PG, `tg_attack_pool_${process.pid}`, PG_SCALE);
  cleanups.push(() => pg.drop());
  const app = await call('POST', '/api/apps', { name: 'Pool', address: 'pool' });
  const ds = await call('POST', `/api/apps/${app.id}/datasources`, {
    name: 'pg',
    type: 'postgres',
    url: pg.url,
  });
  await setUpAttackedApp(call, app.id, ds.id);
  targets.push({
    label: `PostgreSQL, ${(PG_SCALE * 100_000).toLocaleString('en')} orders`,
    endpoint: `${base}/api/graphql/pool`,
    attacker: await newKey(call, 'pool attacker', app.id),
    victim: await newKey(call, 'pool victim', app.id),
  });
  const range = Array.from({ length: 100 }, (_, i) => i);
  const documents = [
    `{ ${range.map((i) => `c${i}: countOrders(where: {total: {gt: ${i}}})`).join(' ')} }`,
    `{ ${range.map((i) => `o${i}: getOrders(take: 10, where: {total: {gt: ${i}}}) { id customer { id orders(take: 5) { id } } }`).join(' ')} }`,
  ];
  const victimQuery = '{ getCustomers(take: 5) { id name } }';
  const rows = [];
  for (const t of targets) {
    console.log(`22.3 ${t.label}`);
    const alone = [];
    for (let i = 0; i < 20; i++)
      alone.push(
        (await request(t.endpoint, gql(victimQuery, undefined, { 'x-api-key': t.victim }))).ms,
      );
    const attackerCodes = {};
    const attackerMs = [];
    const victimCodes = {};
    const victimMs = [];
    let sent = 0;
    let n = 0;
    const cpu0 = cpuMs(main.child.pid);
    await during(SECONDS, [
      async (end) => {
        while (Date.now() < end) {
          const r = await request(
            t.endpoint,
            gql(victimQuery, undefined, { 'x-api-key': t.victim }),
          );
          count(victimCodes, r.code);
          victimMs.push(r.ms);
          await sleep(100);
        }
      },
      ...Array.from({ length: CONCURRENCY }, () => async (end) => {
        while (Date.now() < end && sent < MAX_REQUESTS) {
          sent++;
          const kind = n++ % 2;
          const r = await request(
            t.endpoint,
            gql(documents[kind], undefined, { 'x-api-key': t.attacker }),
            30_000,
          );
          count(attackerCodes, `${kind ? 'pages' : 'counts'} ${r.code}`);
          attackerMs.push(r.ms);
        }
      }),
    ]);
    const cpuS = (cpuMs(main.child.pid) - cpu0) / 1000;
    const failed = victimMs.length - (victimCodes['200'] ?? 0);
    rows.push({
      ...t,
      alone: latencies(alone),
      sent,
      attackerCodes,
      attacker: latencies(attackerMs),
      victimCodes,
      victim: latencies(victimMs),
      victimN: victimMs.length,
      failed,
      cpuS,
    });
  }
  return [
    "### 22.3 one key monopolises its app's pool",
    '',
    `For ${SECONDS} s one key sends, ${CONCURRENCY} in flight, documents of 100 aliased \`countOrders\` (each its own filter) and documents of 100 aliased \`getOrders(take: 10)\` with the customer and 5 of its orders, in turn; another key of the same app sends \`getCustomers(take: 5)\` every 100 ms. The attacker's client waits up to 30 s for an answer (requests in flight when the window ends are still counted). DATASOURCE_POOL_SIZE default (10; SQLite runs one statement per datasource at a time on this 2-core machine), STATEMENT_TIMEOUT_MS=${STATEMENT_TIMEOUT_MS}. Target: the other key is never refused (its latency is reported). Measured ${new Date().toISOString()}, ${provenance()}.`,
    '',
    '| datasource | attacker requests | attacker answers by document and code | attacker p50 / max ms | server CPU s | other key alone p50 / max ms | other key answers | other key answers by code | other key p50 / p99 / max ms | other key refused |',
    '|---|---:|---|---|---:|---|---:|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.sent} | ${showCodes(r.attackerCodes)} | ${r.attacker.p50} / ${r.attacker.max} | ${r.cpuS.toFixed(1)} | ${r.alone.p50} / ${r.alone.max} | ${r.victimN} | ${showCodes(r.victimCodes)} | ${r.victim.p50} / ${r.victim.p99} / ${r.victim.max} | ${r.failed} ${r.failed ? 'missed' : 'met'} |`,
    ),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// 22.4 Schema-cache thrash: many apps called anonymously round-robin.

/** Sums of the schema series of the metrics (`_bucket` series left out), by name with labels. */
function schemaSeries(metrics) {
  return new Map(
    [...metrics].filter(([k]) => /^tablegraph_schema/.test(k) && !k.includes('_bucket')),
  );
}

async function schemaThrashClass(cleanups) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-attack-apps-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { child, base } = await startService(serviceEnv(dir));
  try {
    const call = await signIn(base);
    const template = join(dir, 'tiny-template.db');
    createSqliteDataset(template, 0.001);
    const rss0 = rssMb(child.pid);
    console.log(`22.4 creating ${APPS} apps (at most ${SETUP_SECONDS} s)…`);
    const t0 = Date.now();
    const apps = [];
    let next = 0;
    const setupFailures = {};
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < APPS && Date.now() - t0 < SETUP_SECONDS * 1000) {
          const i = next++;
          try {
            apps.push(
              await setUpSmallApp(call, base, dir, `t${String(i).padStart(5, '0')}`, template),
            );
          } catch (error) {
            count(setupFailures, String(error.message).slice(0, 80));
          }
          if (i % 250 === 0) console.log(`  ${i} apps, ${Math.round((Date.now() - t0) / 1000)} s`);
        }
      }),
    );
    const setupS = (Date.now() - t0) / 1000;
    const rssAfterSetup = rssMb(child.pid);
    const query = gql('{ getCustomers(take: 1) { id } }');
    const passes = [];
    let rssPeak = rssAfterSetup;
    const end = Date.now() + Math.max(90, SECONDS * 9) * 1000;
    for (let pass = 1; pass <= 3 && Date.now() < end && apps.length; pass++) {
      console.log(`22.4 pass ${pass}`);
      const before = schemaSeries(await scrapeMetrics(base, METRICS_TOKEN));
      const cpu0 = cpuMs(child.pid);
      const p0 = performance.now();
      const codes = {};
      const ms = [];
      let i = 0;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(child.pid))), 200);
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (i < apps.length && Date.now() < end) {
            const r = await request(apps[i++].endpoint, query);
            count(codes, r.code);
            ms.push(r.ms);
          }
        }),
      ).finally(() => clearInterval(sampler));
      const seconds = (performance.now() - p0) / 1000;
      const cpu = cpuMs(child.pid) - cpu0;
      const after = schemaSeries(await scrapeMetrics(base, METRICS_TOKEN));
      const deltas = [...after]
        .map(([k, v]) => [k, v - (before.get(k) ?? 0)])
        .filter(([, d]) => d !== 0);
      passes.push({
        pass,
        requests: ms.length,
        seconds,
        rps: ms.length / seconds,
        cpuPerRequest: cpu / Math.max(1, ms.length),
        codes,
        lat: latencies(ms),
        deltas,
      });
    }
    const rssEnd = rssMb(child.pid);
    const fmt = (k, d) =>
      `${k.replace(/^tablegraph_/, '')} +${Number.isInteger(d) ? d : d.toFixed(2)}`;
    return [
      '### 22.4 schema-cache thrash',
      '',
      `A service with SQLite metadata; ${apps.length} of ${APPS} apps created in ${setupS.toFixed(0)} s over REST (8 at a time${Object.keys(setupFailures).length ? `; setup failures: ${showCodes(setupFailures)}` : ''}), each over its own copy of a tiny SQLite file with one public Table API; then each app is called anonymously (\`getCustomers(take: 1)\`) once per pass, round-robin, ${CONCURRENCY} in flight, at most 3 passes and ${Math.max(90, SECONDS * 9)} s. RSS ${Math.round(rss0)} MB before setup, ${Math.round(rssAfterSetup)} MB after it, peak ${Math.round(rssPeak)} MB while calling (growth ${Math.round(rssPeak - rssAfterSetup)} MB), ${Math.round(rssEnd)} MB at the end. Schema series are the deltas of \`/metrics\` over the pass (\`schema_build_duration_seconds_count\` = schemas built). Target: after the first pass, no schema builds (each version's schema built once). Measured ${new Date().toISOString()}, ${provenance()}.`,
      '',
      '| pass | requests | requests/s | server CPU ms per request | answers by code | latency p50 / p99 / max ms | schema metrics over the pass |',
      '|---|---:|---:|---:|---|---|---|',
      ...passes.map(
        (p) =>
          `| ${p.pass} | ${p.requests} | ${p.rps.toFixed(0)} | ${p.cpuPerRequest.toFixed(1)} | ${showCodes(p.codes)} | ${p.lat.p50} / ${p.lat.p99} / ${p.lat.max} | ${p.deltas.map(([k, d]) => fmt(k, d)).join('; ') || '–'} |`,
      ),
      '',
    ].join('\n');
  } finally {
    child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// 22.7 Slow sockets.

async function slowSocketsClass(cleanups) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-attack-sockets-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { child, base } = await startService(serviceEnv(dir));
  const { port } = new URL(base);
  try {
    const call = await signIn(base);
    const template = join(dir, 'small-template.db');
    createSqliteDataset(template, 0.01);
    const app = await setUpSmallApp(call, base, dir, 'sockets', template);
    // The bench's own keep-alive connections from setup end before the sockets open.
    await sleep(6_000);
    const window = Number(process.env.ATTACK_SLOW_WINDOW_SECONDS || 45);
    const variants = [
      { label: `${SLOW_SOCKETS} sockets from 127.0.0.1`, addresses: ['127.0.0.1'] },
      {
        label: `${SLOW_SOCKETS} sockets from 11 addresses (127.0.0.11–21)`,
        addresses: Array.from({ length: 11 }, (_, i) => `127.0.0.${11 + i}`),
      },
    ];
    const rows = [];
    for (const v of variants) {
      console.log(`22.7 ${v.label}`);
      const fdsBefore = openFds(child.pid);
      const { sockets, closeAll } = await slowSockets({
        host: '127.0.0.1',
        port: Number(port),
        count: SLOW_SOCKETS,
        localAddresses: v.addresses,
        payload: `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `,
      });
      const probes = {
        '`/health` from 127.0.0.2': () =>
          httpRequest(`${base}/health`, { localAddress: '127.0.0.2', timeoutMs: 5_000 }),
        'GraphQL from 127.0.0.2': () =>
          httpRequest(app.endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ getCustomers(take: 5) { id } }' }),
            localAddress: '127.0.0.2',
            timeoutMs: 5_000,
          }),
        "`/health` from 127.0.0.1 (the attacker's address)": () =>
          httpRequest(`${base}/health`, { localAddress: '127.0.0.1', timeoutMs: 5_000 }),
      };
      const results = Object.fromEntries(
        Object.keys(probes).map((k) => [k, { codes: {}, ms: [], firstOkAfter: null }]),
      );
      let fdsPeak = openFds(child.pid);
      const t0 = performance.now();
      const end = Date.now() + window * 1000;
      try {
        while (Date.now() < end && sockets.some((s) => s.connected && s.closedAfter === null)) {
          await Promise.all(
            Object.entries(probes).map(async ([k, probe]) => {
              const r = await probe();
              count(results[k].codes, r.error ?? String(r.status));
              results[k].ms.push(r.ms);
            }),
          );
          fdsPeak = Math.max(fdsPeak, openFds(child.pid));
          await sleep(500);
        }
      } finally {
        closeAll();
      }
      const elapsed = (performance.now() - t0) / 1000;
      const closed = sockets.filter((s) => s.connected && s.closedAfter !== null);
      const after = closed.map((s) => s.closedAfter / 1000);
      const later = after.filter((t) => t >= 5);
      rows.push({
        label: v.label,
        connected: sockets.filter((s) => s.connected).length,
        refused: sockets.filter((s) => !s.connected).length,
        atOnce: after.filter((t) => t < 1).length,
        soon: after.filter((t) => t >= 1 && t < 5).length,
        later: later.length,
        laterP50: percentile(later, 50),
        laterMax: later.length ? Math.max(...later) : 0,
        got408: sockets.filter((s) => s.received.includes(' 408 ')).length,
        open: sockets.filter((s) => s.connected && s.closedAfter === null).length,
        elapsed,
        fds: `${fdsBefore} → ${fdsPeak}`,
        results,
      });
      await sleep(2_000);
    }
    const lines = [
      '### 22.7 slow sockets',
      '',
      `Each socket sends \`GET /health HTTP/1.1\`, a Host header and half of another header, then nothing, until the server closes it or ${window} s pass (times from the socket's \`connect()\`, so a socket whose handshake waited for room in the listen backlog counts that wait); three probes from other addresses and the attacker's run every 500 ms meanwhile (5 s timeout each). Defaults: HTTP_HEADERS_TIMEOUT_MS 10,000 (checked every second since commit e42f37f; every 30 s before, when the same run measured 28 s), HTTP_MAX_CONNECTIONS 800, HTTP_MAX_CONNECTIONS_PER_ADDRESS 100; every loopback socket from 127.0.0.1 is one address, so one client on it has 100 sockets. Service descriptor limit: ${fdLimit(child.pid)}. Measured ${new Date().toISOString()}, ${provenance()}.`,
      '',
      '| sockets | connected (failed) | closed within 1 s | closed in 1–5 s | closed after ≥ 5 s (p50 / max s) | answered 408 | still open at the end | watched s | service descriptors before → peak |',
      '|---|---:|---:|---:|---|---:|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.label} | ${r.connected} (${r.refused}) | ${r.atOnce} | ${r.soon} | ${r.later} (${r.laterP50.toFixed(1)} / ${r.laterMax.toFixed(1)}) | ${r.got408} | ${r.open} | ${r.elapsed.toFixed(0)} | ${r.fds} |`,
      ),
      '',
      '| sockets | probe | probes | answers by status (or error) | p50 / p99 / max ms |',
      '|---|---|---:|---|---|',
    ];
    for (const r of rows)
      for (const [k, p] of Object.entries(r.results)) {
        const l = latencies(p.ms);
        lines.push(
          `| ${r.label} | ${k} | ${p.ms.length} | ${showCodes(p.codes)} | ${l.p50} / ${l.p99} / ${l.max} |`,
        );
      }
    lines.push('');
    return lines.join('\n');
  } finally {
    child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// The report: one file a day; a run of some classes replaces their sections and table rows only.

/** Splits a report into its title and its sections (a `##`/`###` heading and what follows). */
function sections(text) {
  const out = [];
  let title = '';
  for (const line of text.split('\n')) {
    if (/^#{2,3} /.test(line)) out.push({ heading: line, lines: [line] });
    else if (out.length) out[out.length - 1].lines.push(line);
    else if (line.startsWith('# ')) title = line;
  }
  return { title, sections: out };
}

/** The section's key: `## Issue 7 classes`, or the class number of a `### 22.N …` heading. */
const sectionKey = (heading) =>
  heading.startsWith('### ') ? heading.split(' ').slice(0, 2).join(' ') : heading;

/** Table rows of `fresh` replace the rows of `old` with the same first cell; others are kept. */
function mergeRows(old, fresh) {
  const cell = (l) => (l.startsWith('| ') ? l.split(' | ')[0] : null);
  const freshRows = new Map(
    fresh.filter((l) => cell(l) && !l.startsWith('|---')).map((l) => [cell(l), l]),
  );
  const intro = fresh.filter((l) => !l.startsWith('|'));
  const header = fresh.filter((l) => l.startsWith('|')).slice(0, 2);
  const rows = old
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) => freshRows.get(cell(l)) ?? l);
  for (const [c, l] of freshRows)
    if (!rows.some((r) => cell(r) === c) && !header.includes(l)) rows.push(l);
  const blank = intro.lastIndexOf('');
  return [...intro.slice(0, blank), ...header, ...rows, ''];
}

function mergeReport(previous, fresh) {
  const old = sections(previous);
  const now = sections(fresh);
  const merged = old.sections.map((s) => {
    const replacement = now.sections.find((n) => sectionKey(n.heading) === sectionKey(s.heading));
    if (!replacement) return s;
    if (s.heading === '## Issue 7 classes' && SELECTION.length)
      return { ...s, lines: mergeRows(s.lines, replacement.lines) };
    return replacement;
  });
  for (const n of now.sections)
    if (!merged.some((s) => sectionKey(s.heading) === sectionKey(n.heading))) merged.push(n);
  return [now.title, '', ...merged.flatMap((s) => s.lines)].join('\n').replace(/\n{3,}/g, '\n\n');
}

async function main() {
  const cleanups = [];
  const parts = [];
  try {
    const issue7 = ['1.', '2.', '3.', '4.', '5a.', '5b.', '6.', '7.', '8.'].some((p) =>
      selected(`${p} `),
    );
    let mainService = null;
    if (issue7 || selected('22.3 ')) mainService = await startMainService(cleanups);
    if (issue7) parts.push(await issue7Classes(mainService));
    parts.push('## Issue 22 classes\n');
    if (selected('22.1 ')) parts.push(await ownStoreClass(cleanups));
    if (selected('22.2 ')) parts.push(await stalledRedisClass(cleanups));
    if (selected('22.3 ')) parts.push(await poolMonopolyClass(mainService, cleanups));
    if (selected('22.4 ')) parts.push(await schemaThrashClass(cleanups));
    if (selected('22.7 ')) parts.push(await slowSocketsClass(cleanups));
  } finally {
    for (const clean of cleanups.reverse()) {
      try {
        await clean();
      } catch (error) {
        console.error(`cleanup: ${error.message}`);
      }
    }
  }
  const date = new Date().toISOString().slice(0, 10);
  const fresh = [`# Attack benchmark ${date}`, '', ...parts.filter(Boolean)].join('\n');
  const file = join(__dirname, 'results', `attack-${date}.md`);
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const report =
    SELECTION.length && existsSync(file) ? mergeReport(readFileSync(file, 'utf8'), fresh) : fresh;
  writeFileSync(file, report.replace(/\n*$/, '\n'));
  console.log(`\n${report}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
