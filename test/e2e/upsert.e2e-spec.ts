import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { publishTableApis } from '../support/table-apis';

/**
 * Issue 24 item 2 (README "Writing rows", "Add or update rows by a key"): `upsert<Base>` and
 * `upsertMany<Base>` insert a row or update the one holding its key (`on`: the primary key or a
 * unique key, named by its columns), `update` choosing the columns (`[]`: leave the row), `when`
 * filtering the existing row; each row answers INSERTED, UPDATED or UNCHANGED with the row.
 * Duplicate keys are refused before SQL; under a row rule a key held by a hidden row is a unique
 * violation and every written row must be inside the rule. Two requests racing for the same new
 * key: one inserts, the other updates, never a duplicate or a 500. On MySQL/MariaDB a table with
 * two unique key sets (customers: id and email) offers no upsert. On PostgreSQL, MariaDB and
 * SQLite, in both forms.
 */

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: { code?: string; field?: string } }[];
  };
}

/** `members`: a table whose only key is its email (one unique key set, so MySQL offers upsert too). */
const MEMBERS_SQL = `CREATE TABLE members (email varchar(200) PRIMARY KEY, name varchar(100) NOT NULL,
  city varchar(100), points integer NOT NULL DEFAULT 0)`;
const MEMBERS = [
  ['m-ana@example.com', 'Ana', 'Porto', 10],
  ['m-bia@example.com', 'Bia', 'Lisboa', 5],
  ['m-vip@example.com', 'Vip', 'Porto', 100],
];

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`upsert on ${dialect.type} (issue 24 item 2)`, () => {
    let run: RunningApp;
    let token: string;
    let userToken: string;
    let db: SalesDatabase;
    let appId: string;
    const address = `upsert-${dialect.type}`;
    const placedAt = dialect.type === 'sqlite' ? '2024-01-01T00:00:00' : '2024-01-01T00:00:00Z';

    const gql = (query: string, bearer = token): Promise<Answer> =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${bearer}` },
      });
    /** The members whose email starts with `prefix` (email is the key: an ID, filtered here). */
    const members = async (prefix: string) => {
      const res = await gql('{ getMembers(order: [{email: ASC}]) { email name city points } }');
      expect(res.body.errors).toBeUndefined();
      return (res.body.data!.getMembers as Record<string, unknown>[]).filter((m) =>
        String(m.email).startsWith(prefix),
      );
    };

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      await db.exec(MEMBERS_SQL);
      for (const [email, name, city, points] of MEMBERS) {
        await db.exec(
          `INSERT INTO members (email, name, city, points) VALUES ('${email}', '${name}', '${city}', ${points})`,
        );
      }
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Upserts', address } }))
        .body.id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, {
        url: db.url,
        tables: [...db.tables, db.qualify('members')],
      });
      if (dialect.type === 'postgres') {
        await db.exec("SELECT setval('customers_id_seq', 100), setval('orders_id_seq', 100)");
      }
      const rule = await run.http('PUT', `/api/apps/${appId}/permissions/porto`, {
        token,
        body: { tables: { members: { where: { city: { eq: 'Porto' } } } } },
      });
      expect(rule.status).toBe(200);
      await publishTableApis(run, token, appId, [
        { name: 'members', table: 'members', actions: EVERY_ACTION },
        { name: 'customers', table: 'customers', actions: EVERY_ACTION },
        {
          name: 'orders',
          table: 'orders',
          actions: EVERY_ACTION,
          fields: { id: true, customer_id: true, status: true, total: true, placed_at: true },
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

    it('offers `on` as the keys named by their columns; MySQL only for one unique key set', async () => {
      const res = await gql(`{
        members: __type(name: "MembersUpsertKey") { enumValues { name } }
        customers: __type(name: "CustomersUpsertKey") { enumValues { name } }
        orders: __type(name: "OrdersUpsertKey") { enumValues { name } }
        mutation: __type(name: "Mutation") { fields { name } } }`);
      expect(res.body.errors).toBeUndefined();
      const data = res.body.data as Record<string, { enumValues: { name: string }[] } | null>;
      expect(data.members!.enumValues.map((v) => v.name)).toEqual(['email']);
      expect(data.orders!.enumValues.map((v) => v.name)).toEqual(['id']);
      const fields = (res.body.data!.mutation as { fields: { name: string }[] }).fields.map(
        (f) => f.name,
      );
      expect(fields).toEqual(expect.arrayContaining(['upsertMembers', 'upsertManyMembers']));
      if (dialect.type === 'mysql') {
        // ON DUPLICATE KEY would match id or email whatever `on` says: not offered.
        expect(data.customers).toBeNull();
        expect(fields).not.toContain('upsertCustomers');
      } else {
        expect(data.customers!.enumValues.map((v) => v.name)).toEqual(['id', 'email']);
      }
    });

    it('saving an API with insert and update says why upsert is left out (MySQL/MariaDB, several unique keys)', async () => {
      const save = (body: Record<string, unknown>) =>
        run.http('POST', `/api/apps/${appId}/apis`, { token, body });
      const both = { select: true, insert: true, update: true, delete: false };
      const created = await save({ name: 'customerSync', table: 'customers', actions: both });
      const members = await save({ name: 'memberSync', table: 'members', actions: both });
      const ids = [created.body.id as string, members.body.id as string];
      try {
        expect(created.status).toBe(201);
        if (dialect.type === 'mysql') {
          expect(created.body.notices).toEqual([
            expect.stringContaining(
              'upsertCustomerSync and upsertManyCustomerSync are not offered: "customers" has 2 unique keys (id), (email)',
            ),
          ]);
          expect(created.body.notices[0]).toContain('ON DUPLICATE KEY UPDATE');
          // The save itself is kept, and the notice is no part of the stored API.
          const read = await run.http('GET', `/api/apps/${appId}/apis/${ids[0]}`, { token });
          expect(read.body.actions).toEqual(both);
          expect(read.body.notices).toBeUndefined();
          // A change that keeps insert and update says it again.
          const renamed = await run.http('PATCH', `/api/apps/${appId}/apis/${ids[0]}`, {
            token,
            body: { name: 'customerSync2' },
          });
          expect(renamed.body.notices).toEqual([
            expect.stringContaining('upsertCustomerSync2 and upsertManyCustomerSync2'),
          ]);
        } else {
          expect(created.body.notices).toBeUndefined();
        }
        // Without update no upsert is offered anywhere, so nothing is said.
        const onlyInsert = await run.http('PATCH', `/api/apps/${appId}/apis/${ids[0]}`, {
          token,
          body: { actions: { ...both, update: false } },
        });
        expect(onlyInsert.status).toBe(200);
        expect(onlyInsert.body.notices).toBeUndefined();
        // One unique key set (email): upsert offered on every database, nothing to say.
        expect(members.status).toBe(201);
        expect(members.body.notices).toBeUndefined();
      } finally {
        for (const id of ids) await run.http('DELETE', `/api/apps/${appId}/apis/${id}`, { token });
      }
    });

    it('inserts the new rows and updates the existing ones, each with its status and row', async () => {
      const res = await gql(`mutation { upsertManyMembers(on: email, rows: [
          {email: "m-ana@example.com", name: "Ana Maria", city: "Porto"},
          {email: "m-new-1@example.com", name: "Nova", city: "Faro"}]) {
          inserted updated unchanged rows { status row { email name city points } } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.upsertManyMembers).toEqual({
        inserted: 1,
        updated: 1,
        unchanged: 0,
        rows: [
          {
            status: 'UPDATED',
            row: { email: 'm-ana@example.com', name: 'Ana Maria', city: 'Porto', points: 10 },
          },
          {
            status: 'INSERTED',
            row: { email: 'm-new-1@example.com', name: 'Nova', city: 'Faro', points: 0 },
          },
        ],
      });
    });

    it('update names the columns to change; update: [] leaves the existing row as it is', async () => {
      const some = await gql(`mutation { upsertMembers(on: email, update: [points],
          row: {email: "m-ana@example.com", name: "Not this", points: 11}) { status row { name points } } }`);
      expect(some.body.errors).toBeUndefined();
      expect(some.body.data!.upsertMembers).toEqual({
        status: 'UPDATED',
        row: { name: 'Ana Maria', points: 11 },
      });
      const none = await gql(`mutation { upsertManyMembers(on: email, update: [], rows: [
          {email: "m-ana@example.com", name: "Ignored", points: 99},
          {email: "m-new-2@example.com", name: "Nova 2"}]) { inserted unchanged rows { status row { email name points } } } }`);
      expect(none.body.errors).toBeUndefined();
      expect(none.body.data!.upsertManyMembers).toEqual({
        inserted: 1,
        unchanged: 1,
        rows: [
          {
            status: 'UNCHANGED',
            row: { email: 'm-ana@example.com', name: 'Ana Maria', points: 11 },
          },
          { status: 'INSERTED', row: { email: 'm-new-2@example.com', name: 'Nova 2', points: 0 } },
        ],
      });
    });

    it('when filters the existing row: a row failing it is UNCHANGED', async () => {
      const res =
        await gql(`mutation { upsertManyMembers(on: email, when: {points: {lt: 50}}, rows: [
          {email: "m-ana@example.com", name: "Ana", points: 12},
          {email: "m-vip@example.com", name: "Vip changed", points: 1}]) {
          updated unchanged rows { status row { name points } } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.upsertManyMembers).toEqual({
        updated: 1,
        unchanged: 1,
        rows: [
          { status: 'UPDATED', row: { name: 'Ana', points: 12 } },
          { status: 'UNCHANGED', row: { name: 'Vip', points: 100 } },
        ],
      });
    });

    it('upserts by id (the primary key), keeping the other columns of the table', async () => {
      const existing = await gql(`mutation { upsertOrders(on: id,
          row: {id: 1, customer_id: 1, status: "UPSERTED", total: "1.50", placed_at: "${placedAt}"}) {
          status row { id status total } } }`);
      expect(existing.body.errors).toBeUndefined();
      expect(existing.body.data!.upsertOrders).toEqual({
        status: 'UPDATED',
        row: { id: '1', status: 'UPSERTED', total: dialect.type === 'sqlite' ? '1.5' : '1.50' },
      });
      const fresh = await gql(`mutation { upsertOrders(on: id,
          row: {id: 900, customer_id: 2, status: "UPSERTED", total: "2.00", placed_at: "${placedAt}"}) {
          status row { id customer_id } } }`);
      expect(fresh.body.errors).toBeUndefined();
      expect(fresh.body.data!.upsertOrders).toEqual({
        status: 'INSERTED',
        row: { id: '900', customer_id: '2' },
      });
      const missing = await gql(`mutation { upsertOrders(on: id,
          row: {customer_id: 2, status: "UPSERTED", total: "2.00", placed_at: "${placedAt}"}) { status } }`);
      expect(missing.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(missing.body.errors?.[0]?.message).toMatch(/^row\.id: on: id matches rows by id/);
    });

    if (dialect.type !== 'mysql') {
      it('upserts by a unique key that is not the primary key (customers by email)', async () => {
        const res = await gql(`mutation { upsertManyCustomers(on: email, rows: [
            {name: "Ana Souza 2", email: "ana@example.com"},
            {name: "New Customer", email: "new-customer@example.com", city: "Braga"}]) {
            rows { status row { id name email } } } }`);
        expect(res.body.errors).toBeUndefined();
        const rows = (res.body.data!.upsertManyCustomers as { rows: unknown[] }).rows;
        expect(rows[0]).toEqual({
          status: 'UPDATED',
          row: { id: '1', name: 'Ana Souza 2', email: 'ana@example.com' },
        });
        expect(rows[1]).toMatchObject({ status: 'INSERTED', row: { name: 'New Customer' } });
      });
    }

    it('refuses a key sent twice before any SQL, naming both rows', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      const res = await gql(`mutation { upsertManyMembers(on: email, rows: [
          {email: "m-dup@example.com", name: "One"},
          {email: "m-other@example.com", name: "Other"},
          {email: "m-dup@example.com", name: "Two"}]) { inserted } }`);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.message).toMatch(/^rows\[0\] and rows\[2\] have the same email/);
      expect(pools.statementsExecuted).toBe(before);
      expect(await members('m-dup')).toEqual([]);
    });

    it('refuses more rows than LIMIT_BULK_ROWS before any SQL', async () => {
      const rows = Array.from(
        { length: 1001 },
        (_, i) => `{email: "m-many-${i}@example.com", name: "N${i}"}`,
      );
      const res = await gql(
        `mutation { upsertManyMembers(on: email, rows: [${rows.join(', ')}]) { inserted } }`,
      );
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.message).toMatch(/writes 1,001 rows .*; the limit is 1,000/);
      expect(await members('m-many-')).toEqual([]);
    });

    it('under a row rule: a key held by a hidden row is a unique violation, and written rows stay inside', async () => {
      const hidden = await gql(
        `mutation { upsertMembers(on: email, row: {email: "m-bia@example.com", name: "Taken over", city: "Porto"}) { status } }`,
        userToken,
      );
      expect(hidden.body.errors?.[0]?.extensions).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: null,
      });
      expect(hidden.body.errors?.[0]?.message).toBe(
        'Nothing was written: a value that must be unique is already taken',
      );
      const moved = await gql(
        `mutation { upsertManyMembers(on: email, rows: [
          {email: "m-rule-1@example.com", name: "Rule 1", city: "Porto"},
          {email: "m-ana@example.com", name: "Ana", city: "Lisboa"}]) { inserted } }`,
        userToken,
      );
      expect(moved.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(await members('m-rule-')).toEqual([]);
      expect(await members('m-bia')).toEqual([
        { email: 'm-bia@example.com', name: 'Bia', city: 'Lisboa', points: 5 },
      ]);
      const inside = await gql(
        `mutation { upsertManyMembers(on: email, rows: [
          {email: "m-rule-2@example.com", name: "Rule 2", city: "Porto"},
          {email: "m-ana@example.com", name: "Ana P.", city: "Porto"}]) { rows { status row { email } } } }`,
        userToken,
      );
      expect(inside.body.errors).toBeUndefined();
      expect(inside.body.data!.upsertManyMembers).toEqual({
        rows: [
          { status: 'INSERTED', row: { email: 'm-rule-2@example.com' } },
          { status: 'UPDATED', row: { email: 'm-ana@example.com' } },
        ],
      });
    });

    /** Polls `check` until it holds (a lock wait the database reports), at most 400 times. */
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 400; i++) {
        if (await check()) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the request never waited for the lock');
    };

    if (dialect.type !== 'sqlite') {
      // SQLite's writers take turns whole (BEGIN IMMEDIATE): no insert can come between.
      it('an insert of the same key held open elsewhere: the upsert waits, then updates that row', async () => {
        const email = 'm-held@example.com';
        const insert = `INSERT INTO members (email, name, city) VALUES ('${email}', 'Outside', 'Porto')`;
        let commit: () => Promise<unknown>;
        let waiting: () => Promise<boolean>;
        let close: () => Promise<unknown>;
        if (dialect.type === 'postgres') {
          const holder = new Client({ connectionString: db.url });
          const watcher = new Client({ connectionString: db.url });
          await holder.connect();
          await watcher.connect();
          await holder.query('BEGIN');
          await holder.query(insert);
          commit = () => holder.query('COMMIT');
          waiting = async () =>
            Number(
              (
                await watcher.query(
                  "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                )
              ).rows[0].n,
            ) > 0;
          close = () => Promise.all([holder.end(), watcher.end()]);
        } else {
          const holder = await mysql.createConnection(db.url);
          const watcher = await mysql.createConnection(db.url);
          await holder.query('START TRANSACTION');
          await holder.query(insert);
          commit = () => holder.query('COMMIT');
          // MariaDB reads a key lookup while planning it ("Statistics"), where INNODB_TRX does not
          // show the wait: the request's locked read still running is the wait.
          waiting = async () => {
            const [rows] = await watcher.query(
              "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%members%FOR UPDATE'",
            );
            return Number((rows as { n: number }[])[0].n) > 0;
          };
          close = () => Promise.all([holder.end(), watcher.end()]);
        }
        try {
          const pending = gql(
            `mutation { upsertMembers(on: email, row: {email: "${email}", name: "Request", city: "Porto"}) { status row { name } } }`,
          );
          await until(waiting);
          await commit();
          const answer = await pending;
          expect(answer.body.errors).toBeUndefined();
          expect(answer.body.data!.upsertMembers).toEqual({
            status: 'UPDATED',
            row: { name: 'Request' },
          });
          expect(await members(email)).toEqual([
            { email, name: 'Request', city: 'Porto', points: 0 },
          ]);
        } finally {
          await close();
        }
      });
    }

    if (dialect.type === 'mysql') {
      it('MySQL: a row inserted between the locked read and the INSERT: the INSERT is retried as an update', async () => {
        const email = 'm-gap@example.com';
        const holder = await mysql.createConnection(db.url);
        const watcher = await mysql.createConnection(db.url);
        try {
          // A gap lock (REPEATABLE READ) on the absent key: the request's READ COMMITTED read
          // passes it and finds no row, its INSERT waits for it.
          await holder.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
          await holder.query('START TRANSACTION');
          await holder.query(`SELECT email FROM members WHERE email = '${email}' FOR UPDATE`);
          const pending = gql(
            `mutation { upsertMembers(on: email, row: {email: "${email}", name: "Request", city: "Porto"}) { status row { name } } }`,
          );
          await until(async () => {
            const [rows] = await watcher.query(
              "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO%members%'",
            );
            return Number((rows as { n: number }[])[0].n) > 0;
          });
          await holder.query(
            `INSERT INTO members (email, name, city) VALUES ('${email}', 'Outside', 'Porto')`,
          );
          await holder.query('COMMIT');
          const answer = await pending;
          expect(answer.body.errors).toBeUndefined();
          expect(answer.body.data!.upsertMembers).toEqual({
            status: 'UPDATED',
            row: { name: 'Request' },
          });
          expect(await members(email)).toEqual([
            { email, name: 'Request', city: 'Porto', points: 0 },
          ]);
        } finally {
          await holder.end();
          await watcher.end();
        }
      });
    }

    it('two requests racing for the same new key: one inserts, the other updates, no duplicate', async () => {
      for (let round = 0; round < 5; round++) {
        const email = `m-race-${round}@example.com`;
        const send = (name: string) =>
          gql(
            `mutation { upsertMembers(on: email, row: {email: "${email}", name: "${name}", city: "Porto"}) { status row { name } } }`,
          );
        const answers = await Promise.all([send('First'), send('Second')]);
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          expect(answer.body.errors).toBeUndefined();
        }
        const statuses = answers.map(
          (a) => (a.body.data!.upsertMembers as { status: string }).status,
        );
        expect(statuses.sort()).toEqual(['INSERTED', 'UPDATED']);
        const stored = await members(email);
        expect(stored).toHaveLength(1);
        // The update ran last: the row holds its name.
        const updated = answers.find(
          (a) => (a.body.data!.upsertMembers as { status: string }).status === 'UPDATED',
        )!;
        expect(stored[0].name).toBe(
          (updated.body.data!.upsertMembers as { row: { name: string } }).row.name,
        );
      }
      // upsertMany with variables, as clients send it: two racing requests over the same two new
      // keys, sent in opposite orders. Each row's insert is slowed (a trigger), so the two
      // statements overlap: were each to lock its rows in the order sent, each would wait for the
      // other's first row (a deadlock); the rows go in key order, so the second waits, then updates.
      if (dialect.type === 'postgres') {
        await db.exec(`CREATE FUNCTION slow_member() RETURNS trigger LANGUAGE plpgsql AS
          'BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END';
          CREATE TRIGGER slow_members BEFORE INSERT ON members FOR EACH ROW EXECUTE FUNCTION slow_member();`);
      } else if (dialect.type === 'mysql') {
        await db.exec(
          'CREATE TRIGGER slow_members BEFORE INSERT ON members FOR EACH ROW SET NEW.points = NEW.points + SLEEP(0.4)',
        );
      }
      try {
        for (let round = 0; round < 2; round++) {
          const keys = [`m-racev-${round}-a@example.com`, `m-racev-${round}-b@example.com`];
          const send = (order: string[]) =>
            run.http('POST', `/api/graphql/${address}`, {
              body: {
                query: `mutation Sync($rows: [MembersAddInput!]!) {
                  upsertManyMembers(on: email, rows: $rows) { inserted updated rows { status } } }`,
                variables: {
                  rows: order.map((email) => ({ email, name: 'Racer', city: 'Porto' })),
                },
              },
              headers: { authorization: `Bearer ${token}` },
            }) as Promise<Answer>;
          const answers = await Promise.all([send(keys), send([...keys].reverse())]);
          const counts = answers.map((a) => {
            expect(a.body.errors).toBeUndefined();
            expect(a.status).toBe(200);
            return a.body.data!.upsertManyMembers as { inserted: number; updated: number };
          });
          // Each key inserted by one request and updated by the other: never a duplicate.
          expect(counts.reduce((n, c) => n + c.inserted, 0)).toBe(2);
          expect(counts.reduce((n, c) => n + c.updated, 0)).toBe(2);
          for (const email of keys) expect(await members(email)).toHaveLength(1);
        }
      } finally {
        if (dialect.type === 'postgres') {
          await db.exec('DROP TRIGGER slow_members ON members; DROP FUNCTION slow_member()');
        } else if (dialect.type === 'mysql') {
          await db.exec('DROP TRIGGER slow_members');
        }
      }
    });
  });
}
