import { RunningApp, startApp } from '../support/app-harness';
import { invalidValueCode } from '../support/graphql-form';
import { registerSalesDatabase, SALES_DIALECTS, SalesDatabase } from '../support/sales-dialects';

/**
 * Issue 22, the contract's smaller promises (CONTRACT.md §3, §6), on PostgreSQL, MariaDB and
 * SQLite: an anonymous write outside the public actions answers 401 `Invalid API key` (item 13);
 * a literal nested 1,000 deep is refused naming the nesting limit (item 14); `delete<Base>` types
 * a key column of another kind than ID as `update<Base>` does (item 17); a Table API over a table
 * without a key cannot switch update or delete on (item 22); a date alone in a date-time filter
 * is that day's start (item 23).
 */

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };
const SELECT_INSERT = { select: true, insert: true, update: false, delete: false };

/** A `(date, int)` composite key and a table without any key, besides the sales tables. */
async function setUpDatabase(dialect: (typeof SALES_DIALECTS)[number], dataDir: string) {
  const db: SalesDatabase = await dialect.create(dataDir);
  const date = dialect.type === 'sqlite' ? 'DATE' : 'date';
  await db.exec(
    `CREATE TABLE shifts (day ${date} NOT NULL, slot integer NOT NULL, note varchar(50), PRIMARY KEY (day, slot))`,
  );
  await db.exec(
    "INSERT INTO shifts (day, slot, note) VALUES ('2024-03-01', 1, 'a'), ('2024-03-01', 2, 'b'), ('2024-03-02', 1, 'c')",
  );
  await db.exec('CREATE TABLE events_log (happened_on date, note varchar(50))');
  if (dialect.type === 'postgres') {
    // Sessions in a zone far from UTC: a date alone in a DateTime must still be midnight UTC.
    await db.exec(
      "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET timezone TO %L', current_database(), 'Asia/Kolkata'); END $$",
    );
  }
  return {
    ...db,
    tables: [...db.tables, db.qualify('shifts'), db.qualify('events_log')],
  };
}

/** `{and: [` … `]}` `pairs` times around `{id: {eq: 1}}`: 2 × pairs + 2 levels, as text and value. */
function deepFilter(pairs: number): { text: string; value: unknown } {
  let value: unknown = { id: { eq: 1 } };
  for (let i = 0; i < pairs; i++) value = { and: [value] };
  return {
    text: `${'{and: ['.repeat(pairs)}{id: {eq: 1}}${']}'.repeat(pairs)}`,
    value,
  };
}

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`The contract's smaller promises on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let address: string;
    let db: Awaited<ReturnType<typeof setUpDatabase>>;

    const gql = (query: string, headers: Record<string, string> = {}) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query }, headers });
    const asBuilder = () => ({ authorization: `Bearer ${token}` });
    const data = async (query: string, headers: Record<string, string> = asBuilder()) => {
      const res = await gql(query, headers);
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data;
    };
    /** A builder's request sent as written, whatever form the suite runs in (never rewritten). */
    const raw = async (params: unknown) => {
      const res = await fetch(`${run.baseUrl}/api/graphql/${address}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asBuilder() },
        body: JSON.stringify(params),
      });
      const body = (await res.json()) as {
        errors: { message: string; extensions: { code: string } }[];
      };
      return { status: res.status, body };
    };
    const createApi = (body: Record<string, unknown>) =>
      run.http('POST', `/api/apps/${appId}/apis`, { token, body });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await setUpDatabase(dialect, run.dataDir);
      address = `promises-${dialect.type}`;
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Promises', address } }))
        .body.id;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const specs = [
        { name: 'customers', table: 'customers', actions: EVERY_ACTION, public: { select: true } },
        { name: 'orders', table: 'orders', actions: EVERY_ACTION },
        { name: 'shifts', table: 'shifts', actions: EVERY_ACTION },
      ];
      for (const body of specs) {
        const api = await createApi(body);
        expect(api.status).toBe(201);
        const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
          token,
        });
        expect(published.status).toBe(200);
      }
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    describe('item 13: an anonymous call of a non-public operation', () => {
      it('answers a write 401 Invalid API key, as a read, and changes nothing', async () => {
        // The anonymous schema has no Mutation type at all: only select is public here.
        for (const query of [
          'mutation { deleteOrders(id: 1) }',
          'mutation { updateCustomers(id: 1, name: "Mallory") { id } }',
          'mutation { deleteCustomers(id: 6) }',
          '{ countOrders }',
        ]) {
          const refused = await gql(query);
          expect([query, refused.status, refused.body]).toEqual([
            query,
            401,
            { errors: [{ message: 'Invalid API key', extensions: { code: 'UNAUTHENTICATED' } }] },
          ]);
        }
        const rows = await data('{ getCustomers(where: {id: {in: [1, 6]}}) { id name } }');
        expect(rows.getCustomers).toEqual([
          { id: '1', name: 'Ana Souza' },
          { id: '6', name: 'fábio rocha' },
        ]);
        expect((await data('{ countOrders(where: {id: {eq: 1}}) }')).countOrders).toBe(1);
        // What is public still answers.
        expect((await data('{ countCustomers }', {})).countCustomers).toBeGreaterThan(0);
      });
    });

    describe('item 14: a literal nested deeper than the limit', () => {
      it('refuses a filter written 1,000 levels deep naming the limit, as it refuses the variable', async () => {
        const deep = deepFilter(1000);
        const written = await raw({ query: `{ countOrders(where: ${deep.text}) }` });
        expect(written.status).toBe(400);
        expect(written.body.errors).toHaveLength(1);
        expect(written.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(written.body.errors[0].message).toBe(
          'A value in the query text nests objects and lists more than 256 levels deep; the limit is 256',
        );
        const sent = await raw({
          query: 'query($w: OrdersFilter) { countOrders(where: $w) }',
          variables: { w: deep.value },
        });
        expect(sent.status).toBe(400);
        expect(sent.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(sent.body.errors[0].message).toContain('the limit is 256');
      });

      it('refuses a value past the limit in either form, with the code of that form', async () => {
        // 129 `{and: [` pairs and the leaf's two objects: 260 levels with the argument list.
        const refused = await gql(`{ countOrders(where: ${deepFilter(129).text}) }`, asBuilder());
        expect(refused.status).toBe(400);
        expect(refused.body.errors[0].extensions.code).toBe(invalidValueCode());
        expect(refused.body.errors[0].message).toContain('the limit is 256');
        // 100 pairs (the and/or ceiling): 203 levels, within the limit in both forms.
        const taken = await data(`{ countOrders(where: ${deepFilter(100).text}) }`);
        expect(taken.countOrders).toBe(1);
      });
    });

    describe('item 17: delete types a key of another kind as update does', () => {
      const keyArguments = async (field: string) => {
        const type = await data(
          '{ __type(name: "Mutation") { fields { name args { name type { kind ofType { name } } } } } }',
        );
        const found = type.__type.fields.find((f: { name: string }) => f.name === field);
        return Object.fromEntries(
          found.args
            .filter((a: { name: string }) => a.name === 'day' || a.name === 'slot')
            .map((a: { name: string; type: { kind: string; ofType: { name: string } } }) => [
              a.name,
              `${a.type.ofType.name}${a.type.kind === 'NON_NULL' ? '!' : ''}`,
            ]),
        );
      };

      it('types a (date, int) key Date! and ID! on delete as on update', async () => {
        expect(await keyArguments('updateShifts')).toEqual({ day: 'Date!', slot: 'ID!' });
        expect(await keyArguments('deleteShifts')).toEqual({ day: 'Date!', slot: 'ID!' });
      });

      it('deletes by that key, and refuses a day that is not a date as update does', async () => {
        const notADate = await gql(
          'mutation { deleteShifts(day: "tomorrow", slot: 1) }',
          asBuilder(),
        );
        expect(notADate.status).toBe(400);
        expect(notADate.body.errors[0].extensions.code).toBe(invalidValueCode());
        expect(notADate.body.errors[0].message).toContain('Date cannot represent');
        const deleted = await data('mutation { deleteShifts(day: "2024-03-01", slot: 2) }');
        expect(deleted.deleteShifts).toBe(true);
        const again = await data('mutation { deleteShifts(day: "2024-03-01", slot: 2) }');
        expect(again.deleteShifts).toBe(false);
        const left = await data('{ getShifts { day slot note } }');
        expect(left.getShifts).toEqual([
          { day: '2024-03-01', slot: '1', note: 'a' },
          { day: '2024-03-02', slot: '1', note: 'c' },
        ]);
      });
    });

    describe('item 22: a Table API over a table without a primary key', () => {
      it('refuses update and delete at save, saying why, and takes them once a key is chosen', async () => {
        const refused = await createApi({
          name: 'eventsLog',
          table: 'events_log',
          actions: EVERY_ACTION,
        });
        expect(refused.status).toBe(400);
        expect(refused.body.code).toBe('INVALID_INPUT');
        expect(refused.body.message).toBe(
          'Table "events_log" has no primary key: update and delete are not possible',
        );
        expect(refused.body.details).toEqual([
          'actions: "events_log" has no primary key, so update and delete cannot address a row; switch off update, delete, or first name its key columns (PATCH /api/apps/:appId/model/tables/events_log {"primaryKey": [...]})',
        ]);
        const created = await createApi({
          name: 'eventsLog',
          table: 'events_log',
          actions: SELECT_INSERT,
        });
        expect(created.status).toBe(201);
        const patch = (actions: unknown) =>
          run.http('PATCH', `/api/apps/${appId}/apis/${created.body.id}`, {
            token,
            body: { actions },
          });
        const deleteOn = await patch({ ...SELECT_INSERT, delete: true });
        expect(deleteOn.status).toBe(400);
        expect(deleteOn.body.details[0]).toContain('so delete cannot address a row');
        const key = await run.http('PATCH', `/api/apps/${appId}/model/tables/events_log`, {
          token,
          body: { primaryKey: ['happened_on'] },
        });
        expect(key.status).toBe(200);
        expect((await patch(EVERY_ACTION)).status).toBe(200);
        const fields = await data('{ __type(name: "Mutation") { fields { name } } }');
        const names = fields.__type.fields.map((f: { name: string }) => f.name);
        expect(names).toEqual(expect.arrayContaining(['updateEventsLog', 'deleteEventsLog']));
      });
    });

    describe('item 23: a date alone in a date-time filter is that day’s start', () => {
      it('filters a timestamp without time zone (LocalDateTime) from midnight of that day', async () => {
        const ids = async (where: string) =>
          (await data(`{ getCustomers(where: ${where}) { id } }`)).getCustomers.map(
            (r: { id: string }) => Number(r.id),
          );
        // Customer 5 was created at 2024-01-09 00:00:00 exactly, customer 6 the day after.
        expect(await ids('{created_at: {eq: "2024-01-09"}}')).toEqual([5]);
        expect(await ids('{created_at: {gte: "2024-01-09"}}')).toEqual([5, 6]);
        expect(await ids('{created_at: {lt: "2024-01-06"}}')).toEqual([1]);
        expect(await ids('{created_at: {in: ["2024-01-09", "2024-01-10"]}}')).toEqual([5]);
      });

      it('filters an instant (DateTime; LocalDateTime on SQLite) from midnight, UTC for instants', async () => {
        const count = async (where: string) =>
          (await data(`{ countOrders(where: ${where}) }`)).countOrders;
        // Orders 5, 6 and 7 were placed at noon on March 5, 6 and 7.
        expect(await count('{placed_at: {gte: "2024-03-05", lt: "2024-03-08"}}')).toBe(3);
        expect(await count('{placed_at: {gt: "2024-03-12"}}')).toBe(1);
        const moved = await data(
          'mutation { updateOrders(id: 12, placed_at: "2024-03-20") { placed_at } }',
        );
        expect(moved.updateOrders.placed_at).toBe(
          dialect.type === 'sqlite' ? '2024-03-20T00:00:00' : '2024-03-20T00:00:00.000Z',
        );
        const found = await data('{ getOrders(where: {placed_at: {eq: "2024-03-20"}}) { id } }');
        expect(found.getOrders).toEqual([{ id: '12' }]);
      });

      it('still refuses text that is neither a date nor a date and time', async () => {
        const refused = await gql(
          '{ countOrders(where: {placed_at: {gte: "2024-03"}}) }',
          asBuilder(),
        );
        expect(refused.status).toBe(400);
        expect(refused.body.errors[0].extensions.code).toBe(invalidValueCode());
      });
    });
  });
}
