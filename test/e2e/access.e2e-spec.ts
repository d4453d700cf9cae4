import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS, SalesDialect } from '../support/sales-dialects';

/**
 * Issue 9, who sees what (CONTRACT.md §4, §6): app users with row rules per role, the built-in
 * `anonymous` and `api_key` roles, rules on every path through the data (get, count, navigation
 * both ways at depth 3, update, delete, add), rules that fail closed, sessions bound to one app,
 * and a schema per audience. On PostgreSQL, MariaDB and SQLite.
 */

const NOTES_DDL =
  'CREATE TABLE notes (id INTEGER PRIMARY KEY, body VARCHAR(100) NOT NULL, secret VARCHAR(20))';
const NOTES_ROWS = "INSERT INTO notes (id, body, secret) VALUES (1, 'one', 'a'), (2, 'two', 'b')";

/** The sales database plus a `notes` table whose rule a dropped column later breaks. */
async function setUpDatabase(dialect: SalesDialect, dataDir: string) {
  const db = await dialect.create(dataDir);
  await db.exec(NOTES_DDL);
  await db.exec(NOTES_ROWS);
  return { ...db, tables: [...db.tables, db.qualify('notes')], notesTable: db.qualify('notes') };
}

const ids = (rows: { id: string }[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Who sees what on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let address: string;
    let db: Awaited<ReturnType<typeof setUpDatabase>>;
    const apiIds: Record<string, string> = {};
    const tokens: Record<string, string> = {};
    const userIds: Record<string, string> = {};
    let keyAll: string;
    let keyOrders: string;

    const gql = (query: string, headers: Record<string, string> = {}, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, headers });
    const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });
    const data = async (query: string, headers: Record<string, string>) => {
      const res = await gql(query, headers);
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data;
    };
    const asBuilder = () => ({ authorization: `Bearer ${token}` });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await setUpDatabase(dialect, run.dataDir);
      address = `access-${dialect.type}`;
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Access', address } }))
        .body.id;
      await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Other', address: `${address}-other` },
      });
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const all = { select: true, insert: true, update: true, delete: true };
      const specs = [
        {
          name: 'customers',
          table: 'customers',
          actions: all,
          public: { select: true },
          fields: {
            id: true,
            name: true,
            email: true,
            city: true,
            orders: { id: true, total: true, customer: { id: true, orders: { id: true } } },
          },
        },
        {
          name: 'orders',
          table: 'orders',
          actions: all,
          fields: {
            id: true,
            customer_id: true,
            status: true,
            total: true,
            placed_at: true,
            customer: { id: true, name: true, orders: { id: true, order_lines: { id: true } } },
          },
        },
        {
          name: 'notes',
          table: 'notes',
          actions: { select: true, insert: false, update: false, delete: false },
        },
      ];
      for (const body of specs) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, { token, body });
        expect(api.status).toBe(201);
        apiIds[body.name] = api.body.id;
        expect(
          (await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token }))
            .status,
        ).toBe(200);
      }
      const rules: Record<string, unknown> = {
        own: {
          tables: {
            customers: { where: { id: { eq: '$user.customerId' } } },
            orders: { where: { customer_id: { eq: '$user.customerId' } } },
          },
        },
        city: { tables: { customers: { where: { city: { eq: '$user.city' } } } } },
        ownorders: { tables: { orders: { where: { customer_id: { eq: '$user.customerId' } } } } },
        lost: {
          tables: {
            customers: { where: { city: { eq: '$user.missing' } } },
            orders: { where: { id: { eq: -1 } } },
          },
        },
        secretive: { tables: { notes: { where: { secret: { eq: 'a' } } } } },
        ordersonly: { tables: { customers: { where: { id: { eq: -1 } } } } },
        api_key: { tables: { orders: { where: { status: { eq: 'PAID' } } } } },
        anonymous: { tables: { customers: { where: { city: { neq: null } } } } },
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

      const users = {
        alice: { roles: ['own'], attributes: { customerId: 1 } },
        carla: { roles: ['own', 'city'], attributes: { customerId: 3, city: 'Porto' } },
        lost: { roles: ['lost'], attributes: {} },
        nora: { roles: ['secretive'], attributes: {} },
        olga: { roles: ['ordersonly'], attributes: {} },
        // Tenant "Lisboa": a rule on customers (customer 1 is hers, 2 is Porto's), none on orders.
        lena: { roles: ['city'], attributes: { city: 'Lisboa' } },
        // Alice's rule on orders alone: every customer is hers to point at, not every order.
        cleo: { roles: ['ownorders'], attributes: { customerId: 1 } },
      };
      for (const [name, spec] of Object.entries(users)) {
        const created = await run.http('POST', `/api/apps/${appId}/users`, {
          token,
          body: { email: `${name}@example.com`, password: `${name}-password`, ...spec },
        });
        expect(created.status).toBe(201);
        expect(JSON.stringify(created.body)).not.toContain('password');
        userIds[name] = created.body.id;
        const login = await run.http('POST', `/api/apps/${appId}/auth/login`, {
          body: { email: `${name}@example.com`, password: `${name}-password` },
        });
        expect(login.status).toBe(200);
        tokens[name] = login.body.token;
      }
      const key = async (scope: unknown) =>
        (await run.http('POST', '/api/admin/api-keys', { token, body: { name: 'k', scope } })).body
          .key as string;
      keyAll = await key([{ appId, endpoints: 'all' }]);
      keyOrders = await key([{ appId, endpoints: [apiIds.orders] }]);
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    it('two app users see different rows and counts from the same query; several roles see the union', async () => {
      const query = '{ getCustomers { id } countCustomers }';
      const alice = await data(query, as('alice'));
      expect(ids(alice.getCustomers)).toEqual([1]);
      expect(alice.countCustomers).toBe(1);
      const carla = await data(query, as('carla'));
      // own: customer 3; city = Porto: customer 2.
      expect(ids(carla.getCustomers)).toEqual([2, 3]);
      expect(carla.countCustomers).toBe(2);
    });

    it('never answers a bounded caller from the statement planned once for an unbounded one', async () => {
      // Same audience (app users), same cached operation: olga's roles set no rule on orders,
      // so her statement is planned once and kept; alice's rule must still apply, every time.
      const query = '{ getOrders(order: [{id: ASC}]) { id customer_id } countOrders }';
      const every = await data(query, asBuilder());
      expect(every.getOrders.length).toBeGreaterThan(1);
      for (let round = 0; round < 2; round++) {
        const olga = await data(query, as('olga'));
        expect(olga).toEqual(every);
        const alice = await data(query, as('alice'));
        expect(alice.getOrders.length).toBeGreaterThan(0);
        expect(
          alice.getOrders.every((o: { customer_id: unknown }) => `${o.customer_id}` === '1'),
        ).toBe(true);
        expect(alice.countOrders).toBe(alice.getOrders.length);
        expect(alice.countOrders).toBeLessThan(every.countOrders);
      }
    });

    it("ANDs the caller's where with the rule", async () => {
      expect(
        (await data('{ getCustomers(where: {id: {eq: 2}}) { id } }', as('alice'))).getCustomers,
      ).toEqual([]);
      expect(
        ids(
          (await data('{ getCustomers(where: {id: {in: [1, 2]}}) { id } }', as('alice')))
            .getCustomers,
        ),
      ).toEqual([1]);
    });

    it('reaches navigation fields in both directions at depth 3', async () => {
      const orders = await data(
        '{ getOrders(take: 20) { id customer { id orders(take: 20) { id order_lines(take: 20) { id } } } } }',
        as('alice'),
      );
      expect(ids(orders.getOrders)).toEqual([1, 6, 11]);
      for (const o of orders.getOrders) {
        expect(o.customer.id).toBe('1');
        expect(ids(o.customer.orders)).toEqual([1, 6, 11]);
      }
      // Carla sees customer 2 through her city rule; that role has no rule on orders, so the union
      // of her roles sees every order (CONTRACT.md §4: a role with no rule for a table sees all).
      const carla = await data(
        '{ getCustomers(take: 20) { id orders(take: 20) { id customer { id orders(take: 20) { id } } } } }',
        as('carla'),
      );
      const two = carla.getCustomers.find((c: { id: string }) => c.id === '2');
      expect(ids(two.orders)).toEqual([2, 7, 12]);
      // Alice's one role bounds orders: customer 2's orders are invisible through her customer too.
      const alice = await data('{ getOrders(take: 20) { id } }', as('alice'));
      expect(ids(alice.getOrders)).toEqual([1, 6, 11]);
      const three = carla.getCustomers.find((c: { id: string }) => c.id === '3');
      expect(ids(three.orders)).toEqual([3, 8]);
      expect(three.orders[0].customer.id).toBe('3');
    });

    it('gives null for a many-to-one row outside the rule', async () => {
      // Olga's role sees every order but no customer: each order's customer is null, and a
      // customer's orders are out of reach.
      const orders = await data('{ getOrders(take: 5) { id customer { id } } }', as('olga'));
      expect(orders.getOrders).toHaveLength(5);
      for (const o of orders.getOrders) expect(o.customer).toBeNull();
      expect((await data('{ getCustomers { id } }', as('olga'))).getCustomers).toEqual([]);
      expect((await gql('{ getOrders { id } }', as('lost'))).body.data.getOrders).toEqual([]);
    });

    it('applies the built-in api_key role to keys', async () => {
      const viaKey = await data('{ countOrders }', { 'x-api-key': keyOrders });
      expect((await data('{ countOrders }', { 'x-api-key': keyAll })).countOrders).toBe(
        viaKey.countOrders,
      );
      const paid = await data('{ countOrders(where: {status: {eq: "PAID"}}) }', asBuilder());
      expect(viaKey.countOrders).toBe(paid.countOrders);
      expect(paid.countOrders).toBeLessThan(
        (await data('{ countOrders }', asBuilder())).countOrders,
      );
    });

    it('update and delete outside the rule answer null and false and change nothing', async () => {
      const update = await data(
        'mutation { updateOrders(id: 2, status: "HACKED") { id status } }',
        as('alice'),
      );
      expect(update.updateOrders).toBeNull();
      const del = await data('mutation { deleteOrders(id: 2) }', as('alice'));
      expect(del.deleteOrders).toBe(false);
      const row = await data('{ getOrders(where: {id: {eq: 2}}) { id status } }', asBuilder());
      expect(row.getOrders).toHaveLength(1);
      expect(row.getOrders[0].status).not.toBe('HACKED');
      const inside = await data(
        'mutation { updateOrders(id: 1, total: "15.50") { id total } }',
        as('alice'),
      );
      expect(inside.updateOrders.id).toBe('1');
    });

    // Customer 2 is outside Alice's rule on customers, so she gets the refusal of a key pointing
    // nowhere before her rule on orders is reached; Cleo sees every customer.
    it('refuses an update that would move the row outside the rule, and keeps the row', async () => {
      const res = await gql('mutation { updateOrders(id: 6, customer_id: 2) { id } }', as('cleo'));
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const row = await data('{ getOrders(where: {id: {eq: 6}}) { customer_id } }', asBuilder());
      expect(row.getOrders[0].customer_id).toBe('1');
    });

    it('refuses an add outside the rule and writes nothing; an add inside works', async () => {
      const placedAt = dialect.type === 'sqlite' ? '2024-05-01T10:00:00' : '2024-05-01T10:00:00Z';
      const before = (await data('{ countOrders }', asBuilder())).countOrders;
      const outside = await gql(
        `mutation { addOrders(id: 900, customer_id: 2, status: "NEW", total: "1.00", placed_at: "${placedAt}") { id } }`,
        as('cleo'),
      );
      expect(outside.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect((await data('{ countOrders }', asBuilder())).countOrders).toBe(before);
      const inside = await gql(
        `mutation { addOrders(id: 901, customer_id: 1, status: "NEW", total: "1.00", placed_at: "${placedAt}") { id } }`,
        as('alice'),
      );
      expect(inside.body.errors).toBeUndefined();
      expect((await data('{ countOrders }', asBuilder())).countOrders).toBe(before + 1);
      expect(await data('mutation { deleteOrders(id: 901) }', as('alice'))).toEqual({
        deleteOrders: true,
      });
    });

    describe('refusals under a rule leak nothing of the rows outside it (issue 22 item 8)', () => {
      const placedAt = dialect.type === 'sqlite' ? '2024-05-01T10:00:00' : '2024-05-01T10:00:00Z';
      const addOrder = (id: number, customerId: number) =>
        `mutation { addOrders(id: ${id}, customer_id: ${customerId}, status: "NEW", total: "1.00", placed_at: "${placedAt}") { id } }`;
      const refusal = async (query: string, headers: Record<string, string>) => {
        const res = await gql(query, headers);
        expect(res.status).toBe(200);
        expect(res.body.errors).toHaveLength(1);
        const { message, extensions } = res.body.errors[0];
        return { message, code: extensions.code, field: extensions.field };
      };
      const customer = async (id: number) =>
        (await data(`{ getCustomers(where: {id: {eq: ${id}}}) { id email } }`, asBuilder()))
          .getCustomers;
      const order = async (id: number) =>
        (await data(`{ getOrders(where: {id: {eq: ${id}}}) { id customer_id } }`, asBuilder()))
          .getOrders;

      it('answers a unique-key conflict alike whether the other row is inside the rule or not, naming neither field nor value (add and update)', async () => {
        const addAs = (id: number, email: string) =>
          `mutation { addCustomers(id: ${id}, name: "Lena", email: "${email}", city: "Lisboa") { id } }`;
        const outside = await refusal(addAs(960, 'bruno@example.com'), as('lena'));
        const inside = await refusal(addAs(960, 'ana@example.com'), as('lena'));
        expect(outside).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: null,
          message: 'Nothing was written: a value that must be unique is already taken',
        });
        expect(inside).toEqual(outside);
        expect(await customer(960)).toEqual([]);

        const own = await data(addAs(961, 'lena@example.com'), as('lena'));
        expect(own.addCustomers.id).toBe('961');
        const updateAs = (email: string) =>
          `mutation { updateCustomers(id: 961, email: "${email}") { id email } }`;
        expect(await refusal(updateAs('bruno@example.com'), as('lena'))).toEqual(outside);
        expect(await refusal(updateAs('ana@example.com'), as('lena'))).toEqual(outside);
        expect(await customer(961)).toEqual([{ id: '961', email: 'lena@example.com' }]);
        expect(await data('mutation { deleteCustomers(id: 961) }', as('lena'))).toEqual({
          deleteCustomers: true,
        });
      });

      it('keeps the detailed unique-key answer for a caller no rule bounds on that table (a key)', async () => {
        const answer = await refusal(
          'mutation { addCustomers(id: 963, name: "K", email: "bruno@example.com") { id } }',
          { 'x-api-key': keyAll },
        );
        expect(answer).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: 'email',
          message: 'A row with this email already exists',
        });
      });

      it('refuses an order pointing at a customer outside the rule as if that customer did not exist (add and update)', async () => {
        const dangling = await refusal(addOrder(970, 99999), as('lena'));
        expect(dangling).toMatchObject({ code: 'FOREIGN_KEY_VIOLATION', field: 'customer_id' });
        expect(await refusal(addOrder(970, 2), as('lena'))).toEqual(dangling);
        expect(await order(970)).toEqual([]);
        const update = await refusal(
          'mutation { updateOrders(id: 11, customer_id: 2) { id } }',
          as('lena'),
        );
        expect(update).toEqual(dangling);
        expect(await order(11)).toEqual([{ id: '11', customer_id: '1' }]);
      });

      it('still lets a caller point an order at a customer inside the rule (add and update)', async () => {
        expect((await data(addOrder(971, 1), as('lena'))).addOrders.id).toBe('971');
        const other = await data(
          'mutation { addCustomers(id: 962, name: "L2", email: "lena2@example.com", city: "Lisboa") { id } }',
          as('lena'),
        );
        expect(other.addCustomers.id).toBe('962');
        const moved = await data(
          'mutation { updateOrders(id: 971, customer_id: 962) { id customer_id } }',
          as('lena'),
        );
        expect(moved.updateOrders).toEqual({ id: '971', customer_id: '962' });
        // A key has no rule on customers: the database's own answer, naming the field.
        const viaKey = await refusal(addOrder(972, 99999).replace('"NEW"', '"PAID"'), {
          'x-api-key': keyAll,
        });
        expect(viaKey).toMatchObject({ code: 'FOREIGN_KEY_VIOLATION', field: 'customer_id' });
        expect(await data('mutation { deleteOrders(id: 971) }', as('lena'))).toEqual({
          deleteOrders: true,
        });
        expect(await data('mutation { deleteCustomers(id: 962) }', as('lena'))).toEqual({
          deleteCustomers: true,
        });
      });
    });

    it('denies every row when a rule names an attribute the user lacks or a column that left the model', async () => {
      expect((await data('{ countCustomers }', as('lost'))).countCustomers).toBe(0);
      expect(ids((await data('{ getNotes { id } }', as('nora'))).getNotes)).toEqual([1]);
      await db.exec('ALTER TABLE notes DROP COLUMN secret');
      const dsId = (await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body?.[0]
        ?.id;
      const models = await run.http('GET', `/api/apps/${appId}/model/tables`, { token });
      const datasourceId = dsId ?? models.body[0].datasource.id;
      const reimport = await run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId, tables: [db.notesTable] },
      });
      expect(reimport.status).toBe(201);
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
      expect((await data('{ getNotes { id } }', as('nora'))).getNotes).toEqual([]);
      expect(ids((await data('{ getNotes { id } }', asBuilder())).getNotes)).toEqual([1, 2]);
    });

    it("refuses an app user's token at another app, the builder REST and the admin REST", async () => {
      const other = await run.http('POST', `/api/graphql/${address}-other`, {
        body: { query: '{ __typename }' },
        headers: as('alice'),
      });
      expect(other.status).toBe(401);
      expect(
        (await run.http('GET', `/api/apps/${appId}/apis`, { headers: as('alice') })).status,
      ).toBe(401);
      expect((await run.http('GET', '/api/admin/api-keys', { headers: as('alice') })).status).toBe(
        401,
      );
    });

    it('ends the sessions of a disabled user on the next request', async () => {
      const login = await run.http('POST', `/api/apps/${appId}/auth/login`, {
        body: { email: 'nora@example.com', password: 'nora-password' },
      });
      const noraToken = login.body.token;
      expect(
        (await gql('{ countCustomers }', { authorization: `Bearer ${noraToken}` })).status,
      ).toBe(200);
      const disabled = await run.http('PATCH', `/api/apps/${appId}/users/${userIds.nora}`, {
        token,
        body: { disabled: true },
      });
      expect(disabled.status).toBe(200);
      expect(
        (await gql('{ countCustomers }', { authorization: `Bearer ${noraToken}` })).status,
      ).toBe(401);
      const again = await run.http('POST', `/api/apps/${appId}/auth/login`, {
        body: { email: 'nora@example.com', password: 'nora-password' },
      });
      expect(again.status).toBe(401);
    });

    it('shows anonymous callers exactly the public operations, bounded by their rule', async () => {
      const introspect = '{ __schema { queryType { fields { name } } mutationType { name } } }';
      const anon = await data(introspect, {});
      expect(anon.__schema.queryType.fields.map((f: { name: string }) => f.name).sort()).toEqual([
        'countCustomers',
        'getCustomers',
      ]);
      expect(anon.__schema.mutationType).toBeNull();
      const rows = await data('{ getCustomers { id city } }', {});
      for (const r of rows.getCustomers) expect(r.city).not.toBeNull();
      const refused = await gql('{ countOrders }', {});
      expect(refused.status).toBe(401);
      expect(refused.body.errors[0].message).toBe('Invalid API key');
      const unknown = await gql('{ getOrder { id } }', {});
      expect(JSON.stringify(unknown.body)).not.toContain('Did you mean');
    });

    it('shows a key scoped to one API exactly that API’s operations, and refuses the others with 403', async () => {
      const res = await data(
        '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
        {
          'x-api-key': keyOrders,
        },
      );
      expect(res.__schema.queryType.fields.map((f: { name: string }) => f.name).sort()).toEqual([
        'countOrders',
        'getOrders',
      ]);
      expect(res.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort()).toEqual([
        'addManyOrders',
        'addOrders',
        'deleteManyOrders',
        'deleteOrders',
        'updateManyOrders',
        'updateOrders',
        'upsertManyOrders',
        'upsertOrders',
      ]);
      const outside = await gql('{ countCustomers }', { 'x-api-key': keyOrders });
      expect(outside.status).toBe(403);
      expect(outside.body.errors[0].message).toBe('API key not authorised for this endpoint');
    });

    it('refuses a rule naming an unknown table, column or operator at save', async () => {
      const bad = await run.http('PUT', `/api/apps/${appId}/permissions/bad`, {
        token,
        body: {
          tables: {
            customers: { where: { nope: { eq: 1 } } },
            ghosts: { where: {} },
            orders: { where: { id: { like: 1 } } },
          },
        },
      });
      expect(bad.status).toBe(400);
      const details = JSON.stringify(bad.body.details);
      expect(details).toContain('nope');
      expect(details).toContain('ghosts');
      expect(details).toContain('like');
    });
  });
}
