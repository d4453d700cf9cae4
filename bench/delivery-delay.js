'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, process, __dirname, setTimeout, fetch, performance, module */
/**
 * What `npm run bench:webhooks` and `npm run bench:subscriptions` share (issue 28: "the delay from
 * a committed write to the webhook's arrival and to a subscriber"): the built service as in
 * production (PostgreSQL metadata, Redis, a key with a high ceiling), bench/run.js's PostgreSQL
 * dataset (scale 1), Table APIs on orders (select: Q1) and customers (select, update), then
 * BENCH_WRITES (200) writes `updateCustomers(id, city: "<prefix>-<phase>-<n>")`, one after the
 * other with BENCH_WRITE_GAP_MS (50) ms between an answer and the next request, each on its own
 * customer (so no event waits behind its row's previous one), sent twice: with the machine
 * otherwise idle, and while autocannon runs bench/run.js's Q1 (variables form) with
 * BENCH_CONNECTIONS (16) connections. The listener (a webhook receiver or a subscriber, in this
 * process) records when each city arrived (`performance.now()`), which gives two delays per write:
 * from the request sent to the arrival (an upper bound of commit → arrival: it includes the write's
 * own request), and from the answer received to the arrival (negative when the event arrived
 * before the client read the answer). Each bench writes bench/results/<name>-<date>.md (a run the
 * same day adds its section above the earlier ones) and prints it.
 *
 * Environment: BENCH_POSTGRES_URL, BENCH_REDIS_URL override the local services; BENCH_DB (default
 * tg_bench) prefixes the databases it creates and drops.
 */
const autocannon = require('autocannon');
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { cpus, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { createPostgresDataset } = require('./dataset');
const { emptyPostgresDatabase, latencies, percentile, rest, startService } = require('./process');

const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const DB = process.env.BENCH_DB || 'tg_bench';
const WRITES = Number(process.env.BENCH_WRITES || 200);
const GAP_MS = Number(process.env.BENCH_WRITE_GAP_MS || 50);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
/** How long Q1 runs (it is stopped once the writes are done). */
const LOAD_SECONDS = 600;
/** Q1 of bench/run.js, variables form. */
const Q1 = {
  query:
    'query Q1($where: OrdersFilter, $order: [OrdersOrder!], $take: Int, $skip: Int) { getOrders(where: $where, order: $order, take: $take, skip: $skip) { id status total placed_at } }',
  variables: {
    where: { status: { eq: 'shipped' }, total: { gt: 100 } },
    order: [{ placed_at: 'DESC' }],
    take: 50,
    skip: 100,
  },
};

/**
 * Sends the writes of one phase one after the other (each answered before the next, then a gap
 * of GAP_MS): a steady trickle, so a delay measures delivery and not a backlog of writes.
 * Resolves with each write's city and its send and answer instants.
 */
async function writePhase(endpoint, key, tag) {
  const sent = [];
  for (let n = 0; n < WRITES; n++) {
    const city = `${tag}-${n}`;
    const t0 = performance.now();
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          query: 'mutation W($id: ID!, $city: String) { updateCustomers(id: $id, city: $city) { id } }',
          variables: { id: 1 + n, city },
        }),
      });
      const answer = await res.json();
      const ok = !answer.errors && answer.data?.updateCustomers;
      sent.push({ city, t0, t1: performance.now(), ok: Boolean(ok) });
    } catch {
      // A connection reset (the server closing an idle keep-alive socket as it is reused):
      // whether it committed is unknown, so the write is counted failed, not timed.
      sent.push({ city, t0, t1: performance.now(), ok: false });
    }
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  return sent;
}

/** Waits until every committed write's event arrived (`arrivals`: city → instant), or 30 s. */
async function settle(arrivals, sent) {
  const until = Date.now() + 30_000;
  while (Date.now() < until && sent.some((s) => s.ok && !arrivals.has(s.city)))
    await new Promise((r) => setTimeout(r, 50));
}

/** The delays of one phase's writes, from the arrivals recorded. */
function delays(arrivals, sent) {
  const fromSend = [];
  const fromAnswer = [];
  let missing = 0;
  for (const s of sent.filter((x) => x.ok)) {
    const at = arrivals.get(s.city);
    if (at === undefined) {
      missing++;
      continue;
    }
    fromSend.push(at - s.t0);
    fromAnswer.push(at - s.t1);
  }
  const requests = sent.filter((x) => x.ok).map((s) => s.t1 - s.t0);
  return {
    committed: sent.filter((x) => x.ok).length,
    failed: sent.filter((x) => !x.ok).length,
    missing,
    fromSend: latencies(fromSend),
    fromAnswer: { p50: Math.round(percentile(fromAnswer, 50)), p99: Math.round(percentile(fromAnswer, 99)) },
    request: latencies(requests),
  };
}

/** The five busiest processes (`ps`), for a run's note on other load. */
function busiest() {
  try {
    return execFileSync('ps', ['-eo', 'pcpu,comm', '--sort=-pcpu'], { encoding: 'utf8' })
      .split('\n')
      .slice(1, 6)
      .map((l) => l.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

function git(...args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Runs Q1 with autocannon until `stop()`, which resolves with its figures. */
function startQ1Load(endpoint, key) {
  let cannon = null;
  const run = new Promise((resolve, reject) => {
    cannon = autocannon(
      {
        url: endpoint,
        method: 'POST',
        connections: CONNECTIONS,
        duration: LOAD_SECONDS,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(Q1),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  return {
    async stop() {
      cannon.stop();
      const stats = await run;
      return {
        rps: Math.round(stats.requests.average),
        p50: stats.latency.p50,
        p99: stats.latency.p99,
        errors: stats.errors + stats.non2xx,
      };
    },
  };
}

/**
 * Runs one delivery-delay bench (see the file's comment).
 * @param bench `{ name, title, prefix, env, listen, setup, arrivalNote }`: `name` names the
 *   results file and the databases; `title` heads its sections; `prefix` starts each write's city;
 *   `env` is added to the service's; `listen({base, call, app, ids, key})` starts the listener
 *   (after the customers and orders APIs exist, before main is published when `beforePublish`)
 *   and resolves with `{ arrivals, ready(), summary(), close() }`; `setup` (a sentence) says what
 *   listens; `arrivalNote` says when the change leaves the service.
 */
async function runDeliveryBench(bench) {
  const started = Date.now();
  const loadBefore = loadavg();
  const busyBefore = busiest();
  const head = git('rev-parse', '--short', 'HEAD');
  const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
  const dir = mkdtempSync(join(tmpdir(), `tg-bench-${bench.name}-`));
  const cleanups = [];
  let service = null;
  let listener = null;
  try {
    const data = await createPostgresDataset(PG, `${DB}_${bench.name}_data`, 1);
    cleanups.push(() => data.drop());
    const meta = await emptyPostgresDatabase(PG, `${DB}_${bench.name}_meta`);
    cleanups.push(() => meta.drop());
    const running = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'bench-platform-secret-0123456789-abcdefgh',
      ADMIN_EMAIL: 'bench@localhost',
      ADMIN_PASSWORD: 'bench-password',
      DATA_DIR: dir,
      DEMO: '0',
      ...bench.env,
    });
    service = running.child;
    const base = running.base;
    const { token } = await rest(base)('POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' });
    const call = rest(base, token);
    const address = `bench-${bench.name}`;
    const app = await call('POST', '/api/apps', { name: address, address });
    const ds = await call('POST', `/api/apps/${app.id}/datasources`, { name: 'bench', type: 'postgres', url: data.url });
    await call('POST', `/api/apps/${app.id}/model/import`, { datasourceId: ds.id, tables: ['public.customers', 'public.orders'] });
    const ids = {};
    for (const [table, actions] of [
      ['orders', { select: true, insert: false, update: false, delete: false }],
      ['customers', { select: true, insert: false, update: true, delete: false }],
    ]) {
      const api = await call('POST', `/api/apps/${app.id}/apis`, { name: table, table, actions });
      await call('POST', `/api/apps/${app.id}/apis/${api.id}/publish`);
      ids[table] = api.id;
    }
    const { key } = await call('POST', '/api/admin/api-keys', {
      name: `bench ${bench.name}`,
      scope: [{ appId: app.id, endpoints: 'all' }],
      rateLimitPerMinute: 1_000_000_000,
      pointsPerMinute: 1_000_000_000,
    });
    listener = await bench.listen({ base, call, app, ids, key, address });
    await call('POST', `/api/apps/${app.id}/versions/publish`);
    await listener.ready();
    const endpoint = `${base}/api/graphql/${address}`;
    // Q1 answers before timing (50 orders), and the warm-up's events arrive.
    const q1 = await (
      await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(Q1) })
    ).json();
    if (q1.data?.getOrders?.length !== 50) throw new Error(`Q1 answered ${JSON.stringify(q1).slice(0, 300)}`);
    const { arrivals } = listener;
    const warm = await writePhase(endpoint, key, `${bench.prefix}-warm`);
    await settle(arrivals, warm);

    const idle = await writePhase(endpoint, key, `${bench.prefix}-idle`);
    await settle(arrivals, idle);
    const idleResult = delays(arrivals, idle);

    const q1Load = startQ1Load(endpoint, key);
    await new Promise((r) => setTimeout(r, 2_000)); // Q1 at full load before the first write
    const loaded = await writePhase(endpoint, key, `${bench.prefix}-q1`);
    const q1Result = await q1Load.stop();
    await settle(arrivals, loaded);
    const loadedResult = delays(arrivals, loaded);

    const loadAfter = loadavg();
    const busyAfter = busiest();
    const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
    const otherLoad = loadBefore[0] >= 0.5;
    const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const row = (label, r) =>
      `| ${label} | ${r.fromSend.p50} / ${r.fromSend.p99} / ${r.fromSend.max} | ${r.fromAnswer.p50} / ${r.fromAnswer.p99} | ${r.request.p50} / ${r.request.p99} | ${r.committed} | ${r.missing} | ${r.failed} |`;
    const lines = [
      `## ${bench.title} ${stamp} UTC`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}. Load average before the run ${load(loadBefore)}, after ${load(loadAfter)} (1, 5, 15 min); ` +
        (otherLoad
          ? `**numbers taken with other load present** (other engineers' tests on the same machine; the busiest processes before the run: ${busyBefore.join('; ')}; after: ${busyAfter.join('; ')}).`
          : 'the machine was otherwise idle.'),
      '',
      `Built from ${head || 'an unknown commit'}${changed ? ` plus ${changed} uncommitted or new files in src/ (others' work in progress in the checkout, measured as built)` : ''}. Run time ${((Date.now() - started) / 60_000).toFixed(1)} min.`,
      '',
      `The service as in production (built, NODE_ENV=production, PostgreSQL metadata, Redis, a key with a high ceiling), bench/dataset.js's PostgreSQL dataset at scale 1. ${WRITES} writes \`updateCustomers(id, city)\` (variables), one after the other with ${GAP_MS} ms between an answer and the next request, each on its own customer, ${bench.setup} "Under Q1" runs bench/run.js's Q1 with autocannon, ${CONNECTIONS} connections, during the writes: ${q1Result.rps} requests/s, p50 ${q1Result.p50} ms, p99 ${q1Result.p99} ms, ${q1Result.errors} errors. ${listener.summary()}`,
      '',
      '| phase | request sent → event arrived, ms (p50 / p99 / max) | answer received → event arrived, ms (p50 / p99) | the write request, ms (p50 / p99) | writes committed | events missing after 30 s | writes failed |',
      '|---|---|---|---|---:|---:|---:|',
      row('idle', idleResult),
      row(`under Q1 (${CONNECTIONS} connections)`, loadedResult),
      '',
      `Commit happens between the request sent and the answer received; ${bench.arrivalNote}, so "answer → arrival" is negative when the event arrived before the client read its answer.`,
      '',
    ];
    const text = lines.join('\n');
    process.stdout.write(`${text}\n`);
    const outDir = join(__dirname, 'results');
    mkdirSync(outDir, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    const file = join(outDir, `${bench.name}-${day}.md`);
    const heading = new RegExp(`^# ${bench.title}[^\\n]*\\n+`);
    const earlier = existsSync(file) ? readFileSync(file, 'utf8').replace(heading, '') : '';
    writeFileSync(file, `# ${bench.title} ${day}\n\n${text}${earlier ? `\n${earlier}` : ''}`);
  } finally {
    if (service) service.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    await listener?.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { runDeliveryBench };
