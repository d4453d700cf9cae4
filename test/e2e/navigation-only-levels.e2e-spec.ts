import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { RunningApp, startApp } from '../support/app-harness';

/**
 * Issue 27 (found on the existing pages): a fields-tree level holding only navigation fields
 * (customers › orders › order_lines › product, with only the product's `name` ticked, as the
 * editor lets a builder build it) saves through the builder REST and serves queries. Such a
 * level's `<Row>Order` has the relation keys only (`{order_lines: {count: DESC}}`), its
 * `<Row>Filter` the relation filters only, and no generated input type is empty. Against the demo
 * app (SQLite), in both GraphQL forms.
 */

const FIELDS = { id: true, orders: { order_lines: { product: { name: true } } } };
const SELECT = { select: true, insert: false, update: false, delete: false };

/** The names a list of orders (of one customer) shows, one list per order. */
type Orders = { order_lines: { product: { name: string } }[] }[];
/** An argument's type as introspection answers it, three wrappers deep. */
interface ArgType {
  name: string | null;
  ofType: ArgType | null;
}

const names = (orders: Orders) => orders.map((o) => o.order_lines.map((l) => l.product.name));

describe('A fields-tree level with only navigation fields (issue 27)', () => {
  let run: RunningApp;
  let token: string;
  let appId: string;

  const gql = async (query: string) => {
    const res = await run.http('POST', '/api/graphql/demo', { token, body: { query } });
    if (res.status !== 200 || res.body.errors)
      throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  beforeAll(async () => {
    run = await startApp();
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    await seedDemo(run.app, config);
    token = await run.adminToken();
    appId = (await run.http('GET', '/api/apps', { token })).body[0].id;
  });

  afterAll(() => run?.close());

  it('saves through REST and serves the rows, orders and filters of its levels', async () => {
    const created = await run.http('POST', `/api/apps/${appId}/apis`, {
      token,
      body: { name: 'buyers', table: 'customers', actions: SELECT, fields: FIELDS },
    });
    expect(created.status).toBe(201);
    expect(created.body.fields).toEqual(FIELDS);
    // Saving again (a change of the same API) is accepted too.
    const changed = await run.http('PATCH', `/api/apps/${appId}/apis/${created.body.id}`, {
      token,
      body: { fields: { orders: { order_lines: { product: { name: true } } } } },
    });
    expect(changed.status).toBe(200);
    const restored = await run.http('PATCH', `/api/apps/${appId}/apis/${created.body.id}`, {
      token,
      body: { fields: FIELDS },
    });
    expect(restored.status).toBe(200);

    // The same rows as the demo's orders API reads, level by level.
    const expected = (await gql(
      '{ getOrders(where: {customer_id: {eq: 1}}, take: 100) { order_lines { product { name } } } }',
    )) as { getOrders: Orders };
    const served = (await gql(
      '{ getBuyers(where: {id: {eq: 1}}) { id orders { order_lines { product { name } } } } }',
    )) as { getBuyers: { id: string; orders: Orders }[] };
    expect(served.getBuyers).toHaveLength(1);
    expect(served.getBuyers[0].id).toBe('1');
    expect(names(served.getBuyers[0].orders)).toEqual(names(expected.getOrders));
    expect(served.getBuyers[0].orders.length).toBeGreaterThan(0);

    // The navigation-only level orders by its relation (the count of visible lines) and filters
    // through it.
    const ordered = (await gql(
      '{ getBuyers(where: {id: {eq: 1}}) { orders(order: [{order_lines: {count: DESC}}]) { order_lines { product { name } } } } }',
    )) as { getBuyers: { orders: Orders }[] };
    const counts = ordered.getBuyers[0].orders.map((o) => o.order_lines.length);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const product = expected.getOrders[0].order_lines[0].product.name;
    const filtered = (await gql(
      `{ getBuyers(where: {orders: {some: {order_lines: {some: {product: {name: {eq: ${JSON.stringify(product)}}}}}}}}) { id orders(where: {order_lines: {some: {product: {name: {eq: ${JSON.stringify(product)}}}}}}) { order_lines { product { name } } } } }`,
    )) as { getBuyers: { id: string; orders: Orders }[] };
    expect(filtered.getBuyers.map((b) => b.id)).toContain('1');
    for (const buyer of filtered.getBuyers) {
      expect(buyer.orders.length).toBeGreaterThan(0);
      for (const order of buyer.orders)
        expect(order.order_lines.map((l) => l.product.name)).toContain(product);
    }

    // No generated input type is empty, and the navigation-only levels' inputs hold relation
    // keys only.
    const introspection = await gql(
      '{ __schema { types { name kind inputFields { name } } } __type(name: "Buyers") { fields { name args { name type { name ofType { name ofType { name } } } } } } }',
    );
    const inputs = (
      introspection.__schema.types as {
        name: string;
        kind: string;
        inputFields: { name: string }[] | null;
      }[]
    ).filter((t) => t.kind === 'INPUT_OBJECT');
    expect(inputs.filter((t) => !t.inputFields?.length).map((t) => t.name)).toEqual([]);
    const ordersField = (
      introspection.__type.fields as {
        name: string;
        args: { name: string; type: ArgType }[];
      }[]
    ).find((f) => f.name === 'orders')!;
    const whereType = ordersField.args.find((a) => a.name === 'where')!.type.name!;
    const orderType = ordersField.args.find((a) => a.name === 'order')!.type.ofType!.ofType!.name!;
    const fieldsOf = (name: string) =>
      inputs
        .find((t) => t.name === name)!
        .inputFields!.map((f) => f.name)
        .sort();
    expect(fieldsOf(orderType)).toEqual(['order_lines']);
    expect(fieldsOf(whereType)).toEqual(['and', 'or', 'order_lines']);

    // Published, it serves a key as well.
    expect(
      (await run.http('POST', `/api/apps/${appId}/apis/${created.body.id}/publish`, { token }))
        .status,
    ).toBe(200);
    expect((await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
      200,
    );
    const key = await run.http('POST', '/api/admin/api-keys', {
      token,
      body: { name: 'buyers reader', scope: [{ appId, endpoints: 'all' }] },
    });
    expect(key.status).toBe(201);
    const withKey = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': key.body.key },
      body: {
        query:
          '{ getBuyers(where: {id: {eq: 1}}) { orders { order_lines { product { name } } } } }',
      },
    });
    expect(withKey.status).toBe(200);
    expect(names(withKey.body.data.getBuyers[0].orders)).toEqual(names(expected.getOrders));
  });
});
