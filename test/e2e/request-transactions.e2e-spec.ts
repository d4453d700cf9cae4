import { createConnection } from 'mysql2/promise';
import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { publishTableApis } from '../support/table-apis';

/**
 * Issue 24 item 5 (README "Writing rows", "A request is one transaction"): every mutation field
 * of one request runs in order in one transaction on its datasource. When one fails, the earlier
 * ones are rolled back, the later ones are not run, and every mutation field answers null: the
 * failing one with its error, the others with ROLLED_BACK. A connection killed in the middle of
 * a request leaves nothing of it written. On PostgreSQL, MariaDB and SQLite, in both forms.
 */

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: { code?: string } }[];
  };
}

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`A request is one transaction on ${dialect.type} (issue 24 item 5)`, () => {
    let run: RunningApp;
    let token: string;
    let db: SalesDatabase;
    const address = `transactions-${dialect.type}`;
    // orders.placed_at: a DateTime with zone, or SQLite's LocalDateTime.
    const placedAt = dialect.type === 'sqlite' ? '2024-01-01T00:00:00' : '2024-01-01T00:00:00Z';

    const gql = (query: string): Promise<Answer> =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${token}` },
      });
    const emails = async (...wanted: string[]) => {
      const list = wanted.map((e) => JSON.stringify(e)).join(', ');
      const res = await gql(`{ getCustomers(where: {email: {in: [${list}]}}) { email city } }`);
      expect(res.body.errors).toBeUndefined();
      return (res.body.data!.getCustomers as { email: string }[]).map((c) => c.email).sort();
    };
    const codes = (res: Answer) =>
      Object.fromEntries((res.body.errors ?? []).map((e) => [e.path?.[0], e.extensions?.code]));

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      const appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Tx', address } }))
        .body.id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      if (dialect.type === 'postgres') {
        // The fixture's rows carry their ids: new rows take theirs from past them.
        await db.exec(
          "SELECT setval('customers_id_seq', 100), setval('orders_id_seq', 100), setval('order_lines_id_seq', 1000)",
        );
      }
      await publishTableApis(run, token, appId, [
        { name: 'customers', table: 'customers', actions: EVERY_ACTION },
        { name: 'orders', table: 'orders', actions: EVERY_ACTION },
      ]);
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    it('writes every mutation field of a request together', async () => {
      const res = await gql(`mutation {
        a: addCustomers(name: "Tess One", email: "t1@example.com") { email }
        b: addCustomers(name: "Tess Two", email: "t2@example.com") { email }
        c: updateCustomers(id: 2, city: "Braga") { city } }`);
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toEqual({
        a: { email: 't1@example.com' },
        b: { email: 't2@example.com' },
        c: { city: 'Braga' },
      });
      expect(await emails('t1@example.com', 't2@example.com')).toEqual([
        't1@example.com',
        't2@example.com',
      ]);
    });

    it('a failing field rolls back the earlier ones and the later ones are not run', async () => {
      const res = await gql(`mutation {
        a: addCustomers(name: "Rolled One", email: "r1@example.com") { id email }
        b: addCustomers(name: "Ana Again", email: "ana@example.com") { id }
        c: addCustomers(name: "Rolled Three", email: "r3@example.com") { id } }`);
      expect(res.status).toBe(200);
      // No rolled-back row is shown.
      expect(res.body.data).toEqual({ a: null, b: null, c: null });
      expect(codes(res)).toEqual({ a: 'ROLLED_BACK', b: 'UNIQUE_VIOLATION', c: 'ROLLED_BACK' });
      const rolled = res.body.errors!.find((e) => e.path?.[0] === 'a')!;
      expect(rolled.message).toMatch(/^Not written: b failed/);
      const skipped = res.body.errors!.find((e) => e.path?.[0] === 'c')!;
      expect(skipped.message).toMatch(/^Not run: b failed/);
      expect(await emails('r1@example.com', 'r3@example.com')).toEqual([]);
    });

    it('an update is rolled back when a later delete is refused', async () => {
      // Customer 1 has orders: deleting it breaks their foreign key.
      const res = await gql(`mutation {
        u: updateCustomers(id: 1, city: "Nowhere") { city }
        d: deleteCustomers(id: 1) }`);
      // delete<Base> is Boolean!: its null propagates to the whole data (GraphQL spec).
      expect(res.body.data).toBeNull();
      expect(codes(res)).toEqual({ u: 'ROLLED_BACK', d: 'FOREIGN_KEY_VIOLATION' });
      const after = await gql('{ getCustomers(where: {id: {eq: 1}}) { city } }');
      expect(after.body.data!.getCustomers).toEqual([{ city: 'Lisboa' }]);
    });

    it('a foreign key refused in the second field rolls back the first', async () => {
      const res = await gql(`mutation {
        a: addCustomers(name: "Early", email: "early@example.com") { id }
        b: addOrders(customer_id: 99999, status: "NEW", total: "1.00", placed_at: "${placedAt}") { id } }`);
      expect(res.body.data).toEqual({ a: null, b: null });
      expect(codes(res)).toEqual({ a: 'ROLLED_BACK', b: 'FOREIGN_KEY_VIOLATION' });
      expect(await emails('early@example.com')).toEqual([]);
    });

    if (dialect.type !== 'sqlite') {
      it('a connection killed in the middle of a request leaves nothing of it written', async () => {
        // Each order insert now takes two seconds: time to kill the request's connection.
        if (dialect.type === 'postgres') {
          await db.exec(`CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS
            'BEGIN PERFORM pg_sleep(2); RETURN NEW; END';
            CREATE TRIGGER slow_orders BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION slow();`);
        } else {
          await db.exec(
            'CREATE TRIGGER slow_orders BEFORE INSERT ON orders FOR EACH ROW SET NEW.big = COALESCE(NEW.big, 0) + SLEEP(2)',
          );
        }
        const pending = gql(`mutation {
          a: addCustomers(name: "Killed", email: "killed@example.com") { id }
          b: addOrders(customer_id: 1, status: "NEW", total: "1.00", placed_at: "2024-01-01T00:00:00Z") { id } }`);
        await new Promise((resolve) => setTimeout(resolve, 700));
        await killOtherConnections(dialect.type, db);
        const res = await pending;
        expect(res.body.data).toEqual({ a: null, b: null });
        expect(codes(res).a).toBe('ROLLED_BACK');
        // The lost connection is the datasource's failure, told as such (CONTRACT.md §6).
        expect(codes(res).b).toBe('DATASOURCE_UNAVAILABLE');
        expect(await emails('killed@example.com')).toEqual([]);

        // The same with variables, as clients send them.
        const withVariables = run.http('POST', `/api/graphql/${address}`, {
          body: {
            query: `mutation Kill($name: String!, $email: String!) {
              a: addCustomers(name: $name, email: $email) { id }
              b: addOrders(customer_id: 1, status: "NEW", total: "1.00", placed_at: "2024-01-01T00:00:00Z") { id } }`,
            variables: { name: 'Killed Too', email: 'killed-too@example.com' },
          },
          headers: { authorization: `Bearer ${token}` },
        }) as Promise<Answer>;
        await new Promise((resolve) => setTimeout(resolve, 700));
        await killOtherConnections(dialect.type, db);
        const again = await withVariables;
        expect(again.body.data).toEqual({ a: null, b: null });
        expect(codes(again)).toEqual({ a: 'ROLLED_BACK', b: 'DATASOURCE_UNAVAILABLE' });
        expect(await emails('killed-too@example.com')).toEqual([]);
      });
    }
  });
}

/** Ends every other session on the sales database, as a server restart or a network cut would. */
async function killOtherConnections(
  type: 'postgres' | 'mysql' | 'sqlite',
  db: SalesDatabase,
): Promise<void> {
  if (type === 'postgres') {
    await db.exec(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return;
  }
  const admin = await createConnection(db.url);
  try {
    const [rows] = (await admin.query(
      'SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()',
    )) as unknown as [{ id: number }[]];
    for (const { id } of rows) await admin.query(`KILL CONNECTION ${Number(id)}`);
  } finally {
    await admin.end();
  }
}
