import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Issue 23 item 3, ordering through relations (README "Order and pages"): `<Base>Order` takes a
 * many-to-one navigation with one column of the related row (`{customer: {name: ASC}}`, nesting
 * further) and a one-to-many navigation with `{count: ASC|DESC}`. A related row the caller's
 * row rule hides sorts as an empty (NULL) value, first under ASC and last under DESC; counts
 * count only the children the caller can see; the primary key completes every order. At the root
 * and inside the batched one-to-many read. On PostgreSQL, MariaDB and SQLite, in the literal and
 * the variables form.
 *
 * Data (sales-fixture.ts): order i (1..12) belongs to customer ((i - 1) % 5) + 1, so customer 1
 * has orders 1, 6, 11; 2 has 2, 7, 12; 3 has 3, 8; 4 has 4, 9; 5 has 5, 10; 6 has none. Order i
 * is PAID when i % 3 = 0 and has (i % 3) + 1 lines. Names sort Ana (1) < Bruno (2) < Carla (3) <
 * Diego (4) < Eva (5); cities Berlin (5) < Lisboa (1) < Porto (2) < São Paulo (4), customer 3
 * without one.
 */
const list = (rows: { id: string }[]) => rows.map((r) => Number(r.id));

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Ordering through relations on ${dialect.type} (issue 23 item 3)`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    const address = `relation-order-${dialect.type}`;

    const gql = (query: string, headers: Record<string, string>) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query }, headers });
    const as = (who: string) => ({
      authorization: `Bearer ${who === 'builder' ? token : tokens[who]}`,
    });
    const data = async (query: string, who = 'builder') => {
      const res = await gql(query, as(who));
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data;
    };
    const orders = async (order: string, who = 'builder', page = '') =>
      list((await data(`{ getOrders(order: ${order}${page}) { id } }`, who)).getOrders);
    const customers = async (order: string, who = 'builder') =>
      list((await data(`{ getCustomers(order: ${order}) { id } }`, who)).getCustomers);

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'RelOrder', address } }))
        .body.id;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const select = { select: true, insert: false, update: false, delete: false };
      const specs = [
        {
          name: 'orders',
          table: 'orders',
          actions: select,
          fields: {
            id: true,
            status: true,
            customer: { id: true, name: true, city: true, orders: { id: true } },
            order_lines: { id: true, product: true },
          },
        },
        {
          name: 'customers',
          table: 'customers',
          actions: select,
          fields: {
            id: true,
            name: true,
            orders: { id: true, status: true, order_lines: { id: true } },
          },
        },
      ];
      for (const body of specs) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, { token, body });
        expect(api.status).toBe(201);
        const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
          token,
        });
        expect(published.status).toBe(200);
      }
      const rules: Record<string, unknown> = {
        // Hidden on every side: customer 2, paid orders, the lines of orders 2 and 5.
        hiding: {
          tables: {
            customers: { where: { id: { neq: 2 } } },
            orders: { where: { status: { neq: 'PAID' } } },
            order_lines: { where: { order_id: { nin: [2, 5] } } },
          },
        },
        // Only customers bounded: a root read of orders admits every row.
        hidecustomer: { tables: { customers: { where: { id: { neq: 2 } } } } },
        open: { tables: {} },
      };
      for (const [role, body] of Object.entries(rules)) {
        const res = await run.http('PUT', `/api/apps/${appId}/permissions/${role}`, {
          token,
          body,
        });
        expect(res.status).toBe(200);
      }
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
      const users = { tina: ['hiding'], hana: ['hidecustomer'], vera: ['open'] };
      for (const [name, roles] of Object.entries(users)) {
        const created = await run.http('POST', `/api/apps/${appId}/users`, {
          token,
          body: { email: `${name}@example.com`, password: `${name}-password`, roles },
        });
        expect(created.status).toBe(201);
        const login = await run.http('POST', `/api/apps/${appId}/auth/login`, {
          body: { email: `${name}@example.com`, password: `${name}-password` },
        });
        expect(login.status).toBe(200);
        tokens[name] = login.body.token;
      }
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('many-to-one: orders by their customer’s name, both ways, the primary key breaking ties', async () => {
      expect(await orders('[{customer: {name: ASC}}]')).toEqual([
        1, 6, 11, 2, 7, 12, 3, 8, 4, 9, 5, 10,
      ]);
      expect(await orders('[{customer: {name: DESC}}]')).toEqual([
        5, 10, 4, 9, 3, 8, 2, 7, 12, 1, 6, 11,
      ]);
      // Later elements still sort within ties, and pages follow the whole order.
      expect(
        await orders('[{customer: {name: ASC}}, {id: DESC}]', 'builder', ', take: 4, skip: 1'),
      ).toEqual([6, 1, 12, 7]);
    });

    it('an empty related value sorts first under ASC and last under DESC', async () => {
      // Customer 3 has no city.
      expect(await orders('[{customer: {city: ASC}}]')).toEqual([
        3, 8, 5, 10, 1, 6, 11, 2, 7, 12, 4, 9,
      ]);
      expect(await orders('[{customer: {city: DESC}}]')).toEqual([
        4, 9, 2, 7, 12, 1, 6, 11, 5, 10, 3, 8,
      ]);
    });

    it('one-to-many: by the count of related rows, at the root and under a many-to-one', async () => {
      // Order i has (i % 3) + 1 lines.
      expect(await orders('[{order_lines: {count: DESC}}]')).toEqual([
        2, 5, 8, 11, 1, 4, 7, 10, 3, 6, 9, 12,
      ]);
      // Customers 1 and 2 have 3 orders, 3, 4 and 5 two, 6 none.
      expect(await customers('[{orders: {count: DESC}}]')).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await customers('[{orders: {count: ASC}}]')).toEqual([6, 3, 4, 5, 1, 2]);
      // Orders by how many orders their customer has.
      expect(await orders('[{customer: {orders: {count: ASC}}}]')).toEqual([
        3, 4, 5, 8, 9, 10, 1, 2, 6, 7, 11, 12,
      ]);
    });

    it('inside the batched one-to-many read: each parent’s rows in the order, paged per parent', async () => {
      const res = await data(
        '{ getCustomers(order: [{id: ASC}]) { id orders(where: {status: {neq: "NONE"}}, order: [{order_lines: {count: DESC}}], take: 2) { id } } }',
      );
      expect(
        res.getCustomers.map((c: { id: string; orders: { id: string }[] }) => [
          Number(c.id),
          list(c.orders),
        ]),
      ).toEqual([
        [1, [11, 1]],
        [2, [2, 7]],
        [3, [8, 3]],
        [4, [4, 9]],
        [5, [5, 10]],
        [6, []],
      ]);
    });

    it('row rules apply inside every subquery: a hidden customer sorts as empty, hidden children are not counted', async () => {
      // tina sees no paid order (3, 6, 9, 12), not customer 2, and no line of orders 2 and 5.
      expect(await orders('[{customer: {name: ASC}}]', 'tina')).toEqual([2, 7, 1, 11, 8, 4, 5, 10]);
      expect(await orders('[{customer: {name: DESC}}]', 'tina')).toEqual([
        5, 10, 4, 8, 1, 11, 2, 7,
      ]);
      // Line counts: 8 and 11 have 3, 1, 4, 7 and 10 two, 2 and 5 none visible.
      expect(await orders('[{order_lines: {count: DESC}}]', 'tina')).toEqual([
        8, 11, 1, 4, 7, 10, 2, 5,
      ]);
      // Visible orders per customer: 1 has 1 and 11, 3 has 8, 4 has 4, 5 has 5 and 10, 6 none.
      expect(await customers('[{orders: {count: DESC}}]', 'tina')).toEqual([1, 5, 3, 4, 6]);
      // In the batched read too, with the rules' values bound beside the filter's.
      const res = await data(
        '{ getCustomers(order: [{id: ASC}], take: 10) { id orders(where: {status: {neq: "NONE"}}, order: [{order_lines: {count: DESC}}], take: 10) { id } } }',
        'tina',
      );
      expect(
        res.getCustomers.map((c: { id: string; orders: { id: string }[] }) => [
          Number(c.id),
          list(c.orders),
        ]),
      ).toEqual([
        [1, [11, 1]],
        [3, [8]],
        [4, [4]],
        [5, [10, 5]],
        [6, []],
      ]);
    });

    it('a plan kept for a caller no rule bounds is not reused for one whose related rule does', async () => {
      const order = '[{customer: {name: ASC}}]';
      const everyone = [1, 6, 11, 2, 7, 12, 3, 8, 4, 9, 5, 10];
      expect(await orders(order, 'vera')).toEqual(everyone);
      expect(await orders(order, 'hana')).toEqual([2, 7, 12, 1, 6, 11, 3, 8, 4, 9, 5, 10]);
      expect(await orders(order, 'vera')).toEqual(everyone);
    });

    it('refuses, saying what to change: two names in one element, a column outside the subtree', async () => {
      const two = await gql(
        '{ getOrders(order: [{customer: {name: ASC, city: DESC}}]) { id } }',
        as('builder'),
      );
      // Refused while the field is planned, before its SQL: a field error, the data null.
      expect(two.body.data).toBeNull();
      expect(two.body.errors?.[0]).toMatchObject({
        message: expect.stringContaining('give each its own element'),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      // The customer subtree of the orders API leaves out email: ordering is reading.
      const hidden = await gql(
        '{ getOrders(order: [{customer: {email: ASC}}]) { id } }',
        as('builder'),
      );
      expect(hidden.status).toBe(400);
      expect(JSON.stringify(hidden.body.errors)).toContain('email');
    });

    it('counts each relation of an order against LIMIT_RELATION_FILTERS (8): 9 are refused before any SQL, 8 served', async () => {
      const terms = (n: number) =>
        Array.from({ length: n }, () => '{customer: {name: ASC}}').join(', ');
      const res = await gql(
        `{ getOrders(order: [${terms(5)}], where: {and: [${Array.from({ length: 4 }, () => '{customer: {}}').join(', ')}]}) { id } }`,
        as('builder'),
      );
      expect(res.body.errors?.[0]).toMatchObject({
        message: expect.stringContaining('more than 8 relation filters'),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(await orders(`[${terms(8)}]`)).toEqual([1, 6, 11, 2, 7, 12, 3, 8, 4, 9, 5, 10]);
    });
  });
}
