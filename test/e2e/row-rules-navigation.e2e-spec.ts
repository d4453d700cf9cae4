import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';
import { publishTableApis } from '../support/table-apis';

/**
 * Issue 23 item 3, row rules with navigation keys (README "Rules through relations"): a rule on
 * orders through the many-to-one `customer`, rules on customers through the one-to-many `orders`
 * (`some`, `none`, `every`), each with the related table's rule of the same caller inside its
 * subquery; get, count, aggregate and navigation fields see only the rows allowed, add, update
 * and delete cannot touch the others; a cycle of one role's rules is refused at save, one formed
 * by two roles' rules is broken failing closed. On PostgreSQL, MariaDB and SQLite, in the literal
 * and the variables form.
 *
 * Data (sales-fixture.ts): customer c has orders i = 1..12 with ((i - 1) % 5) + 1 = c; status of
 * order i is PAID when i % 3 = 0, PENDING when 1, SHIPPED when 2; total i * 10 + 0.50. Cities: 1
 * Lisboa, 2 Porto, 3 none, 4 São Paulo, 5 Berlin, 6 none; customer 6 has no orders. Added here:
 * order 13 of customer 1, status NEW, total 1.00, no order lines (so it can be deleted).
 */
const EXTRA =
  "INSERT INTO orders (id, customer_id, status, total, placed_at, ship_date, big) VALUES (13, 1, 'NEW', 1.00, '2024-03-13 12:00:00', NULL, 13)";

const RULES: Record<string, unknown> = {
  // Orders of customers in the user's city, among the customers the role sees (not Porto).
  tenant: {
    tables: {
      orders: { where: { customer: { city: { eq: '$user.city' } } } },
      customers: { where: { city: { neq: 'Porto' } } },
    },
  },
  // Customers with at least one order of the user's status, among the orders the role sees
  // (not PAID).
  buyer: {
    tables: {
      customers: { where: { orders: { some: { status: { eq: '$user.status' } } } } },
      orders: { where: { status: { neq: 'PAID' } } },
    },
  },
  // Customers with no pending order (no rule on orders: every order counts).
  calm: { tables: { customers: { where: { orders: { none: { status: { eq: 'PENDING' } } } } } } },
  // Customers every order of whom has a ship date from 2024 on (an empty one fails).
  shipped: {
    tables: {
      customers: { where: { orders: { every: { ship_date: { gte: '2024-01-01' } } } } },
    },
  },
};

const USERS: Record<string, { roles: string[]; attributes: Record<string, unknown> }> = {
  lia: { roles: ['tenant'], attributes: { city: 'Lisboa' } },
  // Porto's customer is outside the tenant rule on customers: no order of Porto is hers either.
  paulo: { roles: ['tenant'], attributes: { city: 'Porto' } },
  sam: { roles: ['buyer'], attributes: { status: 'SHIPPED' } },
  // Every PAID order is outside the buyer rule on orders: no customer qualifies through one.
  bea: { roles: ['buyer'], attributes: { status: 'PAID' } },
  cleo: { roles: ['calm'], attributes: {} },
  eve: { roles: ['shipped'], attributes: {} },
  // Both roles: tenant's rule on orders reads customers, buyer's rule on customers reads orders.
  mix: { roles: ['tenant', 'buyer'], attributes: { city: 'Lisboa', status: 'SHIPPED' } },
};

const ids = (rows: { id: string }[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Row rules with navigation keys on ${dialect.type} (issue 23 item 3)`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    const address = `rule-navigation-${dialect.type}`;

    const gql = (query: string, who: string) =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${who === 'builder' ? token : tokens[who]}` },
      });
    const data = async (query: string, who: string) => {
      const res = await gql(query, who);
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data;
    };
    const orderIds = async (who: string, where = '{}') =>
      ids((await data(`{ getOrders(where: ${where}) { id } }`, who)).getOrders);
    const customerIds = async (who: string) =>
      ids((await data('{ getCustomers { id } }', who)).getCustomers);
    const putRules = (role: string, body: unknown) =>
      run.http('PUT', `/api/apps/${appId}/permissions/${role}`, { token, body });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      await db.exec(EXTRA);
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Nav', address } })).body
        .id;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const all = { select: true, insert: true, update: true, delete: true, aggregate: true };
      for (const [role, body] of Object.entries(RULES)) {
        expect((await putRules(role, body)).status).toBe(200);
      }
      await publishTableApis(run, token, appId, [
        {
          name: 'orders',
          table: 'orders',
          actions: all,
          fields: {
            id: true,
            customer_id: true,
            status: true,
            total: true,
            customer: { id: true, city: true },
          },
        },
        {
          name: 'customers',
          table: 'customers',
          actions: all,
          fields: { id: true, name: true, city: true, orders: { id: true, status: true } },
        },
      ]);
      for (const [name, spec] of Object.entries(USERS)) {
        const created = await run.http('POST', `/api/apps/${appId}/users`, {
          token,
          body: { email: `${name}@example.com`, password: `${name}-password`, ...spec },
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

    it('many-to-one: get, count and aggregate see the orders of customers in the user’s city only', async () => {
      expect(await orderIds('lia')).toEqual([1, 6, 11, 13]);
      const answer = await data(
        `{ countOrders
           aggregateOrders { count sum { total } }
           byStatus: aggregateOrders(groupBy: [status]) { key { status } count } }`,
        'lia',
      );
      expect(answer.countOrders).toBe(4);
      // 10.50 + 60.50 + 110.50 + 1.00
      expect(answer.aggregateOrders).toEqual([{ count: 4, sum: { total: '182.5' } }]);
      expect(answer.byStatus).toEqual([
        { key: { status: 'NEW' }, count: 1 },
        { key: { status: 'PAID' }, count: 1 },
        { key: { status: 'PENDING' }, count: 1 },
        { key: { status: 'SHIPPED' }, count: 1 },
      ]);
      // The caller's filter combines with the rule: only her rows can match.
      expect(await orderIds('lia', '{status: {eq: "PAID"}}')).toEqual([6]);
      expect(await orderIds('builder', '{status: {eq: "PAID"}}')).toEqual([3, 6, 9, 12]);
    });

    it("applies the related table's own rule inside the subquery: a hidden customer admits none of its orders", async () => {
      // Porto's customer 2 is outside the tenant rule on customers, so its orders are too.
      expect(await orderIds('paulo')).toEqual([]);
      const answer = await data('{ countOrders aggregateOrders { count } }', 'paulo');
      expect(answer).toEqual({ countOrders: 0, aggregateOrders: [{ count: 0 }] });
      expect(await customerIds('paulo')).toEqual([1, 4, 5]);
    });

    it('one-to-many some: customers with a visible order of the user’s status; the order rule applies inside', async () => {
      // SHIPPED orders 2, 5, 8 and 11 belong to customers 2, 5, 3 and 1.
      expect(await customerIds('sam')).toEqual([1, 2, 3, 5]);
      const answer = await data('{ countCustomers aggregateCustomers { count } }', 'sam');
      expect(answer).toEqual({ countCustomers: 4, aggregateCustomers: [{ count: 4 }] });
      // Every PAID order is outside bea's rule on orders: no customer has a visible one.
      expect(await customerIds('bea')).toEqual([]);
      expect((await data('{ countCustomers }', 'bea')).countCustomers).toBe(0);
      // Navigation fields below them keep the rule of orders: no PAID order shows.
      const nested = await data(
        '{ getCustomers(take: 10) { id orders(take: 10) { id status } } }',
        'sam',
      );
      const statuses = nested.getCustomers.flatMap((c: { orders: { status: string }[] }) =>
        c.orders.map((o) => o.status),
      );
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses).not.toContain('PAID');
      // Customer 4 has no SHIPPED order: outside sam's rule, so its visible order 4 shows no customer.
      const four = await data('{ getOrders(where: {id: {eq: 4}}) { id customer { id } } }', 'sam');
      expect(four.getOrders).toEqual([{ id: '4', customer: null }]);
    });

    it('bounds navigation fields by a rule with navigation keys, in the batched reads too', async () => {
      const nested = await data('{ getCustomers(take: 10) { id orders(take: 10) { id } } }', 'lia');
      const byCustomer = Object.fromEntries(
        nested.getCustomers.map((c: { id: string; orders: { id: string }[] }) => [
          c.id,
          ids(c.orders),
        ]),
      );
      // Customers 1, 4 and 5 are visible (not Porto, a city); only customer 1 is in Lisboa.
      expect(byCustomer).toEqual({ '1': [1, 6, 11, 13], '4': [], '5': [] });
      const orders = await data('{ getOrders(take: 20) { id customer { id city } } }', 'lia');
      expect(orders.getOrders.map((o: { customer: { city: string } }) => o.customer.city)).toEqual([
        'Lisboa',
        'Lisboa',
        'Lisboa',
        'Lisboa',
      ]);
    });

    it('one-to-many none: customers without a pending order, a customer with no order included', async () => {
      // PENDING orders 1, 4, 7 and 10 belong to customers 1, 4, 2 and 5.
      expect(await customerIds('cleo')).toEqual([3, 6]);
      expect((await data('{ countCustomers }', 'cleo')).countCustomers).toBe(2);
    });

    it('one-to-many every: a customer with no order passes, an order whose condition is unknown (no ship date) fails', async () => {
      // Orders 4, 8, 12 and 13 have no ship date: their customers 4, 3, 2 and 1 fail.
      expect(await customerIds('eve')).toEqual([5, 6]);
    });

    it('breaks a cycle formed by the rules of two roles failing closed: the rule closing it admits no row', async () => {
      // Orders: tenant's (customer in Lisboa, among customers not in Porto; buyer's rule on
      // customers would read orders again, so it is left out there) or buyer's (not PAID).
      expect(await orderIds('mix')).toEqual([1, 2, 4, 5, 6, 7, 8, 10, 11, 13]);
      // Customers: tenant's (not Porto) or buyer's (a SHIPPED order among those not PAID;
      // tenant's rule on orders would read customers again, so it is left out there).
      expect(await customerIds('mix')).toEqual([1, 2, 3, 4, 5]);
    });

    it('refuses at save a cycle through one role’s rules, an unknown navigation and a wrong quantifier, naming their paths', async () => {
      const loop = await putRules('loop', {
        tables: {
          orders: { where: { customer: { city: { eq: '$user.city' } } } },
          customers: { where: { orders: { some: { status: { eq: 'PAID' } } } } },
        },
      });
      expect(loop.status).toBe(400);
      const details = JSON.stringify(loop.body.details);
      expect(details).toContain('tables.orders.where.customer: ');
      expect(details).toContain('(orders → customers → orders)');
      expect(details).toContain('tables.customers.where.orders.some: ');
      const wrong = await putRules('wrong', {
        tables: {
          orders: { where: { customer: { nope: { eq: 1 } } } },
          customers: { where: { orders: { any: {} } } },
        },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.details).toEqual([
        expect.stringContaining(
          'tables.orders.where.customer: table customers has no column or navigation nope',
        ),
        expect.stringContaining(
          'tables.customers.where.orders: orders takes {"some"|"none"|"every": <a rule of orders>}, at least one; any is none of them',
        ),
      ]);
      const rules = await run.http('GET', `/api/apps/${appId}/permissions`, { token });
      expect(Object.keys(rules.body).sort()).toEqual(['buyer', 'calm', 'shipped', 'tenant']);
    });

    it('add, update and delete cannot touch rows outside the rule; inside they work, and a change leaving the rule is rolled back', async () => {
      // Order 2 is Porto's: outside lia's rule.
      const outside = await data(
        'mutation { updateOrders(id: 2, status: "HACKED") { id } deleteOrders(id: 2) }',
        'lia',
      );
      expect(outside).toEqual({ updateOrders: null, deleteOrders: false });
      const two = await data('{ getOrders(where: {id: {eq: 2}}) { status } }', 'builder');
      expect(two.getOrders).toEqual([{ status: 'SHIPPED' }]);
      // Moving order 6 to customer 4 (São Paulo, visible to her) would leave her rule.
      const away = await gql('mutation { updateOrders(id: 6, customer_id: 4) { id } }', 'lia');
      expect(away.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const six = await data('{ getOrders(where: {id: {eq: 6}}) { customer_id } }', 'builder');
      expect(six.getOrders).toEqual([{ customer_id: '1' }]);
      const inside = await data(
        'mutation { updateOrders(id: 13, total: "2.00") { id total } }',
        'lia',
      );
      expect(inside.updateOrders.id).toBe('13');
      expect(Number(inside.updateOrders.total)).toBe(2);
      expect((await data('mutation { deleteOrders(id: 13) }', 'lia')).deleteOrders).toBe(true);
      expect(await orderIds('builder', '{id: {eq: 13}}')).toEqual([]);
      // An add is checked under the rule in its transaction: an order of São Paulo's customer 4
      // is refused and not written, one of Lisboa's customer 1 is written.
      const placedAt = dialect.type === 'sqlite' ? '2024-05-01T10:00:00' : '2024-05-01T10:00:00Z';
      const add = (id: number, customer: number) =>
        gql(
          `mutation { addOrders(id: ${id}, customer_id: ${customer}, status: "NEW", total: "1.00", placed_at: "${placedAt}") { id } }`,
          'lia',
        );
      expect((await add(900, 4)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(await orderIds('builder', '{id: {eq: 900}}')).toEqual([]);
      expect((await add(901, 1)).body.data?.addOrders).toEqual({ id: '901' });
      expect((await data('mutation { deleteOrders(id: 901) }', 'lia')).deleteOrders).toBe(true);

      // Customers: 4 has no SHIPPED order (outside sam's rule), 6 has no order at all.
      const customers = await data(
        'mutation { updateCustomers(id: 4, name: "X") { id } deleteCustomers(id: 6) }',
        'sam',
      );
      expect(customers).toEqual({ updateCustomers: null, deleteCustomers: false });
      expect(await customerIds('builder')).toEqual([1, 2, 3, 4, 5, 6]);
      const four = await data('{ getCustomers(where: {id: {eq: 4}}) { name } }', 'builder');
      expect(four.getCustomers[0].name).not.toBe('X');
      const one = await data(
        'mutation { updateCustomers(id: 1, name: "Ana Souza") { id name } }',
        'sam',
      );
      expect(one.updateCustomers).toEqual({ id: '1', name: 'Ana Souza' });
    });
  });
}
