'use strict';
/* eslint @typescript-eslint/no-require-imports: "off", no-console: "off" -- a CommonJS script for node, reporting on stdout as bench/run.js does */
/* global require, process, console, setInterval, clearInterval, setTimeout, fetch, AbortSignal */
/**
 * `node bench/row-budget.js` (issue 22 item 10), on the built service (`tsc -p
 * tsconfig.build.json` first): a PostgreSQL table of 60 rows of 1 MB text each, read as one page
 * by 10 concurrent requests, each past the request's byte budget (`LIMIT_RESPONSE_BYTES`). Prints
 * the service's RSS before and at its peak (sampled every 20 ms), the answers' codes, and whether
 * a normal request answers right after. Run once per budget: BENCH_BUDGET=<bytes> (default the
 * service's default, 32 MiB). BENCH_POSTGRES_URL / BENCH_REDIS_URL as for the other benches.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { emptyPostgresDatabase, rest, rssMb, startService } = require('./process');

const PG = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const BUDGET = process.env.BENCH_BUDGET;
const ROWS = 60;
const ROW_BYTES = 1024 * 1024;
const CONCURRENT = 10;

/** One REST call of the builder API (see `rest` in process.js); throws on a status ≥ 300. */
function call(base, method, path, body, token) {
  return rest(base, token)(method, path, body);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-row-budget-'));
  const data = await emptyPostgresDatabase(PG, 'tg_row_budget_data');
  const meta = await emptyPostgresDatabase(PG, 'tg_row_budget_meta');
  const { Client } = require('pg');
  const client = new Client({ connectionString: data.url });
  await client.connect();
  await client.query('CREATE TABLE blobs (id int PRIMARY KEY, payload text NOT NULL)');
  await client.query(
    `INSERT INTO blobs SELECT g, repeat(chr(97 + g % 26), ${ROW_BYTES}) FROM generate_series(1, ${ROWS}) g`,
  );
  await client.end();
  let service;
  try {
    service = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: meta.url,
      REDIS_URL: REDIS,
      PLATFORM_SECRET: 'row-budget-platform-secret-0123456789-abcdef',
      ADMIN_EMAIL: 'budget@localhost',
      ADMIN_PASSWORD: 'budget-password',
      DATA_DIR: dir,
      DEMO: '0',
      ...(BUDGET ? { LIMIT_RESPONSE_BYTES: BUDGET } : {}),
    });
    const { base, child } = service;
    const { token } = await call(base, 'POST', '/api/auth/login', {
      email: 'budget@localhost',
      password: 'budget-password',
    });
    const app = await call(base, 'POST', '/api/apps', { name: 'budget', address: 'budget' }, token);
    const ds = await call(
      base,
      'POST',
      `/api/apps/${app.id}/datasources`,
      { name: 'blobs', type: 'postgres', url: data.url },
      token,
    );
    await call(
      base,
      'POST',
      `/api/apps/${app.id}/model/import`,
      { datasourceId: ds.id, tables: ['public.blobs'] },
      token,
    );
    const api = await call(
      base,
      'POST',
      `/api/apps/${app.id}/apis`,
      {
        name: 'blobs',
        table: 'blobs',
        actions: { select: true, insert: false, update: false, delete: false },
        fields: { id: true, payload: true },
      },
      token,
    );
    await call(base, 'POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, token);
    await call(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, token);
    const { key } = await call(
      base,
      'POST',
      '/api/admin/api-keys',
      { name: 'budget', scope: [{ appId: app.id, endpoints: 'all' }] },
      token,
    );
    const gql = async (query) => {
      const res = await fetch(`${base}/api/graphql/budget`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(60_000),
      });
      const body = JSON.parse(await res.text());
      return body.errors?.[0]?.extensions?.code ?? (body.data ? 'rows' : String(res.status));
    };
    await gql('{ getBlobs(take: 1) { id } }');
    await new Promise((r) => setTimeout(r, 1_000));
    const before = rssMb(child.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid))), 20);
    const codes = await Promise.all(
      Array.from({ length: CONCURRENT }, () => gql(`{ getBlobs(take: ${ROWS}) { id payload } }`)),
    );
    clearInterval(sampler);
    const after = await gql('{ getBlobs(take: 2) { id } }');
    const counts = {};
    for (const c of codes) counts[c] = (counts[c] ?? 0) + 1;
    console.log(
      `budget ${BUDGET ?? 'default (32 MiB)'}: RSS ${Math.round(before)} MB before, peak ${Math.round(peak)} MB (growth ${Math.round(peak - before)} MB); answers ${JSON.stringify(counts)}; next request: ${after}`,
    );
  } finally {
    service?.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await data.drop().catch(() => undefined);
    await meta.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
