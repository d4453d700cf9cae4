'use strict';
/**
 * `npm run bench` (issue 8): the built service as in production (PostgreSQL metadata, Redis, a key
 * with a high ceiling) against the raw-SQL floor (bench/floor.js: node:http + pg, one hand-written
 * statement per request), on the same PostgreSQL dataset (bench/dataset.js), in one run. Every
 * answer of both is compared once before timing. Reports requests/s, p50/p99, server CPU ms per
 * request, PostgreSQL CPU ms per request, their sum (what an answer costs the machine; the floor
 * lets PostgreSQL build its JSON, ADR 0011), each as a ratio to the floor, the service's peak RSS,
 * schema build time and memory for 50/200/1,000-table models, and the same workloads on MariaDB
 * and SQLite datasources. Beside them, PostGraphile 4 and 5 on Q1–Q3 (bench/peers.js; skipped
 * with a line saying so when bench/peers/node_modules is absent), and 2,000 apps of 20 tables
 * called round-robin (bench/many-apps.js). Writes bench/results/<date>.md. Loopback only; bounded
 * in time.
 *
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 npm run bench
 *   Each PostgreSQL workload runs BENCH_ROUNDS times on each side, floor and service taking turns;
 *   the round with the median requests/s of each side is reported, after BENCH_WARMUP_SECONDS (3)
 *   of unmeasured load on each side.
 *   BENCH_FORM=variables (default: arguments as declared variables, as clients send them) or
 *   literal (arguments written into the document).
 *   BENCH_POSTGRES_URL, BENCH_MYSQL_URL, BENCH_REDIS_URL override the local services; BENCH_DB
 *   (default tg_bench) prefixes the databases it creates and drops, so two runs can share a server.
 *   BENCH_SERVICE_LOG=<file> appends the service's output to a file.
 *   BENCH_WORKLOADS=q1,q2 runs only those workloads; BENCH_OTHERS=0 skips MariaDB and SQLite
 *   (for profiling one workload with BENCH_NODE_ARGS, which the floor gets too).
 *   BENCH_PEERS=0 skips PostGraphile; BENCH_APPS=0 skips the 2,000-app run (BENCH_APPS=<n> sets
 *   the number of apps); BENCH_BIG=1 adds Q1/Q2/Q5 on a second dataset of 10 million order lines
 *   (3.3 million orders; generated in SQL in several minutes), floor, service and peers;
 *   BENCH_BIG_URL=<postgres url> runs them on such a dataset made before instead (not dropped).
 *   `npm run bench:cpu` (bench/cpu-breakdown.js) records both sides of Q1 with Linux `perf`.
 */
require('reflect-metadata');
const autocannon = require('autocannon');
const { fork } = require('node:child_process');
const { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { isDeepStrictEqual } = require('node:util');
const { join } = require('node:path');
const { createMysqlDataset, createPostgresDataset, createSqliteDataset, size } = require('./dataset');
const { asOurs, peersAvailable, startPeer } = require('./peers');
const { manyApps } = require('./many-apps');
const { TICK_MS, cpuMs, emptyPostgresDatabase, freePort, rssMb, startService } = require('./process');

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/mysql';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const WORKLOADS = (process.env.BENCH_WORKLOADS || 'q1,q2,q3,q4,q5,q6').split(',');
const OTHERS = process.env.BENCH_OTHERS !== '0';
const PEERS = process.env.BENCH_PEERS !== '0';
const APPS = process.env.BENCH_APPS === '0' ? 0 : Number(process.env.BENCH_APPS || 2000);
const BIG = process.env.BENCH_BIG === '1';
/** The prefix of the databases the bench creates and drops (BENCH_DB, default tg_bench). */
const DB = process.env.BENCH_DB || 'tg_bench';
/** BENCH_BIG's dataset: 10 million order lines (scale 1 has 300,000). */
const BIG_SCALE = 10_000_000 / 300_000;
/** The workloads PostGraphile runs too (Q4's groups and Q5's relation filters need its plugins). */
const PEER_WORKLOADS = ['q1', 'q2', 'q3'];

const FORM = process.env.BENCH_FORM || 'variables';
if (FORM !== 'variables' && FORM !== 'literal') throw new Error('BENCH_FORM is variables or literal');
const FILTER = '{status: {eq: "shipped"}, total: {gt: 100}}';
const PAGE = `where: ${FILTER}, order: [{placed_at: DESC}], take: 50, skip: 100`;
const ORDER_FIELDS = 'id status total placed_at';
/** Q2: every line of each order (no `take`: the statistics-based cost bounds the list, issue 25 item 5). */
const Q2_FIELDS = `${ORDER_FIELDS} customer { id name } order_lines { id quantity product { id name } }`;
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
/** Q6: a page per parent (issue 25 item 2): 9 departments, each with its first 5 of ~36,800 employees. */
const Q6_FIELDS = 'dept_no dept_name dept_emp(take: $per) { emp_no from_date }';
/** The workloads only the PostgreSQL dataset has tables for. */
const POSTGRES_ONLY = ['q6'];
const QUERIES =
  FORM === 'literal'
    ? {
        q1: { query: `{ getOrders(${PAGE}) { ${ORDER_FIELDS} } }` },
        q2: { query: `{ getOrders(${PAGE}) { ${Q2_FIELDS} } }` },
        q3: { query: `{ countOrders(where: ${FILTER}) }` },
        q4: { query: `{ aggregateOrders(where: {status: {eq: "shipped"}}, groupBy: [customer_id], order: [{sum: {total: DESC}}], take: 50) { ${Q4_FIELDS} } }` },
        q5: { query: `{ getOrders(where: ${Q5_LITERAL}, order: [{id: ASC}], take: 50) { id status total } }` },
        q6: { query: `{ getDepartments(take: 9) { ${Q6_FIELDS.replace('(take: $per)', '(take: 5)')} } }` },
      }
    : {
        q1: {
          query: `query Q1(${PAGE_DEFINITIONS}) { getOrders(${PAGE_ARGUMENTS}) { ${ORDER_FIELDS} } }`,
          variables: PAGE_VARIABLES,
        },
        q2: {
          query: `query Q2(${PAGE_DEFINITIONS}) { getOrders(${PAGE_ARGUMENTS}) { ${Q2_FIELDS} } }`,
          variables: PAGE_VARIABLES,
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
        q6: {
          query: `query Q6($take: Int, $per: Int) { getDepartments(take: $take) { ${Q6_FIELDS} } }`,
          variables: { take: 9, per: 5 },
        },
      };
const LABELS = {
  q1: 'Q1: 50 shipped orders over 100, newest first, skip 100',
  q2: 'Q2: Q1 + customer and every line with product',
  q3: 'Q3: count of Q1 filter',
  q4: 'Q4: revenue and orders per customer of shipped orders, top 50 by revenue',
  q5: 'Q5: 50 orders whose customer is in one city with a line of one product',
  q6: 'Q6: 9 departments, each with its first 5 of ~36,800 employees (a page per parent)',
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
  if (tables.some((t) => t.endsWith('departments'))) {
    const departments = await json(base, 'POST', `/api/apps/${app.id}/apis`, {
      name: 'departments',
      table: 'departments',
      actions,
      fields: { dept_no: true, dept_name: true, dept_emp: { emp_no: true, from_date: true } },
    }, token);
    await json(base, 'POST', `/api/apps/${app.id}/apis/${departments.id}/publish`, undefined, token);
  }
  await json(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
  const key = await json(base, 'POST', '/api/admin/api-keys', {
    name: `bench ${address}`,
    scope: [{ appId: app.id, endpoints: 'all' }],
    rateLimitPerMinute: 1_000_000_000,
    pointsPerMinute: 1_000_000_000,
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

/**
 * Compares every workload's answer of the service and of each peer (mapped to the service's
 * shape) with the floor's; throws naming the first that differs.
 */
async function compareAnswers(app, floor, peers, names) {
  console.log('Comparing every answer with the floor…');
  for (const name of names) {
    const theirs = await (await fetch(`${floor.base}/${name}`)).json();
    const answers = [['the service', await graphql(app.endpoint, app.key, QUERIES[name])]];
    for (const peer of peers) {
      if (!peer.queries[name]) continue;
      const res = await fetch(peer.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(peer.queries[name]) });
      answers.push([peer.label, asOurs(name, await res.json())]);
    }
    for (const [who, answer] of answers) {
      // A key's answers carry `extensions.cost` (README "Cost budgets"); the rows are what must match.
      const { extensions: _cost, ...ours } = answer;
      if (!isDeepStrictEqual(ours, theirs)) {
        throw new Error(`${name}: ${who} and the floor differ\n${who}: ${JSON.stringify(ours).slice(0, 400)}\nfloor: ${JSON.stringify(theirs).slice(0, 400)}`);
      }
    }
  }
}

/**
 * Runs each workload of `names` on the floor, the service and (for {@link PEER_WORKLOADS}) each
 * peer: unmeasured warm-up of each, then ROUNDS rounds in which every side takes its turn; each
 * side's round with the median requests/s is kept (this machine's speed drifts between runs of a
 * few seconds), with the service's RSS as its highest over every round.
 * @returns `[{name, f, s, peers: [{label, ...round}]}]`.
 */
async function runWorkloads(app, service, floor, peers, names) {
  const rows = [];
  for (const name of Object.keys(QUERIES)) {
    if (!names.includes(name)) continue;
    const sides = [
      { label: 'floor', url: `${floor.base}/${name}`, request: { method: 'GET' }, pid: floor.child.pid, rounds: [] },
      { label: 'service', url: app.endpoint, request: serviceRequest(app.key, QUERIES[name]), pid: service.pid, rounds: [] },
      ...peers
        .filter((p) => PEER_WORKLOADS.includes(name) && p.queries[name])
        .map((p) => ({
          label: p.label,
          url: p.endpoint,
          request: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(p.queries[name]) },
          pid: p.child.pid,
          rounds: [],
        })),
    ];
    // Unmeasured warm-up of every side (V8's optimising tiers, heap sizing, pools).
    console.log(`${name}: warm-up (${WARMUP_SECONDS} s each)…`);
    for (const side of sides) await load(side.url, { ...side.request, duration: WARMUP_SECONDS });
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of sides) {
        console.log(`${name}: ${side.label} (round ${round} of ${ROUNDS}, pid ${side.pid})…`);
        side.rounds.push(await measure(side.url, side.request, side.pid));
      }
    }
    const [f, s, ...rest] = sides.map((side) => ({ label: side.label, ...medianRound(side.rounds), rss: Math.max(...side.rounds.map((r) => r.rss)) }));
    rows.push({ name, f, s, peers: rest });
  }
  return rows;
}

/** The issue 8 targets against the floor's requests/s; Q6's is issue 25's: its page under 50 ms (p50 under load). */
const floorTarget = (name, s, f) =>
  ({ q1: s.rps / f.rps >= 0.75, q2: s.rps / f.rps >= 0.5, q3: s.rps / f.rps >= 0.9, q4: s.rps / f.rps >= 0.5, q5: s.rps / f.rps >= 0.5, q6: s.p50 < 50 })[name];

/** The service against the floor, one table row per workload. */
function floorRows(rows) {
  return rows.map(({ name, f, s }) =>
    `| ${LABELS[name]} | ${f.rps} | ${s.rps} | ${ratio(s.rps, f.rps)} | ${f.p50} / ${f.p99} | ${s.p50} / ${s.p99} | ${fmt(f.cpu)} / ${fmt(s.cpu)} (${ratio(s.cpu, f.cpu)}×) | ${fmt(f.pgCpu)} / ${fmt(s.pgCpu)} | ${fmt(f.cpu + f.pgCpu)} / ${fmt(s.cpu + s.pgCpu)} (${ratio(s.cpu + s.pgCpu, f.cpu + f.pgCpu)}×) | ${s.rss} | ${s.errors} | ${floorTarget(name, s, f) ? 'met' : 'missed'} |`,
  );
}

/**
 * The issue 25 table: each workload with the floor, PostGraphile 4 and 5 and the service, the
 * service against the faster PostGraphile, and the targets (Q1 and Q2 ≥ 1.5× the faster
 * PostGraphile's requests/s, Q3 ≥ 1.0×; server CPU per request ≤ PostGraphile's on Q1 and Q2;
 * PostgreSQL CPU per request ≤ the floor's × 1.2 on Q1 and Q2).
 */
function peerTable(rows) {
  const out = [
    '| workload | floor req/s | PostGraphile 4 req/s | PostGraphile 5 req/s | ours req/s | ours / faster PostGraphile (target) | ours / floor | server CPU ms/req floor / PG 4 / PG 5 / ours | PostgreSQL CPU ms/req floor / PG 4 / PG 5 / ours | p50 / p99 ms PG 4 / PG 5 / ours | targets |',
    '|---|---:|---:|---:|---:|---|---:|---|---|---|---|',
  ];
  for (const { name, f, s, peers } of rows) {
    if (!peers.length) continue;
    const [v4, v5] = [peers.find((p) => p.label.startsWith('PostGraphile 4')), peers.find((p) => p.label.startsWith('PostGraphile 5'))];
    const best = [v4, v5].filter(Boolean).sort((a, b) => b.rps - a.rps)[0];
    const want = name === 'q3' ? 1.0 : 1.5;
    const checks = [`req/s ${s.rps / best.rps >= want ? 'met' : 'missed'}`];
    if (name !== 'q3') {
      checks.push(`server CPU ≤ PostGraphile's (${fmt(best.cpu)}): ${s.cpu <= best.cpu ? 'met' : 'missed'}`);
      checks.push(`PostgreSQL CPU ≤ floor × 1.2 (${fmt(f.pgCpu * 1.2)}): ${s.pgCpu <= f.pgCpu * 1.2 ? 'met' : 'missed'}`);
    }
    const v = (p, k) => (p ? fmt(p[k]) : '–');
    out.push(
      `| ${LABELS[name]} | ${f.rps} | ${v(v4, 'rps')} | ${v(v5, 'rps')} | ${s.rps} | ${ratio(s.rps, best.rps)} vs ${best.label.replace('PostGraphile ', 'v')} (≥ ${want.toFixed(1)}) | ${ratio(s.rps, f.rps)} | ${fmt(f.cpu)} / ${v(v4, 'cpu')} / ${v(v5, 'cpu')} / ${fmt(s.cpu)} | ${fmt(f.pgCpu)} / ${v(v4, 'pgCpu')} / ${v(v5, 'pgCpu')} / ${fmt(s.pgCpu)} | ${v4 ? `${v4.p50} / ${v4.p99}` : '–'} · ${v5 ? `${v5.p50} / ${v5.p99}` : '–'} · ${s.p50} / ${s.p99} | ${checks.join('; ')} |`,
    );
  }
  return out;
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
    const data = await createPostgresDataset(PG, `${DB}_data`, 1);
    cleanups.push(() => data.drop());
    const meta = await emptyPostgresDatabase(PG, `${DB}_meta`);
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
    const pgApp = await setUpApp(base, token, 'bench-pg', 'postgres', data.url, ['public.customers', 'public.products', 'public.orders', 'public.order_lines', 'public.departments', 'public.dept_emp']);
    const floor = await startFloor(data.url);
    children.push(floor.child);
    const skipped = PEERS ? peersAvailable() : 'PostGraphile peers skipped (BENCH_PEERS=0).';
    const peers = [];
    if (!skipped) for (const version of [4, 5]) {
      const peer = await startPeer(version, data.url);
      children.push(peer.child);
      peers.push(peer);
    } else console.log(skipped);
    await compareAnswers(pgApp, floor, peers, Object.keys(QUERIES));
    const rows = await runWorkloads(pgApp, service, floor, peers, WORKLOADS);
    const rss = peakRssMb(service.pid);

    const others = [];
    if (OTHERS) console.log('MariaDB and SQLite datasources (service only, scale 0.25)…');
    if (OTHERS) try {
      const my = await createMysqlDataset(MYSQL, `${DB}_data`, 0.25);
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
        if (POSTGRES_ONLY.includes(name)) continue;
        const request = serviceRequest(o.app.key, query);
        await load(o.app.endpoint, { ...request, duration: WARMUP_SECONDS });
        const s = await measure(o.app.endpoint, request, service.pid);
        otherRows.push(`| ${o.type} | ${name} | ${s.rps} | ${s.p50} / ${s.p99} | ${fmt(s.cpu)} | ${s.errors} errors |`);
      }
    }
    const builds = schemaBuilds();

    // BENCH_BIG: Q1, Q2 and Q5 on 10 million order lines, floor, service and peers.
    let big = null;
    if (BIG) try {
      console.log('Generating the 10-million-line PostgreSQL dataset (several minutes)…');
      const t0 = Date.now();
      // BENCH_BIG_URL reuses a dataset made before (bench/dataset.js at scale 100/3), kept.
      const bigData = process.env.BENCH_BIG_URL
        ? { url: process.env.BENCH_BIG_URL }
        : await createPostgresDataset(PG, `${DB}_big`, BIG_SCALE);
      if (bigData.drop) cleanups.push(() => bigData.drop());
      const seconds = Math.round((Date.now() - t0) / 1000);
      const bigApp = await setUpApp(base, token, 'bench-big', 'postgres', bigData.url, ['public.customers', 'public.products', 'public.orders', 'public.order_lines']);
      const bigFloor = await startFloor(bigData.url);
      children.push(bigFloor.child);
      const bigPeers = [];
      if (!skipped) for (const version of [4, 5]) {
        const peer = await startPeer(version, bigData.url);
        children.push(peer.child);
        bigPeers.push(peer);
      }
      const names = ['q1', 'q2', 'q5'].filter((n) => WORKLOADS.includes(n));
      await compareAnswers(bigApp, bigFloor, bigPeers, names);
      big = { seconds, rows: await runWorkloads(bigApp, service, bigFloor, bigPeers, names) };
    } catch (error) {
      // The main results stand; the big dataset's failure is reported in their place.
      console.error(error);
      big = { error: error.message };
    }
    const rssAll = peakRssMb(service.pid);

    // 2,000 apps of 20 tables, on a service of their own (this run's service and peers stopped).
    let apps = null;
    if (APPS) {
      await stop();
      children.length = 0;
      apps = await manyApps({ pg: PG, redis: REDIS, apps: APPS, db: DB });
    }

    const q1 = rows.find((r) => r.name === 'q1');
    const n = size(BIG_SCALE);
    const lines = [
      `# Benchmark ${stamp}`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}; PostgreSQL dataset: 10,000 customers, 1,000 products, 100,000 orders, 300,000 order lines; orders' status, total and placed_at nullable (1 % of the orders that are not shipped hold a NULL in one of them), every foreign key indexed and orders (status, placed_at DESC, id), as a DBA would make them; for Q6, 9 departments over 331,606 dept_emp rows (foreign key indexed). Q2 reads every line of each order (no take on the nested list). autocannon, ${CONNECTIONS} connections, ${SECONDS} s per workload and round; after ${WARMUP_SECONDS} s of unmeasured load on each side, the floor, the service${skipped ? '' : ' and PostGraphile 4 and 5 (Q1–Q3)'} take turns for ${ROUNDS} rounds in one run, and each side's round with the median requests/s is shown. The service as in production: built, NODE_ENV=production, PostgreSQL metadata, Redis, a key with a high ceiling. Every answer compared with the floor's before timing. The service's requests carry their arguments ${FORM === 'variables' ? 'as declared variables with JSON values, as Apollo Client, urql and codegen clients send them' : 'as literals in the document'} (BENCH_FORM=${FORM}).`,
      '',
      '| workload | floor req/s | ours req/s | ours / floor | p50 / p99 ms (floor) | p50 / p99 ms (ours) | server CPU ms/req (floor / ours) | PostgreSQL CPU ms/req (floor / ours) | server + PostgreSQL CPU ms/req (floor / ours) | RSS MB under load (ours, peak) | errors (ours) | target |',
      '|---|---:|---:|---:|---|---|---|---|---|---:|---:|---|',
      ...floorRows(rows),
      '',
      `${q1 ? `Server CPU per request on Q1: ${ratio(q1.s.cpu, q1.f.cpu)}× the floor's (target ≤ 2.5×: ${q1.s.cpu / q1.f.cpu <= 2.5 ? 'met' : 'missed'}); server + PostgreSQL CPU ${ratio(q1.s.cpu + q1.s.pgCpu, q1.f.cpu + q1.f.pgCpu)}× (the floor's PostgreSQL builds its JSON, docs/adr/0011). ` : ''}Service peak RSS (VmHWM, whole run so far): ${rss} MB (target < 300 MB: ${rss < 300 ? 'met' : 'missed'}).`,
      '',
      '## Beside PostGraphile 4 and 5 (issue 25 targets; same dataset, same answers, one run)',
      '',
      ...(skipped
        ? [skipped]
        : [
            'Each peer is a child process with a pg pool of 10 (as the floor), NODE_ENV=production, the connection-filter plugin (Q1–Q3 filter on `total > 100`); PostGraphile 4 on the bench\'s Node, PostGraphile 5 on Node 22 from bench/peers (its `node` package). Their requests are sent with variables too. Their answers, mapped to the service\'s shape, were compared with the floor\'s before timing. PostgreSQL CPU per request counts every `postgres` process, so it includes autovacuum and other databases\' work on this shared machine.',
            '',
            ...peerTable(rows),
          ]),
      '',
      ...(big?.error ? [`## ${n.lines.toLocaleString('en')} order lines (BENCH_BIG=1)`, '', `Not measured: ${big.error}`, ''] : []),
      ...(big && !big.error
        ? [
            `## ${n.lines.toLocaleString('en')} order lines (BENCH_BIG=1)`,
            '',
            `${n.customers.toLocaleString('en')} customers, ${n.products.toLocaleString('en')} products, ${n.orders.toLocaleString('en')} orders, ${n.lines.toLocaleString('en')} order lines, the same shape and indexes, ${process.env.BENCH_BIG_URL ? 'generated before this run (BENCH_BIG_URL)' : `generated with generate_series in ${big.seconds} s`}. Same service (peak RSS over the whole run: ${rssAll} MB), floor and peers as above.`,
            '',
            '| workload | floor req/s | ours req/s | ours / floor | p50 / p99 ms (floor) | p50 / p99 ms (ours) | server CPU ms/req (floor / ours) | PostgreSQL CPU ms/req (floor / ours) | server + PostgreSQL CPU ms/req (floor / ours) | RSS MB under load (ours, peak) | errors (ours) | target |',
            '|---|---:|---:|---:|---|---|---|---|---|---:|---:|---|',
            ...floorRows(big.rows),
            '',
            ...(skipped ? [] : [...peerTable(big.rows), '']),
          ]
        : []),
      ...(apps ? [...apps, ''] : []),
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
