import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RunningApp, startApp } from '../support/app-harness';
import {
  loadLibraryIntoMysql,
  loadLibraryIntoPostgres,
  loadLibraryIntoSqlite,
} from '../support/library-fixture';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { placeSqliteFile } from '../support/sqlite-placement';
import { describeWith } from '../support/services';

/**
 * The MCP endpoint per app (issue 28 item 3) through the official SDK's own client
 * (`StreamableHTTPClientTransport`) against the service over HTTP, on PostgreSQL, MariaDB and
 * SQLite, with keys scoped to some of the app's APIs.
 */
interface DialectCase {
  type: 'postgres' | 'sqlite' | 'mysql';
  describe: jest.Describe;
  setup(dataDir: string): Promise<{ url: string; tables: string[]; cleanup(): Promise<void> }>;
}

const CASES: DialectCase[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async setup() {
      const db = await createPgDatabase('tg_mcp');
      await loadLibraryIntoPostgres(db);
      return {
        url: db.url,
        tables: ['public.countries', 'public.authors', 'public.books'],
        cleanup: () => db.drop(),
      };
    },
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async setup() {
      const db = await createMysqlDatabase('tg_mcp');
      await loadLibraryIntoMysql(db);
      return { url: db.url, tables: ['countries', 'authors', 'books'], cleanup: () => db.drop() };
    },
  },
  {
    type: 'sqlite',
    describe,
    async setup(dataDir) {
      return {
        url: loadLibraryIntoSqlite(dataDir),
        tables: ['countries', 'authors', 'books'],
        cleanup: async () => undefined,
      };
    },
  },
];

const ALL = { select: true, insert: true, update: true, delete: true, aggregate: true };

/** A tool error's `{code, message, field?}` (the text of an `isError` result). */
function errorOf(result: Awaited<ReturnType<Client['callTool']>>): {
  code: string;
  message: string;
  field?: string;
} {
  expect(result.isError).toBe(true);
  // No structuredContent on an error: 1.x clients validate it against the outputSchema
  // (typescript-sdk #2748) and would throw instead of showing the error.
  expect(result.structuredContent).toBeUndefined();
  const text = (result.content as { type: string; text: string }[])[0].text;
  return (JSON.parse(text) as { error: { code: string; message: string; field?: string } }).error;
}

/**
 * The JSON-RPC message of a raw answer: the stateless fallback for 2025-era requests answers one
 * SSE `message` event when the client accepts `text/event-stream`, else JSON.
 */
function messageOf(body: unknown): any {
  if (typeof body !== 'string') return body;
  const data = body.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice('data: '.length));
}

for (const dialect of CASES) {
  dialect.describe(`MCP endpoint through the SDK client on ${dialect.type}`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let token: string;
    let appId: string;
    /** Scoped to books and authors; no deletes. */
    let key: string;
    /** The same scope, with `mcpDeletes`. */
    let deletingKey: string;
    /** Scoped to another app only. */
    let otherAppKey: string;
    const address = `mcp-${dialect.type}`;
    const clients: Client[] = [];

    /** A connected SDK client with `headers` on every request. */
    const connect = async (headers: Record<string, string>): Promise<Client> => {
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(
        new URL(`${run.baseUrl}/api/mcp/${address}`),
        { requestInit: { headers } },
      );
      clients.push(client);
      await client.connect(transport);
      return client;
    };
    const newKey = async (body: Record<string, unknown>): Promise<string> => {
      const res = await run.http('POST', '/api/admin/api-keys', { token, body });
      expect(res.status).toBe(201);
      return res.body.key as string;
    };

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.setup(run.dataDir);
      cleanup = db.cleanup;
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Mcp', address } })).body
        .id;
      const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: {
          name: 'library',
          type: dialect.type,
          url: placeSqliteFile(run.dataDir, appId, db.url),
        },
      });
      expect(ds.status).toBe(201);
      const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId: ds.body.id, tables: db.tables },
      });
      expect(imported.status).toBe(201);
      const ids: Record<string, string> = {};
      const apis = [
        // `price` and `copies` are left out of the books API: no caller may filter on them.
        {
          name: 'books',
          table: 'books',
          actions: ALL,
          fields: {
            id: true,
            author_id: true,
            title: true,
            status: true,
            pages: true,
            author: { id: true, name: true },
          },
        },
        { name: 'authors', table: 'authors', actions: { ...ALL, delete: false } },
        { name: 'countries', table: 'countries', actions: ALL },
      ];
      for (const spec of apis) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, { token, body: spec });
        expect(api.status).toBe(201);
        ids[spec.name] = api.body.id;
        const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
          token,
        });
        expect(published.status).toBe(200);
      }
      // A draft API in the working version only: never seen through a key.
      const draft = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: { name: 'draftBooks', table: 'books', actions: ALL },
      });
      expect(draft.status).toBe(201);
      // Keys see no author named Hidden (CONTRACT.md §4 api_key role).
      const rule = await run.http('PUT', `/api/apps/${appId}/permissions/api_key`, {
        token,
        body: { tables: { authors: { where: { name: { neq: 'Hidden' } } } } },
      });
      expect(rule.status).toBe(200);
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
      const scope = [{ appId, endpoints: [ids.books, ids.authors] }];
      key = await newKey({ name: 'mcp', scope });
      deletingKey = await newKey({ name: 'mcp deletes', scope, mcpDeletes: true });
      const other = await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Other', address: `${address}-other` },
      });
      otherAppKey = await newKey({
        name: 'other',
        scope: [{ appId: other.body.id, endpoints: 'all' }],
      });
    });

    afterAll(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      await run?.close();
      await cleanup?.();
    });

    it('lists the seven tools in a fixed order, with annotations and an outputSchema from the row types', async () => {
      const client = await connect({ 'x-api-key': key });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'describe_apis',
        'get_rows',
        'count_rows',
        'aggregate_rows',
        'add_row',
        'update_row',
        'delete_row',
      ]);
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.get_rows.annotations).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
      });
      expect(byName.delete_row.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.add_row.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
      expect((byName.get_rows.inputSchema as any).properties.take).toMatchObject({ maximum: 500 });
      expect((byName.get_rows.inputSchema as any).required).toEqual(['api']);
      const rows = (byName.get_rows.outputSchema as any).properties.rows.items.anyOf;
      const books = rows.find((r: any) => r.title === 'books');
      expect(books.properties.pages).toEqual({ type: ['integer', 'null'] });
      expect(books.properties.title).toEqual({ type: 'string' });
      expect(books.properties.price).toBeUndefined();
      // Only the key's APIs: not countries (outside the scope), not the draft.
      expect(rows.map((r: any) => r.title).sort()).toEqual(['authors', 'books']);
    });

    it('describe_apis gives the key its APIs, fields, filters and tools', async () => {
      const client = await connect({ 'x-api-key': key });
      const result = await client.callTool({ name: 'describe_apis', arguments: {} });
      expect(result.isError).toBeFalsy();
      const apis = (result.structuredContent as any).apis;
      expect(apis.map((a: any) => a.name)).toEqual(['books', 'authors']);
      const books = apis[0];
      expect(books.key).toEqual(['id']);
      expect(books.tools).toEqual([
        'get_rows',
        'count_rows',
        'aggregate_rows',
        'add_row',
        'update_row',
      ]);
      const title = books.fields.find((f: any) => f.name === 'title');
      expect(title).toMatchObject({ type: 'String!', nullable: false, orderable: true });
      expect(title.filters).toEqual(expect.arrayContaining(['eq', 'contains', 'in']));
      expect(books.fields.map((f: any) => f.name)).not.toContain('price');
      expect(apis[1].tools).not.toContain('delete_row');
      const listed = await run.http('GET', '/api/admin/api-keys', { token });
      const switches = Object.fromEntries(
        listed.body.map((k: { name: string; mcpDeletes: boolean }) => [k.name, k.mcpDeletes]),
      );
      expect(switches).toMatchObject({ mcp: false, 'mcp deletes': true });
      const deleting = await connect({ 'x-api-key': deletingKey });
      const allowed = await deleting.callTool({
        name: 'describe_apis',
        arguments: { apis: ['books'] },
      });
      expect((allowed.structuredContent as any).apis[0].tools).toContain('delete_row');
    });

    it('get_rows, count_rows and aggregate_rows take the where/order language as JSON', async () => {
      const client = await connect({ 'x-api-key': key });
      const added = await client.callTool({
        name: 'add_row',
        arguments: {
          api: 'books',
          values: { author_id: 1, title: 'Memorias Postumas', pages: 200 },
        },
      });
      expect(added.isError).toBeFalsy();
      const row = (added.structuredContent as any).row;
      expect(row).toMatchObject({ title: 'Memorias Postumas', pages: 200, status: 'DRAFT' });

      const read = await client.callTool({
        name: 'get_rows',
        arguments: {
          api: 'books',
          where: { or: [{ title: { contains: 'dom' } }, { pages: { gte: 100 } }] },
          order: [{ title: 'DESC' }],
          fields: ['id', 'title'],
        },
      });
      expect(read.isError).toBeFalsy();
      // The key's cost report, as GraphQL's extensions.cost (README "Cost budgets").
      expect((read._meta as any)?.cost).toMatchObject({ limit: expect.any(Number) });
      expect((read.structuredContent as any).rows).toEqual([
        { id: String(row.id), title: 'Memorias Postumas' },
        { id: expect.any(String), title: 'Dom Casmurro' },
      ]);
      const page = await client.callTool({
        name: 'get_rows',
        arguments: { api: 'books', order: [{ id: 'ASC' }], take: 1, fields: ['title'] },
      });
      expect(page.structuredContent).toEqual({
        api: 'books',
        rows: [{ title: 'Dom Casmurro' }],
        nextSkip: 1,
      });

      // include reads through a navigation in the same request (one statement per level).
      const withAuthor = await client.callTool({
        name: 'get_rows',
        arguments: {
          api: 'books',
          where: { title: { eq: 'Dom Casmurro' } },
          fields: ['title'],
          include: { author: ['name'] },
        },
      });
      expect(withAuthor.structuredContent).toEqual({
        api: 'books',
        rows: [{ title: 'Dom Casmurro', author: { name: 'Machado' } }],
      });

      const count = await client.callTool({
        name: 'count_rows',
        arguments: { api: 'books', where: { status: { eq: 'DRAFT' } } },
      });
      expect(count.structuredContent).toEqual({ api: 'books', count: 1 });

      const groups = await client.callTool({
        name: 'aggregate_rows',
        arguments: {
          api: 'books',
          groupBy: ['status'],
          sum: ['pages'],
          order: [{ key: { status: 'ASC' } }],
        },
      });
      expect(groups.isError).toBeFalsy();
      expect((groups.structuredContent as any).groups).toEqual([
        { key: { status: 'DRAFT' }, count: 1, sum: { pages: expect.anything() } },
        { key: { status: 'PUBLISHED' }, count: 1, sum: { pages: null } },
      ]);
      expect(Number((groups.structuredContent as any).groups[0].sum.pages)).toBe(200);
    });

    it('update_row changes the columns sent; delete_row is refused without mcpDeletes and allowed with it', async () => {
      const client = await connect({ 'x-api-key': key });
      const added = await client.callTool({
        name: 'add_row',
        arguments: { api: 'books', values: { author_id: 1, title: 'Quincas Borba' } },
      });
      const id = (added.structuredContent as any).row.id as string;
      const updated = await client.callTool({
        name: 'update_row',
        arguments: { api: 'books', key: { id }, set: { pages: 321 } },
      });
      expect((updated.structuredContent as any).row).toMatchObject({
        id,
        title: 'Quincas Borba',
        pages: 321,
      });

      const refused = errorOf(
        await client.callTool({ name: 'delete_row', arguments: { api: 'books', key: { id } } }),
      );
      expect(refused.code).toBe('FORBIDDEN');
      expect(refused.message).toMatch(/mcpDeletes/);

      const deleting = await connect({ 'x-api-key': deletingKey });
      const deleted = await deleting.callTool({
        name: 'delete_row',
        arguments: { api: 'books', key: { id } },
      });
      expect(deleted.structuredContent).toEqual({ api: 'books', deleted: true });
      const again = await deleting.callTool({
        name: 'delete_row',
        arguments: { api: 'books', key: { id } },
      });
      expect(again.structuredContent).toEqual({ api: 'books', deleted: false });
      // authors offers no delete action: refused even with the switch.
      const noAction = errorOf(
        await deleting.callTool({
          name: 'delete_row',
          arguments: { api: 'authors', key: { id: '1' } },
        }),
      );
      expect(noAction.code).toBe('FORBIDDEN');
    });

    it('answers our error codes and messages, never SQL: unknown column, API out of scope, a database refusal', async () => {
      const client = await connect({ 'x-api-key': key });
      const hidden = errorOf(
        await client.callTool({
          name: 'get_rows',
          arguments: { api: 'books', where: { price: { gt: 1 } } },
        }),
      );
      expect(hidden.code).toBe('BAD_USER_INPUT');
      expect(hidden.message).toMatch(/"price" is not defined by type "BooksFilter"/);

      const outside = errorOf(
        await client.callTool({ name: 'get_rows', arguments: { api: 'countries' } }),
      );
      expect(outside).toMatchObject({ code: 'NOT_FOUND' });
      expect(outside.message).toMatch(/No API named countries/);

      const badField = errorOf(
        await client.callTool({
          name: 'get_rows',
          arguments: { api: 'books', fields: ['title } x { y'] },
        }),
      );
      expect(badField.code).toBe('BAD_USER_INPUT');

      // Arguments are checked before anything runs, and answered as our tool errors.
      const tooLarge = errorOf(
        await client.callTool({ name: 'get_rows', arguments: { api: 'books', take: 501 } }),
      );
      expect(tooLarge.code).toBe('BAD_USER_INPUT');
      expect(tooLarge.message).toMatch(/get_rows[\s\S]*500[\s\S]*take/);

      // A filter nested deeper than variables may be (256 levels) is refused before any SQL.
      let deep: Record<string, unknown> = { title: { eq: 'x' } };
      for (let i = 0; i < 300; i++) deep = { and: [deep] };
      const tooDeep = errorOf(
        await client.callTool({ name: 'count_rows', arguments: { api: 'books', where: deep } }),
      );
      expect(tooDeep.code).toBe('BAD_USER_INPUT');
      expect(tooDeep.message).toMatch(/256/);

      // The GraphQL limits hold: 1,001 items in one `in` list (LIMIT_IN_LIST 1,000).
      const many = Array.from({ length: 1001 }, (_, i) => String(i + 1));
      const tooMany = errorOf(
        await client.callTool({
          name: 'count_rows',
          arguments: { api: 'books', where: { id: { in: many } } },
        }),
      );
      expect(tooMany.code).toBe('BAD_USER_INPUT');
      expect(tooMany.message).toMatch(/1,?000/);

      const duplicate = errorOf(
        await client.callTool({
          name: 'add_row',
          arguments: { api: 'authors', values: { name: 'Twin', email: 'machado@example.com' } },
        }),
      );
      expect(duplicate.code).toBe('UNIQUE_VIOLATION');
      expect(duplicate.message).not.toMatch(/\b(INSERT|SELECT|FROM)\b|stack/);
    });

    it('applies the api_key row rule exactly as GraphQL does', async () => {
      const added = await run.http('POST', `/api/graphql/${address}`, {
        token,
        body: {
          query: 'mutation { addAuthors(name: "Hidden", email: "hidden@example.com") { id } }',
        },
      });
      expect(added.body.errors).toBeUndefined();
      const id = added.body.data.addAuthors.id as string;
      const client = await connect({ 'x-api-key': key });
      const rows = await client.callTool({
        name: 'get_rows',
        arguments: { api: 'authors', fields: ['name'] },
      });
      expect((rows.structuredContent as any).rows.map((r: any) => r.name)).not.toContain('Hidden');
      const count = await client.callTool({
        name: 'count_rows',
        arguments: { api: 'authors', where: { id: { eq: id } } },
      });
      expect(count.structuredContent).toEqual({ api: 'authors', count: 0 });
      const updated = await client.callTool({
        name: 'update_row',
        arguments: { api: 'authors', key: { id }, set: { name: 'Found' } },
      });
      expect(updated.structuredContent).toEqual({ api: 'authors', row: null });
      const graphql = await run.http('POST', `/api/graphql/${address}`, {
        headers: { 'x-api-key': key },
        body: { query: `{ countAuthors(where: { id: { eq: "${id}" } }) }` },
      });
      expect(graphql.body.data).toEqual({ countAuthors: 0 });
    });

    it('refuses a key scoped to another app, a missing key, a bearer token, a key in the URL and a hostile Origin', async () => {
      await expect(connect({ 'x-api-key': otherAppKey })).rejects.toThrow(
        /403|API key not authorised for this project/,
      );
      await expect(connect({})).rejects.toThrow(/401|Invalid API key/);
      await expect(connect({ authorization: `Bearer ${token}` })).rejects.toThrow(
        /401|Invalid API key/,
      );
      await expect(connect({ 'x-api-key': key, origin: 'http://evil.example' })).rejects.toThrow(
        /403|Origin not allowed/,
      );
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const hostile = await run.http('POST', `/api/mcp/${address}`, {
        body,
        headers: {
          'x-api-key': key,
          origin: 'null',
          accept: 'application/json, text/event-stream',
        },
      });
      expect(hostile.status).toBe(403);
      const inUrl = await run.http('POST', `/api/mcp/${address}?api_key=${key}`, { body });
      expect(inUrl.status).toBe(400);
      expect(JSON.stringify(inUrl.body)).not.toContain(key);
      const get = await run.http('GET', `/api/mcp/${address}`, { headers: { 'x-api-key': key } });
      expect(get.status).toBe(405);
    });

    it('charges the key cost budget shared with GraphQL, by the same formula', async () => {
      const budgeted = await newKey({
        name: 'budgeted',
        scope: [{ appId, endpoints: 'all' }],
        pointsPerMinute: 5,
      });
      const client = await connect({ 'x-api-key': budgeted });
      // A write costs 10 points and more (README "Cost budgets"): over a budget of 5, refused unrun.
      const write = await client.callTool({
        name: 'add_row',
        arguments: { api: 'books', values: { author_id: 1, title: 'Too dear' } },
      });
      expect(errorOf(write)).toMatchObject({
        code: 'RATE_LIMITED',
        message: 'Cost budget exceeded',
      });
      const refusedCost = (write._meta as any).cost;
      expect(refusedCost).toMatchObject({ actual: null, limit: 5 });
      expect(refusedCost.requested).toBeGreaterThan(5);
      const read = await client.callTool({ name: 'count_rows', arguments: { api: 'books' } });
      const mcpCost = (read._meta as any).cost;
      expect(mcpCost).toMatchObject({ limit: 5 });
      const graphql = await run.http('POST', `/api/graphql/${address}`, {
        body: { query: '{ countBooks }' },
        headers: { 'x-api-key': budgeted },
      });
      // The same window: GraphQL starts from what the MCP call left.
      const graphqlCost = graphql.body.extensions.cost;
      expect(graphqlCost.remaining).toBe(mcpCost.remaining - graphqlCost.actual);
      const none = await run.http('POST', `/api/graphql/${address}`, {
        body: { query: 'mutation { addBooks(author_id: 1, title: "Too dear") { id } }' },
        headers: { 'x-api-key': budgeted },
      });
      expect(none.status).toBe(429);
    });

    it('shares the key rate limit with GraphQL', async () => {
      const limited = await newKey({
        name: 'limited',
        scope: [{ appId, endpoints: 'all' }],
        rateLimitPerMinute: 3,
      });
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const headers = { 'x-api-key': limited, accept: 'application/json, text/event-stream' };
      for (let i = 0; i < 2; i++) {
        const res = await run.http('POST', `/api/mcp/${address}`, { body: message, headers });
        expect(res.status).toBe(200);
        expect(messageOf(res.body).result.tools).toHaveLength(7);
      }
      const graphql = await run.http('POST', `/api/graphql/${address}`, {
        body: { query: '{ countBooks }' },
        headers: { 'x-api-key': limited },
      });
      expect(graphql.status).toBe(200);
      const over = await run.http('POST', `/api/mcp/${address}`, { body: message, headers });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.body.error.message).toBe('Rate limit exceeded');
      const graphqlOver = await run.http('POST', `/api/graphql/${address}`, {
        body: { query: '{ countBooks }' },
        headers: { 'x-api-key': limited },
      });
      expect(graphqlOver.status).toBe(429);
    });
  });
}
