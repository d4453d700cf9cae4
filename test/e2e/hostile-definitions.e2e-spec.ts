import Database from 'better-sqlite3';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { placeSqliteFile } from '../support/sqlite-placement';

/**
 * Issue 7 part 5 over HTTP (CONTRACT.md §3): every change to a working version is proven before
 * it is saved; a clash of generated names is refused with 409 naming both sides, a definition that
 * would not build with 400; a version that stopped building anyway answers API_UNAVAILABLE, never
 * 500, and other apps keep serving.
 */
describe('Hostile definitions', () => {
  let run: RunningApp;
  let token: string;
  let appId: string;
  let key: string;
  const select = { select: true, insert: false, update: false, delete: false };

  const serving = async (address = 'defs', apiKey = key) => {
    const res = await run.http('POST', `/api/graphql/${address}`, {
      body: { query: '{ countOrders }' },
      headers: { 'x-api-key': apiKey },
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.data.countOrders).toBe('number');
  };

  const setUp = async (address: string) => {
    const app = (await run.http('POST', '/api/apps', { token, body: { name: address, address } }))
      .body;
    const url = placeSqliteFile(
      run.dataDir,
      app.id,
      loadSalesIntoSqlite(run.dataDir, `${address}.db`),
    );
    const ds = (
      await run.http('POST', `/api/apps/${app.id}/datasources`, {
        token,
        body: { name: 's', type: 'sqlite', url },
      })
    ).body;
    await run.http('POST', `/api/apps/${app.id}/model/import`, {
      token,
      body: { datasourceId: ds.id, tables: ['customers', 'orders', 'order_lines'] },
    });
    for (const body of [
      { name: 'orders', table: 'orders', actions: select },
      {
        name: 'customers',
        table: 'customers',
        actions: select,
        fields: { id: true, name: true, orders: { id: true } },
      },
    ]) {
      const api = (await run.http('POST', `/api/apps/${app.id}/apis`, { token, body })).body;
      await run.http('POST', `/api/apps/${app.id}/apis/${api.id}/publish`, { token });
    }
    await run.http('POST', `/api/apps/${app.id}/versions/publish`, { token });
    const created = await run.http('POST', '/api/admin/api-keys', {
      token,
      body: { name: address, scope: [{ appId: app.id, endpoints: 'all' }] },
    });
    return { appId: app.id as string, key: created.body.key as string };
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    ({ appId, key } = await setUp('defs'));
    await serving();
  });

  afterAll(async () => run?.close());

  it.each([
    ['query', 'Query'],
    ['string', 'String'],
    ['sortDirection', 'SortDirection'],
    // Another API's generated filter name: root names still clash as before.
    ['ordersFilter', 'OrdersFilter'],
  ])(
    'refuses an API named %s (it would mint %s) with 409 naming both sides',
    async (name, minted) => {
      const res = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: { name, table: 'orders', actions: select },
      });
      expect(res.status).toBe(409);
      expect(res.body.message).toContain(minted);
      expect(res.body.message).toMatch(/already generates/);
      await serving();
    },
  );

  it('never lets a nested row type clash: it takes the next free name (issue 11, item 5)', async () => {
    // `customers.orders` has its own field set: the table's name, `Orders` being the root API's.
    const nested = async () => {
      const res = await run.http('POST', '/api/graphql/defs', {
        token,
        body: { query: '{ getCustomers(take: 1) { orders(take: 1) { __typename } } }' },
      });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.getCustomers[0].orders[0].__typename as string;
    };
    expect(await nested()).toBe('Orders_2');
    const created: string[] = [];
    // The old nested name is an API name like any other now; `Orders_2` moves aside for a root.
    for (const name of ['customers_orders', 'orders_2']) {
      const res = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: { name, table: 'orders', actions: select, fields: { id: true, status: true } },
      });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    expect(await nested()).toBe('Orders_3');
    for (const id of created) {
      expect((await run.http('DELETE', `/api/apps/${appId}/apis/${id}`, { token })).status).toBe(
        204,
      );
    }
    expect(await nested()).toBe('Orders_2');
    await serving();
  });

  it('refuses an enum named like a generated type, naming the API', async () => {
    const res = await run.http('POST', `/api/apps/${appId}/enums`, {
      token,
      body: { name: 'OrdersFilter', values: [{ value: 'A' }] },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('OrdersFilter');
    expect(res.body.message).toContain('API "orders"');
    await serving();
  });

  it('refuses a fields tree with an empty navigation object, and writes nothing', async () => {
    const before = (await run.http('GET', `/api/apps/${appId}/apis`, { token })).body.length;
    const res = await run.http('POST', `/api/apps/${appId}/apis`, {
      token,
      body: {
        name: 'empty',
        table: 'customers',
        actions: select,
        fields: { id: true, orders: {} },
      },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('fields.orders');
    expect((await run.http('GET', `/api/apps/${appId}/apis`, { token })).body.length).toBe(before);
    await serving();
  });

  it('answers API_UNAVAILABLE for a version broken underneath, while another app keeps serving', async () => {
    const other = await setUp('defs-other');
    const broken = await setUp('defs-broken');
    // Two APIs of one name, written straight into the metadata store (as no REST change can).
    const store = new Database(join(run.dataDir, 'platform.db'));
    const row = store
      .prepare("SELECT id, definition FROM app_version WHERE app_id = ? AND slot = 'main'")
      .get(broken.appId) as {
      id: string;
      definition: string;
    };
    const def = JSON.parse(row.definition);
    def.apis.push({ ...def.apis[0], id: 'dup', name: def.apis[0].name });
    store
      .prepare('UPDATE app_version SET definition = ?, revision = revision + 1 WHERE id = ?')
      .run(JSON.stringify(def), row.id);
    store.close();

    const viaKey = await run.http('POST', '/api/graphql/defs-broken', {
      body: { query: '{ countOrders }' },
      headers: { 'x-api-key': broken.key },
    });
    expect(viaKey.status).toBe(503);
    expect(viaKey.body.errors[0].extensions.code).toBe('API_UNAVAILABLE');
    expect(viaKey.body.errors[0].message).toBe("The app's API is unavailable");
    const asBuilder = await run.http('POST', '/api/graphql/defs-broken', {
      token,
      body: { query: '{ __typename }' },
    });
    expect(asBuilder.body.errors[0].extensions.code).toBe('API_UNAVAILABLE');
    expect(asBuilder.body.errors[0].message).toContain('orders');
    await serving('defs-other', other.key);
  });
});
