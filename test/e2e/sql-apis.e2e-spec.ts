import { RunningApp, startApp } from '../support/app-harness';
import { CUSTOMERS, ORDER_LINES, ORDERS } from '../support/sales-fixture';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { publishTableApis, SELECT_ONLY } from '../support/table-apis';

/**
 * Issue 26 (README "SQL APIs"): an SQL statement with `:name` placeholders saved through the
 * builder REST API, described by the database, confirmed by the builder, published, and called
 * over HTTP with a key — on PostgreSQL, MariaDB and SQLite, with arguments as written and as
 * variables (the e2e-variables project). A report over a join with an aggregate and a window
 * function; enum arguments in and enum columns out; every date kind, a zoned instant from a
 * timestamp column and from an expression; refusals at save (a stacked statement, a query kind
 * that writes) with their position; a write inside a query kind refused with nothing written; a
 * NULL in a column confirmed non-null; drafts invisible to keys; a key scoped to one SQL API; a
 * mutation kind rolled back with its request.
 *
 * Data (sales-fixture.ts): order i = 1..12 of customer ((i - 1) % 5) + 1, status PAID when
 * i % 3 = 0, PENDING when 1, SHIPPED when 2, total i * 10 + 0.50.
 */

interface Answer {
  status: number;
  body: {
    data?: Record<string, any> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
    message?: string;
    details?: string[];
  };
}

/** The expression of a date and time without zone from `created_at`, truncated to its day. */
const DAY_START: Record<string, string> = {
  postgres: "date_trunc('day', c.created_at)",
  mysql: 'TIMESTAMP(DATE(c.created_at))',
  sqlite: 'datetime(date(c.created_at))',
};

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`SQL APIs on ${dialect.type} (issue 26)`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let datasourceId: string;
    let db: SalesDatabase;
    let key: string;
    const address = `sql-apis-${dialect.type}`;
    const ids: Record<string, string> = {};
    let zonedId: string;
    /** Database logins the read-only login test creates (server-wide: unique names, dropped after). */
    const suffix = Math.random().toString(36).slice(2, 8);
    const logins = { reader: `tg_reader_${suffix}`, writer: `tg_writer_${suffix}` };

    /**
     * A GraphQL request. Each change of the definition makes the app's schemas be built again, at
     * most SCHEMA_BUILDS_PER_APP_PER_SECOND (README "Limits"): a 429 then is waited out.
     */
    const gql = async (query: string, headers: Record<string, string>): Promise<Answer> => {
      for (let attempt = 0; ; attempt++) {
        const res: Answer = await run.http('POST', `/api/graphql/${address}`, {
          body: { query },
          headers,
        });
        if (res.status !== 429 || attempt === 3) return res;
        await new Promise((resolve) => setTimeout(resolve, 1_100));
      }
    };
    const asKey = (query: string, k = key) => gql(query, { 'x-api-key': k });
    const data = async (query: string, k = key) => {
      const res = await asKey(query, k);
      if (res.status !== 200 || res.body.errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.data!;
    };
    const save = (body: Record<string, unknown>): Promise<Answer> =>
      run.http('POST', `/api/apps/${appId}/sql-apis`, {
        token,
        body: { datasourceId, kind: 'query', ...body },
      });
    const confirm = async (
      id: string,
      part: 'arguments' | 'columns',
      name: string,
      body: Record<string, unknown>,
    ) => {
      const res = await run.http('PATCH', `/api/apps/${appId}/sql-apis/${id}/${part}/${name}`, {
        token,
        body,
      });
      expect(res.status).toBe(200);
      return res.body;
    };
    /** Saves, confirms every column's kind (and given arguments), publishes the SQL API. */
    const publishSql = async (
      body: Record<string, unknown>,
      columns: Record<string, Record<string, unknown>>,
      args: Record<string, Record<string, unknown>> = {},
    ): Promise<string> => {
      const saved = await save(body);
      expect(saved.status).toBe(201);
      const id = (saved.body as { id: string }).id;
      for (const [name, change] of Object.entries(args))
        await confirm(id, 'arguments', name, change);
      for (const [name, change] of Object.entries(columns))
        await confirm(id, 'columns', name, change);
      const published = await run.http('POST', `/api/apps/${appId}/sql-apis/${id}/publish`, {
        token,
      });
      expect(published.status).toBe(200);
      ids[body.name as string] = id;
      return id;
    };
    const publishVersion = async () =>
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Sql', address } })).body
        .id as string;
      datasourceId = await registerSalesDatabase(run, token, appId, dialect.type, db);
      const status = await run.http('POST', `/api/apps/${appId}/enums`, {
        token,
        body: {
          name: 'OrderStatus',
          description: null,
          values: [{ value: 'PAID' }, { value: 'PENDING' }, { value: 'SHIPPED' }],
        },
      });
      expect(status.status).toBe(201);
      ids.orders = (
        await publishTableApis(run, token, appId, [
          {
            name: 'orders',
            table: 'orders',
            actions: { ...SELECT_ONLY, insert: true },
          },
        ])
      )[0];
      await publishSql(
        {
          name: 'revenueByCustomer',
          filterable: true,
          statement: `SELECT c.name AS customer, COUNT(o.id) AS order_count, SUM(o.total) AS revenue,
              RANK() OVER (ORDER BY SUM(o.total) DESC) AS position
            FROM customers c JOIN orders o ON o.customer_id = c.id
            WHERE o.status = :status
            GROUP BY c.id, c.name`,
        },
        {
          customer: { kind: 'text', nullable: false },
          order_count: { kind: 'int', nullable: false },
          revenue: { kind: 'decimal', nullable: false },
          position: { kind: 'int', nullable: false },
        },
        { status: { enum: 'OrderStatus' } },
      );
      await publishSql(
        {
          name: 'ordersByStatus',
          statement: 'SELECT id, status FROM orders WHERE status = :status OR :status IS NULL',
        },
        { id: { kind: 'int', nullable: false }, status: { enum: 'OrderStatus', nullable: false } },
        { status: { enum: 'OrderStatus', nullable: true } },
      );
      await publishSql(
        {
          name: 'orderDates',
          statement: `SELECT o.id, o.ship_date, c.created_at AS created_local, c.created_at AS created_zoned,
              o.placed_at, ${DAY_START[dialect.type]} AS day_start
            FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = :id`,
        },
        {
          id: { kind: 'int' },
          ship_date: { kind: 'date' },
          created_local: { kind: 'timestamp' },
          created_zoned: { kind: 'timestamptz' },
          placed_at: { kind: 'timestamptz' },
          day_start: { kind: 'timestamptz' },
        },
        { id: { kind: 'int' } },
      );
      await publishSql(
        { name: 'cities', statement: 'SELECT id, city FROM customers ORDER BY id' },
        { id: { kind: 'int' }, city: { kind: 'text', nullable: false } },
      );
      await publishSql(
        {
          name: 'shipOn',
          kind: 'mutation',
          statement: 'UPDATE orders SET ship_date = :day WHERE id = :id',
        },
        {},
        { day: { kind: 'date' }, id: { kind: 'int' } },
      );
      await publishSql(
        {
          name: 'duplicateOrder',
          kind: 'mutation',
          statement:
            "INSERT INTO orders (id, customer_id, status, total, placed_at) VALUES (:id, 1, 'PAID', 1, '2024-01-01 00:00:00')",
        },
        {},
        { id: { kind: 'int' } },
      );
      await publishSql(
        {
          name: 'myOrders',
          statement: 'SELECT id FROM orders WHERE customer_id = :user_customer ORDER BY id',
        },
        { id: { kind: 'int', nullable: false } },
      );
      // The same database as a datasource whose dates without zone are São Paulo's.
      const zoned = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: {
          name: 'sales-sao-paulo',
          type: dialect.type,
          url: dialect.type === 'sqlite' ? 'sqlite:sales.db' : db.url,
          timeZone: 'America/Sao_Paulo',
        },
      });
      expect(zoned.status).toBe(201);
      expect(zoned.body.timeZone).toBe('America/Sao_Paulo');
      zonedId = zoned.body.id as string;
      await publishSql(
        {
          name: 'createdInSaoPaulo',
          datasourceId: zoned.body.id,
          statement: 'SELECT created_at FROM customers WHERE id = 2',
        },
        { created_at: { kind: 'timestamptz' } },
      );
      await publishVersion();
      for (const [email, attributes] of [
        ['bruno@example.com', { customer: 2 }],
        ['nobody@example.com', {}],
      ] as const) {
        const user = await run.http('POST', `/api/apps/${appId}/users`, {
          token,
          body: { email, password: 'user-password', roles: ['clerk'], attributes },
        });
        expect(user.status).toBe(201);
      }
      const created = await run.http('POST', '/api/admin/api-keys', {
        token,
        // Ceilings far above what the suite sends: its requests are not what is measured here.
        body: {
          name: 'all',
          scope: [{ appId, endpoints: 'all' }],
          rateLimitPerMinute: 100_000,
          pointsPerMinute: 10_000_000,
        },
      });
      expect(created.status).toBe(201);
      key = created.body.key as string;
    });

    afterAll(async () => {
      await run?.close();
      if (db && dialect.type !== 'sqlite') await dropLogins(dialect.type, db, logins);
      await db?.cleanup();
    });

    it('answers a report over a join with an aggregate and a window function', async () => {
      const paid = ORDERS.filter((o) => o.status === 'PAID');
      const expected = paid
        .map((o) => ({
          customer: CUSTOMERS.find((c) => c.id === o.customer_id)!.name,
          order_count: 1,
          revenue: Number(o.total),
        }))
        .sort((a, b) => b.revenue - a.revenue)
        .map((r, i) => ({ ...r, position: i + 1 }));
      const answer = await data(`{ revenueByCustomer(status: PAID, order: [{position: ASC}]) {
        customer order_count revenue position } }`);
      const rows = answer.revenueByCustomer as Record<string, unknown>[];
      expect(rows.map((r) => ({ ...r, revenue: Number(r.revenue) }))).toEqual(expected);
      // Decimals are exact text (CONTRACT.md §6 Values).
      expect(typeof rows[0].revenue).toBe('string');
      // Filtered and paged around the statement.
      const top = await data(`{ revenueByCustomer(status: "PAID", where: {position: {lte: 2}},
        order: [{revenue: DESC}], take: 1, skip: 1) { customer position } }`);
      expect(top.revenueByCustomer).toEqual([{ customer: expected[1].customer, position: 2 }]);
    });

    it('takes an enum argument bare, quoted or left out, and answers enum columns', async () => {
      const pending = ORDERS.filter((o) => o.status === 'PENDING').map((o) => ({
        id: o.id,
        status: 'PENDING',
      }));
      const bare = await data('{ ordersByStatus(status: PENDING) { id status } }');
      expect(sortById(bare.ordersByStatus)).toEqual(pending);
      const quoted = await data('{ ordersByStatus(status: "PENDING") { id status } }');
      expect(sortById(quoted.ordersByStatus)).toEqual(pending);
      const all = await data('{ ordersByStatus { id } }');
      expect(all.ordersByStatus).toHaveLength(ORDERS.length);
      const wrong = await asKey('{ ordersByStatus(status: LOST) { id } }');
      expect(wrong.status).toBe(400);
      // The type says what the builder confirmed: an enum argument, an enum column.
      const type = await data(
        '{ __type(name: "OrdersByStatusRow") { fields { name type { kind name ofType { name } } } } }',
      );
      expect(type.__type.fields).toContainEqual({
        name: 'status',
        type: { kind: 'NON_NULL', name: null, ofType: { name: 'OrderStatus' } },
      });
    });

    it('answers each date kind, zoned instants as …Z with milliseconds', async () => {
      const answer = await data(`{ orderDates(id: 2) {
        id ship_date created_local created_zoned placed_at day_start } }`);
      expect(answer.orderDates).toEqual([
        {
          id: 2,
          ship_date: '2024-03-03',
          created_local: '2024-01-06T11:30:00.250',
          created_zoned: '2024-01-06T11:30:00.250Z',
          placed_at: '2024-03-02T12:00:00.000Z',
          day_start: '2024-01-06T00:00:00.000Z',
        },
      ]);
    });

    it("reads a date and time without zone in the datasource's time zone", async () => {
      expect((await data('{ createdInSaoPaulo { created_at } }')).createdInSaoPaulo).toEqual([
        { created_at: '2024-01-06T14:30:00.250Z' },
      ]);
      const unknown = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: { name: 'nowhere', type: dialect.type, url: db.url, timeZone: 'Mars/Olympus' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toMatch(/"Mars\/Olympus" is not an IANA time zone name/);
    });

    it('refuses a NULL in a column confirmed non-null, naming the column', async () => {
      const res = await asKey('{ cities { id city } }');
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          path: ['cities'],
          extensions: { code: 'INVALID_VALUE', field: 'city' },
        }),
      ]);
    });

    it('refuses a stacked second statement at save, with its position', async () => {
      const res = await save({
        name: 'stacked',
        statement: 'SELECT 1 AS one;\n  DELETE FROM orders',
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/line 2, column 3/);
      const unterminated = await save({
        name: 'unterminated',
        statement: "SELECT id FROM orders WHERE status = ':status",
      });
      expect(unterminated.status).toBe(400);
      expect(unterminated.body.message).toMatch(/line 1, column 38/);
      expect((await data('{ countOrders }')).countOrders).toBe(ORDERS.length);
    });

    it('refuses a :name inside a string literal or comment with its position, saving nothing', async () => {
      const literal = await save({
        name: 'literalColon',
        statement: "SELECT id FROM orders WHERE status = ':status'",
      });
      expect(literal.status).toBe(400);
      expect(literal.body.message).toMatch(/line 1, column 39/);
      expect(literal.body.message).toMatch(/:status inside a string literal is not a parameter/);
      const comment = await save({
        name: 'commentColon',
        statement: 'SELECT id FROM orders -- filtered by :status\nWHERE status IS NOT NULL',
      });
      expect(comment.status).toBe(400);
      expect(comment.body.message).toMatch(/:status inside a comment/);
      const listed = await run.http('GET', `/api/apps/${appId}/sql-apis`, { token });
      const names = (listed.body as { name: string }[]).map((a) => a.name);
      expect(names).not.toContain('literalColon');
      expect(names).not.toContain('commentColon');
      // Text with a colon that names nothing stays text.
      const time = await save({
        name: 'timeText',
        statement: "SELECT id FROM orders WHERE status <> '10:30'",
      });
      expect(time.status).toBe(201);
      await run.http('DELETE', `/api/apps/${appId}/sql-apis/${(time.body as { id: string }).id}`, {
        token,
      });
    });

    it('refuses a write as a query kind, and a write inside a read, writing nothing', async () => {
      const write = await save({ name: 'sneaky', statement: 'DELETE FROM order_lines' });
      expect(write.status).toBe(400);
      expect(write.body.message).toMatch(/a query kind runs a read/);
      if (dialect.type === 'postgres') {
        // A data-modifying WITH starts like a read: the read-only transaction refuses it.
        const cte = await save({
          name: 'sneakyCte',
          statement:
            'WITH gone AS (DELETE FROM orders WHERE id = 1 RETURNING id) SELECT id FROM gone',
        });
        if (cte.status === 201) {
          const id = (cte.body as { id: string }).id;
          await confirm(id, 'columns', 'id', { kind: 'int' });
          const res = await gql('{ sneakyCte { id } }', { authorization: `Bearer ${token}` });
          expect(res.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
        } else {
          expect(cte.status).toBe(400);
        }
      }
      expect((await data('{ countOrders }')).countOrders).toBe(ORDERS.length);
    });

    // SQLite runs no function of SQL's own making: nothing there can write from a SELECT.
    if (dialect.type !== 'sqlite') {
      it('commits nothing a function with side effects does inside a query kind', async () => {
        await db.exec('CREATE TABLE audit_marks (n int)');
        await db.exec(
          dialect.type === 'postgres'
            ? 'CREATE FUNCTION mark() RETURNS int LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit_marks VALUES (1); RETURN 1; END $$'
            : 'CREATE FUNCTION mark() RETURNS int MODIFIES SQL DATA BEGIN INSERT INTO audit_marks VALUES (1); RETURN 1; END',
        );
        const builder = { authorization: `Bearer ${token}` };
        const marks = await save({
          name: 'auditMarks',
          statement: 'SELECT count(*) AS n FROM audit_marks',
        });
        expect(marks.status).toBe(201);
        await confirm((marks.body as { id: string }).id, 'columns', 'n', { kind: 'int' });
        const marked = await save({ name: 'marked', statement: 'SELECT mark() AS marked' });
        if (marked.status === 201) {
          await confirm((marked.body as { id: string }).id, 'columns', 'marked', { kind: 'int' });
          const res = await gql('{ marked { marked } }', builder);
          expect(res.body.errors?.[0]).toMatchObject({
            message: expect.stringMatching(/^The statement tried to write/),
            extensions: { code: 'BAD_USER_INPUT' },
          });
        } else {
          // Refused at save already (MariaDB refuses to prepare it inside the read-only
          // transaction, error 1792): the same answer as at a call, naming the mutation kind.
          expect(marked.status).toBe(400);
          expect(marked.body).toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringMatching(
              /^The statement tried to write, .*make it a mutation-kind SQL API/,
            ),
          });
        }
        expect((await gql('{ auditMarks { n } }', builder)).body).toEqual({
          data: { auditMarks: [{ n: 0 }] },
        });
      });
    }

    it('keeps drafts from keys, and shows them to builders as RASCUNHO', async () => {
      const draft = await save({ name: 'draftReport', statement: 'SELECT id FROM orders' });
      expect(draft.status).toBe(201);
      await confirm((draft.body as { id: string }).id, 'columns', 'id', { kind: 'int' });
      const byKey = await asKey('{ draftReport { id } }');
      expect(byKey.body.data ?? null).toBeNull();
      expect(byKey.body.errors?.[0].message).toMatch(/draftReport/);
      const builder = await gql('{ __type(name: "Query") { fields { name description } } }', {
        authorization: `Bearer ${token}`,
      });
      expect(builder.body.data!.__type.fields).toContainEqual({
        name: 'draftReport',
        description: 'RASCUNHO',
      });
    });

    it('lets a key scoped to one SQL API call it and nothing else', async () => {
      const created = await run.http('POST', '/api/admin/api-keys', {
        token,
        body: { name: 'one', scope: [{ appId, endpoints: [ids.ordersByStatus] }] },
      });
      expect(created.status).toBe(201);
      const one = created.body.key as string;
      expect(
        (await data('{ ordersByStatus(status: PAID) { id } }', one)).ordersByStatus,
      ).toHaveLength(4);
      const other = await asKey('{ cities { id } }', one);
      expect(other.body.data ?? null).toBeNull();
      const table = await asKey('{ countOrders }', one);
      expect(table.body.data ?? null).toBeNull();
    });

    it('runs a mutation kind in the request transaction: a later failure rolls it back', async () => {
      const ok = await data('mutation { shipOn(id: 4, day: "2024-05-01") { affected } }');
      expect(ok.shipOn).toEqual({ affected: 1 });
      const failed = await asKey(`mutation {
        shipOn(id: 5, day: "2024-05-02") { affected }
        duplicateOrder(id: 1) { affected } }`);
      expect(failed.body.data).toEqual({ shipOn: null, duplicateOrder: null });
      // The duplicate key said as for Table APIs; the earlier field not written.
      expect(failed.body.errors?.map((e) => [e.path?.[0], e.extensions?.code])).toEqual([
        ['duplicateOrder', 'UNIQUE_VIOLATION'],
        ['shipOn', 'ROLLED_BACK'],
      ]);
      const dates = await data('{ getOrders(where: {id: {in: [4, 5]}}) { id ship_date } }');
      expect(dates.getOrders).toEqual([
        { id: '4', ship_date: '2024-05-01' },
        { id: '5', ship_date: ORDERS[4].ship_date },
      ]);
    });

    it('binds :user_<attribute> from the app user, failing closed for anyone else', async () => {
      const login = async (email: string) =>
        (
          await run.http('POST', `/api/apps/${appId}/auth/login`, {
            body: { email, password: 'user-password' },
          })
        ).body.token as string;
      const bruno = await gql('{ myOrders { id } }', {
        authorization: `Bearer ${await login('bruno@example.com')}`,
      });
      expect(bruno.body).toEqual({
        data: {
          myOrders: ORDERS.filter((o) => o.customer_id === 2).map((o) => ({ id: o.id })),
        },
      });
      const nobody = await gql('{ myOrders { id } }', {
        authorization: `Bearer ${await login('nobody@example.com')}`,
      });
      expect(nobody.body.errors?.[0]).toMatchObject({
        message: 'This SQL API reads :user_customer, and your user has no attribute customer',
        extensions: { code: 'FORBIDDEN' },
      });
      const byKey = await asKey('{ myOrders { id } }');
      expect(byKey.body.errors?.[0]).toMatchObject({
        message: 'This SQL API reads :user_customer, which only a signed-in app user has',
        extensions: { code: 'FORBIDDEN' },
      });
    });

    it('lets anonymous callers in only where the SQL API is public', async () => {
      await publishSql(
        { name: 'orderCount', public: true, statement: 'SELECT count(*) AS n FROM orders' },
        { n: { kind: 'int', nullable: false } },
      );
      await publishVersion();
      expect((await gql('{ orderCount { n } }', {})).body).toEqual({
        data: { orderCount: [{ n: ORDERS.length }] },
      });
      const closed = await gql('{ cities { id } }', {});
      expect(closed.status).toBe(401);
    });

    // MariaDB does not describe a write's RETURNING columns (README "SQL APIs: statements").
    if (dialect.type !== 'mysql') {
      it("answers the rows a mutation kind's RETURNING gives", async () => {
        await publishSql(
          {
            name: 'deleteLine',
            kind: 'mutation',
            statement: 'DELETE FROM order_lines WHERE id = :id RETURNING id, product',
          },
          { id: { kind: 'int', nullable: false }, product: { kind: 'text', nullable: false } },
          { id: { kind: 'int' } },
        );
        await publishVersion();
        const last = ORDER_LINES[ORDER_LINES.length - 1];
        expect(
          (await data(`mutation { deleteLine(id: ${last.id}) { affected rows { id product } } }`))
            .deleteLine,
        ).toEqual({ affected: 1, rows: [{ id: last.id, product: last.product }] });
        expect(
          (await data(`mutation { deleteLine(id: ${last.id}) { affected rows { id } } }`))
            .deleteLine,
        ).toEqual({ affected: 0, rows: [] });
      });
    }

    it('refuses publishing while a column lacks a kind, with the reason', async () => {
      const saved = await save({ name: 'untyped', statement: 'SELECT 1 + 1 AS two' });
      expect(saved.status).toBe(201);
      const id = (saved.body as { id: string }).id;
      const columns = (saved.body as { columns: { kind: string | null }[] }).columns;
      if (columns[0].kind === null) {
        const res = await run.http('POST', `/api/apps/${appId}/sql-apis/${id}/publish`, { token });
        expect(res.status).toBe(400);
        expect(res.body.details).toContain(
          'column two needs a kind (PATCH …/columns/two {"kind": …})',
        );
      }
      const path = `/api/apps/${appId}/sql-apis/${id}/columns/two`;
      const enumOnInt = await run.http('PATCH', path, {
        token,
        body: { kind: 'int', enum: 'OrderStatus' },
      });
      expect(enumOnInt.status).toBe(400);
      expect(enumOnInt.body.message).toBe('column two: only text takes an enum (not int)');
      const noEnum = await run.http('PATCH', path, { token, body: { enum: 'Nope' } });
      expect(noEnum.status).toBe(400);
      const noColumn = await run.http('PATCH', `/api/apps/${appId}/sql-apis/${id}/columns/three`, {
        token,
        body: { kind: 'int' },
      });
      expect(noColumn.status).toBe(404);
      await confirm(id, 'columns', 'two', { kind: 'int' });
      const res = await run.http('POST', `/api/apps/${appId}/sql-apis/${id}/publish`, { token });
      expect(res.status).toBe(200);
    });

    it('follows an enum renamed or deleted into the SQL APIs that use it', async () => {
      const values = [{ value: 'PAID' }, { value: 'PENDING' }, { value: 'SHIPPED' }];
      const renamed = await run.http('PUT', `/api/apps/${appId}/enums/OrderStatus`, {
        token,
        body: { name: 'OrderState', description: null, values },
      });
      expect(renamed.status).toBe(200);
      const api = async () =>
        (await run.http('GET', `/api/apps/${appId}/sql-apis/${ids.ordersByStatus}`, { token }))
          .body as { arguments: { enum?: string }[]; columns: { name: string; enum?: string }[] };
      expect((await api()).arguments[0].enum).toBe('OrderState');
      expect((await api()).columns.find((c) => c.name === 'status')!.enum).toBe('OrderState');
      const builder = { authorization: `Bearer ${token}` };
      expect(
        (await gql('{ ordersByStatus(status: PAID) { status } }', builder)).body.data,
      ).toMatchObject({ ordersByStatus: expect.arrayContaining([{ status: 'PAID' }]) });
      const deleted = await run.http('DELETE', `/api/apps/${appId}/enums/OrderState`, { token });
      expect(deleted.status).toBe(204);
      expect((await api()).arguments[0].enum).toBeUndefined();
      // Text again: the stored value, quoted.
      expect(
        (await gql('{ ordersByStatus(status: "PAID") { status } }', builder)).body.data,
      ).toMatchObject({ ordersByStatus: expect.arrayContaining([{ status: 'PAID' }]) });
    });

    it("changes a datasource's time zone: the next request reads dates without zone in it", async () => {
      const path = `/api/apps/${appId}/datasources/${zonedId}`;
      const unknown = await run.http('PATCH', path, { token, body: { timeZone: 'Mars/Olympus' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toMatch(/"Mars\/Olympus" is not an IANA time zone name/);
      const notText = await run.http('PATCH', path, { token, body: { timeZone: 3 } });
      expect(notText.status).toBe(400);
      // Nothing changed: still São Paulo's (11:30:00.250 there is 14:30:00.250Z).
      expect((await data('{ createdInSaoPaulo { created_at } }')).createdInSaoPaulo).toEqual([
        { created_at: '2024-01-06T14:30:00.250Z' },
      ]);
      const tokyo = await run.http('PATCH', path, { token, body: { timeZone: 'Asia/Tokyo' } });
      expect(tokyo.status).toBe(200);
      expect(tokyo.body).toMatchObject({ id: zonedId, timeZone: 'Asia/Tokyo' });
      expect(
        (await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body,
      ).toContainEqual(expect.objectContaining({ id: zonedId, timeZone: 'Asia/Tokyo' }));
      // The published schema was cached by the calls above: the next one reads Tokyo's time.
      expect((await data('{ createdInSaoPaulo { created_at } }')).createdInSaoPaulo).toEqual([
        { created_at: '2024-01-06T02:30:00.250Z' },
      ]);
      const back = await run.http('PATCH', path, {
        token,
        body: { timeZone: 'America/Sao_Paulo' },
      });
      expect(back.status).toBe(200);
      expect((await data('{ createdInSaoPaulo { created_at } }')).createdInSaoPaulo).toEqual([
        { created_at: '2024-01-06T14:30:00.250Z' },
      ]);
    });

    if (dialect.type === 'sqlite') {
      it('refuses a read-only login on SQLite, which has no logins', async () => {
        const res = await run.http('PATCH', `/api/apps/${appId}/datasources/${datasourceId}`, {
          token,
          body: { readOnlyLogin: { user: 'reader', password: 'reader-pw' } },
        });
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/SQLite datasource has no logins/);
      });
    } else {
      it('runs query kinds with the read-only login, refusing a login that may write', async () => {
        const path = `/api/apps/${appId}/datasources/${datasourceId}`;
        const patchLogin = (readOnlyLogin: unknown) =>
          run.http('PATCH', path, { token, body: { readOnlyLogin } });
        await createLogins(dialect.type, db, logins);
        const whoAmI = dialect.type === 'postgres' ? 'current_user' : 'CURRENT_USER()';
        await publishSql(
          { name: 'whoReads', statement: `SELECT ${whoAmI} AS who` },
          { who: { kind: 'text' } },
        );
        await publishVersion();
        const who = async () =>
          String((await data('{ whoReads { who } }')).whoReads[0].who).replace(/@.*$/, '');
        const owner = await who();
        expect(owner).not.toBe(logins.reader);

        // A login that may write is refused, with what it may write; a wrong password too.
        const writer = await patchLogin({ user: logins.writer, password: LOGIN_PASSWORD });
        expect(writer.status).toBe(400);
        expect(writer.body.message).toMatch(/this login may write/);
        expect(writer.body.details).toEqual([
          dialect.type === 'postgres'
            ? 'readOnlyLogin: the login may write 1 table (public.orders)'
            : expect.stringMatching(/^readOnlyLogin: the login holds INSERT on .*\.orders$/),
        ]);
        // The test PostgreSQL trusts local logins (no password asked): there a login that does
        // not exist is refused instead.
        const wrong = await patchLogin({
          user: dialect.type === 'postgres' ? `${logins.reader}_none` : logins.reader,
          password: 'wrong-secret-pw',
        });
        expect(wrong.status).toBe(400);
        expect(wrong.body.message).toMatch(/^readOnlyLogin: Could not connect .*refused the login/);
        const unknownField = await patchLogin({ user: logins.reader, password: 'x', host: 'a' });
        expect(unknownField.status).toBe(400);
        for (const res of [writer, wrong, unknownField])
          expect(JSON.stringify(res.body)).not.toMatch(/wrong-secret-pw|read-only-secret/);
        const readOnlyLogin = async () =>
          (
            (await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body as {
              id: string;
              readOnlyLogin: boolean;
            }[]
          ).find((d) => d.id === datasourceId)!.readOnlyLogin;
        expect(await readOnlyLogin()).toBe(false);
        expect(await who()).toBe(owner);

        // A login of SELECT only is taken and never answered back.
        const set = await patchLogin({ user: logins.reader, password: LOGIN_PASSWORD });
        expect(set.status).toBe(200);
        expect(set.body).toMatchObject({ id: datasourceId, readOnlyLogin: true });
        expect(await readOnlyLogin()).toBe(true);
        const listed = await run.http('GET', `/api/apps/${appId}/datasources`, { token });
        expect(JSON.stringify(listed.body)).not.toContain(LOGIN_PASSWORD);
        expect(JSON.stringify(listed.body)).not.toContain(logins.reader);
        // Query kinds read with it from the next request; Table APIs and mutation kinds still
        // run with the datasource's own login.
        expect(await who()).toBe(logins.reader);
        expect((await data('{ countOrders }')).countOrders).toBe(ORDERS.length);
        expect(
          (await data('mutation { shipOn(day: "2024-05-05", id: 1) { affected } }')).shipOn,
        ).toEqual({ affected: 1 });
        // A new query kind is described with the read-only login: a table it may not read is
        // refused at save.
        await db.exec('CREATE TABLE hidden_notes (id int)');
        const hidden = await save({
          name: 'hiddenNotes',
          statement: 'SELECT id FROM hidden_notes',
        });
        expect(hidden.status).toBe(400);
        expect(hidden.body.message).toMatch(/denied/);

        // Removed, query kinds read with the datasource's login again.
        const removed = await patchLogin(null);
        expect(removed.status).toBe(200);
        expect(removed.body.readOnlyLogin).toBe(false);
        expect(await who()).toBe(owner);
        await db.exec('DROP TABLE hidden_notes');
      });
    }

    it('keeps a datasource its SQL APIs use unless forced, then removes them with it', async () => {
      const refused = await run.http('DELETE', `/api/apps/${appId}/datasources/${zonedId}`, {
        token,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/used by the SQL APIs "createdInSaoPaulo"/);
      const forced = await run.http(
        'DELETE',
        `/api/apps/${appId}/datasources/${zonedId}?force=true`,
        { token },
      );
      expect(forced.status).toBe(204);
      const left = await run.http('GET', `/api/apps/${appId}/sql-apis`, { token });
      expect(left.body.map((a: { name: string }) => a.name)).not.toContain('createdInSaoPaulo');
      expect((await asKey('{ createdInSaoPaulo { created_at } }')).body.data ?? null).toBeNull();
      // The SQL APIs of the other datasource are still served.
      expect((await data('{ orderCount { n } }')).orderCount).toEqual([{ n: ORDERS.length }]);
    });
  });
}

/** The password of the logins the read-only login test creates. */
const LOGIN_PASSWORD = 'read-only-secret-pw';

/**
 * A login that may only read the sales tables (`reader`) and one that may also insert orders
 * (`writer`), on the test database's server.
 */
async function createLogins(
  type: string,
  db: SalesDatabase,
  logins: { reader: string; writer: string },
): Promise<void> {
  if (type === 'postgres') {
    for (const login of [logins.reader, logins.writer])
      await db.exec(`CREATE ROLE ${login} LOGIN PASSWORD '${LOGIN_PASSWORD}'`);
    await db.exec(
      `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${logins.reader}, ${logins.writer}`,
    );
    await db.exec(`GRANT INSERT ON orders TO ${logins.writer}`);
    return;
  }
  // Table by table: a table created later is not readable by them.
  const database = new URL(db.url).pathname.slice(1);
  for (const login of [logins.reader, logins.writer]) {
    await db.exec(`CREATE USER '${login}'@'%' IDENTIFIED BY '${LOGIN_PASSWORD}'`);
    for (const table of ['customers', 'orders', 'order_lines'])
      await db.exec(`GRANT SELECT ON ${database}.${table} TO '${login}'@'%'`);
  }
  await db.exec(`GRANT INSERT ON ${database}.orders TO '${logins.writer}'@'%'`);
}

/** Drops what {@link createLogins} made (whether or not it ran). */
async function dropLogins(
  type: string,
  db: SalesDatabase,
  logins: { reader: string; writer: string },
): Promise<void> {
  for (const login of [logins.reader, logins.writer]) {
    if (type === 'postgres')
      await db.exec(`DROP OWNED BY ${login}; DROP ROLE ${login}`).catch(() => undefined);
    else await db.exec(`DROP USER IF EXISTS '${login}'@'%'`).catch(() => undefined);
  }
}

function sortById(rows: unknown): { id: number }[] {
  return [...(rows as { id: number }[])].sort((a, b) => a.id - b.id);
}
