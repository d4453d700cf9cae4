import { type Client, createClient } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import { WebSocket } from 'ws';
import { RunningApp, startApp } from '../support/app-harness';
import { ORDERS } from '../support/sales-fixture';
import { registerSalesDatabase, SALES_DIALECTS, SalesDatabase } from '../support/sales-dialects';
import { createAppKey, publishTableApis } from '../support/table-apis';

/**
 * Attacks on the surfaces of the last work sessions, over HTTP against the running service on a
 * real PostgreSQL (and Redis where the service uses it): a builder's "view as"
 * (`x-view-as-user`), the MCP endpoint, SQL APIs' statement text and parameters, webhook targets,
 * cost budgets and GraphQL subscriptions. Each test asserts the safe behaviour: the attack is
 * refused, charged, or reads and writes nothing it should not.
 *
 * Data (sales-fixture.ts): 5 customers, 12 orders; order i belongs to customer ((i - 1) % 5) + 1.
 * App users of app A: ana (customer 1) and bruno (customer 2), role clerk, whose rule on orders is
 * `customer_id = $user.customer`; app B has its own user.
 */
const postgres = SALES_DIALECTS.find((d) => d.type === 'postgres')!;
const ALL = { select: true, insert: true, update: true, delete: true };

/** Whether a body tells anything of SQL, a stack or a file path. */
function leaks(body: unknown): boolean {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return /\bat [\w.<>]+ \(|node_modules|\/work\/|\.ts:\d+|SELECT |INSERT INTO|DELETE FROM|pg_|syntax error/i.test(
    text,
  );
}

/** Orders of customer `c` in the fixture. */
const ordersOf = (c: number) => ORDERS.filter((o) => o.customer_id === c).length;

postgres.describe('attacks on the surfaces of the last sessions (PostgreSQL)', () => {
  let run: RunningApp;
  let token: string;
  let db: SalesDatabase;
  let appA: string;
  let appB: string;
  let datasourceId: string;
  /** A key of app A, every API. */
  let key: string;
  /** A key of app B only. */
  let keyB: string;
  /** App A's users. */
  const users: Record<string, { id: string; token: string }> = {};
  /** App B's user. */
  let userB: { id: string; token: string };
  /** A second builder (role builder, not admin). */
  let builderToken: string;
  const addressA = 'attack-a';
  const addressB = 'attack-b';

  const gql = (
    address: string,
    body: unknown,
    opts: { token?: string; headers?: Record<string, string> } = {},
  ) => run.http('POST', `/api/graphql/${address}`, { body, ...opts });
  const countAll = async () =>
    (await gql(addressA, { query: '{ countOrders }' }, { headers: { 'x-api-key': key } })).body.data
      .countOrders as number;
  const mcp = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${run.baseUrl}/api/mcp/${addressA}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  /** The JSON-RPC message of an MCP answer (JSON, or one SSE `message` event). */
  const messageOf = async (res: Response): Promise<any> => {
    const text = await res.text();
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data ? data.slice('data: '.length) : text);
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    db = await postgres.create(run.dataDir);
    appA = (await run.http('POST', '/api/apps', { token, body: { name: 'A', address: addressA } }))
      .body.id;
    appB = (await run.http('POST', '/api/apps', { token, body: { name: 'B', address: addressB } }))
      .body.id;
    datasourceId = await registerSalesDatabase(run, token, appA, 'postgres', db);
    await publishTableApis(run, token, appA, [
      { name: 'orders', table: 'orders', actions: ALL },
      { name: 'customers', table: 'customers', actions: ALL },
    ]);
    const rule = await run.http('PUT', `/api/apps/${appA}/permissions/clerk`, {
      token,
      body: { tables: { orders: { where: { customer_id: { eq: '$user.customer' } } } } },
    });
    expect(rule.status).toBe(200);
    expect((await run.http('POST', `/api/apps/${appA}/versions/publish`, { token })).status).toBe(
      200,
    );
    for (const [name, customer] of [
      ['ana', 1],
      ['bruno', 2],
    ] as const) {
      const user = await run.http('POST', `/api/apps/${appA}/users`, {
        token,
        body: {
          email: `${name}@example.com`,
          password: `${name}-password`,
          roles: ['clerk'],
          attributes: { customer },
        },
      });
      expect(user.status).toBe(201);
      const login = await run.http('POST', `/api/apps/${appA}/auth/login`, {
        body: { email: `${name}@example.com`, password: `${name}-password` },
      });
      expect(login.status).toBe(200);
      users[name] = { id: user.body.id, token: login.body.token };
    }
    const other = await run.http('POST', `/api/apps/${appB}/users`, {
      token,
      body: { email: 'bea@example.com', password: 'bea-password', roles: [] },
    });
    expect(other.status).toBe(201);
    const otherLogin = await run.http('POST', `/api/apps/${appB}/auth/login`, {
      body: { email: 'bea@example.com', password: 'bea-password' },
    });
    userB = { id: other.body.id, token: otherLogin.body.token };
    key = await createAppKey(run, token, appA, 'attack all', {
      rateLimitPerMinute: 100_000,
      pointsPerMinute: 10_000_000,
    });
    keyB = await createAppKey(run, token, appB, 'attack b');
    const account = await run.http('POST', '/api/admin/accounts', {
      token,
      body: { email: 'builder@e2e.test', password: 'builder-password', role: 'builder' },
    });
    expect(account.status).toBe(201);
    builderToken = (
      await run.http('POST', '/api/auth/login', {
        body: { email: 'builder@e2e.test', password: 'builder-password' },
      })
    ).body.token;
  });

  afterAll(async () => {
    await run?.close();
    await db?.cleanup();
  });

  describe('x-view-as-user', () => {
    const viewAs = (userId: string, opts: { token?: string; headers?: Record<string, string> }) =>
      gql(
        addressA,
        { query: '{ countOrders }' },
        { ...opts, headers: { 'x-view-as-user': userId, ...opts.headers } },
      );

    it('shows a builder exactly the user rows, on main', async () => {
      const res = await viewAs(users.ana.id, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.countOrders).toBe(ordersOf(1));
      const other = await viewAs(users.bruno.id, { token: builderToken });
      expect(other.body.data.countOrders).toBe(ordersOf(2));
    });

    it.each([
      ['a key', () => ({ headers: { 'x-api-key': key } })],
      ['a key and a builder session together', () => ({ token, headers: { 'x-api-key': key } })],
      ['an app user', () => ({ token: users.bruno.token })],
      ['an anonymous caller', () => ({})],
      ['a key of another app', () => ({ headers: { 'x-api-key': keyB } })],
      ['an app user of another app', () => ({ token: userB.token })],
    ])('refuses it from %s, reading nothing', async (_who, opts) => {
      const res = await viewAs(users.ana.id, opts());
      expect([401, 403]).toContain(res.status);
      expect(res.body.data).toBeUndefined();
    });

    it("does not let a builder view as another app's user, nor a malformed or doubled id", async () => {
      expect((await viewAs(userB.id, { token })).status).toBe(404);
      const doubled = await run.http('POST', `/api/graphql/${addressA}`, {
        token,
        headers: { 'x-view-as-user': `${users.ana.id}, ${users.bruno.id}` },
        body: { query: '{ countOrders }' },
      });
      expect(doubled.status).toBe(403);
      expect((await viewAs("1' OR '1'='1", { token })).status).toBe(403);
      expect((await viewAs('', { token })).status).toBe(403);
    });

    it('reads only: no write through an alias, a fragment or a second operation', async () => {
      const before = await countAll();
      for (const query of [
        'mutation { x: deleteOrders(id: 1) }',
        'mutation { ...F } fragment F on Mutation { deleteOrders(id: 1) }',
        'mutation { updateOrders(id: 1, status: "X") { id } }',
      ]) {
        const res = await gql(
          addressA,
          { query },
          { token, headers: { 'x-view-as-user': users.ana.id } },
        );
        expect(res.status).toBe(403);
      }
      expect(await countAll()).toBe(before);
    });

    it('runs on main: a draft API and an unpublished rule of the working version stay out', async () => {
      const draft = await run.http('POST', `/api/apps/${appA}/apis`, {
        token,
        body: { name: 'draftOrders', table: 'orders', actions: ALL },
      });
      expect(draft.status).toBe(201);
      const loosened = await run.http('PUT', `/api/apps/${appA}/permissions/clerk`, {
        token,
        body: { tables: {} },
      });
      expect(loosened.status).toBe(200);
      try {
        // The builder's own call sees the draft (working version) ...
        const own = await gql(addressA, { query: '{ countDraftOrders }' }, { token });
        expect(own.body.data?.countDraftOrders).toBe(ORDERS.length);
        // ... viewing as Ana does not, and Ana's published rule still holds.
        const viewing = await gql(
          addressA,
          { query: '{ countDraftOrders }' },
          { token, headers: { 'x-view-as-user': users.ana.id } },
        );
        expect(viewing.status).toBe(400);
        expect(viewing.body.data).toBeUndefined();
        const rows = await gql(
          addressA,
          { query: '{ countOrders }' },
          { token, headers: { 'x-view-as-user': users.ana.id } },
        );
        expect(rows.body.data.countOrders).toBe(ordersOf(1));
      } finally {
        await run.http('PUT', `/api/apps/${appA}/permissions/clerk`, {
          token,
          body: { tables: { orders: { where: { customer_id: { eq: '$user.customer' } } } } },
        });
        await run.http('DELETE', `/api/apps/${appA}/apis/${draft.body.id}`, { token });
      }
    });

    it("refuses a cross-site write with the builder's cookie, view-as or not", async () => {
      const signedIn = await fetch(`${run.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'builder@e2e.test', password: 'builder-password' }),
      });
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
      expect(cookie).toMatch(/=/);
      const before = await countAll();
      for (const [contentType, origin] of [
        ['text/plain', undefined],
        ['application/x-www-form-urlencoded', undefined],
        ['application/json', 'https://evil.example'],
      ] as const) {
        const res = await fetch(`${run.baseUrl}/api/graphql/${addressA}`, {
          method: 'POST',
          headers: {
            cookie,
            'content-type': contentType,
            ...(origin && { origin }),
          },
          body: JSON.stringify({ query: 'mutation { deleteOrders(id: 3) }' }),
        });
        expect(res.status).toBeGreaterThanOrEqual(400);
      }
      const viaGet = await fetch(
        `${run.baseUrl}/api/graphql/${addressA}?query=${encodeURIComponent('mutation { deleteOrders(id: 3) }')}`,
        { headers: { cookie } },
      );
      expect(viaGet.status).toBeGreaterThanOrEqual(400);
      expect(await countAll()).toBe(before);
    });
  });

  describe('MCP endpoint', () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {},
    };

    it('takes keys only: a builder session, an app user or a view-as header is refused', async () => {
      expect((await mcp(init, { authorization: `Bearer ${token}` })).status).toBe(401);
      expect((await mcp(init, { authorization: `Bearer ${users.ana.token}` })).status).toBe(401);
      const viewing = await mcp(init, { 'x-api-key': key, 'x-view-as-user': users.ana.id });
      expect(viewing.status).toBe(403);
      expect((await mcp(init, { 'x-api-key': keyB })).status).toBe(403);
    });

    it.each(['https://evil.example', 'null', 'http://127.0.0.1', 'file://', 'not a url'])(
      'refuses the Origin %s',
      async (origin) => {
        const res = await mcp(init, { 'x-api-key': key, origin });
        expect(res.status).toBe(403);
      },
    );

    it('answers malformed and oversized bodies without a stack or SQL', async () => {
      for (const body of ['{"jsonrpc":"2.0",', '[]', '"x"', '{"jsonrpc":"2.0","id":1}']) {
        const res = await mcp(body, { 'x-api-key': key });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(leaks(await res.text())).toBe(false);
      }
      const huge = await mcp(
        { ...init, params: { pad: 'x'.repeat(3 * 1024 * 1024) } },
        { 'x-api-key': key },
      );
      expect(huge.status).toBe(413);
      expect(leaks(await huge.text())).toBe(false);
    });

    it('bounds a deep or wide where and tells nothing of SQL', async () => {
      let deep: Record<string, unknown> = { id: { eq: 1 } };
      for (let i = 0; i < 200; i++) deep = { and: [deep] };
      const wide = { id: { in: Array.from({ length: 200_000 }, (_, i) => i) } };
      for (const where of [deep, wide, { nope: { eq: 1 } }, { id: { eq: "1'; DROP TABLE x" } }]) {
        const res = await mcp(
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'get_rows', arguments: { api: 'orders', where } },
          },
          { 'x-api-key': key },
        );
        const text = await res.text();
        expect(leaks(text)).toBe(false);
        if (res.status === 200) {
          const message = JSON.parse(
            text
              .split('\n')
              .find((l) => l.startsWith('data: '))
              ?.slice(6) ?? text,
          );
          expect(message.result?.isError ?? message.error !== undefined).toBeTruthy();
        } else {
          expect(res.status).toBeLessThan(500);
        }
      }
      expect(await countAll()).toBe(ORDERS.length);
    });

    it('refuses delete_row without mcpDeletes, deleting nothing', async () => {
      const call = await messageOf(
        await mcp(
          {
            jsonrpc: '2.0',
            id: 3,
            method: 'tools/call',
            params: { name: 'delete_row', arguments: { api: 'orders', key: { id: 1 } } },
          },
          { 'x-api-key': key },
        ),
      );
      expect(call.result.isError).toBe(true);
      expect(call.result.content[0].text).toMatch(/FORBIDDEN.*mcpDeletes/);
      expect(await countAll()).toBe(ORDERS.length);
    });

    // Was a hole: a batch of 20 tools/call in one POST ran all 20 for one count against the
    // key's rateLimitPerMinute of 2. Batches are now refused (the 2025-06-18 revision removed them).
    it('runs no JSON-RPC batch: each call is one request against the rate limit', async () => {
      const limited = await createAppKey(run, token, appA, 'mcp limited', {
        rateLimitPerMinute: 2,
      });
      const batch = Array.from({ length: 20 }, (_, i) => ({
        jsonrpc: '2.0',
        id: 10 + i,
        method: 'tools/call',
        params: { name: 'count_rows', arguments: { api: 'orders' } },
      }));
      const res = await mcp(batch, { 'x-api-key': limited });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { message: expect.stringMatching(/one JSON-RPC message per request/) },
      });
      expect(JSON.stringify(body)).not.toMatch(/structuredContent/);
      // The key's two requests a minute are still there for single messages.
      const one = await messageOf(await mcp(batch[0], { 'x-api-key': limited }));
      expect(one.result.structuredContent).toEqual({ api: 'orders', count: ORDERS.length });
    });

    it('charges a tool call to the cost budget', async () => {
      const small = await createAppKey(run, token, appA, 'mcp small', { pointsPerMinute: 3 });
      const call = async (take: number) =>
        messageOf(
          await mcp(
            {
              jsonrpc: '2.0',
              id: 4,
              method: 'tools/call',
              params: { name: 'get_rows', arguments: { api: 'orders', take } },
            },
            { 'x-api-key': small },
          ),
        );
      // take 500 is estimated at 5 points, more than the budget of 3: refused unrun.
      const refused = await call(500);
      expect(refused.result.isError).toBe(true);
      expect(refused.result.content[0].text).toMatch(/RATE_LIMITED/);
      const paid = await call(100);
      expect(paid.result.isError).toBeFalsy();
      expect(paid.result._meta.cost).toMatchObject({ limit: 3 });
    });
  });

  describe('SQL APIs', () => {
    const save = (name: string, statement: string, kind = 'query') =>
      run.http('POST', `/api/apps/${appA}/sql-apis`, {
        token,
        body: { datasourceId, kind, name, statement },
      });
    const remove = (id: string) =>
      run.http('DELETE', `/api/apps/${appA}/sql-apis/${id}`, { token });

    it.each([
      ['a dollar-quoted string', 'SELECT $$:status$$ AS s'],
      ['a tagged dollar-quoted string', 'SELECT $q$ :status $q$ AS s'],
      ['an E string with an escaped quote', "SELECT E'\\' :status' AS s"],
      ['a nested comment', 'SELECT 1 AS s /* a /* b */ :status */'],
    ])('takes no :name inside %s as a parameter', async (_what, statement) => {
      const res = await save(`lit${Math.random().toString(36).slice(2, 7)}`, statement);
      if (res.status === 201) {
        expect(JSON.stringify(res.body.arguments ?? [])).not.toMatch(/status/);
        await remove(res.body.id);
      } else {
        expect(res.status).toBe(400);
        expect(leaks(res.body.message)).toBe(false);
      }
    });

    it.each([
      ['a semicolon hidden after an E string', "SELECT E'\\';' AS s; DELETE FROM orders"],
      ['a stacked statement after a dollar quote', 'SELECT $$;$$ AS s; DELETE FROM orders'],
      [
        'a stacked statement after a nested comment',
        'SELECT 1 AS s /* /* */ ; DELETE FROM orders; /* */',
      ],
      ['COPY', "COPY orders TO PROGRAM 'true'"],
      ['SET', 'SET ROLE postgres'],
      ['DO', 'DO $$ BEGIN DELETE FROM orders; END $$'],
      ['CALL', 'CALL nothing()'],
      ['a writable CTE', 'WITH x AS (DELETE FROM orders RETURNING id) SELECT id FROM x'],
      ['SELECT FOR UPDATE', 'SELECT id FROM orders FOR UPDATE'],
      ['SELECT INTO', 'SELECT * INTO stolen FROM orders'],
    ])('writes nothing through %s as a query kind', async (_what, statement) => {
      const res = await save(`w${Math.random().toString(36).slice(2, 7)}`, statement);
      if (res.status === 201) {
        const id = res.body.id as string;
        const columns = (res.body.columns ?? []) as { name: string }[];
        for (const c of columns)
          await run.http('PATCH', `/api/apps/${appA}/sql-apis/${id}/columns/${c.name}`, {
            token,
            body: { kind: 'text' },
          });
        const name = res.body.name as string;
        const field = columns.length ? `{ ${columns.map((c) => c.name).join(' ')} }` : '';
        const call = await gql(addressA, { query: `{ ${name} ${field} }` }, { token });
        expect(call.body.data?.[name] ?? null).toBeNull();
        expect(leaks(call.body)).toBe(false);
        await remove(id);
      } else {
        expect(res.status).toBe(400);
      }
      expect(await countAll()).toBe(ORDERS.length);
    });

    it('keeps nothing a query kind creates with lo_import (the read-only transaction is not committed)', async () => {
      const saved = await save('loImport', "SELECT lo_import('/etc/hostname') AS s");
      expect(saved.status).toBe(201);
      const id = saved.body.id as string;
      await run.http('PATCH', `/api/apps/${appA}/sql-apis/${id}/columns/s`, {
        token,
        body: { kind: 'text' },
      });
      await gql(addressA, { query: '{ loImport { s } }' }, { token });
      const client = new PgClient({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT count(*)::int AS n FROM pg_largeobject_metadata',
        );
        expect(rows[0].n).toBe(0);
      } finally {
        await client.end();
      }
      await remove(id);
    });

    it('refuses a hostile column alias that where and order would wrap, saving nothing', async () => {
      const saved = await run.http('POST', `/api/apps/${appA}/sql-apis`, {
        token,
        body: {
          datasourceId,
          kind: 'query',
          name: 'aliased',
          filterable: true,
          statement: 'SELECT id AS "x"" IS NOT NULL OR 1=1 --", status FROM orders',
        },
      });
      expect(saved.status).toBe(400);
      expect(saved.body.details).toEqual([expect.stringMatching(/is not a GraphQL name/)]);
      const listed = await run.http('GET', `/api/apps/${appA}/sql-apis`, { token });
      expect((listed.body as { name: string }[]).map((a) => a.name)).not.toContain('aliased');
    });

    it('refuses a mutation-kind SQL API to a builder viewing as a user, writing nothing', async () => {
      const saved = await save(
        'markOrder',
        "UPDATE orders SET status = 'VIEWAS' WHERE id = 4",
        'mutation',
      );
      expect(saved.status).toBe(201);
      const id = saved.body.id as string;
      expect(
        (await run.http('POST', `/api/apps/${appA}/sql-apis/${id}/publish`, { token })).status,
      ).toBe(200);
      expect((await run.http('POST', `/api/apps/${appA}/versions/publish`, { token })).status).toBe(
        200,
      );
      const res = await gql(
        addressA,
        { query: 'mutation { markOrder { affected } }' },
        { token, headers: { 'x-view-as-user': users.ana.id } },
      );
      expect(res.status).toBe(403);
      const status = await gql(
        addressA,
        { query: '{ getOrders(where: { status: { eq: "VIEWAS" } }) { id } }' },
        { headers: { 'x-api-key': key } },
      );
      expect(status.body.data.getOrders).toEqual([]);
    });

    it("fails closed when a caller lacks the statement's $user attribute", async () => {
      const saved = await save(
        'mine',
        'SELECT id FROM orders WHERE customer_id = :user_customer ORDER BY id',
      );
      expect(saved.status).toBe(201);
      const id = saved.body.id as string;
      await run.http('PATCH', `/api/apps/${appA}/sql-apis/${id}/columns/id`, {
        token,
        body: { kind: 'int' },
      });
      expect(
        (await run.http('POST', `/api/apps/${appA}/sql-apis/${id}/publish`, { token })).status,
      ).toBe(200);
      expect((await run.http('POST', `/api/apps/${appA}/versions/publish`, { token })).status).toBe(
        200,
      );
      const asKey = await gql(
        addressA,
        { query: '{ mine { id } }' },
        { headers: { 'x-api-key': key } },
      );
      expect(asKey.body.data?.mine ?? []).toEqual([]);
      // An argument named like the implicit parameter cannot be given by the caller.
      const forged = await gql(
        addressA,
        { query: '{ mine(user_customer: 2) { id } }' },
        { token: users.ana.token },
      );
      expect(forged.status).toBe(400);
      const ana = await gql(addressA, { query: '{ mine { id } }' }, { token: users.ana.token });
      expect(ana.body.data.mine).toHaveLength(ordersOf(1));
    });
  });

  describe('webhook targets', () => {
    it.each([
      'http://2130706433/hook',
      'http://0x7f.1/hook',
      'http://0177.0.0.1/hook',
      'http://127.1/hook',
      'http://0/hook',
      'http://[::ffff:7f00:1]/hook',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/hook',
      'http://169.254.169.254.nip.io.localhost/hook',
      'http://localhost./hook',
      'http://LOCALHOST/hook',
      'http://user@example.com/hook',
      'file:///etc/passwd',
      'gopher://example.com/',
      'http://example.com:22/',
    ])('refuses %s at save', async (url) => {
      const res = await run.http('POST', `/api/apps/${appA}/webhooks`, {
        token,
        body: { name: 'x', url, apis: ['orders'], events: ['inserted'] },
      });
      if (url === 'http://example.com:22/') {
        // A public name on any port is the builder's choice; only the address is guarded.
        expect([201, 400]).toContain(res.status);
        if (res.status === 201)
          await run.http('DELETE', `/api/apps/${appA}/webhooks/${res.body.id}`, { token });
        return;
      }
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).not.toMatch(/whsec_/);
    });
  });

  describe('cost budgets', () => {
    let small: string;
    beforeAll(async () => {
      small = await createAppKey(run, token, appA, 'attack small', { pointsPerMinute: 30 });
    });
    const asSmall = (body: unknown) => gql(addressA, body, { headers: { 'x-api-key': small } });

    it('charges every alias and every fragment spread', async () => {
      const aliases = Array.from(
        { length: 10 },
        (_, i) => `a${i}: getOrders(take: 1000) { id }`,
      ).join(' ');
      const res = await asSmall({ query: `{ ${aliases} }` });
      expect(res.status).toBe(429);
      const fragments = await asSmall({
        query:
          '{ ...F ...G } fragment F on Query { a: getOrders(take: 2000) { id } } fragment G on Query { b: getOrders(take: 2000) { id } }',
      });
      expect(fragments.status).toBe(429);
    });

    it('charges a take given in a variable and nested lists', async () => {
      const variable = await asSmall({
        query: 'query($t: Int) { getOrders(take: $t) { id } }',
        variables: { t: 100_000 },
      });
      expect([400, 429]).toContain(variable.status);
      const nested = await asSmall({
        query: '{ getCustomers(take: 100) { id orders(take: 1000) { id } } }',
      });
      expect([400, 429]).toContain(nested.status);
    });

    it('runs no batch of operations in one request', async () => {
      const batch = await asSmall([
        { query: '{ getOrders(take: 2000) { id } }' },
        { query: '{ getOrders(take: 2000) { id } }' },
      ]);
      expect(batch.status).toBe(400);
    });
  });

  describe('subscriptions', () => {
    const CHANGES = `subscription { onOrdersChanged { event key new { id customer_id status } old { id customer_id status } } }`;
    const listen = (params: Record<string, string>) => {
      const got: any[] = [];
      const errors: unknown[] = [];
      const client: Client = createClient({
        url: `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${addressA}`,
        webSocketImpl: WebSocket,
        connectionParams: params,
        retryAttempts: 0,
        lazy: true,
      });
      const dispose = client.subscribe(
        { query: CHANGES },
        {
          next: (v: any) => (v.data ? got.push(v.data.onOrdersChanged) : errors.push(v.errors)),
          error: (e) => errors.push(e),
          complete: () => undefined,
        },
      );
      return {
        got,
        errors,
        stop: async () => {
          dispose();
          await client.dispose();
        },
      };
    };
    const write = async (query: string) => {
      const res = await gql(addressA, { query }, { headers: { 'x-api-key': key } });
      expect(res.body.errors).toBeUndefined();
    };
    const until = async (check: () => boolean) => {
      const end = Date.now() + 20_000;
      while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      expect(check()).toBe(true);
    };

    it('refuses a subscribe sent before the acknowledgement', async () => {
      const socket = new WebSocket(
        `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${addressA}`,
        'graphql-transport-ws',
      );
      await new Promise((resolve) => socket.once('open', resolve));
      const closed = new Promise<number>((resolve) =>
        socket.once('close', (code) => resolve(code)),
      );
      const messages: string[] = [];
      socket.on('message', (m) => messages.push(String(m)));
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: CHANGES } }));
      expect(await closed).toBe(4401);
      expect(messages.join('')).not.toMatch(/"next"/);
    });

    it('keeps anonymous callers off a non-public API and off columns a public API leaves out', async () => {
      await publishTableApis(run, token, appA, [
        {
          name: 'people',
          table: 'customers',
          actions: { select: true, insert: false, update: false, delete: false },
          fields: { id: true, name: true },
          public: { select: true },
        },
      ]);
      const open = async (query: string, variables: Record<string, unknown> = {}) => {
        const got: unknown[] = [];
        const errors: unknown[] = [];
        const client = createClient({
          url: `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${addressA}`,
          webSocketImpl: WebSocket,
          connectionParams: {},
          retryAttempts: 0,
          lazy: true,
        });
        let done = false;
        client.subscribe(
          { query, variables },
          {
            next: (v: any) => (v.errors ? errors.push(...v.errors) : got.push(v.data)),
            error: (e) => {
              errors.push(e);
              done = true;
            },
            complete: () => (done = true),
          },
        );
        await until(() => done || errors.length > 0);
        await client.dispose();
        return { got, errors: JSON.stringify(errors) };
      };
      const orders = await open(CHANGES);
      expect(orders.got).toEqual([]);
      expect(orders.errors).toMatch(/onOrdersChanged|Invalid API key|Cannot query field/);
      const hidden = await open(
        'subscription($w: PeopleFilter) { onPeopleChanged(where: $w) { key } }',
        { w: { email: { eq: 'ana@example.com' } } },
      );
      expect(hidden.got).toEqual([]);
      expect(hidden.errors).toMatch(/email/);
    });

    // Was a hole: a subscription kept the row rule bound to the app user's attributes and roles
    // as they were at `subscribe`. Now any change of the user (AppUserChanged) closes their
    // connections with 4403 before the PATCH is answered; they connect again under the new rule.
    it("stops sending rows an app user's changed attributes no longer admit", async () => {
      const ana = listen({ authorization: `Bearer ${users.ana.token}` });
      const builder = listen({ authorization: `Bearer ${token}` });
      await new Promise((r) => setTimeout(r, 500));
      const moved = await run.http('PATCH', `/api/apps/${appA}/users/${users.ana.id}`, {
        token,
        body: { attributes: { customer: 3 } },
      });
      expect(moved.status).toBe(200);
      try {
        // Over HTTP Ana now reads customer 3's orders.
        const now = await gql(addressA, { query: '{ countOrders }' }, { token: users.ana.token });
        expect(now.body.data.countOrders).toBe(ordersOf(3));
        // Order 6 is customer 1's, order 8 customer 3's.
        await write('mutation { updateOrders(id: 6, status: "MOVED1") { id } }');
        await write('mutation { updateOrders(id: 8, status: "MOVED3") { id } }');
        await until(() => builder.got.filter((c) => /MOVED/.test(c.new?.status)).length >= 2);
        await new Promise((r) => setTimeout(r, 300));
        expect(ana.got.map((c) => Number(c.key.id))).not.toContain(6);
      } finally {
        await run.http('PATCH', `/api/apps/${appA}/users/${users.ana.id}`, {
          token,
          body: { attributes: { customer: 1 } },
        });
        await Promise.all([ana.stop(), builder.stop()]);
      }
    });

    // The same for roles: Bruno's roles taken away (PATCH …/users/:id {roles: []}).
    it('stops sending rows once an app user has lost the role that admitted them', async () => {
      const bruno = listen({ authorization: `Bearer ${users.bruno.token}` });
      const builder = listen({ authorization: `Bearer ${token}` });
      await new Promise((r) => setTimeout(r, 500));
      const stripped = await run.http('PATCH', `/api/apps/${appA}/users/${users.bruno.id}`, {
        token,
        body: { roles: [] },
      });
      expect(stripped.status).toBe(200);
      try {
        const now = await gql(addressA, { query: '{ countOrders }' }, { token: users.bruno.token });
        expect(now.body.data.countOrders).toBe(0);
        // Order 7 is customer 2's (Bruno's).
        await write('mutation { updateOrders(id: 7, status: "ROLELESS") { id } }');
        await until(() => builder.got.some((c) => c.new?.status === 'ROLELESS'));
        await new Promise((r) => setTimeout(r, 300));
        expect(bruno.got.map((c) => Number(c.key.id))).not.toContain(7);
      } finally {
        await run.http('PATCH', `/api/apps/${appA}/users/${users.bruno.id}`, {
          token,
          body: { roles: ['clerk'] },
        });
        await Promise.all([bruno.stop(), builder.stop()]);
      }
    });

    it('ignores a view-as header in connection_init and keeps hidden rows out, deletes included', async () => {
      const bruno = listen({ authorization: `Bearer ${users.bruno.token}` });
      const viewing = listen({ authorization: `Bearer ${token}`, 'x-view-as-user': users.ana.id });
      const builder = listen({ authorization: `Bearer ${token}` });
      // Wait until both are open: a first change both must see arrives to the builder.
      await new Promise((r) => setTimeout(r, 500));
      // Order 1 is customer 1's (hidden from bruno); order 2 is bruno's.
      await write('mutation { updateOrders(id: 1, status: "HIDDEN") { id } }');
      await write(
        'mutation { addOrders(id: 990, customer_id: 1, status: "NEW", total: "1.00", placed_at: "2024-01-01T00:00:00Z") { id } }',
      );
      await write('mutation { deleteOrders(id: 990) }');
      await write('mutation { updateOrders(id: 2, status: "SEEN") { id } }');
      await until(() => bruno.got.length >= 1 && builder.got.length >= 4);
      await new Promise((r) => setTimeout(r, 300));
      expect(bruno.got.map((c) => Number(c.key.id))).toEqual([2]);
      // The builder's view-as header is ignored on the socket: they subscribe as a builder.
      expect(viewing.got.length).toBe(builder.got.length);
      await Promise.all([bruno.stop(), viewing.stop(), builder.stop()]);
    });
  });
});
