'use strict';
/* eslint @typescript-eslint/no-require-imports: "off", no-console: "off" -- a CommonJS script for node, reporting on stdout as bench/run.js does */
/* global require, process, console, __dirname, setTimeout, clearTimeout, performance, Buffer */
/**
 * `npm run bench:soak` (issue 21 item 4): the built service as in production (NODE_ENV=production,
 * the V8 flags of `start:prod`, PostgreSQL metadata, Redis rate limits, a key with a ceiling of
 * 1,000,000,000 a minute) under SOAK_SECONDS (default 600) of mixed traffic shaped like real
 * GraphQL clients (Apollo Client, urql, graphql-request), on the PostgreSQL dataset of
 * bench/dataset.js (scale 1: 10,000 customers, 100,000 orders, 300,000 order lines):
 *
 * - reads: 10,000 distinct documents (six templates: a page of orders through a fragment with its
 *   customer, orders with their count, customers with their recent orders, products, orders with
 *   lines and products, a dashboard of aliased counts; each crossed with 8 field subsets, 13 root
 *   aliases and 17 operation names), sent in turn, every argument a declared variable with a JSON
 *   value (`where` filters with and/or/in, take/skip pages, order lists), as generated clients do;
 * - writes: each connection adds a customer (id from 10,000,000 up, far above the dataset's),
 *   renames it and deletes it, so the dataset ends as it began (checked at the end in SQL);
 * - refusals: an unknown field, a variable of the wrong type, take over the 10,000-row ceiling and
 *   a `where` variable nested 200 `and`s deep (over the 256-level variable limit), each answered
 *   400 with its code.
 *
 * Out of every 40 requests of a connection: 33 reads, 3 writes, 4 refusals. SOAK_CONNECTIONS
 * (default 8) requests in flight over keep-alive connections (node:http, not autocannon: each
 * write depends on the answer to the one before, and every answer is checked against what it
 * should be). Every SOAK_SAMPLE_SECONDS (10) it samples the service's RSS (/proc/<pid>/status
 * VmRSS), its V8 heap used (`nodejs_heap_size_used_bytes` of GET /metrics, with METRICS_TOKEN set
 * for the service), its CPU, and the window's requests, p99 and max latency and answers by status.
 *
 * Writes bench/results/soak-<date>.md: the setup, the samples, an ASCII curve of RSS and the verdict:
 * RSS flat after warm-up (the highest RSS sampled after 2 minutes, minus the RSS sampled at
 * 2 minutes, under 30 MB; a run shorter than 10 minutes compares from a fifth of its length) and
 * no request slower than the statement deadline (STATEMENT_TIMEOUT_MS, default 5,000, given to the
 * service too). Exits 1 if the service dies (after writing the results). Loopback only.
 *
 *   SOAK_SECONDS=60 SOAK_CONNECTIONS=8 npm run bench:soak
 *   BENCH_POSTGRES_URL, BENCH_REDIS_URL override the local services (as for bench/run.js);
 *   BENCH_SERVICE_LOG=<file> appends the service's output to a file.
 *   The databases tg_soak_data and tg_soak_meta are created and dropped again; Ctrl-C stops the
 *   traffic, stops the service and drops them, without writing results.
 */
const http = require('node:http');
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { cpus, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { createPostgresDataset, size } = require('./dataset');
const { cpuMs, emptyPostgresDatabase, rssMb, startService } = require('./process');

const SECONDS = Number(process.env.SOAK_SECONDS || 600);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS || 8);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS || 10);
const DEADLINE_MS = Number(process.env.STATEMENT_TIMEOUT_MS || 5_000);
const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const DOCUMENTS = 10_000;
/** The sample RSS growth is measured from: 2 minutes in, or a fifth of a shorter run. */
const WARM_SECONDS = Math.max(
  SAMPLE_SECONDS,
  Math.min(120, Math.floor(SECONDS / 5 / SAMPLE_SECONDS) * SAMPLE_SECONDS),
);
const GROWTH_LIMIT_MB = 30;
/** A request the service has not answered by then is given up (and counted over the deadline). */
const CLIENT_TIMEOUT_MS = Math.max(30_000, 3 * DEADLINE_MS);
const METRICS_TOKEN = 'soak-metrics-token-0123456789abcdef';
const FIRST_ID = 10_000_000;
const SCALE = 1;

// ---------------------------------------------------------------- the service and its process

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/**
 * POSTs (or GETs, without a body) and reads the whole answer. Never throws: a connection failure
 * is status `failed`, no answer within `timeoutMs` status `timeout`.
 */
function send(
  url,
  { method = 'POST', headers = {}, body, timeoutMs = CLIENT_TIMEOUT_MS, keepAlive = true },
) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const done = (status, text) => resolve({ status, text, ms: performance.now() - t0 });
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      url,
      {
        method,
        agent: keepAlive ? agent : false,
        headers: payload ? { ...headers, 'content-length': payload.length } : headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          done(res.statusCode, Buffer.concat(chunks).toString('utf8'));
        });
        res.on('error', () => {
          clearTimeout(timer);
          done('failed', '');
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done('timeout', '');
    }, timeoutMs);
    req.on('error', () => {
      clearTimeout(timer);
      done('failed', '');
    });
    req.end(payload);
  });
}

async function rest(base, method, path, body, token) {
  const res = await send(base + path, {
    method,
    keepAlive: false,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (typeof res.status !== 'number' || res.status >= 300) {
    throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  return res.text ? JSON.parse(res.text) : null;
}

/** The service's V8 heap used in MB, from its Prometheus metrics; null when it does not answer. */
async function heapUsedMb(base) {
  const res = await send(`${base}/metrics`, {
    method: 'GET',
    keepAlive: false,
    timeoutMs: 5_000,
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const m = res.status === 200 && /^nodejs_heap_size_used_bytes ([\d.e+]+)$/m.exec(res.text);
  return m ? Number(m[1]) / 1048576 : null;
}

/**
 * The soak's app, as a user sets it up over the builder REST: orders (read, with customer and
 * lines with product), customers (read and write, with their orders), products (read).
 */
async function setUpApp(base, token, dataUrl) {
  const app = await rest(base, 'POST', '/api/apps', { name: 'soak', address: 'soak' }, token);
  const ds = await rest(
    base,
    'POST',
    `/api/apps/${app.id}/datasources`,
    { name: 'soak', type: 'postgres', url: dataUrl },
    token,
  );
  const tables = ['public.customers', 'public.products', 'public.orders', 'public.order_lines'];
  await rest(
    base,
    'POST',
    `/api/apps/${app.id}/model/import`,
    { datasourceId: ds.id, tables },
    token,
  );
  const read = { select: true, insert: false, update: false, delete: false };
  const apis = [
    {
      name: 'orders',
      table: 'orders',
      actions: read,
      fields: {
        ...{ id: true, status: true, total: true, placed_at: true },
        customer: { id: true, name: true, city: true },
        order_lines: { id: true, quantity: true, price: true, product: { id: true, name: true } },
      },
    },
    {
      name: 'customers',
      table: 'customers',
      actions: { select: true, insert: true, update: true, delete: true },
      fields: {
        id: true,
        name: true,
        city: true,
        orders: { id: true, status: true, total: true, placed_at: true },
      },
    },
    {
      name: 'products',
      table: 'products',
      actions: read,
      fields: { id: true, name: true, price: true },
    },
  ];
  for (const body of apis) {
    const api = await rest(base, 'POST', `/api/apps/${app.id}/apis`, body, token);
    await rest(base, 'POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, token);
  }
  await rest(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
  const { key } = await rest(
    base,
    'POST',
    '/api/admin/api-keys',
    {
      name: 'soak',
      scope: [{ appId: app.id, endpoints: 'all' }],
      rateLimitPerMinute: 1_000_000_000,
      pointsPerMinute: 1_000_000_000,
    },
    token,
  );
  return { endpoint: `${base}/api/graphql/soak`, key };
}

// ---------------------------------------------------------------- the documents

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const INTROSPECTION = `{ __schema { types { name fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } } } }`;

/**
 * The names the documents need, read from the running service's schema as a client's code
 * generator would: root fields' argument types (printed as declared, e.g. `[OrdersOrder!]`) and
 * the types of nested fields that fragments are written on.
 */
async function schemaNames(endpoint, key) {
  const res = await send(endpoint, {
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: INTROSPECTION }),
  });
  const types = new Map(JSON.parse(res.text).data.__schema.types.map((t) => [t.name, t]));
  const named = (ref) => (ref.name ? ref.name : named(ref.ofType));
  const printed = (ref) =>
    ref.kind === 'NON_NULL'
      ? `${printed(ref.ofType)}!`
      : ref.kind === 'LIST'
        ? `[${printed(ref.ofType)}]`
        : ref.name;
  const field = (type, name) => {
    const f = types.get(type)?.fields?.find((x) => x.name === name);
    if (!f)
      throw new Error(
        `the soak's app has no ${type}.${name}; bench/soak.js expects the schema of its setUpApp`,
      );
    return f;
  };
  const arg = (type, name, argName) =>
    printed(field(type, name).args.find((a) => a.name === argName).type);
  const orders = named(field('Query', 'getOrders').type);
  const customers = named(field('Query', 'getCustomers').type);
  return {
    orders,
    ordersOfCustomer: named(field(customers, 'orders').type),
    ordersFilter: arg('Query', 'getOrders', 'where'),
    ordersOrder: arg('Query', 'getOrders', 'order'),
    customersFilter: arg('Query', 'getCustomers', 'where'),
    productsFilter: arg('Query', 'getProducts', 'where'),
    take: arg('Query', 'getOrders', 'take'),
  };
}

const ORDER_FIELDS = ['status', 'total', 'placed_at'];
const ALIASES = [
  '',
  'list',
  'rows',
  'page',
  'items',
  'data',
  'result',
  'recent',
  'latest',
  'feed',
  'table',
  'grid',
  'view',
];
const SCREENS = [
  '',
  'Home',
  'Search',
  'Admin',
  'Report',
  'Mobile',
  'Widget',
  'Export',
  'Inbox',
  'Detail',
  'Summary',
  'Sidebar',
  'Modal',
  'Print',
  'Feed',
  'Audit',
  'Archive',
];
const pick = (mask, items) => items.filter((_, i) => mask & (1 << i)).join(' ');

/**
 * The six read templates. Each gets the schema's names `n`, a field-subset mask `s` (0–7), a root
 * alias `a` ('' for none) and an operation name; every axis changes the text of every template.
 */
const TEMPLATES = [
  {
    name: 'OrdersPage',
    text: (n, s, a, op) =>
      `query ${op}($where: ${n.ordersFilter}, $take: ${n.take}, $skip: Int, $order: ${n.ordersOrder}) { ${a ? `${a}: ` : ''}getOrders(where: $where, take: $take, skip: $skip, order: $order) { ...OrderFields customer { id name } } } fragment OrderFields on ${n.orders} { id ${pick(s, ORDER_FIELDS)} }`,
    variables: (r) => ({
      where: orderWhere(r),
      take: 1 + (r % 50),
      skip: (r * 37) % 500,
      order: ORDERINGS[r % ORDERINGS.length],
    }),
  },
  {
    name: 'OrdersWithCount',
    text: (n, s, a, op) =>
      `query ${op}($where: ${n.ordersFilter}, $take: Int) { count: countOrders(where: $where) ${a ? `${a}: ` : ''}getOrders(where: $where, take: $take, order: [{placed_at: DESC}]) { id ${pick(s, ORDER_FIELDS)} } }`,
    variables: (r) => ({ where: orderWhere(r), take: 1 + (r % 20) }),
  },
  {
    name: 'CustomerOrders',
    text: (n, s, a, op) =>
      `query ${op}($where: ${n.customersFilter}, $take: Int, $skip: Int, $recent: Int) { ${a ? `${a}: ` : ''}getCustomers(where: $where, take: $take, skip: $skip, order: [{id: ASC}]) { id name city orders(take: $recent, order: [{placed_at: DESC}]) { ...RecentOrder } } } fragment RecentOrder on ${n.ordersOfCustomer} { id ${pick(s, ORDER_FIELDS)} }`,
    variables: (r) => ({
      where: CUSTOMER_WHERE[r % CUSTOMER_WHERE.length],
      take: 1 + (r % 20),
      skip: r % 40,
      recent: 1 + (r % 5),
    }),
  },
  {
    name: 'Products',
    text: (n, s, a, op) =>
      `query ${op}($where: ${n.productsFilter}, $take: Int, $skip: Int) { ${a ? `${a}: ` : ''}getProducts(where: $where, take: $take, skip: $skip, order: [{id: ASC}]) { id ${pick(s, ['name', 'price'])} } ${s & 4 ? 'count: countProducts(where: $where)' : ''} }`,
    variables: (r) => ({
      where: PRODUCT_WHERE[r % PRODUCT_WHERE.length],
      take: 1 + (r % 30),
      skip: r % 100,
    }),
  },
  {
    name: 'OrderLines',
    text: (n, s, a, op) =>
      `query ${op}($where: ${n.ordersFilter}, $take: Int, $lines: Int) { ${a ? `${a}: ` : ''}getOrders(where: $where, take: $take, order: [{id: DESC}]) { id ${pick(s, ORDER_FIELDS)} order_lines(take: $lines) { id quantity price product { id name } } } }`,
    variables: (r) => ({ where: orderWhere(r), take: 1 + (r % 20), lines: 1 + (r % 3) }),
  },
  {
    name: 'Dashboard',
    text: (n, s, a, op) => {
      const parts = [`${a || 'orders'}: countOrders(where: $a)`];
      const decl = [`$a: ${n.ordersFilter}`];
      if (s & 1) {
        parts.push('shipped: countOrders(where: $b)');
        decl.push(`$b: ${n.ordersFilter}`);
      }
      if (s & 2) {
        parts.push('customers: countCustomers(where: $c)');
        decl.push(`$c: ${n.customersFilter}`);
      }
      if (s & 4) parts.push('products: countProducts');
      return `query ${op}(${decl.join(', ')}) { ${parts.join(' ')} }`;
    },
    variables: (r) => ({
      a: orderWhere(r),
      b: { status: { eq: 'shipped' } },
      c: CUSTOMER_WHERE[r % CUSTOMER_WHERE.length],
    }),
  },
];

const ORDER_WHERE = [
  { status: { eq: 'shipped' }, total: { gt: 100 } },
  { status: { in: ['new', 'paid'] } },
  { placed_at: { gte: '2024-03-01T00:00:00Z', lt: '2024-03-08T00:00:00Z' } },
  { or: [{ status: { eq: 'cancelled' } }, { total: { lt: 10 } }] },
  { id: { in: ['5', '17', '99', '1234', '50000'] } },
  { and: [{ status: { eq: 'paid' } }, { total: { gte: 250, lte: 260 } }] },
  { total: { gte: '400.25' }, status: { neq: 'new' } },
  null,
];
const orderWhere = (r) => ORDER_WHERE[(r >> 1) % ORDER_WHERE.length];
const ORDERINGS = [
  [{ placed_at: 'DESC' }],
  [{ total: 'ASC' }, { id: 'ASC' }],
  [{ status: 'ASC' }, { placed_at: 'DESC' }],
  [{ id: 'DESC' }],
];
const CUSTOMER_WHERE = [
  { city: { eq: 'City 7' } },
  { name: { startsWith: 'Customer 12' } },
  { id: { in: ['1', '2', '3', '500', '9999'] } },
  { or: [{ city: { eq: 'City 1' } }, { city: { eq: 'City 2' } }] },
  null,
];
const PRODUCT_WHERE = [
  { price: { lt: 20 } },
  { name: { contains: '7' } },
  { price: { gte: 50, lt: 60 } },
  null,
];

/** Document `i` of 10,000: template i mod 6, then field subset, root alias, operation name. */
function readDocuments(n) {
  const docs = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const t = TEMPLATES[i % TEMPLATES.length];
    const s = Math.floor(i / 6) % 8;
    const a = ALIASES[Math.floor(i / 48) % ALIASES.length];
    const op = `${SCREENS[Math.floor(i / (48 * ALIASES.length)) % SCREENS.length]}${t.name}`;
    docs.push({ template: t, op, text: t.text(n, s, a, op) });
  }
  if (new Set(docs.map((d) => d.text)).size !== DOCUMENTS)
    throw new Error('the read documents are not all distinct');
  return docs;
}

/** A `where` nested `levels` `and`s deep: 2 levels of variables each (object and list). */
function deepFilter(levels) {
  let where = { status: { eq: 'paid' } };
  for (let i = 0; i < levels; i++) where = { and: [where] };
  return where;
}
const DEEP_FILTER = deepFilter(200);

/** The four refusals, each on its own or on an OrdersPage document; answered 400 with `code`. */
const REFUSALS = [
  {
    kind: 'refusal: unknown field',
    code: 'GRAPHQL_VALIDATION_FAILED',
    make: () => ({
      query: 'query OrderNotes($take: Int) { getOrders(take: $take) { id notes } }',
      variables: { take: 5 },
    }),
  },
  {
    kind: 'refusal: variable of the wrong type',
    code: 'BAD_USER_INPUT',
    make: (doc, r) => ({
      query: doc.text,
      variables: { ...doc.template.variables(r), take: 'fifty' },
    }),
  },
  {
    kind: 'refusal: take over the ceiling',
    code: 'BAD_USER_INPUT',
    make: (doc, r) => ({
      query: doc.text,
      variables: { ...doc.template.variables(r), take: 10_001 },
    }),
  },
  {
    kind: 'refusal: where nested 200 ands deep',
    code: 'BAD_USER_INPUT',
    make: (doc, r) => ({
      query: doc.text,
      variables: { ...doc.template.variables(r), where: DEEP_FILTER },
    }),
  },
];

const WRITES = {
  add: 'mutation AddCustomer($id: ID!, $name: String!, $city: String) { addCustomers(id: $id, name: $name, city: $city) { id name city } }',
  update:
    'mutation RenameCustomer($id: ID!, $name: String) { updateCustomers(id: $id, name: $name) { id name } }',
  delete: 'mutation RemoveCustomer($id: ID!) { deleteCustomers(id: $id) }',
};

// ---------------------------------------------------------------- statistics

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
const int = (x) => Math.round(x).toLocaleString('en-US');
const formatStatuses = (counts) =>
  Object.entries(counts)
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([s, k]) => `${s}: ${int(k)}`)
    .join(', ');

/** An ASCII plot of RSS per sample: one column a sample, rows of equal MB steps. */
function rssCurve(samples) {
  const values = samples.map((s) => s.rss);
  const lo = Math.floor(Math.min(...values) / 10) * 10;
  const span = Math.max(40, Math.max(...values) - lo);
  const rows = 16;
  const step = Math.ceil(span / rows);
  const lines = [];
  for (let row = rows; row >= 0; row--) {
    const level = lo + row * step;
    const marks = values.map((v) =>
      Math.round((v - lo) / step) === row ? '*' : v - lo > row * step ? '|' : ' ',
    );
    lines.push(`${String(level).padStart(5)} MB ┤${marks.join('')}`);
  }
  lines.push(`${' '.repeat(9)}└${'─'.repeat(values.length)}`);
  // A label per whole minute, starting at its column (the last one may run past the plot).
  const axis = Array(values.length + 3).fill(' ');
  samples.forEach((s, i) => {
    if (s.t % 60 === 0) [...`${s.t / 60}`].forEach((ch, k) => (axis[i + k] = ch));
  });
  lines.push(
    `${' '.repeat(10)}${axis.join('').trimEnd()}  (minutes; one column per ${SAMPLE_SECONDS} s sample)`,
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------- the soak

/** The commit the built service comes from, and the files of src/ changed since (a shared tree). */
function codeVersion() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: join(__dirname, '..'), encoding: 'utf8' });
    const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean);
    const subject = git('log', '-1', '--format=%s').trim();
    const head = `${git('log', '-1', '--format=%h').trim()} "${subject.length > 80 ? `${subject.slice(0, 80)}…` : subject}"`;
    return `${head}${changed.length ? ` plus uncommitted changes to ${changed.map((l) => l.slice(3)).join(', ')}` : ''}`;
  } catch {
    return 'an unknown commit (no git)';
  }
}

async function main() {
  const stamp = new Date().toISOString().slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), 'tg-soak-'));
  const cleanups = [];
  let service = null;
  let interrupted = false;
  let stopping = false;
  process.on('SIGINT', () => {
    interrupted = true;
    stopping = true;
  });
  try {
    console.log('Generating the PostgreSQL dataset…');
    const data = await createPostgresDataset(PG, 'tg_soak_data', SCALE);
    cleanups.push(() => data.drop());
    const meta = await emptyPostgresDatabase(PG, 'tg_soak_meta');
    cleanups.push(() => meta.drop());
    service = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'soak-platform-secret-0123456789-abcdefghi',
      ADMIN_EMAIL: 'soak@localhost',
      ADMIN_PASSWORD: 'soak-password',
      DATA_DIR: dir,
      DEMO: '0',
      METRICS_TOKEN,
      STATEMENT_TIMEOUT_MS: String(DEADLINE_MS),
    });
    const { child, base } = service;
    const pid = child.pid;
    let died = null;
    // From the start of the traffic on (the setup's own time before, for a death during it).
    let started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    child.on('exit', (code, signal) => {
      died = { code, signal, at: elapsed() };
      stopping = true;
    });
    const { token } = await rest(base, 'POST', '/api/auth/login', {
      email: 'soak@localhost',
      password: 'soak-password',
    });
    const { endpoint, key } = await setUpApp(base, token, data.url);
    const names = await schemaNames(endpoint, key);
    const docs = readDocuments(names);
    const headers = { 'content-type': 'application/json', 'x-api-key': key };

    // Counters shared by the connections: read documents in turn, requests (variable values),
    // refusals in turn, ids of added customers.
    let nextDoc = 0;
    let nextRequest = 0;
    let nextRefusal = 0;
    let nextId = FIRST_ID;
    const sentTexts = new Set();
    const kinds = {};
    const unexpected = [];
    let window = { latencies: [], statuses: {} };
    let slowest = { ms: 0 };
    let overDeadline = 0;

    /** Sends one request, records it, and tells whether its answer is what `expect` wants. */
    async function request(kind, body, expect) {
      sentTexts.add(body.query);
      const res = await send(endpoint, { headers, body: JSON.stringify(body) });
      window.latencies.push(res.ms);
      window.statuses[res.status] = (window.statuses[res.status] ?? 0) + 1;
      if (res.ms > slowest.ms)
        slowest = {
          ms: res.ms,
          kind,
          op: /^(?:query|mutation) (\w+)/.exec(body.query)?.[1],
          at: elapsed(),
        };
      if (res.ms > DEADLINE_MS || res.status === 'timeout') overDeadline++;
      const k = (kinds[kind] ??= { sent: 0, unexpected: 0 });
      k.sent++;
      let answer = null;
      try {
        answer = JSON.parse(res.text);
      } catch {
        /* not JSON */
      }
      const ok = answer !== null && expect(res.status, answer);
      if (!ok && !stopping) {
        k.unexpected++;
        if (unexpected.length < 8)
          unexpected.push(`${kind}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      return ok ? answer : null;
    }
    const answered = (status, a) => status === 200 && !a.errors && a.data;
    const refused = (code) => (status, a) =>
      status === 400 && a.errors?.[0]?.extensions?.code === code;

    let end = Infinity;
    /** One connection: out of every 40 requests, add, rename, delete one customer, 4 refusals, 33 reads. */
    async function connection(c) {
      let pending = null;
      for (let j = c * 5; performance.now() < end && !stopping; j++) {
        const slot = j % 40;
        if (slot === 0 && !pending) {
          const id = String(nextId++);
          const variables = { id, name: `Soak ${id}`, city: 'Soak' };
          const a = await request(
            'write: add',
            { query: WRITES.add, variables },
            (s, x) => answered(s, x) && x.data.addCustomers?.id === id,
          );
          if (a) pending = id;
        } else if (slot === 13 && pending) {
          const name = `Soak ${pending} renamed`;
          await request(
            'write: update',
            { query: WRITES.update, variables: { id: pending, name } },
            (s, x) => answered(s, x) && x.data.updateCustomers?.name === name,
          );
        } else if (slot === 26 && pending) {
          const a = await request(
            'write: delete',
            { query: WRITES.delete, variables: { id: pending } },
            (s, x) => answered(s, x) && x.data.deleteCustomers === true,
          );
          if (a) pending = null;
        } else if (slot % 10 === 7) {
          const refusal = REFUSALS[nextRefusal++ % REFUSALS.length];
          // An OrdersPage document (template 0: an index that is a multiple of 6).
          const doc =
            docs[(nextRefusal * TEMPLATES.length) % (DOCUMENTS - (DOCUMENTS % TEMPLATES.length))];
          await request(refusal.kind, refusal.make(doc, nextRequest++), refused(refusal.code));
        } else {
          const doc = docs[nextDoc++ % DOCUMENTS];
          const variables = doc.template.variables(nextRequest++);
          await request('read', { operationName: doc.op, query: doc.text, variables }, answered);
        }
      }
      // The row this connection added is deleted before it stops, so the dataset ends as it began.
      if (pending && !died) {
        await request(
          'write: delete',
          { query: WRITES.delete, variables: { id: pending } },
          (s, x) => answered(s, x) && x.data.deleteCustomers === true,
        );
      }
    }

    const samples = [];
    let cpu0 = cpuMs(pid);
    let windowStart = performance.now();
    const sample = async (t) => {
      const w = window;
      window = { latencies: [], statuses: {} };
      const now = performance.now();
      const cpu = cpuMs(pid);
      const cpuPercent = now > windowStart ? ((cpu - cpu0) / (now - windowStart)) * 100 : 0;
      cpu0 = cpu;
      windowStart = now;
      const rss = died ? 0 : rssMb(pid);
      const heap = died ? null : await heapUsedMb(base);
      const sorted = w.latencies.sort((a, b) => a - b);
      const s = {
        t,
        rss,
        heap,
        requests: sorted.length,
        p99: percentile(sorted, 99),
        max: sorted.at(-1) ?? 0,
        statuses: w.statuses,
        cpuPercent,
      };
      samples.push(s);
      console.log(
        `${String(t).padStart(4)} s  RSS ${s.rss.toFixed(0)} MB  heap ${s.heap === null ? '–' : s.heap.toFixed(0)} MB  CPU ${cpuPercent.toFixed(0)}%  ${int(s.requests)} requests  p99 ${s.p99.toFixed(0)} ms  max ${s.max.toFixed(0)} ms  ${formatStatuses(s.statuses)}`,
      );
    };

    const loadBefore = loadavg()[0];
    const version = codeVersion();
    console.log(
      `Soak: ${SECONDS} s, ${CONNECTIONS} connections, ${DOCUMENTS.toLocaleString('en-US')} read documents; service pid ${pid}`,
    );
    started = performance.now();
    end = started + SECONDS * 1000;
    cpu0 = cpuMs(pid);
    windowStart = started;
    await sample(0);
    const connections = Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => connection(c)));
    const steps = Math.ceil(SECONDS / SAMPLE_SECONDS);
    for (let k = 1; k <= steps && !died && !interrupted; k++) {
      const due = started + k * SAMPLE_SECONDS * 1000;
      while (performance.now() < due && !died && !interrupted) {
        await new Promise((r) =>
          setTimeout(r, Math.min(250, Math.max(1, due - performance.now()))),
        );
      }
      if (died || interrupted) break;
      // The last window waits for the requests in flight at the end.
      if (k === steps) await connections;
      await sample(k * SAMPLE_SECONDS);
    }
    await connections;
    const loadAfter = loadavg()[0];
    agent.destroy();
    if (interrupted) throw new Error('interrupted');
    if (died) {
      samples.push({
        t: Math.round(died.at),
        rss: 0,
        heap: null,
        requests: window.latencies.length,
        p99: 0,
        max: Math.max(0, ...window.latencies),
        statuses: window.statuses,
        cpuPercent: 0,
        died: true,
      });
      console.log(
        `The service died ${died.at.toFixed(0)} s in (exit code ${died.code}, signal ${died.signal}):\n${service.tail.join('\n')}`,
      );
    }

    // The dataset as it began: no customer of the soak left, the dataset's count unchanged.
    const db = new Client({ connectionString: data.url });
    await db.connect();
    const left = await db.query(
      'SELECT count(*) FILTER (WHERE id >= $1)::int AS soak, count(*)::int AS all FROM customers',
      [FIRST_ID],
    );
    await db.end();
    const added = nextId - FIRST_ID;
    const datasetKept = left.rows[0].soak === 0 && left.rows[0].all === size(SCALE).customers;

    // The verdict.
    const ref = samples.find((s) => s.t === WARM_SECONDS);
    const after = samples.filter((s) => s.t > WARM_SECONDS && !s.died);
    const last = samples.filter((s) => !s.died).at(-1);
    const peakAfter = after.length ? Math.max(...after.map((s) => s.rss)) : null;
    const growth = ref && peakAfter !== null ? peakAfter - ref.rss : null;
    const flat = !died && growth !== null && growth < GROWTH_LIMIT_MB;
    const inTime = !died && overDeadline === 0 && slowest.ms <= DEADLINE_MS;
    const totals = {};
    for (const s of samples)
      for (const [k, v] of Object.entries(s.statuses)) totals[k] = (totals[k] ?? 0) + v;
    const total = Object.values(totals).reduce((a, b) => a + b, 0);
    const measured = died ? died.at : SECONDS;
    const unexpectedTotal = Object.values(kinds).reduce((a, k) => a + k.unexpected, 0);
    const heapAfter = after.filter((s) => s.heap !== null).map((s) => s.heap);
    const mb = (x) => (x === null || x === undefined ? '–' : x.toFixed(0));

    const lines = [
      `# Soak ${stamp}`,
      '',
      '## Setup',
      '',
      `Machine: ${cpus().length} cores, node ${process.version}, 1-minute load average ${loadBefore.toFixed(1)} when the traffic began and ${loadAfter.toFixed(1)} when it ended (the machine is shared; other processes' CPU shows in the latencies). \`npm run bench:soak\` (bench/soak.js): the built service (\`dist/src/main.js\`, built from the tree at ${version}, with the V8 flags of \`start:prod\`), NODE_ENV=production, metadata on PostgreSQL, Redis rate limits, an API key with a ceiling of 1,000,000,000 requests a minute, STATEMENT_TIMEOUT_MS=${DEADLINE_MS}, METRICS_TOKEN set (heap read from GET /metrics, \`nodejs_heap_size_used_bytes\`), other limits at their defaults (document cache 32 MiB). PostgreSQL dataset of bench/dataset.js at scale ${SCALE}: 10,000 customers, 1,000 products, 100,000 orders, 300,000 order lines.`,
      '',
      `Traffic: ${SECONDS} s${died ? ` (the service died ${died.at.toFixed(0)} s in)` : ''}, ${CONNECTIONS} connections each sending its next request when the last is answered (keep-alive, node:http). Every argument a declared variable with a JSON value, as Apollo Client, urql and graphql-request send them. Out of every 40 requests of a connection: 33 reads, taking in turn ${DOCUMENTS.toLocaleString('en-US')} distinct documents (6 templates — a page of orders through a fragment with the customer, orders with their count, customers with their recent orders through a fragment, products, orders with lines and products, a dashboard of aliased counts — × 8 field subsets × 13 root aliases × 17 operation names; \`where\` filters with and/or/in/ranges, take/skip pages, order lists); 3 writes (add a customer with an id from ${FIRST_ID.toLocaleString('en-US')} up, rename it, delete it); 4 refusals (an unknown field, \`$take: "fifty"\`, take 10,001, a \`where\` nested 200 \`and\`s deep). ${int(sentTexts.size)} distinct query texts sent in all; the reads went through the ${int(DOCUMENTS)} documents ${((kinds.read?.sent ?? 0) / DOCUMENTS).toFixed(1)} times. Each answer checked: reads and writes 200 without errors (and the written values), refusals 400 with their code.`,
      '',
      `${int(total)} requests (${int(total / measured)} a second), ${int(added)} customers added; answers by status: ${formatStatuses(totals)}. Answers other than expected: ${int(unexpectedTotal)}. Dataset left as it was: ${datasetKept ? 'yes' : 'NO'} (${left.rows[0].all} customers, ${left.rows[0].soak} of the soak's left).`,
      '',
      '| kind | requests | unexpected answers |',
      '|---|---:|---:|',
      ...Object.entries(kinds).map(
        ([kind, k]) => `| ${kind} | ${int(k.sent)} | ${int(k.unexpected)} |`,
      ),
      ...(unexpected.length
        ? [
            '',
            'First unexpected answers:',
            '',
            ...unexpected.map((u) => `- \`${u.replace(/`/g, "'")}\``),
          ]
        : []),
      '',
      `## Samples (every ${SAMPLE_SECONDS} s; requests, p99, max and statuses of the ${SAMPLE_SECONDS} s before; CPU of the service process, 100% = one core)`,
      '',
      '| t (s) | RSS MB | heap used MB | service CPU % | requests | p99 ms | max ms | statuses |',
      '|---:|---:|---:|---:|---:|---:|---:|---|',
      ...samples.map(
        (s) =>
          `| ${s.t}${s.died ? ' (died)' : ''} | ${s.died ? '–' : mb(s.rss)} | ${mb(s.heap)} | ${s.cpuPercent.toFixed(0)} | ${int(s.requests)} | ${s.p99.toFixed(0)} | ${s.max.toFixed(0)} | ${formatStatuses(s.statuses)} |`,
      ),
      '',
      '## RSS over time',
      '',
      '```',
      rssCurve(samples.filter((s) => !s.died)),
      '```',
      '',
      '## Verdict',
      '',
      ...(died
        ? [
            `The service DIED ${died.at.toFixed(0)} s in (exit code ${died.code}, signal ${died.signal}). Its last output:`,
            '',
            '```',
            ...service.tail.map((l) => l.slice(0, 300)),
            '```',
            '',
          ]
        : []),
      `- RSS flat after warm-up (growth < ${GROWTH_LIMIT_MB} MB): ${flat ? 'met' : 'missed'}. Growth = the highest RSS of the ${after.length} samples after ${WARM_SECONDS} s (${mb(peakAfter)} MB) minus the RSS sampled at ${WARM_SECONDS} s (${mb(ref?.rss)} MB) = ${growth === null ? '–' : `${growth.toFixed(1)} MB`}. RSS at the end: ${mb(last?.rss)} MB. Heap used: ${mb(ref?.heap)} MB at ${WARM_SECONDS} s, ${mb(heapAfter.length ? Math.min(...heapAfter) : null)}–${mb(heapAfter.length ? Math.max(...heapAfter) : null)} MB after, ${mb(last?.heap)} MB at the end.`,
      `- No request slower than the statement deadline (${int(DEADLINE_MS)} ms): ${inTime ? 'met' : 'missed'}. Slowest request: ${slowest.ms.toFixed(0)} ms (${slowest.kind ?? '–'}${slowest.op ? `, ${slowest.op}` : ''}, ${slowest.at === undefined ? '–' : `${slowest.at.toFixed(0)} s in`}); ${int(overDeadline)} over the deadline or unanswered after ${int(CLIENT_TIMEOUT_MS)} ms.`,
      '',
    ];
    const report = lines.join('\n');
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', `soak-${stamp}.md`), report);
    console.log(`\n${report}`);
    if (died) process.exitCode = 1;
  } finally {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 2000));
      if (service.child.exitCode === null && service.child.signalCode === null)
        service.child.kill('SIGKILL');
    }
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
