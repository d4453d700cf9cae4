import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { SchemaProviderService } from '../../src/graphql-gateway/schema-provider.service';
import { RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { createMysqlDatabase } from '../support/mysql-fixture';
import {
  CUSTOMERS,
  loadSalesIntoMysql,
  loadSalesIntoPostgres,
  loadSalesIntoSqlite,
  ORDER_LINES,
  ORDERS,
} from '../support/sales-fixture';
import { placeSqliteFile } from '../support/sqlite-placement';
import { describeWith } from '../support/services';
import { invalidValueCode } from '../support/graphql-form';

/** One database behind the suite: how to create it and what differs in its answers. */
interface DialectCase {
  type: 'postgres' | 'sqlite' | 'mysql';
  describe: jest.Describe;
  /** Creates the sales database; returns the datasource URL, the import names and a cleanup. */
  setup(dataDir: string): Promise<{ url: string; tables: string[]; cleanup(): Promise<void> }>;
  /** `orders.placed_at` as the contract formats it (timestamptz on PostgreSQL, DATETIME on SQLite). */
  placedAt(stored: string): string;
  /** `orders.total` text (SQLite keeps DECIMAL as a number, so trailing zeros go). */
  decimal(stored: string): string;
}

const CASES: DialectCase[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async setup() {
      const db: PgDatabase = await createPgDatabase();
      await loadSalesIntoPostgres(db);
      // Sessions in a zone far from UTC: output must not move.
      await db.exec(`ALTER DATABASE "${db.name}" SET timezone TO 'Asia/Kolkata'`);
      return {
        url: db.url,
        tables: ['public.customers', 'public.orders', 'public.order_lines'],
        cleanup: () => db.drop(),
      };
    },
    placedAt: (s) => `${s.replace(' ', 'T')}.000Z`,
    decimal: (s) => s,
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async setup() {
      const db = await createMysqlDatabase();
      await loadSalesIntoMysql(db);
      return {
        url: db.url,
        tables: ['customers', 'orders', 'order_lines'],
        cleanup: () => db.drop(),
      };
    },
    placedAt: (s) => `${s.replace(' ', 'T')}.000Z`,
    decimal: (s) => s,
  },
  {
    type: 'sqlite',
    describe,
    async setup(dataDir) {
      return {
        url: loadSalesIntoSqlite(dataDir),
        tables: ['customers', 'orders', 'order_lines'],
        cleanup: async () => undefined,
      };
    },
    placedAt: (s) => s.replace(' ', 'T'),
    decimal: (s) => String(Number(s)),
  },
];

const sortIds = (rows: { id: string }[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

for (const dialect of CASES) {
  dialect.describe(`Read API over HTTP on ${dialect.type}`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let token: string;
    let appId: string;
    let address: string;
    const apiIds: Record<string, string> = {};
    const keys: Record<string, { id: string; key: string }> = {};

    const gql = async (
      query: string,
      variables?: Record<string, unknown>,
      key: string | null = keys.all.key,
    ) => {
      const res = await run.http('POST', `/api/graphql/${address}`, {
        body: { query, variables },
        headers: key ? { 'x-api-key': key } : {},
      });
      return res;
    };
    const data = async (query: string, variables?: Record<string, unknown>) => {
      const res = await gql(query, variables);
      if (res.status !== 200 || res.body.errors)
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.setup(run.dataDir);
      cleanup = db.cleanup;
      address = `shop-${dialect.type}`;
      const app = await run.http('POST', '/api/apps', { token, body: { name: 'Shop', address } });
      expect(app.status).toBe(201);
      appId = app.body.id;
      const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: {
          name: 'sales',
          type: dialect.type,
          url: placeSqliteFile(run.dataDir, appId, db.url),
        },
      });
      expect(ds.status).toBe(201);
      expect(JSON.stringify(ds.body)).not.toContain(db.url);
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${ds.body.id}/tables`, {
        token,
      });
      expect(listed.body.map((t: { name: string }) => t.name).sort()).toEqual([
        'customers',
        'order_lines',
        'orders',
      ]);
      const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId: ds.body.id, tables: db.tables },
      });
      expect(imported.status).toBe(201);

      const createApi = async (body: Record<string, unknown>, publish = true) => {
        const res = await run.http('POST', `/api/apps/${appId}/apis`, { token, body });
        expect(res.status).toBe(201);
        if (publish)
          expect(
            (await run.http('POST', `/api/apps/${appId}/apis/${res.body.id}/publish`, { token }))
              .status,
          ).toBe(200);
        return res.body.id as string;
      };
      const select = { select: true, insert: false, update: false, delete: false };
      apiIds.orders = await createApi({
        name: 'orders',
        table: 'orders',
        actions: select,
        fields: {
          id: true,
          customer_id: true,
          status: true,
          total: true,
          placed_at: true,
          ship_date: true,
          big: true,
          customer: { id: true, name: true, city: true, created_at: true },
          order_lines: { id: true, product: true, quantity: true, unit_price: true },
        },
      });
      apiIds.customers = await createApi({
        name: 'customers',
        table: 'customers',
        actions: select,
        fields: {
          id: true,
          name: true,
          email: true,
          city: true,
          created_at: true,
          orders: {
            id: true,
            status: true,
            total: true,
            order_lines: { id: true, product: true, quantity: true },
          },
        },
      });
      apiIds.lines = await createApi(
        { name: 'lines', table: 'order_lines', actions: select },
        false,
      );
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);

      const other = await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Other', address: `other-${dialect.type}` },
      });
      const makeKey = async (name: string, scope: unknown) => {
        const res = await run.http('POST', '/api/admin/api-keys', { token, body: { name, scope } });
        expect(res.status).toBe(201);
        return { id: res.body.id as string, key: res.body.key as string };
      };
      keys.all = await makeKey('all', [{ appId, endpoints: 'all' }]);
      keys.ordersOnly = await makeKey('orders only', [{ appId, endpoints: [apiIds.orders] }]);
      keys.otherApp = await makeKey('other app', [{ appId: other.body.id, endpoints: 'all' }]);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('imports the three tables with keys and navigation fields in both directions', async () => {
      const res = await run.http('GET', `/api/apps/${appId}/model/tables?search=ORDER`, { token });
      expect(res.status).toBe(200);
      const tables = res.body[0].tables as {
        name: string;
        primaryKey: string[];
        relations: { name: string; kind: string }[];
        fields: { name: string; generated: boolean; nullable: boolean }[];
      }[];
      expect(tables.map((t) => t.name).sort()).toEqual(['order_lines', 'orders']);
      const orders = tables.find((t) => t.name === 'orders')!;
      expect(orders.primaryKey).toEqual(['id']);
      expect(orders.relations.map((r) => `${r.name}:${r.kind}`).sort()).toEqual([
        'customer:manyToOne',
        'order_lines:oneToMany',
      ]);
      expect(orders.fields.find((f) => f.name === 'id')!.generated).toBe(true);
      expect(orders.fields.find((f) => f.name === 'ship_date')!.nullable).toBe(true);
    });

    it('answers get with a filter, multi-column order, pagination and nested relations; count matches', async () => {
      const result = await data(
        `query($s: String) {
          getOrders(where: {status: {eq: $s}}, order: [{customer_id: DESC}, {total: ASC}], take: 3, skip: 1) {
            id total customer { name } order_lines(order: [{quantity: DESC}], take: 2) { product quantity }
          }
          countOrders(where: {status: {eq: $s}})
        }`,
        { s: 'PAID' },
      );
      const paid = ORDERS.filter((o) => o.status === 'PAID').sort(
        (a, b) => b.customer_id - a.customer_id || Number(a.total) - Number(b.total),
      );
      const expected = paid.slice(1, 4).map((o) => ({
        id: String(o.id),
        total: dialect.decimal(o.total),
        customer: { name: CUSTOMERS.find((c) => c.id === o.customer_id)!.name },
        order_lines: ORDER_LINES.filter((l) => l.order_id === o.id)
          .sort((a, b) => b.quantity - a.quantity)
          .slice(0, 2)
          .map((l) => ({ product: l.product, quantity: l.quantity })),
      }));
      expect(result.getOrders).toEqual(expected);
      expect(result.countOrders).toBe(paid.length);
    });

    it('names nested row types after their table and field set (issue 11, item 5)', async () => {
      // No root API has these field sets; `Customers` and `Orders` are held by roots of other
      // field sets, so those nested types take the next free suffix, in API then path order.
      const result = await data(`{
        getOrders(take: 1) { __typename customer { __typename } order_lines(take: 1) { __typename } }
        getCustomers(take: 1) { __typename orders(take: 1) { __typename order_lines(take: 1) { __typename } } }
      }`);
      expect(result).toEqual({
        getOrders: [
          {
            __typename: 'Orders',
            customer: { __typename: 'Customers_2' },
            order_lines: [{ __typename: 'Order_lines' }],
          },
        ],
        getCustomers: [
          {
            __typename: 'Customers',
            orders: [{ __typename: 'Orders_2', order_lines: [{ __typename: 'Order_lines_2' }] }],
          },
        ],
      });
    });

    it('loads each relation level with one SQL query, however many parent rows', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      // Within the worst-case rows ceiling (100 × 20 × 20 + 100 × 20 + 100 ≤ 100,000).
      const result = await data(
        '{ getCustomers(take: 100) { id orders(take: 20) { id order_lines(take: 20) { id } } } }',
      );
      expect(pools.statementsExecuted - before).toBe(3);
      expect(result.getCustomers).toHaveLength(CUSTOMERS.length);
      const fabio = result.getCustomers.find((c: { id: string }) => c.id === '6');
      expect(fabio.orders).toEqual([]);
      const lines = result.getCustomers.flatMap((c: { orders: { order_lines: unknown[] }[] }) =>
        c.orders.flatMap((o) => o.order_lines),
      );
      expect(lines).toHaveLength(ORDER_LINES.length);
    });

    const customerFilters: [string, string, number[]][] = [
      ['contains matches % literally', '{name: {contains: "%"}}', [2]],
      ['contains matches _ literally', '{name: {contains: "_"}}', [3]],
      ['contains matches \\ literally', '{name: {contains: "\\\\"}}', [4]],
      ['contains matches [ literally', '{name: {contains: "[m"}}', [5]],
      ['contains ignores case', '{name: {contains: "SOUZA"}}', [1]],
      ['contains ignores case beyond ASCII', '{name: {contains: "FÁBIO"}}', [6]],
      ['startsWith', '{name: {startsWith: "carla_"}}', [3]],
      ['startsWith a wildcard matches nothing', '{name: {startsWith: "%"}}', []],
      ['endsWith', '{name: {endsWith: "ROCHA"}}', [6]],
      ['eq null matches empty fields', '{city: {eq: null}}', [3, 6]],
      ['neq null matches filled fields', '{city: {neq: null}}', [1, 2, 4, 5]],
      ['neq leaves out empty fields', '{city: {neq: "Porto"}}', [1, 4, 5]],
      ['nin leaves out empty fields', '{city: {nin: ["Porto", "Berlin"]}}', [1, 4]],
      ['in', '{city: {in: ["Porto", "Berlin"]}}', [2, 5]],
      ['in [] matches nothing', '{city: {in: []}}', []],
      ['nin [] matches everything', '{city: {nin: []}}', [1, 2, 3, 4, 5, 6]],
      ['and [] is true', '{and: []}', [1, 2, 3, 4, 5, 6]],
      ['or [] is false', '{or: []}', []],
      ['or', '{or: [{city: {eq: "Lisboa"}}, {name: {startsWith: "Eva"}}]}', [1, 5]],
      [
        'keys at one level combine with AND',
        '{city: {neq: null}, name: {contains: "a"}}',
        [1, 2, 4, 5],
      ],
      [
        'nested and/or',
        '{and: [{or: [{id: {eq: "1"}}, {id: {eq: "2"}}]}, {city: {eq: "Porto"}}]}',
        [2],
      ],
      [
        'several operators on one column combine with AND',
        '{id: {in: ["1", "2", "3"], neq: "2"}}',
        [1, 3],
      ],
      ['gt and lte on text', '{city: {gt: "C", lte: "Porto"}}', [1, 2]],
      ['ID eq', '{id: {eq: 4}}', [4]],
    ];
    it.each(customerFilters)('filter: %s', async (_, where, ids) => {
      const result = await data(
        `{ getCustomers(where: ${where}) { id } countCustomers(where: ${where}) }`,
      );
      expect(sortIds(result.getCustomers)).toEqual(ids);
      expect(result.countCustomers).toBe(ids.length);
    });

    const orderFilters: [string, string, (o: (typeof ORDERS)[number]) => boolean][] = [
      ['Decimal gt numeric text', '{total: {gt: "50.5"}}', (o) => Number(o.total) > 50.5],
      ['Decimal lte number', '{total: {lte: 30.5}}', (o) => Number(o.total) <= 30.5],
      [
        'BigInt eq beyond 2^53',
        '{big: {eq: "9007199254740993"}}',
        (o) => o.big === '9007199254740993',
      ],
      [
        'Date gt',
        '{ship_date: {gt: "2024-03-10"}}',
        (o) => o.ship_date !== null && o.ship_date > '2024-03-10',
      ],
      ['Date eq null', '{ship_date: {eq: null}}', (o) => o.ship_date === null],
      ['foreign key in', '{customer_id: {in: ["1", "3"]}}', (o) => [1, 3].includes(o.customer_id)],
    ];
    it.each(orderFilters)('filter: %s', async (_, where, keep) => {
      const result = await data(
        `{ getOrders(where: ${where}) { id } countOrders(where: ${where}) }`,
      );
      const expected = ORDERS.filter(keep).map((o) => o.id);
      expect(sortIds(result.getOrders)).toEqual(expected);
      expect(result.countOrders).toBe(expected.length);
    });

    it('sorts empty values first under ASC and last under DESC, the primary key completing the order', async () => {
      const asc = await data('{ getCustomers(order: [{city: ASC}]) { id } }');
      expect(asc.getCustomers.map((c: { id: string }) => Number(c.id))).toEqual([3, 6, 5, 1, 2, 4]);
      const desc = await data('{ getCustomers(order: [{city: DESC}]) { id } }');
      expect(desc.getCustomers.map((c: { id: string }) => Number(c.id))).toEqual([
        4, 2, 1, 5, 3, 6,
      ]);
    });

    it('pages never overlap or skip a row', async () => {
      const all = await data('{ getOrders(order: [{status: ASC}]) { id } }');
      const pages: string[] = [];
      for (let skip = 0; skip < ORDERS.length; skip += 5) {
        const page = await data(
          `{ getOrders(order: [{status: ASC}], take: 5, skip: ${skip}) { id } }`,
        );
        pages.push(...page.getOrders.map((o: { id: string }) => o.id));
      }
      expect(pages).toEqual(all.getOrders.map((o: { id: string }) => o.id));
      expect(new Set(pages).size).toBe(ORDERS.length);
      expect((await data('{ getOrders(take: 0) { id } }')).getOrders).toEqual([]);
    });

    it('formats dates, timestamps and 64-bit integers as the contract says', async () => {
      // The process runs in America/Sao_Paulo (global setup) and PostgreSQL sessions default to
      // Asia/Kolkata here; time-zones.e2e-spec.ts compares two process zones.
      const result = await data(
        '{ getOrders(where: {id: {in: ["1", "4"]}}) { id placed_at ship_date big customer { created_at } } }',
      );
      expect(result.getOrders).toEqual([
        {
          id: '1',
          placed_at: dialect.placedAt(ORDERS[0].placed_at),
          ship_date: '2024-03-02',
          big: '9007199254740993',
          customer: { created_at: '2024-01-05T10:00:00' },
        },
        {
          id: '4',
          placed_at: dialect.placedAt(ORDERS[3].placed_at),
          ship_date: null,
          big: '4',
          customer: { created_at: '2024-01-08T23:59:59' },
        },
      ]);
      const bruno = await data('{ getCustomers(where: {id: {eq: 2}}) { created_at } }');
      expect(bruno.getCustomers[0].created_at).toBe('2024-01-06T11:30:00.250');
    });

    it('refuses bad input with the contract status and message, leaking no SQL', async () => {
      const missing = await run.http('POST', '/api/graphql/no-such-app', {
        body: { query: '{ countOrders }' },
        headers: { 'x-api-key': keys.all.key },
      });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        errors: [{ message: 'App not found', extensions: { code: 'NOT_FOUND' } }],
      });

      const badKey = await gql('{ countOrders }', undefined, 'tgk_not-a-real-key');
      expect(badKey.status).toBe(401);
      expect(badKey.body.errors[0].message).toBe('Invalid API key');

      const noKey = await gql('{ countOrders }', undefined, null);
      expect(noKey.status).toBe(401);
      expect(noKey.body.errors[0].message).toBe('Invalid API key');

      const otherApp = await gql('{ countOrders }', undefined, keys.otherApp.key);
      expect(otherApp.status).toBe(403);
      expect(otherApp.body.errors[0].message).toBe('API key not authorised for this project');

      const outOfScope = await gql('{ countCustomers }', undefined, keys.ordersOnly.key);
      expect(outOfScope.status).toBe(403);
      expect(outOfScope.body.errors[0].message).toBe('API key not authorised for this endpoint');
      expect(
        (await gql('{ countOrders }', undefined, keys.ordersOnly.key)).body.data.countOrders,
      ).toBe(ORDERS.length);

      const inUrl = await run.http('POST', `/api/graphql/${address}?api_key=${keys.all.key}`, {
        body: { query: '{ countOrders }' },
      });
      expect(inUrl.status).toBe(400);

      const unknownColumn = await gql('{ getOrders(where: {secret: {eq: 1}}) { id } }');
      expect(unknownColumn.status).toBe(400);
      expect(unknownColumn.body.errors[0].extensions.code).toBe(invalidValueCode());
      expect(unknownColumn.body.errors[0].message).toContain('secret');

      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      const overTake = await gql('query($t: Int) { getOrders(take: $t) { id } }', { t: 10001 });
      expect(overTake.status).toBe(400);
      expect(overTake.body.errors[0].message).toContain('10,000');
      const negative = await gql('{ getCustomers { orders(skip: -1) { id } } }');
      expect(negative.status).toBe(400);
      expect(negative.body.errors[0].message).toContain('skip');
      expect(pools.statementsExecuted).toBe(before);

      const badId = await gql('{ getOrders(where: {id: {eq: "abc"}}) { id } }');
      expect(badId.body.errors[0].message).toContain('id');
      expect(badId.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

      for (const res of [
        missing,
        badKey,
        otherApp,
        outOfScope,
        unknownColumn,
        overTake,
        negative,
        badId,
      ]) {
        expect(JSON.stringify(res.body)).not.toMatch(/SELECT|stack|at .*\.js/);
      }
    });

    it('builds the schema once per version and follows every published change on the next request', async () => {
      const schemas = run.app.get(SchemaProviderService);
      await data('{ countCustomers }');
      const built = schemas.schemasBuilt;
      await data('{ countCustomers }');
      await data('{ getCustomers { email } }');
      expect(schemas.schemasBuilt).toBe(built);

      const changed = await run.http('PATCH', `/api/apps/${appId}/apis/${apiIds.customers}`, {
        token,
        body: { fields: { id: true, name: true } },
      });
      expect(changed.status).toBe(200);
      // Not yet published: keys still read main.
      expect((await data('{ getCustomers(take: 1) { email } }')).getCustomers).toHaveLength(1);
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
      const gone = await gql('{ getCustomers { email } }');
      expect(gone.status).toBe(400);
      expect(gone.body.errors[0].message).toContain('email');
      // The key's schema of the new revision, and the published one its refusal is checked against.
      expect(schemas.schemasBuilt).toBe(built + 2);
    });

    it('shows a builder every API of their working version, drafts marked RASCUNHO; keys see published ones', async () => {
      const introspect = '{ __schema { queryType { fields { name description } } } }';
      const asBuilder = await run.http('POST', `/api/graphql/${address}`, {
        token,
        body: { query: introspect },
      });
      const fields = asBuilder.body.data.__schema.queryType.fields as {
        name: string;
        description: string;
      }[];
      expect(fields.find((f) => f.name === 'getLines')!.description).toBe('RASCUNHO');
      expect(fields.find((f) => f.name === 'getOrders')!.description).not.toBe('RASCUNHO');
      const asKey = await data(introspect);
      expect(asKey.__schema.queryType.fields.map((f: { name: string }) => f.name)).not.toContain(
        'getLines',
      );
    });

    it('lists keys by prefix only, records last use, and refuses a revoked key at once', async () => {
      await data('{ countOrders }');
      const unused = await run.http('POST', '/api/admin/api-keys', {
        token,
        body: { name: 'unused', scope: [{ appId, endpoints: 'all' }] },
      });
      const list = await run.http('GET', '/api/admin/api-keys', { token });
      expect(list.status).toBe(200);
      const text = JSON.stringify(list.body);
      for (const k of Object.values(keys)) expect(text).not.toContain(k.key);
      expect(text).not.toMatch(/hash/i);
      const all = list.body.find((k: { id: string }) => k.id === keys.all.id);
      expect(all.prefix).toBe(keys.all.key.slice(0, 12));
      expect(all.status).toBe('active');
      expect(typeof all.lastUsedAt).toBe('string');
      expect(list.body.find((k: { id: string }) => k.id === unused.body.id).lastUsedAt).toBeNull();

      const revoked = await run.http('POST', `/api/admin/api-keys/${keys.ordersOnly.id}/revoke`, {
        token,
      });
      expect(revoked.body).toEqual({ status: 'revoked' });
      const after = await gql('{ countOrders }', undefined, keys.ordersOnly.key);
      expect(after.status).toBe(401);
      expect(after.body.errors[0].message).toBe('API key revoked');
    });
  });
}
