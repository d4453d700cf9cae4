'use strict';
/* eslint @typescript-eslint/no-require-imports: "off" -- a CommonJS module of the bench scripts */
/* global require, process, __dirname, setTimeout, fetch, performance, Buffer, console */
/**
 * `npm run bench:webhooks` (issue 28: "the delay from a committed write to the webhook's
 * arrival"): the built service as in production (PostgreSQL metadata, Redis, a key with a high
 * ceiling; WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 so a loopback receiver may be the target), bench/run.js's
 * PostgreSQL dataset (scale 1), Table APIs on orders (select: Q1) and customers (update), and a
 * webhook on customers' updates whose receiver, in this process, answers 204 at once.
 *
 * BENCH_WRITES (200) writes `updateCustomers(id, city: "wh-<n>")`, one after the other with
 * BENCH_WRITE_GAP_MS (50) ms between an answer and the next request, each on its own customer (so no event waits behind its row's previous one), are sent
 * twice: with the machine otherwise idle, and while autocannon runs bench/run.js's Q1 (50 shipped
 * orders over 100, newest first, skip 100; variables form) with BENCH_CONNECTIONS (16) connections.
 * For each write the receiver's clock (the same process) gives two delays: from the request sent
 * to the event's arrival (an upper bound of commit → arrival: it includes the write's own
 * request), and from the answer received to the arrival (negative when the event arrived before
 * the client read the answer: the outbox row is written before the answer is sent). Every event
 * is checked with the Standard Webhooks reference library before it counts.
 *
 *   BENCH_POSTGRES_URL, BENCH_REDIS_URL override the local services; BENCH_DB (tg_bench) prefixes
 *   the databases it creates and drops. Writes bench/results/webhooks-<date>.md (a run the same day
 *   adds its section above the earlier ones) and prints it.
 */
require('reflect-metadata');
const autocannon = require('autocannon');
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:http');
const { cpus, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { Webhook } = require('standardwebhooks');
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
 * A receiver on 127.0.0.1 recording when each event arrived (performance.now()), by city, and
 * verifying each on arrival with the Standard Webhooks reference library once `verifier` is set
 * (its timestamp check allows 5 minutes: verified later, a long run's first events would fail).
 */
async function startReceiver() {
  const arrivals = new Map();
  const receiver = { arrivals, received: 0, unverified: 0, verifier: null };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.received++;
      try {
        receiver.verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
      } catch {
        receiver.unverified++;
      }
      try {
        const city = JSON.parse(body).data.new.city;
        if (!arrivals.has(city)) arrivals.set(city, at);
      } catch {
        /* counted as not arrived */
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return Object.assign(receiver, { server, port: server.address().port });
}

/**
 * Sends the writes of one phase one after the other (each answered before the next, then a gap
 * of GAP_MS): a steady trickle, so a delay measures delivery and not a backlog of writes.
 * Resolves with each write's send and answer instants.
 */
async function writePhase(endpoint, key, tag) {
  const sent = [];
  for (let n = 0; n < WRITES; n++) {
    const city = `wh-${tag}-${n}`;
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

/** Waits until every committed write's event arrived, or 30 s. */
async function settle(receiver, sent) {
  const until = Date.now() + 30_000;
  while (Date.now() < until && sent.some((s) => s.ok && !receiver.arrivals.has(s.city)))
    await new Promise((r) => setTimeout(r, 50));
}

function delays(receiver, sent) {
  const fromSend = [];
  const fromAnswer = [];
  let missing = 0;
  for (const s of sent.filter((x) => x.ok)) {
    const at = receiver.arrivals.get(s.city);
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

async function main() {
  const started = Date.now();
  const loadBefore = loadavg();
  const busiest = () => {
    try {
      return execFileSync('ps', ['-eo', 'pcpu,comm', '--sort=-pcpu'], { encoding: 'utf8' })
        .split('\n')
        .slice(1, 6)
        .map((l) => l.trim())
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  const busyBefore = busiest();
  const git = (...args) => {
    try {
      return execFileSync('git', args, { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const head = git('rev-parse', '--short', 'HEAD');
  const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-webhooks-'));
  const cleanups = [];
  let service = null;
  const receiver = await startReceiver();
  try {
    const data = await createPostgresDataset(PG, `${DB}_webhooks_data`, 1);
    cleanups.push(() => data.drop());
    const meta = await emptyPostgresDatabase(PG, `${DB}_webhooks_meta`);
    cleanups.push(() => meta.drop());
    const started_ = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'bench-platform-secret-0123456789-abcdefgh',
      ADMIN_EMAIL: 'bench@localhost',
      ADMIN_PASSWORD: 'bench-password',
      DATA_DIR: dir,
      DEMO: '0',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
    });
    service = started_.child;
    const base = started_.base;
    const { token } = await rest(base)('POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' });
    const call = rest(base, token);
    const app = await call('POST', '/api/apps', { name: 'bench-webhooks', address: 'bench-webhooks' });
    const ds = await call('POST', `/api/apps/${app.id}/datasources`, { name: 'bench', type: 'postgres', url: data.url });
    await call('POST', `/api/apps/${app.id}/model/import`, {
      datasourceId: ds.id,
      tables: ['public.customers', 'public.orders'],
    });
    const ids = {};
    for (const [table, actions] of [
      ['orders', { select: true, insert: false, update: false, delete: false }],
      ['customers', { select: true, insert: false, update: true, delete: false }],
    ]) {
      const api = await call('POST', `/api/apps/${app.id}/apis`, { name: table, table, actions });
      await call('POST', `/api/apps/${app.id}/apis/${api.id}/publish`);
      ids[table] = api.id;
    }
    const hook = await call('POST', `/api/apps/${app.id}/webhooks`, {
      name: 'bench',
      url: `http://127.0.0.1:${receiver.port}/hook`,
      apis: [ids.customers],
      events: ['updated'],
    });
    receiver.verifier = new Webhook(hook.secret);
    await call('POST', `/api/apps/${app.id}/versions/publish`);
    const { key } = await call('POST', '/api/admin/api-keys', {
      name: 'bench webhooks',
      scope: [{ appId: app.id, endpoints: 'all' }],
      rateLimitPerMinute: 1_000_000_000,
      pointsPerMinute: 1_000_000_000,
    });
    const endpoint = `${base}/api/graphql/bench-webhooks`;
    // Q1 answers before timing (50 orders), and one write's event arrives.
    const q1 = await (
      await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(Q1) })
    ).json();
    if (q1.data?.getOrders?.length !== 50) throw new Error(`Q1 answered ${JSON.stringify(q1).slice(0, 300)}`);
    const warm = await writePhase(endpoint, key, 'warm');
    await settle(receiver, warm);

    const idle = await writePhase(endpoint, key, 'idle');
    await settle(receiver, idle);
    const idleResult = delays(receiver, idle);

    let q1Result = null;
    let cannon = null;
    const loadRun = new Promise((resolve, reject) => {
      const seconds = LOAD_SECONDS;
      cannon = autocannon(
        {
          url: endpoint,
          method: 'POST',
          connections: CONNECTIONS,
          duration: seconds,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(Q1),
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
    });
    await new Promise((r) => setTimeout(r, 2_000)); // Q1 at full load before the first write
    const loaded = await writePhase(endpoint, key, 'q1');
    cannon.stop();
    const q1Stats = await loadRun;
    await settle(receiver, loaded);
    const loadedResult = delays(receiver, loaded);
    q1Result = {
      rps: Math.round(q1Stats.requests.average),
      p50: q1Stats.latency.p50,
      p99: q1Stats.latency.p99,
      errors: q1Stats.errors + q1Stats.non2xx,
    };

    const loadAfter = loadavg();
    const busyAfter = busiest();
    const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
    const otherLoad = loadBefore[0] >= 0.5;
    const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const row = (label, r) =>
      `| ${label} | ${r.fromSend.p50} / ${r.fromSend.p99} / ${r.fromSend.max} | ${r.fromAnswer.p50} / ${r.fromAnswer.p99} | ${r.request.p50} / ${r.request.p99} | ${r.committed} | ${r.missing} | ${r.failed} |`;
    const lines = [
      `## Webhook delivery delay ${stamp} UTC`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}. Load average before the run ${load(loadBefore)}, after ${load(loadAfter)} (1, 5, 15 min); ` +
        (otherLoad
          ? `**numbers taken with other load present** (other engineers' tests on the same machine; the busiest processes before the run: ${busyBefore.join('; ')}; after: ${busyAfter.join('; ')}).`
          : 'the machine was otherwise idle.'),
      '',
      `Built from ${head || 'an unknown commit'}${changed ? ` plus ${changed} uncommitted or new files in src/ (others' work in progress in the checkout, measured as built)` : ''}. Run time ${((Date.now() - started) / 60_000).toFixed(1)} min.`,
      '',
      `The service as in production (built, NODE_ENV=production, PostgreSQL metadata, Redis, a key with a high ceiling, WEBHOOKS_ALLOW_PRIVATE_TARGETS=1 for the loopback receiver), bench/dataset.js's PostgreSQL dataset at scale 1. ${WRITES} writes \`updateCustomers(id, city)\` (variables), one after the other with ${GAP_MS} ms between an answer and the next request, each on its own customer, to a webhook on customers' updates; the receiver, in the bench process, answers 204 at once. "Under Q1" runs bench/run.js's Q1 with autocannon, ${CONNECTIONS} connections, during the writes: ${q1Result.rps} requests/s, p50 ${q1Result.p50} ms, p99 ${q1Result.p99} ms, ${q1Result.errors} errors. ${receiver.received} deliveries received, ${receiver.unverified} failing the Standard Webhooks reference verification.`,
      '',
      '| phase | request sent → event arrived, ms (p50 / p99 / max) | answer received → event arrived, ms (p50 / p99) | the write request, ms (p50 / p99) | writes committed | events missing after 30 s | writes failed |',
      '|---|---|---|---|---:|---:|---:|',
      row('idle', idleResult),
      row(`under Q1 (${CONNECTIONS} connections)`, loadedResult),
      '',
      'Commit happens between the request sent and the answer received; the outbox row is written and the worker woken before the answer is sent, so "answer → arrival" is negative when the event reached the receiver before the client read its answer.',
      '',
    ];
    const text = lines.join('\n');
    process.stdout.write(`${text}\n`);
    const outDir = join(__dirname, 'results');
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `webhooks-${new Date().toISOString().slice(0, 10)}.md`);
    const earlier = existsSync(file)
      ? readFileSync(file, 'utf8').replace(/^# Webhook delivery delay[^\n]*\n+/, '')
      : '';
    writeFileSync(file, `# Webhook delivery delay ${new Date().toISOString().slice(0, 10)}\n\n${text}${earlier ? `\n${earlier}` : ''}`);
  } finally {
    if (service) service.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    receiver.server.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
