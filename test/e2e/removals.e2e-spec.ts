import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { RunningApp, startApp } from '../support/app-harness';

/**
 * Issue 13, item 3: `DELETE /api/apps/:appId` and `DELETE …/datasources/:dsId` over HTTP on the
 * demo app (CONTRACT.md §3): refused with 409 while Table APIs stand on them, `?force=true`
 * removes those APIs from every version, keys lose a deleted app, and nothing is half-deleted.
 */
describe('Deleting apps and datasources', () => {
  let run: RunningApp;
  let token: string;
  let key: string;
  let demoId: string;
  let datasourceId: string;

  const graphql = (query: string) =>
    run.http('POST', '/api/graphql/demo', { headers: { 'x-api-key': key }, body: { query } });

  beforeAll(async () => {
    run = await startApp();
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    key = (await seedDemo(run.app, config))!.key;
    token = await run.adminToken();
    const apps = (await run.http('GET', '/api/apps', { token })).body as { id: string }[];
    demoId = apps[0].id;
    datasourceId = (await run.http('GET', `/api/apps/${demoId}/datasources`, { token })).body[0].id;
  });
  afterAll(() => run?.close());

  it('refuses to delete an app or a datasource that Table APIs use, naming them, and keeps both', async () => {
    for (const path of [`/api/apps/${demoId}`, `/api/apps/${demoId}/datasources/${datasourceId}`]) {
      const res = await run.http('DELETE', path, { token });
      expect(res.status).toBe(409);
      expect(res.body.message).toContain('"customers", "orderLines", "orders", "products"');
      expect(res.body.message).toContain('?force=true');
    }
    expect((await graphql('{ countOrders }')).body.data).toEqual({ countOrders: 20 });
    expect((await run.http('GET', `/api/apps/${demoId}/datasources`, { token })).body).toHaveLength(
      1,
    );
  });

  it('refuses a force that is neither true nor false, and unknown ids with 404', async () => {
    const bad = await run.http('DELETE', `/api/apps/${demoId}?force=yes`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual(['force must be true or false']);
    const unknownDs = await run.http('DELETE', `/api/apps/${demoId}/datasources/nope`, { token });
    expect(unknownDs.status).toBe(404);
    expect((await run.http('DELETE', '/api/apps/nope', { token })).status).toBe(404);
    expect((await run.http('DELETE', `/api/apps/${demoId}`)).status).toBe(401);
  });

  it('with force, removes the datasource, its tables and their APIs from main and working versions', async () => {
    // The administrator's working version exists (an edit creates it) and holds the APIs too.
    const edit = await run.http('PATCH', `/api/apps/${demoId}/model/tables/products`, {
      token,
      body: { active: true },
    });
    expect(edit.status).toBe(200);
    const res = await run.http(
      'DELETE',
      `/api/apps/${demoId}/datasources/${datasourceId}?force=true`,
      { token },
    );
    expect(res.status).toBe(204);
    expect((await run.http('GET', `/api/apps/${demoId}/datasources`, { token })).body).toEqual([]);
    expect((await run.http('GET', `/api/apps/${demoId}/apis`, { token })).body).toEqual([]);
    expect((await run.http('GET', `/api/apps/${demoId}/model/tables`, { token })).body).toEqual([]);
    // Main follows on the next request: the key's operation no longer exists.
    const gone = await graphql('{ countOrders }');
    expect(gone.status).toBe(400);
    expect(gone.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('deletes an app, takes it out of key scopes, and its endpoint answers 404', async () => {
    const other = await run.http('POST', '/api/apps', {
      token,
      body: { name: 'Other', address: 'other-app' },
    });
    const created = await run.http('POST', '/api/admin/api-keys', {
      token,
      body: {
        name: 'both apps',
        scope: [
          { appId: demoId, endpoints: 'all' },
          { appId: other.body.id, endpoints: 'all' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const res = await run.http('DELETE', `/api/apps/${demoId}`, { token });
    expect(res.status).toBe(204);
    expect((await run.http('GET', `/api/apps/${demoId}`, { token })).status).toBe(404);
    expect((await run.http('GET', '/api/apps', { token })).body.map((a: any) => a.id)).toEqual([
      other.body.id,
    ]);
    const missing = await graphql('{ __typename }');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].message).toBe('App not found');
    const keys = (await run.http('GET', '/api/admin/api-keys', { token })).body as any[];
    expect(keys.find((k) => k.id === created.body.id).scope).toEqual([
      { appId: other.body.id, endpoints: 'all' },
    ]);
    // The demo key named only the demo app: it stays listed and reaches nothing.
    expect(keys.find((k) => k.id !== created.body.id).scope).toEqual([]);
    // The address is free again.
    const again = await run.http('POST', '/api/apps', {
      token,
      body: { name: 'Demo again', address: 'demo' },
    });
    expect(again.status).toBe(201);
  });
});
