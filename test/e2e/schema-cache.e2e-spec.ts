import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { publishTableApis, SELECT_ONLY } from '../support/table-apis';
import { SchemaProviderService } from '../../src/graphql-gateway/schema-provider.service';

/**
 * Issue 22, item 4: a platform hosts thousands of apps. The schema cache is bounded by estimated
 * bytes (`SCHEMA_CACHE_BYTES`), not by a count of 200 that made 210 apps called in turn rebuild a
 * schema on every request; and one app may cause at most `SCHEMA_BUILDS_PER_APP_PER_SECOND`
 * builds a second (429 with `retry-after` beyond). Runs on SQLite datasources over HTTP.
 */

/** Creates an app with a one-table SQLite datasource and one public, published Table API. */
async function createPublicApp(run: RunningApp, token: string, address: string): Promise<string> {
  const app = await run.http('POST', '/api/apps', { token, body: { name: address, address } });
  expect(app.status).toBe(201);
  const folder = join(run.dataDir, 'datasources', app.body.id);
  mkdirSync(folder, { recursive: true });
  const db = new Database(join(folder, 'tiny.db'));
  db.exec(
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO items VALUES (1, 'one');",
  );
  db.close();
  const ds = await run.http('POST', `/api/apps/${app.body.id}/datasources`, {
    token,
    body: { name: 'tiny', type: 'sqlite', url: 'sqlite:tiny.db' },
  });
  expect(ds.status).toBe(201);
  const imported = await run.http('POST', `/api/apps/${app.body.id}/model/import`, {
    token,
    body: { datasourceId: ds.body.id, tables: ['items'] },
  });
  expect(imported.status).toBe(201);
  await publishTableApis(run, token, app.body.id, [
    { name: 'items', table: 'items', actions: SELECT_ONLY, public: { select: true } },
  ]);
  return app.body.id as string;
}

describe('The schema cache at many apps', () => {
  let run: RunningApp;
  let token: string;
  const APPS = 210;

  beforeAll(async () => {
    run = await startApp({
      env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '100000', SCHEMA_BUILDS_PER_APP_PER_SECOND: '10' },
    });
    token = await run.adminToken();
    for (let i = 0; i < APPS; i++) await createPublicApp(run, token, `many-${i}`);
  }, 300_000);

  afterAll(async () => {
    await run?.close();
  });

  it('builds one schema per app when 210 apps are called anonymously in turn, twice over', async () => {
    const schemas = run.app.get(SchemaProviderService);
    const before = schemas.schemasBuilt;
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < APPS; i++) {
        const res = await run.http('POST', `/api/graphql/many-${i}`, {
          body: { query: '{ getItems { id name } }' },
        });
        expect(res.body).toEqual({ data: { getItems: [{ id: '1', name: 'one' }] } });
      }
    }
    // Before: a cache of 200 schemas dropped each app's schema before its next call (420 builds).
    expect(schemas.schemasBuilt - before).toBe(APPS);
    const cached = schemas.schemasCached;
    expect(cached.schemas).toBeGreaterThanOrEqual(APPS);
    expect(cached.bytes).toBeGreaterThan(0);
    expect(cached.typeBytes).toBeGreaterThan(0);
  });
});

describe('Schema builds per app per second', () => {
  let run: RunningApp;
  let token: string;

  beforeAll(async () => {
    run = await startApp({ env: { SCHEMA_BUILDS_PER_APP_PER_SECOND: '1' } });
    token = await run.adminToken();
    await createPublicApp(run, token, 'builds');
  }, 60_000);

  afterAll(async () => {
    await run?.close();
  });

  it('answers 429 with retry-after when one app needs more builds in a second than allowed, and builds it later', async () => {
    const query = { query: '{ getItems { id } }' };
    // Two audiences of one version: the anonymous view, then the builder's (its working version).
    const first = await run.http('POST', '/api/graphql/builds', { body: query });
    expect(first.body).toEqual({ data: { getItems: [{ id: '1' }] } });
    const second = await run.http('POST', '/api/graphql/builds', { body: query, token });
    expect(second.status).toBe(429);
    expect(second.body.errors[0]).toMatchObject({
      message: 'Rate limit exceeded',
      extensions: { code: 'RATE_LIMITED' },
    });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A cached schema is never refused: the anonymous view still answers.
    const cached = await run.http('POST', '/api/graphql/builds', { body: query });
    expect(cached.status).toBe(200);
    await new Promise((resolve) =>
      setTimeout(resolve, Number(second.headers.get('retry-after')) * 1000),
    );
    const later = await run.http('POST', '/api/graphql/builds', { body: query, token });
    expect(later.body).toEqual({ data: { getItems: [{ id: '1' }] } });
  });
});
