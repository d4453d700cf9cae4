import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { publishTableApis } from '../support/table-apis';

/**
 * Issue 24 item 3 (README "Writing rows", "Update and delete by a filter"): `updateMany<Base>(where,
 * set, atMost)` and `deleteMany<Base>(where, atMost)` over HTTP. A filter (with a relation filter)
 * picks the rows; `rows` come back where the database returns updated rows (PostgreSQL, SQLite),
 * `null` on MariaDB; more rows than `atMost` answers TOO_MANY_ROWS and changes nothing; a row rule
 * bounds the rows changed and refuses a change that moves a row outside it; with another mutation
 * in one request, both are written or neither. On PostgreSQL, MariaDB and SQLite, in both forms.
 *
 * Data (sales-fixture.ts): order i = 1..12 of customer ((i - 1) % 5) + 1, status PAID when
 * i % 3 = 0, PENDING when 1, SHIPPED when 2; (i % 3) + 1 lines of quantities 1, 2, 3 (24 lines);
 * cities 1 Lisboa, 2 Porto, 3 none, 4 São Paulo, 5 Berlin.
 */

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: {
      message: string;
      path?: string[];
      extensions?: { code?: string; field?: string | null };
    }[];
  };
}

// A clerk may change the orders of Porto's customer (2: orders 2, 7, 12) and the order lines of
// quantity 1, and sees no customer of Berlin (5).
const CLERK_RULES = {
  tables: {
    orders: { where: { customer: { city: { eq: 'Porto' } } } },
    customers: { where: { city: { neq: 'Berlin' } } },
    order_lines: { where: { quantity: { eq: 1 } } },
    // (A rule may not read its own table: the service refuses a rule that depends on itself.)
    employees: { where: { name: { neq: 'Boss' } } },
  },
};

/**
 * `employees`, whose `manager_id` refers to the table itself (navigations `manager` and
 * `employees`): Boss (1) manages Ana (2) and Bia (3); Ana manages Caio (4) and Dani (5); Bia
 * manages Eli (6).
 */
const EMPLOYEES_SQL = `CREATE TABLE employees (id integer PRIMARY KEY, name varchar(50) NOT NULL,
  title varchar(50), manager_id integer, FOREIGN KEY (manager_id) REFERENCES employees (id))`;
const EMPLOYEES: [number, string, number | null][] = [
  [1, 'Boss', null],
  [2, 'Ana', 1],
  [3, 'Bia', 1],
  [4, 'Caio', 2],
  [5, 'Dani', 2],
  [6, 'Eli', 3],
];

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`updateMany and deleteMany on ${dialect.type} (issue 24 item 3)`, () => {
    let run: RunningApp;
    let token: string;
    let clerk: string;
    let db: SalesDatabase;
    const address = `writes-many-${dialect.type}`;
    // MariaDB has no UPDATE … RETURNING: rows is null there.
    const returns = dialect.type !== 'mysql';

    const gql = (query: string, as = token): Promise<Answer> =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${as}` },
      });
    const data = async (query: string, as = token) => {
      const res = await gql(query, as);
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data!;
    };
    const codes = (res: Answer) =>
      Object.fromEntries((res.body.errors ?? []).map((e) => [e.path?.[0], e.extensions?.code]));
    const orders = async (where: string) =>
      (await data(`{ getOrders(where: ${where}) { id customer_id status total big ship_date } }`))
        .getOrders as Record<string, unknown>[];
    const ids = (rows: Record<string, unknown>[]) => rows.map((r) => Number(r.id));
    const countLines = async (where = '{}') =>
      (await data(`{ countLines(where: ${where}) }`)).countLines as number;

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      const appId = (
        await run.http('POST', '/api/apps', { token, body: { name: 'Many', address } })
      ).body.id as string;
      await db.exec(EMPLOYEES_SQL);
      for (const [id, name, manager] of EMPLOYEES) {
        await db.exec(
          `INSERT INTO employees (id, name, manager_id) VALUES (${id}, '${name}', ${manager ?? 'NULL'})`,
        );
      }
      await registerSalesDatabase(run, token, appId, dialect.type, {
        url: db.url,
        tables: [...db.tables, db.qualify('employees')],
      });
      if (dialect.type === 'postgres') {
        // The fixture's rows carry their ids: new customers take theirs from past them.
        await db.exec("SELECT setval('customers_id_seq', 100)");
      }
      const rules = await run.http('PUT', `/api/apps/${appId}/permissions/clerk`, {
        token,
        body: CLERK_RULES,
      });
      expect(rules.status).toBe(200);
      await publishTableApis(run, token, appId, [
        { name: 'customers', table: 'customers', actions: EVERY_ACTION },
        {
          name: 'orders',
          table: 'orders',
          actions: EVERY_ACTION,
          fields: {
            id: true,
            customer_id: true,
            status: true,
            total: true,
            placed_at: true,
            ship_date: true,
            big: true,
            customer: { id: true, city: true },
          },
        },
        { name: 'lines', table: 'order_lines', actions: EVERY_ACTION },
        {
          name: 'employees',
          table: 'employees',
          actions: EVERY_ACTION,
          fields: {
            id: true,
            name: true,
            title: true,
            manager_id: true,
            manager: { id: true, name: true, manager: { name: true } },
            employees: { id: true, title: true },
          },
        },
      ]);
      const created = await run.http('POST', `/api/apps/${appId}/users`, {
        token,
        body: { email: 'clerk@example.com', password: 'clerk-password', roles: ['clerk'] },
      });
      expect(created.status).toBe(201);
      const login = await run.http('POST', `/api/apps/${appId}/auth/login`, {
        body: { email: 'clerk@example.com', password: 'clerk-password' },
      });
      expect(login.status).toBe(200);
      clerk = login.body.token as string;
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    it('updates every row a filter matches and answers them', async () => {
      const answer = await data(`mutation {
        updateManyOrders(where: {status: {eq: "PENDING"}}, set: {ship_date: null, big: "40"}, atMost: 10) {
          affected rows { id status ship_date big } } }`);
      expect(answer.updateManyOrders).toEqual({
        affected: 4,
        rows: returns
          ? [1, 4, 7, 10].map((id) => ({
              id: String(id),
              status: 'PENDING',
              ship_date: null,
              big: '40',
            }))
          : null,
      });
      const after = await orders('{status: {eq: "PENDING"}}');
      expect(ids(after)).toEqual([1, 4, 7, 10]);
      expect(after.every((o) => o.ship_date === null && o.big === '40')).toBe(true);
      // The other orders keep their values.
      expect((await orders('{id: {eq: 2}}'))[0]).toMatchObject({ ship_date: '2024-03-03' });
    });

    it('takes a relation filter in where', async () => {
      // Berlin is customer 5's city: orders 5 and 10.
      const answer = await data(`mutation {
        updateManyOrders(where: {customer: {city: {eq: "Berlin"}}}, set: {status: "HELD"}, atMost: 2) {
          affected rows { id status customer { city } } } }`);
      expect(answer.updateManyOrders).toEqual({
        affected: 2,
        rows: returns
          ? [
              { id: '5', status: 'HELD', customer: { city: 'Berlin' } },
              { id: '10', status: 'HELD', customer: { city: 'Berlin' } },
            ]
          : null,
      });
      expect(ids(await orders('{status: {eq: "HELD"}}'))).toEqual([5, 10]);
    });

    it('changes nothing when more rows than atMost match, and names the count', async () => {
      const res = await gql(`mutation {
        updateManyOrders(where: {}, set: {status: "VOID"}, atMost: 5) { affected } }`);
      expect(res.status).toBe(200);
      // The field is non-null: its null takes the whole data (GraphQL spec).
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message:
            'Nothing was changed: this would change 12 rows; atMost is 5: narrow where or raise atMost',
          path: ['updateManyOrders'],
          extensions: { code: 'TOO_MANY_ROWS', field: 'atMost' },
        }),
      ]);
      expect(await orders('{status: {eq: "VOID"}}')).toEqual([]);
      expect((await data('{ countOrders }')).countOrders).toBe(12);

      const del = await gql('mutation { deleteManyLines(where: {}, atMost: 3) { affected } }');
      expect(del.body.data).toBeNull();
      expect(del.body.errors?.[0].extensions).toEqual({ code: 'TOO_MANY_ROWS', field: 'atMost' });
      expect(del.body.errors?.[0].message).toBe(
        'Nothing was changed: this would delete 24 rows; atMost is 3: narrow where or raise atMost',
      );
      expect(await countLines()).toBe(24);
    });

    it('refuses an atMost outside 1..10,000 and a set without a column, before any SQL', async () => {
      for (const [query, message] of [
        [
          'mutation { updateManyOrders(where: {}, set: {status: "X"}, atMost: 0) { affected } }',
          'updateManyOrders: atMost must be 1 or more',
        ],
        [
          'mutation { deleteManyLines(where: {}, atMost: 10001) { affected } }',
          'deleteManyLines: atMost exceeds the limit of 10,000 rows; change the rows in several requests',
        ],
        [
          'mutation { updateManyOrders(where: {}, set: {}, atMost: 1) { affected } }',
          'updateManyOrders: set gives no column; give at least one column to change',
        ],
      ]) {
        const res = await gql(query);
        expect(res.body.errors?.[0]).toMatchObject({
          message,
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
      expect(await orders('{status: {eq: "X"}}')).toEqual([]);
      expect(await countLines()).toBe(24);
    });

    it('deletes every row a filter matches', async () => {
      // Orders 3 and 6 have one line each.
      const answer = await data(
        'mutation { deleteManyLines(where: {order_id: {in: ["3", "6"]}}, atMost: 2) { affected } }',
      );
      expect(answer.deleteManyLines).toEqual({ affected: 2 });
      expect(await countLines('{order_id: {in: ["3", "6"]}}')).toBe(0);
      expect(await countLines()).toBe(22);
      // No row matches: nothing deleted, no refusal.
      const none = await data(
        'mutation { deleteManyLines(where: {order_id: {eq: "999"}}, atMost: 1) { affected } }',
      );
      expect(none.deleteManyLines).toEqual({ affected: 0 });
    });

    it('refuses a delete of rows other rows refer to, whole', async () => {
      const res = await gql(
        'mutation { deleteManyOrders(where: {id: {in: ["3", "1"]}}, atMost: 2) { affected } }',
      );
      // Order 3 has no line left, order 1 has two: the statement fails whole.
      expect(codes(res)).toEqual({ deleteManyOrders: 'FOREIGN_KEY_VIOLATION' });
      expect(ids(await orders('{id: {in: ["1", "3"]}}'))).toEqual([1, 3]);
    });

    it('is written or rolled back together with the other mutations of the request', async () => {
      const res = await gql(`mutation {
        a: updateManyOrders(where: {status: {eq: "SHIPPED"}}, set: {status: "LOST"}, atMost: 10) { affected }
        b: addCustomers(name: "Ana Again", email: "ana@example.com") { id } }`);
      expect(res.body.data).toBeNull();
      expect(codes(res)).toEqual({ a: 'ROLLED_BACK', b: 'UNIQUE_VIOLATION' });
      expect(await orders('{status: {eq: "LOST"}}')).toEqual([]);

      // A deleteMany over atMost rolls back the add before it.
      const over = await gql(`mutation {
        a: addCustomers(name: "Mixed", email: "mixed@example.com") { id }
        b: deleteManyLines(where: {}, atMost: 1) { affected } }`);
      expect(over.body.data).toBeNull();
      expect(codes(over)).toEqual({ a: 'ROLLED_BACK', b: 'TOO_MANY_ROWS' });
      const mixed = await data('{ countCustomers(where: {email: {eq: "mixed@example.com"}}) }');
      expect(mixed.countCustomers).toBe(0);
      expect(await countLines()).toBe(22);

      // Both succeed: both written.
      const both = await data(`mutation {
        a: addCustomers(name: "Both", email: "both@example.com") { email }
        b: updateManyOrders(where: {status: {eq: "SHIPPED"}}, set: {status: "SENT"}, atMost: 4) { affected } }`);
      // SHIPPED: 2, 5, 8 and 11, but 5 is HELD since the relation filter's update.
      expect(both).toEqual({ a: { email: 'both@example.com' }, b: { affected: 3 } });
      expect(ids(await orders('{status: {eq: "SENT"}}'))).toEqual([2, 8, 11]);
    });

    it('changes only the rows inside the caller’s rule, and refuses moving a row outside it', async () => {
      // where: {} under the rule is every order of Porto's customer: 2, 7 and 12.
      const answer = await data(
        'mutation { updateManyOrders(where: {}, set: {total: "9.99"}, atMost: 3) { affected rows { id } } }',
        clerk,
      );
      expect(answer.updateManyOrders).toEqual({
        affected: 3,
        rows: returns ? [{ id: '2' }, { id: '7' }, { id: '12' }] : null,
      });
      expect(ids(await orders('{total: {eq: "9.99"}}'))).toEqual([2, 7, 12]);

      // atMost counts the rows inside the rule.
      const over = await gql(
        'mutation { updateManyOrders(where: {}, set: {total: "1.00"}, atMost: 2) { affected } }',
        clerk,
      );
      expect(over.body.errors?.[0]).toMatchObject({
        message:
          'Nothing was changed: this would change 3 rows; atMost is 2: narrow where or raise atMost',
        extensions: { code: 'TOO_MANY_ROWS' },
      });
      expect(ids(await orders('{total: {eq: "9.99"}}'))).toEqual([2, 7, 12]);

      // Order 7 moved to Lisboa's customer would leave the rule: refused, nothing written.
      const away = await gql(
        'mutation { updateManyOrders(where: {id: {eq: "7"}}, set: {customer_id: "1"}, atMost: 1) { affected } }',
        clerk,
      );
      expect(codes(away)).toEqual({ updateManyOrders: 'FORBIDDEN' });
      expect((await orders('{id: {eq: "7"}}'))[0]).toMatchObject({ customer_id: '2' });

      // A foreign key set to a customer the clerk cannot see: refused as a key pointing nowhere.
      const hidden = await gql(
        'mutation { updateManyOrders(where: {id: {eq: "2"}}, set: {customer_id: "5"}, atMost: 1) { affected } }',
        clerk,
      );
      expect(hidden.body.errors?.[0]).toMatchObject({
        message: 'customer_id refers to a row that does not exist',
        extensions: { code: 'FOREIGN_KEY_VIOLATION', field: 'customer_id' },
      });
      expect((await orders('{id: {eq: "2"}}'))[0]).toMatchObject({ customer_id: '2' });

      // A row outside the rule is never touched, whatever where says.
      const outside = await data(
        'mutation { updateManyOrders(where: {id: {eq: "1"}}, set: {total: "0.01"}, atMost: 1) { affected } }',
        clerk,
      );
      expect(outside.updateManyOrders).toEqual({ affected: 0 });
      expect((await orders('{id: {eq: "1"}}'))[0].total).not.toBe('0.01');

      // deleteMany deletes only the lines of quantity 1: order 5 keeps those of 2 and 3.
      const deleted = await data(
        'mutation { deleteManyLines(where: {order_id: {eq: "5"}}, atMost: 3) { affected } }',
        clerk,
      );
      expect(deleted.deleteManyLines).toEqual({ affected: 1 });
      const left = await data('{ getLines(where: {order_id: {eq: "5"}}) { quantity } }');
      expect(left.getLines).toEqual([{ quantity: 2 }, { quantity: 3 }]);
    });

    /** The employees as `id:title` (title null: `id:-`), by id. */
    const staff = async () =>
      (
        (await data('{ getEmployees(order: [{id: ASC}]) { id title } }')).getEmployees as {
          id: string;
          title: string | null;
        }[]
      ).map((e) => `${e.id}:${e.title ?? '-'}`);

    it('updateMany and deleteMany by a relation filter back to the same table (employees.manager), in both forms', async () => {
      // MySQL refuses UPDATE/DELETE whose subquery reads the changed table (error 1093): such a
      // filter goes by key there; every database answers the same.
      const literal = await data(`mutation {
        updateManyEmployees(where: {manager: {name: {eq: "Boss"}}}, set: {title: "Lead"}, atMost: 2) {
          affected rows { id title manager { name } } } }`);
      expect(literal.updateManyEmployees).toEqual({
        affected: 2,
        rows: returns
          ? [
              { id: '2', title: 'Lead', manager: { name: 'Boss' } },
              { id: '3', title: 'Lead', manager: { name: 'Boss' } },
            ]
          : null,
      });
      const variables = await run.http('POST', `/api/graphql/${address}`, {
        body: {
          query: `mutation($where: EmployeesFilter!, $set: EmployeesSet!, $atMost: Int!) {
            updateManyEmployees(where: $where, set: $set, atMost: $atMost) { affected } }`,
          variables: {
            // Two levels: the employees whose manager's manager is Boss (Caio, Dani, Eli).
            where: { manager: { manager: { name: { eq: 'Boss' } } } },
            set: { title: 'Staff' },
            atMost: 3,
          },
        },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(variables.body.errors).toBeUndefined();
      expect(variables.body.data).toEqual({ updateManyEmployees: { affected: 3 } });
      expect(await staff()).toEqual(['1:-', '2:Lead', '3:Lead', '4:Staff', '5:Staff', '6:Staff']);

      // Through the one-to-many side: the employees who manage someone titled Staff (Ana, Bia).
      const managers = await data(`mutation {
        updateManyEmployees(where: {employees: {some: {title: {eq: "Staff"}}}}, set: {title: "Manager"}, atMost: 2) {
          affected } }`);
      expect(managers.updateManyEmployees).toEqual({ affected: 2 });

      // More rows than atMost: TOO_MANY_ROWS with the count, nothing changed.
      const over = await gql(`mutation {
        deleteManyEmployees(where: {manager: {manager: {name: {eq: "Boss"}}}}, atMost: 2) { affected } }`);
      expect(over.body.data).toBeNull();
      expect(over.body.errors).toEqual([
        expect.objectContaining({
          message:
            'Nothing was changed: this would delete 3 rows; atMost is 2: narrow where or raise atMost',
          extensions: { code: 'TOO_MANY_ROWS', field: 'atMost' },
        }),
      ]);
      expect(await staff()).toEqual([
        '1:-',
        '2:Manager',
        '3:Manager',
        '4:Staff',
        '5:Staff',
        '6:Staff',
      ]);

      // Deletes by the same filter, with variables: Ana's reports (Caio, Dani).
      const deleted = await run.http('POST', `/api/graphql/${address}`, {
        body: {
          query: `mutation($where: EmployeesFilter!) {
            deleteManyEmployees(where: $where, atMost: 2) { affected } }`,
          variables: { where: { manager: { name: { eq: 'Ana' } } } },
        },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(deleted.body.errors).toBeUndefined();
      expect(deleted.body.data).toEqual({ deleteManyEmployees: { affected: 2 } });
      expect(await staff()).toEqual(['1:-', '2:Manager', '3:Manager', '6:Staff']);

      // A row other rows refer to: FOREIGN_KEY_VIOLATION, never INTERNAL; nothing deleted.
      const boss = await gql(
        'mutation { deleteManyEmployees(where: {employees: {some: {}}}, atMost: 5) { affected } }',
      );
      expect(codes(boss)).toEqual({ deleteManyEmployees: 'FOREIGN_KEY_VIOLATION' });
      expect(await staff()).toEqual(['1:-', '2:Manager', '3:Manager', '6:Staff']);
    });

    it('under a row rule, a relation filter back to the same table sees only the rows the rule shows', async () => {
      // The clerk does not see Boss: no employee's manager is Boss for them, so nothing changes.
      const hidden = await data(
        'mutation { updateManyEmployees(where: {manager: {name: {eq: "Boss"}}}, set: {title: "X"}, atMost: 5) { affected } }',
        clerk,
      );
      expect(hidden.updateManyEmployees).toEqual({ affected: 0 });
      // Renaming Eli (Bia's report) to Boss would take him outside the rule: FORBIDDEN, nothing written.
      const away = await gql(
        'mutation { updateManyEmployees(where: {manager: {name: {eq: "Bia"}}}, set: {name: "Boss", title: "Y"}, atMost: 1) { affected } }',
        clerk,
      );
      expect(codes(away)).toEqual({ updateManyEmployees: 'FORBIDDEN' });
      expect(await staff()).toEqual(['1:-', '2:Manager', '3:Manager', '6:Staff']);
      // Bia's reports inside the rule: Eli, deleted.
      const deleted = await data(
        'mutation { deleteManyEmployees(where: {manager: {name: {eq: "Bia"}}}, atMost: 1) { affected } }',
        clerk,
      );
      expect(deleted.deleteManyEmployees).toEqual({ affected: 1 });
      expect(await staff()).toEqual(['1:-', '2:Manager', '3:Manager']);
    });
  });
}
