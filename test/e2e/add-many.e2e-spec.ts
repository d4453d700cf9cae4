import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { createAppKey, publishTableApis } from '../support/table-apis';

/**
 * Issue 24 item 1 (README "Writing rows", "Add many rows"): `addMany<Base>(rows)` writes its rows
 * in one multi-row INSERT per set of columns, answers `{affected, rows}` in the order sent, and
 * writes nothing when any row is refused (named `rows[i]` where known before SQL). At most
 * `LIMIT_BULK_ROWS` rows. Under a row rule every written row must be inside it. On PostgreSQL,
 * MariaDB and SQLite, in both forms.
 */

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: { code?: string; field?: string } }[];
  };
}

/** `{name: "…", email: "…"}` rows as GraphQL literal text. */
const literal = (rows: Record<string, string>[]) =>
  `[${rows
    .map(
      (r) =>
        `{${Object.entries(r)
          .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
          .join(', ')}}`,
    )
    .join(', ')}]`;

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`addMany on ${dialect.type} (issue 24 item 1)`, () => {
    let run: RunningApp;
    let token: string;
    let userToken: string;
    let db: SalesDatabase;
    let appId: string;
    const address = `add-many-${dialect.type}`;
    // orders.placed_at: a DateTime with zone, or SQLite's LocalDateTime.
    const placedAt = dialect.type === 'sqlite' ? '2024-01-01T00:00:00' : '2024-01-01T00:00:00Z';

    const gql = (query: string, bearer = token): Promise<Answer> =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${bearer}` },
      });
    const emails = async (prefix: string) => {
      const res = await gql(
        `{ getCustomers(where: {email: {startsWith: ${JSON.stringify(prefix)}}}, order: [{email: ASC}]) { email } }`,
      );
      expect(res.body.errors).toBeUndefined();
      return (res.body.data!.getCustomers as { email: string }[]).map((c) => c.email);
    };

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Bulk', address } })).body
        .id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      if (dialect.type === 'postgres') {
        await db.exec(
          "SELECT setval('customers_id_seq', 100), setval('orders_id_seq', 100), setval('order_lines_id_seq', 1000)",
        );
      }
      const rule = await run.http('PUT', `/api/apps/${appId}/permissions/porto`, {
        token,
        body: { tables: { customers: { where: { city: { eq: 'Porto' } } } } },
      });
      expect(rule.status).toBe(200);
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
            order_lines: { id: true, product: true, quantity: true, unit_price: true },
          },
        },
      ]);
      const user = { email: 'pia@example.com', password: 'pia-password-1' };
      const created = await run.http('POST', `/api/apps/${appId}/users`, {
        token,
        body: { ...user, roles: ['porto'] },
      });
      expect(created.status).toBe(201);
      userToken = (await run.http('POST', `/api/apps/${appId}/auth/login`, { body: user })).body
        .token;
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    it('adds the rows in one statement and answers them in the order sent', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      const rows = [
        { name: 'Bulk C', email: 'bulk-c@example.com', city: 'Faro' },
        { name: 'Bulk A', email: 'bulk-a@example.com', city: 'Faro' },
        { name: 'Bulk B', email: 'bulk-b@example.com', city: 'Évora' },
      ];
      const res = await gql(
        `mutation { addManyCustomers(rows: ${literal(rows)}) { affected rows { name email city } } }`,
      );
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.addManyCustomers).toEqual({ affected: 3, rows });
      expect(pools.statementsExecuted - before).toBe(1);
      expect(await emails('bulk-')).toEqual([
        'bulk-a@example.com',
        'bulk-b@example.com',
        'bulk-c@example.com',
      ]);
    });

    it('rows that set different columns go in one statement per set, still answered in order', async () => {
      const res = await gql(`mutation { addManyCustomers(rows: [
          {name: "Mixed 1", email: "mixed-1@example.com", city: "Faro"},
          {name: "Mixed 2", email: "mixed-2@example.com"},
          {name: "Mixed 3", email: "mixed-3@example.com", city: "Beja"}]) { affected rows { email city } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.addManyCustomers).toEqual({
        affected: 3,
        rows: [
          { email: 'mixed-1@example.com', city: 'Faro' },
          { email: 'mixed-2@example.com', city: null },
          { email: 'mixed-3@example.com', city: 'Beja' },
        ],
      });
    });

    // PostgreSQL and MySQL/MariaDB give the refused value, so the row is found by it (issue 24
    // item 6); SQLite gives only the column.
    const named = (row: number, field: string) =>
      dialect.type === 'sqlite' ? field : `rows[${row}].${field}`;

    it('writes nothing when the database refuses one row, and names that row where the database gives its value', async () => {
      const res = await gql(`mutation { addManyCustomers(rows: [
          {name: "Dup 1", email: "dup-1@example.com"},
          {name: "Dup 2", email: "dup-2@example.com"},
          {name: "Ana Again", email: "ana@example.com"}]) { affected } }`);
      const error = res.body.errors?.[0];
      expect(error?.extensions?.code).toBe('UNIQUE_VIOLATION');
      expect(error?.extensions?.field).toBe(named(2, 'email'));
      if (dialect.type !== 'sqlite') expect(error?.message).toMatch(/^rows\[2\]: /);
      expect(error?.message).not.toContain('ana@example.com');
      expect(await emails('dup-')).toEqual([]);
    });

    it('the same in the variables form, the refused row in the middle', async () => {
      const res = await run.http('POST', `/api/graphql/${address}`, {
        body: {
          query:
            'mutation Add($rows: [CustomersAddInput!]!) { addManyCustomers(rows: $rows) { affected } }',
          variables: {
            rows: [
              { name: 'Var 1', email: 'vardup-1@example.com' },
              { name: 'Ana Again', email: 'ana@example.com' },
              { name: 'Var 3', email: 'vardup-3@example.com' },
            ],
          },
        },
        headers: { authorization: `Bearer ${token}` },
      });
      const error = (res as Answer).body.errors?.[0];
      expect(error?.extensions?.code).toBe('UNIQUE_VIOLATION');
      expect(error?.extensions?.field).toBe(named(1, 'email'));
      expect(await emails('vardup-')).toEqual([]);
    });

    it('a foreign key to no row names the row on PostgreSQL (MariaDB: the column; SQLite: none)', async () => {
      const res = await gql(`mutation { addManyOrders(rows: [
          {customer_id: 1, status: "FKROW", total: "1.00", placed_at: "${placedAt}"},
          {customer_id: 99999, status: "FKROW", total: "1.00", placed_at: "${placedAt}"}]) { affected } }`);
      const error = res.body.errors?.[0];
      expect(error?.extensions?.code).toBe('FOREIGN_KEY_VIOLATION');
      // MySQL/MariaDB's foreign-key error names the column, not the value; SQLite's names neither.
      const field = { postgres: 'rows[1].customer_id', mysql: 'customer_id', sqlite: null };
      expect(error?.extensions?.field).toBe(field[dialect.type]);
      const read = await gql('{ countOrders(where: {status: {eq: "FKROW"}}) }');
      expect(read.body.data!.countOrders).toBe(0);
    });

    // Issue 24: two requests locking the same rows in opposite orders deadlock; a BEFORE UPDATE
    // trigger sleeping after the row lock makes both hold their first row before either asks for
    // the second, so PostgreSQL (deadlock_timeout, 1 s) breaks one of them off.
    if (dialect.type === 'postgres') {
      it('a deadlock of two requests answers TRANSACTION_CONFLICT for one, writes nothing of it, and the other commits', async () => {
        const added = await gql(`mutation { addManyCustomers(rows: [
            {name: "Lock 1", email: "lock-1@example.com"},
            {name: "Lock 2", email: "lock-2@example.com"}]) { rows { id } } }`);
        expect(added.body.errors).toBeUndefined();
        const [one, two] = (added.body.data!.addManyCustomers as { rows: { id: string }[] }).rows;
        await db.exec(`
          CREATE FUNCTION tg24_hold() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$;
          CREATE TRIGGER tg24_hold BEFORE UPDATE ON customers FOR EACH ROW
            WHEN (NEW.name LIKE 'Locked by %') EXECUTE FUNCTION tg24_hold();`);
        try {
          const both = (by: string, first: string, second: string) =>
            gql(`mutation {
              a: updateCustomers(id: ${first}, name: "Locked by ${by}") { id }
              b: updateCustomers(id: ${second}, name: "Locked by ${by}") { id } }`);
          const answers = await Promise.all([both('A', one.id, two.id), both('B', two.id, one.id)]);
          const refused = answers.filter((r) => r.body.errors);
          expect(refused).toHaveLength(1);
          const codes = refused[0].body.errors!.map((e) => e.extensions?.code).sort();
          expect(codes).toEqual(['ROLLED_BACK', 'TRANSACTION_CONFLICT']);
          const conflict = refused[0].body.errors!.find(
            (e) => e.extensions?.code === 'TRANSACTION_CONFLICT',
          )!;
          expect(conflict.message).toBe(
            'The request conflicted with a concurrent write and was rolled back; send it again',
          );
          expect(conflict.extensions?.field).toBeNull();
          expect(refused[0].body.data).toEqual({ a: null, b: null });
          // The winner's name is on both rows: nothing of the refused request was written.
          const winner = answers.indexOf(answers.find((r) => !r.body.errors)!) === 0 ? 'A' : 'B';
          const read = await gql(
            `{ getCustomers(where: {email: {startsWith: "lock-"}}, order: [{email: ASC}]) { name } }`,
          );
          expect(read.body.data!.getCustomers).toEqual([
            { name: `Locked by ${winner}` },
            { name: `Locked by ${winner}` },
          ]);
        } finally {
          await db.exec('DROP TRIGGER tg24_hold ON customers; DROP FUNCTION tg24_hold();');
        }
      });
    }

    it('names the row a value check refuses, before any SQL', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      const res = await gql(`mutation { addManyCustomers(rows: [
          {name: "Long 1", email: "long-1@example.com"},
          {name: "${'x'.repeat(101)}", email: "long-2@example.com"}]) { affected } }`);
      const error = res.body.errors?.[0];
      expect(error?.extensions?.field).toBe('rows[1].name');
      expect(error?.message).toMatch(/^rows\[1\]: /);
      expect(pools.statementsExecuted).toBe(before);
      expect(await emails('long-')).toEqual([]);
    });

    it('every row written counts in the cost, whatever the answer selects (literal and variables)', async () => {
      // max(1, ⌈rows / 100⌉ + 10 × mutation fields): 150 rows written, none answered, cost 12.
      const key = await createAppKey(run, token, appId, `bulk-writer-${dialect.type}`);
      const rows = (prefix: string) =>
        Array.from({ length: 150 }, (_, i) => ({
          name: `C${i}`,
          email: `${prefix}-${i}@example.com`,
        }));
      const literalForm = await run.http('POST', `/api/graphql/${address}`, {
        body: {
          query: `mutation { addManyCustomers(rows: ${literal(rows('cost-a'))}) { affected } }`,
        },
        headers: { 'x-api-key': key },
      });
      const variablesForm = await run.http('POST', `/api/graphql/${address}`, {
        body: {
          query:
            'mutation Bulk($rows: [CustomersAddInput!]!) { addManyCustomers(rows: $rows) { affected } }',
          variables: { rows: rows('cost-b') },
        },
        headers: { 'x-api-key': key },
      });
      for (const res of [literalForm, variablesForm]) {
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data).toEqual({ addManyCustomers: { affected: 150 } });
        expect(res.body.extensions.cost).toMatchObject({ requested: 12, actual: 12 });
      }
      expect(await emails('cost-a-')).toHaveLength(150);
      expect(await emails('cost-b-')).toHaveLength(150);
    });

    it('refuses more rows than LIMIT_BULK_ROWS before any SQL', async () => {
      const rows = Array.from({ length: 1001 }, (_, i) => ({
        name: `N${i}`,
        email: `many-${i}@example.com`,
      }));
      const res = await gql(`mutation { addManyCustomers(rows: ${literal(rows)}) { affected } }`);
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toMatch(
        /writes 1,001 rows with their nested rows; the limit is 1,000/,
      );
      expect(await emails('many-')).toEqual([]);
    });

    it('adds an order with its lines: the parent first, the lines in one statement, the key filled', async () => {
      const res =
        await gql(`mutation { addOrders(customer_id: 2, status: "NESTED", total: "3.00", placed_at: "${placedAt}",
          order_lines: [{product: "N1", quantity: 1, unit_price: "1.00"}, {product: "N2", quantity: 2, unit_price: "1.00"}]) {
          status order_lines { product quantity } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.addOrders).toEqual({
        status: 'NESTED',
        order_lines: [
          { product: 'N1', quantity: 1 },
          { product: 'N2', quantity: 2 },
        ],
      });
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      const many = await gql(`mutation { addManyOrders(rows: [
          {customer_id: 3, status: "NESTED2", total: "1.00", placed_at: "${placedAt}", order_lines: [{product: "M1", quantity: 1, unit_price: "1.00"}]},
          {customer_id: 4, status: "NESTED2", total: "2.00", placed_at: "${placedAt}", order_lines: [{product: "M2", quantity: 2, unit_price: "1.00"}, {product: "M3", quantity: 3, unit_price: "1.00"}]}]) {
          affected } }`);
      expect(many.body.errors).toBeUndefined();
      expect(many.body.data!.addManyOrders).toEqual({ affected: 2 });
      // The orders in one INSERT, all their lines in another.
      expect(pools.statementsExecuted - before).toBe(2);
      const read = await gql(
        '{ getOrders(where: {status: {eq: "NESTED2"}}, order: [{customer_id: ASC}], take: 10) { customer_id order_lines(order: [{product: ASC}], take: 10) { product } } }',
      );
      expect(read.body.data!.getOrders).toEqual([
        { customer_id: '3', order_lines: [{ product: 'M1' }] },
        { customer_id: '4', order_lines: [{ product: 'M2' }, { product: 'M3' }] },
      ]);
    });

    // SQLite keeps any decimal (no precision to exceed): the check refuses on the others.
    if (dialect.type !== 'sqlite') {
      it('a refused nested row names its path and leaves the parent unwritten', async () => {
        const res = await gql(`mutation { addManyOrders(rows: [
          {customer_id: 3, status: "NESTED3", total: "1.00", placed_at: "${placedAt}",
           order_lines: [{product: "ok", quantity: 1, unit_price: "1.00"}, {product: "big", quantity: 1, unit_price: "123456789012.00"}]}]) {
          affected } }`);
        const error = res.body.errors?.[0];
        expect(error?.extensions?.field).toBe('rows[0].order_lines[1].unit_price');
        const read = await gql('{ countOrders(where: {status: {eq: "NESTED3"}}) }');
        expect(read.body.data!.countOrders).toBe(0);
      });
    }

    it('under a row rule, every row must be inside it, else nothing is written', async () => {
      const outside = await gql(
        `mutation { addManyCustomers(rows: [
          {name: "Rule 1", email: "rule-1@example.com", city: "Porto"},
          {name: "Rule 2", email: "rule-2@example.com", city: "Lisboa"}]) { affected } }`,
        userToken,
      );
      expect(outside.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(await emails('rule-')).toEqual([]);
      const inside = await gql(
        `mutation { addManyCustomers(rows: [
          {name: "Rule 3", email: "rule-3@example.com", city: "Porto"},
          {name: "Rule 4", email: "rule-4@example.com", city: "Porto"}]) { affected rows { email } } }`,
        userToken,
      );
      expect(inside.body.errors).toBeUndefined();
      expect(inside.body.data!.addManyCustomers).toEqual({
        affected: 2,
        rows: [{ email: 'rule-3@example.com' }, { email: 'rule-4@example.com' }],
      });
    });
  });
}
