'use strict';
/**
 * `npm run bench:apps` (issue 25 item 4): a platform hosting thousands of apps. 2,000 apps
 * (BENCH_APPS) of 20 tables each (BENCH_APP_TABLES), each on its own SQLite file with one
 * public, published Table API per table, called round-robin by anonymous callers over HTTP on the
 * built service as in production. Reports the first call of every app (its schema built),
 * builds per second, steady rounds (p50/p99, schema builds, which must be none), a model change on
 * a few apps (builds must be exactly theirs), the service's RSS (VmRSS while running, VmHWM peak),
 * and the schema cache's size from /metrics. Run by bench/run.js too (`npm run bench`).
 *
 * Setup in seconds, not hours: one template app is made over the builder REST (datasource,
 * import, 20 Table APIs, publish), the service is stopped, and its metadata rows (app,
 * datasource, app_version) are copied in SQL for every other app with new ids and addresses,
 * each with a copy of the template's SQLite file in its own datasource folder; the service is
 * then started again on that store, as after a restart.
 *
 *   BENCH_APPS=2000 BENCH_APP_TABLES=20 BENCH_APP_ROUNDS=3 BENCH_CONNECTIONS=16 npm run bench:apps
 *   BENCH_SCHEMA_CACHE_BYTES sets the service's SCHEMA_CACHE_BYTES (default: the service's).
 *   BENCH_HEAP_SNAPSHOT_DIR=<dir> writes the service's heap snapshots there (`--heapsnapshot-signal`):
 *   `idle-<pid>.heapsnapshot` after the restart and `built-<pid>.heapsnapshot` after every app's
 *   first call, and the template's definition (`definition.json`, which `node --expose-gc
 *   bench/schema-build.js <dir>/definition.json` measures); `node bench/apps-heap.js <idle> <built>
 *   <apps>` compares the two. Run it with a few hundred apps (a snapshot of 2,000 takes GBs).
 *   Writes bench/results/apps-<date>.md (run alone) or a section of bench/results/<date>.md.
 */
const Database = require('better-sqlite3');
const { randomUUID } = require('node:crypto');
const { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { cpus, tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { emptyPostgresDatabase, latencies, rest, rssMb, scrapeMetrics, startService } = require('./process');

const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const PLATFORM_SECRET = 'bench-platform-secret-0123456789-abcdefgh';

/** The template's SQLite file: `tables` tables t00…, each 10 rows, each row naming its parent in the previous table. */
function createTemplateFile(file, tables) {
  const db = new Database(file);
  for (let t = 0; t < tables; t++) {
    const name = `t${String(t).padStart(2, '0')}`;
    const parent = t > 0 ? `, parent_id INTEGER REFERENCES t${String(t - 1).padStart(2, '0')}(id)` : '';
    db.exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, amount DECIMAL(10,2), at DATETIME, flag BOOLEAN NOT NULL DEFAULT 0${parent});`);
    if (t > 0) db.exec(`CREATE INDEX ${name}_parent ON ${name} (parent_id);`);
    const insert = db.prepare(`INSERT INTO ${name} (id, name, amount, at${t > 0 ? ', parent_id' : ''}) VALUES (?, ?, ?, ?${t > 0 ? ', ?' : ''})`);
    for (let i = 1; i <= 10; i++) {
      const row = [i, `${name} ${i}`, i * 1.5, `2024-01-${String(i).padStart(2, '0')} 00:00:00`];
      insert.run(...(t > 0 ? [...row, i] : row));
    }
  }
  db.close();
}

/** Reads the metrics this bench reports: schema builds, cache hits and the schema cache's size. */
async function schemaMetrics(base) {
  const m = await scrapeMetrics(base, METRICS_TOKEN);
  return {
    builds: m.get('tablegraph_schema_build_duration_seconds_count') ?? 0,
    hits: m.get('tablegraph_schema_cache_hits_total') ?? 0,
    views: m.get('tablegraph_schema_cache_entries{cache="views"}'),
    viewBytes: m.get('tablegraph_schema_cache_bytes{cache="views"}'),
    types: m.get('tablegraph_schema_cache_entries{cache="types"}'),
    typeBytes: m.get('tablegraph_schema_cache_bytes{cache="types"}'),
    heap: m.get('nodejs_heap_size_used_bytes'),
  };
}

/**
 * Calls every app once, in order, from `connections` concurrent callers (the round-robin of a
 * platform whose apps are each used now and then). Every answer must be the app's rows.
 * @returns latencies in ms, wall seconds and the service's highest RSS (MB) while it ran.
 */
async function round(base, addresses, body, connections, pid) {
  const ms = [];
  let next = 0;
  let errors = 0;
  let resets = 0;
  let firstError = null;
  let rss = rssMb(pid);
  const sampler = setInterval(() => (rss = Math.max(rss, rssMb(pid))), 100);
  const t0 = performance.now();
  const caller = async () => {
    while (next < addresses.length) {
      const address = addresses[next++];
      const started = performance.now();
      const send = () =>
        fetch(`${base}/api/graphql/${address}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      // A kept-alive socket the server closed as it idled (its keepAliveTimeout) resets the
      // request sent on it; undici does not retry a POST, so the bench does, once, and counts it.
      const res = await send().catch((error) => {
        if (!['ECONNRESET', 'UND_ERR_SOCKET'].includes(error?.cause?.code)) throw error;
        resets++;
        return send();
      });
      const answer = await res.json();
      ms.push(performance.now() - started);
      if (res.status !== 200 || !answer.data || answer.errors) {
        errors++;
        firstError ??= `${address}: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, caller)).finally(() => clearInterval(sampler));
  return { ms, seconds: (performance.now() - t0) / 1000, rss: Math.round(rss), errors, resets, firstError };
}

/**
 * Copies the template app's metadata rows for apps 1…n-1 (new app, datasource and version ids,
 * addresses `apps-<i>`), and its SQLite file into each app's datasource folder.
 */
async function cloneApps(metaUrl, dataDir, templateId, n) {
  const db = new Client({ connectionString: metaUrl });
  await db.connect();
  try {
    const [app] = (await db.query('SELECT * FROM app WHERE id = $1', [templateId])).rows;
    const [ds] = (await db.query('SELECT * FROM datasource WHERE app_id = $1', [templateId])).rows;
    const versions = (await db.query('SELECT * FROM app_version WHERE app_id = $1', [templateId])).rows;
    const file = join(dataDir, 'datasources', templateId, 'apps.db');
    const apps = [];
    const sources = [];
    const rows = [];
    for (let i = 1; i < n; i++) {
      const appId = randomUUID();
      const dsId = randomUUID();
      apps.push([appId, `${app.name}-${i}`, `apps-${i}`, app.created_at]);
      sources.push([dsId, appId, ds.name, ds.type, ds.url_ciphertext, ds.server_version, ds.created_at]);
      // Slot ids and the definition name the app, its datasource and its versions by id.
      const ids = new Map([[templateId, appId], [ds.id, dsId], ...versions.map((v) => [v.id, randomUUID()])]);
      const swap = (text) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => ids.get(id) ?? id);
      for (const v of versions) rows.push([ids.get(v.id), appId, swap(v.slot), v.revision, swap(v.definition), v.updated_at]);
      mkdirSync(join(dataDir, 'datasources', appId), { recursive: true });
      copyFileSync(file, join(dataDir, 'datasources', appId, 'apps.db'));
    }
    const insert = async (table, columns, values) => {
      for (let i = 0; i < values.length; i += 500) {
        const chunk = values.slice(i, i + 500);
        const params = chunk.flat();
        const tuples = chunk.map((row, r) => `(${row.map((_, c) => `$${r * row.length + c + 1}`).join(', ')})`);
        await db.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, params);
      }
    };
    await insert('app', ['id', 'name', 'address', 'created_at'], apps);
    await insert('datasource', ['id', 'app_id', 'name', 'type', 'url_ciphertext', 'server_version', 'created_at'], sources);
    await insert('app_version', ['id', 'app_id', 'slot', 'revision', 'definition', 'updated_at'], rows);
  } finally {
    await db.end();
  }
}

/**
 * Makes the service write a heap snapshot (it runs with `--heapsnapshot-signal=SIGUSR2` in `dir`)
 * and renames it `<name>-<pid>.heapsnapshot` once written (its size stops growing).
 */
async function heapSnapshot(pid, dir, name) {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  let file = null;
  let size = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    file ??= readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f)) ?? null;
    if (!file) continue;
    const now = statSync(join(dir, file)).size;
    if (now === size && now > 0) break;
    size = now;
  }
  const renamed = join(dir, `${name}-${pid}.heapsnapshot`);
  renameSync(join(dir, file), renamed);
  console.log(`Many apps: heap snapshot ${renamed} (${Math.round(size / 1048576)} MB)`);
}

/** Runs `start` with BENCH_NODE_ARGS extended by `args` (bench/process.js reads it when it spawns). */
async function withNodeArgs(args, start) {
  const saved = process.env.BENCH_NODE_ARGS;
  process.env.BENCH_NODE_ARGS = `${saved ?? ''} ${args}`;
  try {
    return await start();
  } finally {
    if (saved === undefined) delete process.env.BENCH_NODE_ARGS;
    else process.env.BENCH_NODE_ARGS = saved;
  }
}

const mb = (bytes) => (bytes === undefined ? '–' : (bytes / 1048576).toFixed(1));

/**
 * Runs the bench: `apps` apps of `tables` tables. Starts (and stops) its own service on a metadata
 * database of its own (`<db>_apps_meta`, BENCH_DB run alone).
 * @returns the report's lines (a Markdown section).
 */
async function manyApps({ pg, redis, apps = 2000, tables = Number(process.env.BENCH_APP_TABLES || 20), db = 'tg_bench' }) {
  const connections = Number(process.env.BENCH_CONNECTIONS || 16);
  const rounds = Number(process.env.BENCH_APP_ROUNDS || 3);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-apps-'));
  const meta = await emptyPostgresDatabase(pg, `${db}_apps_meta`);
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: meta.url,
    ...(redis ? { REDIS_URL: redis } : {}),
    PLATFORM_SECRET,
    ADMIN_EMAIL: 'bench@localhost',
    ADMIN_PASSWORD: 'bench-password',
    DATA_DIR: dir,
    DEMO: '0',
    METRICS_TOKEN,
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1000000000',
    ...(process.env.BENCH_SCHEMA_CACHE_BYTES ? { SCHEMA_CACHE_BYTES: process.env.BENCH_SCHEMA_CACHE_BYTES } : {}),
  };
  const snapshots = process.env.BENCH_HEAP_SNAPSHOT_DIR;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  const startWith = (environment) =>
    snapshots
      ? withNodeArgs(`--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`, () => startService(environment))
      : startService(environment);
  let service = null;
  const stopService = async () => {
    if (!service || service.exitCode !== null) return;
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (service.exitCode === null) service.kill('SIGKILL');
  };
  try {
    console.log(`Many apps: the template app (${tables} tables) over REST…`);
    const setupStarted = performance.now();
    let started = await startWith(env);
    service = started.child;
    let call = rest(started.base, (await rest(started.base)('POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' })).token);
    const app = await call('POST', '/api/apps', { name: 'apps', address: 'apps-0' });
    mkdirSync(join(dir, 'datasources', app.id), { recursive: true });
    createTemplateFile(join(dir, 'datasources', app.id, 'apps.db'), tables);
    const ds = await call('POST', `/api/apps/${app.id}/datasources`, { name: 'apps', type: 'sqlite', url: 'sqlite:apps.db' });
    const names = Array.from({ length: tables }, (_, t) => `t${String(t).padStart(2, '0')}`);
    await call('POST', `/api/apps/${app.id}/model/import`, { datasourceId: ds.id, tables: names });
    const actions = { select: true, insert: false, update: false, delete: false };
    const apiIds = [];
    for (const table of names) {
      const api = await call('POST', `/api/apps/${app.id}/apis`, { name: table, table, actions, public: { select: true } });
      await call('POST', `/api/apps/${app.id}/apis/${api.id}/publish`);
      apiIds.push(api.id);
    }
    await call('POST', `/api/apps/${app.id}/versions/publish`);
    await stopService();

    console.log(`Many apps: copying the template's metadata for ${apps - 1} more apps…`);
    await cloneApps(meta.url, dir, app.id, apps);
    started = await startWith(env);
    service = started.child;
    const { base } = started;
    if (snapshots) {
      const db = new Client({ connectionString: meta.url });
      await db.connect();
      const { rows } = await db.query('SELECT definition FROM app_version WHERE app_id = $1', [app.id]);
      await db.end();
      writeFileSync(join(snapshots, 'definition.json'), rows[0].definition);
      await heapSnapshot(service.pid, snapshots, 'idle');
    }
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    call = rest(base, (await rest(base)('POST', '/api/auth/login', { email: 'bench@localhost', password: 'bench-password' })).token);
    const idle = Math.round(rssMb(service.pid));

    const addresses = Array.from({ length: apps }, (_, i) => `apps-${i}`);
    const body = JSON.stringify({
      query: 'query Page($take: Int) { getT07(take: $take, order: [{id: ASC}]) { id name amount at } }',
      variables: { take: 5 },
    });
    const m0 = await schemaMetrics(base);
    console.log(`Many apps: first call of each of ${apps} apps…`);
    const first = await round(base, addresses, body, connections, service.pid);
    const m1 = await schemaMetrics(base);
    if (snapshots) await heapSnapshot(service.pid, snapshots, 'built');
    const steady = [];
    for (let r = 1; r < rounds; r++) {
      console.log(`Many apps: steady round ${r} of ${rounds - 1}…`);
      steady.push(await round(base, addresses, body, connections, service.pid));
    }
    const m2 = await schemaMetrics(base);

    // A model change on 10 apps: an API's actions edited, published, the version published.
    const changed = addresses.slice(0, 10);
    const byAddress = new Map((await call('GET', '/api/apps')).map((a) => [a.address, a.id]));
    for (const address of changed) {
      const appId = byAddress.get(address);
      const [api] = await call('GET', `/api/apps/${appId}/apis`);
      await call('PATCH', `/api/apps/${appId}/apis/${api.id}`, { actions: { ...actions, aggregate: true } });
      await call('POST', `/api/apps/${appId}/apis/${api.id}/publish`);
      await call('POST', `/api/apps/${appId}/versions/publish`);
    }
    console.log('Many apps: a round after the model of 10 apps changed…');
    const after = await round(base, addresses, body, connections, service.pid);
    const m3 = await schemaMetrics(base);
    const peak = Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))[1]) / 1024);
    const end = Math.round(rssMb(service.pid));

    const all = steady.flatMap((r) => r.ms);
    const f = latencies(first.ms);
    const s = latencies(all);
    const a = latencies(after.ms);
    const firstBuilds = m1.builds - m0.builds;
    const steadyBuilds = m2.builds - m1.builds;
    const changeBuilds = m3.builds - m2.builds;
    const errors = first.errors + steady.reduce((n, r) => n + r.errors, 0) + after.errors;
    const firstError = [first, ...steady, after].find((r) => r.firstError)?.firstError;
    const resets = first.resets + steady.reduce((n, r) => n + r.resets, 0) + after.resets;
    const storm = steadyBuilds === 0 && changeBuilds === changed.length;
    const rss = Math.max(first.rss, ...steady.map((r) => r.rss), after.rss);
    return [
      `## ${apps.toLocaleString('en')} apps of ${tables} tables, called round-robin (issue 25 item 4; \`npm run bench:apps\`)`,
      '',
      `Machine: ${cpus().length} cores, node ${process.version}. Each app: its own SQLite file (${tables} tables of 10 rows, each with a foreign key to the previous table), one public, published Table API per table; the service built, NODE_ENV=production, PostgreSQL metadata${redis ? ', Redis' : ''}, ${process.env.BENCH_SCHEMA_CACHE_BYTES ? `SCHEMA_CACHE_BYTES=${process.env.BENCH_SCHEMA_CACHE_BYTES} (${mb(Number(process.env.BENCH_SCHEMA_CACHE_BYTES))} MB of estimated heap)` : 'the default SCHEMA_CACHE_BYTES (640 MiB of estimated heap)'}, the default DOCUMENT_CACHE_BYTES. Setup: one template app over the builder REST, its metadata rows copied in SQL for the others, the service restarted on that store: ${Math.round(setupSeconds)} s in all. Anonymous callers, ${connections} at a time, each app called once per round in turn, with \`getT07(take: 5, order: [{id: ASC}]) { id name amount at }\` sent with variables; every answer checked to be rows (${errors} errors${firstError ? `; first: ${firstError}` : ''}; ${resets} requests sent again after a kept-alive socket was reset).`,
      '',
      '| round | calls | wall s | calls/s | schema builds | builds/s | p50 / p99 / max ms | RSS MB (highest in the round) |',
      '|---|---:|---:|---:|---:|---:|---|---:|',
      `| first call of every app | ${first.ms.length} | ${first.seconds.toFixed(1)} | ${Math.round(first.ms.length / first.seconds)} | ${firstBuilds} | ${Math.round(firstBuilds / first.seconds)} | ${f.p50} / ${f.p99} / ${f.max} | ${first.rss} |`,
      `| steady (${steady.length} rounds) | ${all.length} | ${steady.reduce((n, r) => n + r.seconds, 0).toFixed(1)} | ${Math.round(all.length / steady.reduce((n, r) => n + r.seconds, 0))} | ${steadyBuilds} | – | ${s.p50} / ${s.p99} / ${s.max} | ${Math.max(...steady.map((r) => r.rss))} |`,
      `| after a model change on ${changed.length} apps | ${after.ms.length} | ${after.seconds.toFixed(1)} | ${Math.round(after.ms.length / after.seconds)} | ${changeBuilds} | – | ${a.p50} / ${a.p99} / ${a.max} | ${after.rss} |`,
      '',
      `Schema cache after the run: ${m3.views ?? '–'} audience views (${mb(m3.viewBytes)} MB estimated) over ${m3.types ?? '–'} version type sets (${mb(m3.typeBytes)} MB estimated); Node heap used ${mb(m0.heap)} MB before the first call and ${mb(m3.heap)} MB after the run (not collected first: an upper bound of what is live), against the cache's estimate of ${mb(m3.viewBytes + m3.typeBytes)} MB. RSS: ${idle} MB idle after the restart, ${rss} MB highest while calling, ${end} MB at the end, ${peak} MB peak (VmHWM).`,
      '',
      `Targets: RSS < 1 GB: ${peak < 1024 ? 'met' : 'missed'} (${peak} MB peak); no rebuild storm (one build per app on first use, none in steady rounds, exactly one per changed app after a model change): ${storm ? 'met' : 'missed'} (${firstBuilds} / ${steadyBuilds} / ${changeBuilds}).`,
    ];
  } finally {
    await stopService();
    await meta.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { manyApps };

if (require.main === module) {
  manyApps({
    pg: process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redis: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
    apps: Number(process.env.BENCH_APPS || 2000),
    db: process.env.BENCH_DB || 'tg_bench',
  })
    .then((lines) => {
      const report = lines.join('\n');
      const stamp = new Date().toISOString().slice(0, 10);
      mkdirSync(join(__dirname, 'results'), { recursive: true });
      writeFileSync(join(__dirname, 'results', `apps-${stamp}.md`), `# Many apps ${stamp}\n\n${report.replace(/^## /, '### ')}\n`);
      console.log(`\n${report}`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
