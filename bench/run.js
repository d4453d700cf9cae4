'use strict';
/**
 * `npm run bench` (issue 8): the built service as in production (PostgreSQL metadata, Redis, a key
 * with a high ceiling) against the raw-SQL floor (bench/floor.js: node:http + pg, one hand-written
 * statement per request), on the same PostgreSQL dataset (bench/dataset.js), in one run. Every
 * answer of both is compared once before timing. Reports requests/s, p50/p99, server CPU ms per
 * request, PostgreSQL CPU ms per request, their sum (what an answer costs the machine; the floor
 * lets PostgreSQL build its JSON, ADR 0011), each as a ratio to the floor, the service's peak RSS,
 * schema build time and memory for 50/200/1,000-table models, and the same workloads on MariaDB
 * and SQLite datasources. Writes bench/results/<date>.md. Loopback only; bounded in time.
 *
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 npm run bench
 *   Each PostgreSQL workload runs BENCH_ROUNDS times on each side, floor and service taking turns;
 *   the round with the median requests/s of each side is reported, after BENCH_WARMUP_SECONDS (3)
 *   of unmeasured load on each side.
 *   BENCH_FORM=variables (default: arguments as declared variables, as clients send them) or
 *   literal (arguments written into the document).
 *   BENCH_POSTGRES_URL, BENCH_MYSQL_URL, BENCH_REDIS_URL override the local services.
 *   BENCH_SERVICE_LOG=<file> appends the service's output to a file.
 *   BENCH_WORKLOADS=q1,q2 runs only those workloads; BENCH_OTHERS=0 skips MariaDB and SQLite
 *   (for profiling one workload with BENCH_NODE_ARGS, which the floor gets too).
 *   `npm run bench:cpu` (bench/cpu-breakdown.js) records both sides of Q1 with Linux `perf`.
 */
require('reflect-metadata');
const autocannon = require('autocannon');
const { fork } = require('node:child_process');
const { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { isDeepStrictEqual } = require('node:util');
const { join } = require('node:path');
const { createMysqlDataset, createPostgresDataset, createSqliteDataset } = require('./dataset');
const { TICK_MS, cpuMs, emptyPostgresDatabase, freePort, rssMb, startService } = require('./process');

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/mysql';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const WORKLOADS = (process.env.BENCH_WORKLOADS || 'q1,q2,q3,q4,q5').split(',');
const OTHERS = process.env.BENCH_OTHERS !== '0';

const FORM = process.env.BENCH_FORM || 'variables';
if (FORM !== 'variables' && FORM !== 'literal') throw new Error('BENCH_FORM is variables or literal');
const FILTER = '{status: {eq: "shipped"}, total: {gt: 100}}';
const PAGE = `where: ${FILTER}, order: [{placed_at: DESC}], take: 50, skip: 100`;
const ORDER_FIELDS = 'id status total placed_at';
const Q2_FIELDS = `${ORDER_FIELDS} customer { id name } order_lines(take: 10) { id quantity product { id name } }`;
/**
 * The workloads' request bodies. `variables` (the default) sends the arguments as Apollo Client,
 * urql and codegen clients do: declared variables with JSON values (issue 21); `literal` writes
 * them into the document.
 */
const WHERE = { status: { eq: 'shipped' }, total: { gt: 100 } };
const PAGE_VARIABLES = { where: WHERE, order: [{ placed_at: 'DESC' }], take: 50, skip: 100 };
const PAGE_DEFINITIONS = '$where: OrdersFilter, $order: [OrdersOrder!], $take: Int, $skip: Int';
const PAGE_ARGUMENTS = 'where: $where, order: $order, take: $take, skip: $skip';
/** Q4: the 50 customers with the most revenue from shipped orders (groups ordered by an aggregate). */
const Q4_FIELDS = 'key { customer_id } count sum { total }';
/** Q5: orders whose customer is in one city and that have a line of one product (relation filters). */
const Q5_WHERE = { customer: { city: { eq: 'City 7' } }, order_lines: { some: { product_id: { eq: 17 } } } };
const Q5_LITERAL = '{customer: {city: {eq: "City 7"}}, order_lines: {some: {product_id: {eq: 17}}}}';
const QUERIES =
  FORM === 'literal'
    ? {
        q1: { query: `{ getOrders(${PAGE}) { ${ORDER_FIELDS} } }` },
        q2: { query: `{ getOrders(${PAGE}) { ${Q2_FIELDS} } }` },
        q3: { query: `{ countOrders(where: ${FILTER}) }` },
        q4: { query: `{ aggregateOrders(where: {status: {eq: "shipped"}}, groupBy: [customer_id], order: [{sum: {total: DESC}}], take: 50) { ${Q4_FIELDS} } }` },
        q5: { query: `{ getOrders(where: ${Q5_LITERAL}, order: [{id: ASC}], take: 50) { id status total } }` },
      }
    : {
        q1: {
          query: `query Q1(${PAGE_DEFINITIONS}) { getOrders(${PAGE_ARGUMENTS}) { ${ORDER_FIELDS} } }`,
          variables: PAGE_VARIABLES,
        },
        q2: {
          query: `query Q2(${PAGE_DEFINITIONS}, $lines: Int) { getOrders(${PAGE_ARGUMENTS}) { ${Q2_FIELDS.replace('take: 10', 'take: $lines')} } }`,
          variables: { ...PAGE_VARIABLES, lines: 10 },
        },
        q3: { query: 'query Q3($where: OrdersFilter) { countOrders(where: $where) }', variables: { where: WHERE } },
        q4: {
          query: `query Q4($where: OrdersFilter, $take: Int) { aggregateOrders(where: $where, groupBy: [customer_id], order: [{sum: {total: DESC}}], take: $take) { ${Q4_FIELDS} } }`,
          variables: { where: { status: { eq: 'shipped' } }, take: 50 },
        },
        q5: {
          query: 'query Q5($where: OrdersFilter, $take: Int) { getOrders(where: $where, order: [{id: ASC}], take: $take) { id status total } }',
          variables: { where: Q5_WHERE, take: 50 },
        },
      };
const LABELS = {
  q1: 'Q1: 50 shipped orders over 100, newest first, skip 100',
  q2: 'Q2: Q1 + customer and lines with product',
  q3: 'Q3: count of Q1 filter',
  q4: 'Q4: revenue and orders per customer of shipped orders, top 50 by revenue',
  q5: 'Q5: 50 orders whose customer is in one city with a line of one product',
};

/**
 * CPU ms PostgreSQL has used so far: every live `postgres` process's own time, plus the time of
 * the backends that have exited, which the kernel adds to their parent's (the postmaster's)
 * cutime/cstime (proc(5)). Summing live processes alone goes down when a backend exits.
 */
function postgresCpuMs() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime, stime, cutime, cstime: fields 14–17 of proc(5), 11–14 after the name.
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
    } catch {
      /* gone */
    }
  }
  return total;
}

function peakRssMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

async function json(base, method, path, body, token) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return data;
}

async function startFloor(url) {
  const port = await freePort();
  // BENCH_NODE_ARGS apply to the floor too, so a profile of both sides is made the same way.
  const execArgv = (process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean);
  const child = fork(join(__dirname, 'floor.js'), [url, String(port)], { stdio: 'ignore', execArgv });
  await new Promise((resolve) => child.once('message', resolve));
  return { child, base: `http://127.0.0.1:${port}` };
}

/** Sets up an app over the builder REST, as a user would; returns the endpoint and a key. */
async function setUpApp(base, token, address, type, url, tables, place) {
  const app = await json(base, 'POST', '/api/apps', { name: address, address }, token);
  const dsUrl = place ? place(app.id) : url;
  const ds = await json(base, 'POST', `/api/apps/${app.id}/datasources`, { name: 'bench', type, url: dsUrl }, token);
  await json(base, 'POST', `/api/apps/${app.id}/model/import`, { datasourceId: ds.id, tables }, token);
  const actions = { select: true, insert: false, update: false, delete: false, aggregate: true };
  const fields = {
    id: true,
    customer_id: true,
    status: true,
    total: true,
    placed_at: true,
    customer: { id: true, name: true, city: true },
    order_lines: { id: true, quantity: true, product_id: true, product: { id: true, name: true } },
  };
  const api = await json(base, 'POST', `/api/apps/${app.id}/apis`, { name: 'orders', table: 'orders', actions, fields }, token);
  await json(base, 'POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, token);
  await json(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
  const key = await json(base, 'POST', '/api/admin/api-keys', {
    name: `bench ${address}`,
    scope: [{ appId: app.id, endpoints: 'all' }],
    rateLimitPerMinute: 1_000_000_000,
  }, token);
  return { endpoint: `${base}/api/graphql/${address}`, key: key.key };
}

function load(url, opts) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...opts }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** Runs one workload against a target and measures its process's CPU and PostgreSQL's. */
async function measure(target, request, pid) {
  const cpu0 = cpuMs(pid);
  const pg0 = postgresCpuMs();
  // Resident memory sampled while the workload runs: its own peak, whatever ran before.
  let rss = Math.round(rssMb(pid));
  const sampler = setInterval(() => (rss = Math.max(rss, Math.round(rssMb(pid)))), 100);
  const r = await load(target, request).finally(() => clearInterval(sampler));
  const n = r.requests.total;
  return {
    rss,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpu: (cpuMs(pid) - cpu0) / n,
    pgCpu: (postgresCpuMs() - pg0) / n,
    errors: r.errors + r.non2xx,
  };
}

/** One GraphQL request (`body`: `{query, variables?}`) to the service with an API key. */
async function graphql(endpoint, key, body) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** Schema build time and heap for synthetic models of `n` tables, one Table API each. */
function schemaBuilds() {
  const { VersionTypes } = require('../dist/src/graphql-gateway/schema-builder');
  const { PUBLISHED } = require('../dist/src/graphql-gateway/request/audience');
  const { validateSchema } = require('graphql');
  const out = [];
  for (const n of [50, 200, 1000]) {
    const col = (name, kind, extra = {}) => ({ name, dbType: kind, kind, nullable: false, hasDefault: false, generated: false, maxLength: null, ...extra });
    const tables = Array.from({ length: n }, (_, i) => ({
      name: `t${i}`,
      schema: null,
      dbName: `t${i}`,
      datasourceId: 'ds',
      active: true,
      columns: [col('id', 'int'), col('name', 'text'), col('amount', 'decimal'), col('at', 'timestamptz'), col('parent_id', 'int', { nullable: true })],
      primaryKey: ['id'],
      foreignKeys: i > 0 ? [{ columns: ['parent_id'], referencedSchema: null, referencedTable: `t${i - 1}`, referencedColumns: ['id'] }] : [],
    }));
    const apis = tables.map((t, i) => ({
      id: `api${i}`,
      name: t.name,
      table: t.name,
      actions: { select: true, insert: true, update: true, delete: true },
      public: { select: false, insert: false, update: false, delete: false },
      fields: null,
      status: 'published',
      createdAt: '',
      updatedAt: '',
    }));
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = process.hrtime.bigint();
    const types = new VersionTypes({ tables, enums: [], apis, permissions: {} });
    const { schema } = types.schemaFor(PUBLISHED);
    const errors = validateSchema(schema);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (errors.length) throw new Error(errors[0].message);
    out.push({ tables: n, ms: Math.round(ms), heapMb: Math.round((process.memoryUsage().heapUsed - heap0) / 1048576) });
  }
  return out;
}

/** autocannon's request options for a GraphQL request (`{query, variables?}`) with an API key. */
function serviceRequest(key, body) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  };
}

/** The round with the median requests/s (the lower middle one of an even count). */
function medianRound(rounds) {
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)] };
}

const ratio = (a, b) => (b ? (a / b).toFixed(2) : '–');
const fmt = (x) => (typeof x === 'number' ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : x);

async function main() {
  const stamp = new Date().toISOString().slice(0, 10);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-'));
  const cleanups = [];
  const children = [];
  // SIGTERM first: the service closes gracefully (and writes a CPU profile when asked for one).
  const stop = async () => {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 2000));
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  };
  process.on('SIGINT', () => {
    for (const c of children) c.kill('SIGKILL');
    process.exit(130);
  });
  try {
    console.log('Generating the PostgreSQL dataset…');
    const data = await createPostgresDataset(PG, 'tg_bench_data', 1);
    cleanups.push(() => data.drop());
    const meta = await emptyPostgresDatabase(PG, 'tg_bench_meta');
    cleanups.push(() => meta.drop());
    const { child: service, base } = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'bench-platform-secret-0123456789-abcdefgh',
      ADMIN_EMAIL: 'bench@localhost',
      ADMIN_PASSWORD: 'bench-password',
      DATA_DIR: dir,
      DEMO: '0',
    });
    children.push(service);
    const { token } = await json(base, 'POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' });
    const pgApp = await setUpApp(base, token, 'bench-pg', 'postgres', data.url, ['public.customers', 'public.products', 'public.orders', 'public.order_lines']);
    const floor = await startFloor(data.url);
    children.push(floor.child);

    console.log('Comparing every answer with the floor…');
    for (const [name, query] of Object.entries(QUERIES)) {
      const ours = await graphql(pgApp.endpoint, pgApp.key, query);
      const theirs = await (await fetch(`${floor.base}/${name}`)).json();
      if (!isDeepStrictEqual(ours, theirs)) {
        throw new Error(`${name}: the service and the floor differ\nours:  ${JSON.stringify(ours).slice(0, 400)}\nfloor: ${JSON.stringify(theirs).slice(0, 400)}`);
      }
    }

    const rows = [];
    for (const [name, query] of Object.entries(QUERIES)) {
      if (!WORKLOADS.includes(name)) continue;
      // Floor and service take turns, ROUNDS times each; each side's round with the median
      // requests/s is reported (this machine's speed drifts between runs of a few seconds).
      const floorRounds = [];
      const serviceRounds = [];
      // Unmeasured warm-up of both sides (V8's optimising tiers, heap sizing, pools).
      const request = serviceRequest(pgApp.key, query);
      console.log(`${name}: warm-up (${WARMUP_SECONDS} s each)…`);
      await load(`${floor.base}/${name}`, { method: 'GET', duration: WARMUP_SECONDS });
      await load(pgApp.endpoint, { ...request, duration: WARMUP_SECONDS });
      for (let round = 1; round <= ROUNDS; round++) {
        console.log(`${name}: floor (round ${round} of ${ROUNDS}, pid ${floor.child.pid})…`);
        floorRounds.push(await measure(`${floor.base}/${name}`, { method: 'GET' }, floor.child.pid));
        console.log(`${name}: service (round ${round} of ${ROUNDS}, pid ${service.pid})…`);
        serviceRounds.push(await measure(pgApp.endpoint, request, service.pid));
      }
      const s = medianRound(serviceRounds);
      // RSS under load: the service's highest over every round of the workload.
      s.rss = Math.max(...serviceRounds.map((r) => r.rss));
      rows.push({ name, f: medianRound(floorRounds), s });
    }
    const rss = peakRssMb(service.pid);

    const others = [];
    if (OTHERS) console.log('MariaDB and SQLite datasources (service only, scale 0.25)…');
    if (OTHERS) try {
      const my = await createMysqlDataset(MYSQL, 'tg_bench_data', 0.25);
      cleanups.push(() => my.drop());
      others.push({ type: 'mariadb', app: await setUpApp(base, token, 'bench-my', 'mysql', my.url, ['customers', 'products', 'orders', 'order_lines']) });
    } catch (error) {
      others.push({ type: 'mariadb', error: error.message });
    }
    if (OTHERS) {
      const sqliteApp = await setUpApp(base, token, 'bench-sqlite', 'sqlite', null, ['customers', 'products', 'orders', 'order_lines'], (appId) => {
        const folder = join(dir, 'datasources', appId);
        mkdirSync(folder, { recursive: true });
        createSqliteDataset(join(folder, 'bench.db'), 0.25);
        return 'sqlite:bench.db';
      });
      others.push({ type: 'sqlite', app: sqliteApp });
    }
    const otherRows = [];
    for (const o of others) {
      if (o.error) {
        otherRows.push(`| ${o.type} | – | – | – | – | not measured: ${o.error.slice(0, 80)} |`);
        continue;
      }
      for (const [name, query] of Object.entries(QUERIES)) {
        const request = serviceRequest(o.app.key, query);
        await load(o.app.endpoint, { ...request, duration: WARMUP_SECONDS });
        const s = await measure(o.app.endpoint, request, service.pid);
        otherRows.push(`| ${o.type} | ${name} | ${s.rps} | ${s.p50} / ${s.p99} | ${fmt(s.cpu)} | ${s.errors} errors |`);
      }
    }
    const builds = schemaBuilds();

    const target = (name, s, f) =>
      ({ q1: s.rps / f.rps >= 0.75, q2: s.rps / f.rps >= 0.5, q3: s.rps / f.rps >= 0.9, q4: s.rps / f.rps >= 0.5, q5: s.rps / f.rps >= 0.5 })[name];
    const q1 = rows.find((r) => r.name === 'q1');
    const lines = [
      `# Benchmark ${stamp}`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}; PostgreSQL dataset: 10,000 customers, 1,000 products, 100,000 orders, 300,000 order lines, index orders (status, placed_at DESC, id). autocannon, ${CONNECTIONS} connections, ${SECONDS} s per workload and round; after ${WARMUP_SECONDS} s of unmeasured load on each side, the floor and the service take turns for ${ROUNDS} rounds in one run, and each side's round with the median requests/s is shown. The service as in production: built, NODE_ENV=production, PostgreSQL metadata, Redis, a key with a high ceiling. Every answer compared with the floor's before timing. The service's requests carry their arguments ${FORM === 'variables' ? 'as declared variables with JSON values, as Apollo Client, urql and codegen clients send them' : 'as literals in the document'} (BENCH_FORM=${FORM}).`,
      '',
      '| workload | floor req/s | ours req/s | ours / floor | p50 / p99 ms (floor) | p50 / p99 ms (ours) | server CPU ms/req (floor / ours) | PostgreSQL CPU ms/req (floor / ours) | server + PostgreSQL CPU ms/req (floor / ours) | RSS MB under load (ours, peak) | errors (ours) | target |',
      '|---|---:|---:|---:|---|---|---|---|---|---:|---:|---|',
      ...rows.map(({ name, f, s }) =>
        `| ${LABELS[name]} | ${f.rps} | ${s.rps} | ${ratio(s.rps, f.rps)} | ${f.p50} / ${f.p99} | ${s.p50} / ${s.p99} | ${fmt(f.cpu)} / ${fmt(s.cpu)} (${ratio(s.cpu, f.cpu)}×) | ${fmt(f.pgCpu)} / ${fmt(s.pgCpu)} | ${fmt(f.cpu + f.pgCpu)} / ${fmt(s.cpu + s.pgCpu)} (${ratio(s.cpu + s.pgCpu, f.cpu + f.pgCpu)}×) | ${s.rss} | ${s.errors} | ${target(name, s, f) ? 'met' : 'missed'} |`,
      ),
      '',
      `${q1 ? `Server CPU per request on Q1: ${ratio(q1.s.cpu, q1.f.cpu)}× the floor's (target ≤ 2.5×: ${q1.s.cpu / q1.f.cpu <= 2.5 ? 'met' : 'missed'}); server + PostgreSQL CPU ${ratio(q1.s.cpu + q1.s.pgCpu, q1.f.cpu + q1.f.pgCpu)}× (the floor's PostgreSQL builds its JSON, docs/adr/0011). ` : ''}Service peak RSS (VmHWM, whole run so far): ${rss} MB (target < 300 MB: ${rss < 300 ? 'met' : 'missed'}).`,
      '',
      '## Schema build (in process, VersionTypes + published schema + validateSchema)',
      '',
      '| tables (one Table API each) | build ms | heap MB |',
      '|---:|---:|---:|',
      ...builds.map((b) => `| ${b.tables} | ${b.ms} | ${b.heapMb} |`),
      '',
      `1,000-table schema under 1 s: ${builds.find((b) => b.tables === 1000).ms < 1000 ? 'met' : 'missed'}.`,
      '',
      '## Other datasources (service only; datasets at a quarter of the size)',
      '',
      '| datasource | workload | req/s | p50 / p99 ms | server CPU ms/req | |',
      '|---|---|---:|---|---:|---|',
      ...otherRows,
      '',
    ];
    const report = lines.join('\n');
    // Only a full run is a result; a partial one (profiling) is printed.
    if (WORKLOADS.length === Object.keys(QUERIES).length && OTHERS) {
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      writeFileSync(join(__dirname, 'results', `${stamp}.md`), report);
    }
    console.log(`\n${report}`);
  } finally {
    await stop();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
