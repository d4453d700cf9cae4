import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { createAppKey, publishTableApis } from '../support/table-apis';
import { verifiedEvents, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Issue 28 item 1 (README "Webhooks", "Which writes send events"): a webhook naming a
 * mutation-kind SQL API receives one `<SQL API>.executed` event per committed call, with the
 * caller's arguments, the database's `affected` count and the rows the statement returned,
 * signed (verified with the Standard Webhooks reference library), in the order the calls
 * committed; a rolled-back call sends nothing; a webhook on the Table API of the table the
 * statement writes receives no row event of it (the statement is opaque). Saving refuses a
 * webhook that would receive nothing from an API it names. On PostgreSQL.
 */

interface CallData {
  api: string;
  arguments: Record<string, unknown>;
  affected: number;
  rows: Record<string, unknown>[];
  rowsReturned: number;
  origin: string;
  actor: { kind: string; id: string | null };
}

const postgres = SALES_DIALECTS.find((d) => d.type === 'postgres')!;

postgres.describe('webhooks on SQL API mutations (issue 28 item 1)', () => {
  let run: RunningApp;
  let token: string;
  let db: SalesDatabase;
  let appId: string;
  let datasourceId: string;
  let key: string;
  let secret: string;
  let tableSecret: string;
  const ids: Record<string, string> = {};
  const sqlReceiver = new WebhookReceiver();
  const tableReceiver = new WebhookReceiver();
  const address = 'webhooks-sql-apis';

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await run.http('POST', `/api/graphql/${address}`, {
      body: { query, variables },
      headers: { 'x-api-key': key },
    });
    expect(res.status).toBe(200);
    return res.body as { data: Record<string, unknown> | null; errors?: { message: string }[] };
  };

  /** Saves an SQL API, confirms the given arguments and columns, publishes it. */
  const publishSql = async (
    body: Record<string, unknown>,
    confirm: Record<string, Record<string, unknown>> = {},
  ): Promise<string> => {
    const saved = await run.http('POST', `/api/apps/${appId}/sql-apis`, {
      token,
      body: { datasourceId, ...body },
    });
    expect(saved.status).toBe(201);
    const id = saved.body.id as string;
    for (const [path, change] of Object.entries(confirm)) {
      const res = await run.http('PATCH', `/api/apps/${appId}/sql-apis/${id}/${path}`, {
        token,
        body: change,
      });
      expect(res.status).toBe(200);
    }
    const published = await run.http('POST', `/api/apps/${appId}/sql-apis/${id}/publish`, {
      token,
    });
    expect(published.status).toBe(200);
    ids[body.name as string] = id;
    return id;
  };

  const createWebhook = (body: Record<string, unknown>) =>
    run.http('POST', `/api/apps/${appId}/webhooks`, { token, body: { name: 'hook', ...body } });

  beforeAll(async () => {
    await sqlReceiver.start();
    await tableReceiver.start();
    run = await startApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' } });
    token = await run.adminToken();
    db = await postgres.create(run.dataDir);
    appId = (await run.http('POST', '/api/apps', { token, body: { name: 'SqlHooks', address } }))
      .body.id as string;
    datasourceId = await registerSalesDatabase(run, token, appId, 'postgres', db);
    [ids.customers] = await publishTableApis(run, token, appId, [
      {
        name: 'customers',
        table: 'customers',
        actions: { select: true, insert: true, update: true, delete: true },
        fields: { id: true, name: true, city: true },
      },
    ]);
    await publishSql(
      {
        name: 'moveCustomer',
        kind: 'mutation',
        statement: 'UPDATE customers SET city = :city WHERE id = :id RETURNING id, city',
      },
      {
        'arguments/id': { kind: 'int' },
        'arguments/city': { kind: 'text', nullable: true },
        'columns/id': { kind: 'int', nullable: false },
        'columns/city': { kind: 'text', nullable: true },
      },
    );
    await publishSql(
      {
        name: 'shipOn',
        kind: 'mutation',
        statement: 'UPDATE orders SET ship_date = :day WHERE id = :id',
      },
      { 'arguments/day': { kind: 'date' }, 'arguments/id': { kind: 'int' } },
    );
    await publishSql(
      { name: 'cityList', kind: 'query', statement: 'SELECT id, city FROM customers' },
      { 'columns/id': { kind: 'int' }, 'columns/city': { kind: 'text' } },
    );
    expect((await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
      200,
    );
    key = await createAppKey(run, token, appId, 'sql-hooks', {
      rateLimitPerMinute: 100_000,
      pointsPerMinute: 10_000_000,
    });
  }, 90_000);

  afterAll(async () => {
    await run?.close();
    await db?.cleanup();
    await sqlReceiver.stop();
    await tableReceiver.stop();
  });

  it('refuses a webhook that would receive nothing from an API it names, saying what to change', async () => {
    const rowEventsOnly = await createWebhook({
      url: sqlReceiver.url(),
      apis: [ids.moveCustomer],
      events: ['inserted', 'updated'],
    });
    expect(rowEventsOnly.status).toBe(400);
    expect(rowEventsOnly.body.message).toContain(
      'SQL API moveCustomer sends executed only: add it to events',
    );
    const query = await createWebhook({
      url: sqlReceiver.url(),
      apis: [ids.cityList],
      events: ['executed'],
    });
    expect(query.status).toBe(400);
    expect(query.body.message).toContain('SQL API cityList is a query kind and writes nothing');
    const tableWithoutRowEvent = await createWebhook({
      url: sqlReceiver.url(),
      apis: [ids.customers],
      events: ['executed'],
    });
    expect(tableWithoutRowEvent.status).toBe(400);
    expect(tableWithoutRowEvent.body.message).toContain(
      'Table API customers sends inserted, updated or deleted',
    );
    const unknownEvent = await createWebhook({
      url: sqlReceiver.url(),
      apis: [ids.moveCustomer],
      events: ['called'],
    });
    expect(unknownEvent.status).toBe(400);
  });

  it('delivers one signed executed event per committed call, in order, with arguments, affected and returned rows', async () => {
    const created = await createWebhook({
      url: sqlReceiver.url('/sql?source=tablegraph'),
      apis: [ids.moveCustomer, ids.shipOn],
      events: ['executed'],
    });
    expect(created.status).toBe(201);
    secret = created.body.secret as string;
    const onTable = await createWebhook({
      url: tableReceiver.url(),
      apis: [ids.customers],
      events: ['inserted', 'updated', 'deleted'],
    });
    expect(onTable.status).toBe(201);
    tableSecret = onTable.body.secret as string;
    // Fires only from main: a call before the version is published sends nothing.
    expect((await gql('mutation { moveCustomer(id: 1, city: "Draft") { affected } }')).errors).toBe(
      undefined,
    );
    expect((await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
      200,
    );

    const moved = await gql(
      'mutation Move($id: Int!, $city: String) { moveCustomer(id: $id, city: $city) { affected rows { id city } } }',
      { id: 1, city: 'Évora' },
    );
    expect(moved.data).toEqual({
      moveCustomer: { affected: 1, rows: [{ id: 1, city: 'Évora' }] },
    });
    // An alias, a null argument, and a call that matches no row (affected 0: still a call).
    await gql(`mutation {
      second: moveCustomer(id: 1, city: null) { affected }
      none: moveCustomer(id: 99999, city: "Nowhere") { affected }
    }`);
    await gql('mutation { shipOn(id: 2, day: "2024-05-01") { affected } }');
    await sqlReceiver.waitFor(4);
    await new Promise((r) => setTimeout(r, 1_000));
    const events = verifiedEvents<CallData>(sqlReceiver.got, secret);
    expect(events).toHaveLength(4);
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    const moves = events.filter((e) => e.type === 'moveCustomer.executed');
    expect(moves.map((e) => e.data.arguments)).toEqual([
      { id: 1, city: 'Évora' },
      { id: 1, city: null },
      { id: 99999, city: 'Nowhere' },
    ]);
    expect(moves[0].data).toEqual({
      api: 'moveCustomer',
      arguments: { id: 1, city: 'Évora' },
      affected: 1,
      rows: [{ id: 1, city: 'Évora' }],
      rowsReturned: 1,
      origin: 'graphql',
      actor: { kind: 'key', id: expect.any(String) },
    });
    expect(moves[1].data.rows).toEqual([{ id: 1, city: null }]);
    expect(moves[2].data).toMatchObject({ affected: 0, rows: [], rowsReturned: 0 });
    const shipped = events.find((e) => e.type === 'shipOn.executed')!;
    expect(shipped.data).toMatchObject({
      api: 'shipOn',
      arguments: { id: 2, day: '2024-05-01' },
      affected: 1,
      rows: [],
    });
    // The statement is opaque: the Table API's webhook receives no row event of it.
    expect(tableReceiver.got).toHaveLength(0);
    // A Table API write still reaches the Table API's webhook (and not the SQL API's).
    await gql('mutation { updateCustomers(id: 1, city: "Faro") { id } }');
    await tableReceiver.waitFor(1);
    expect(verifiedEvents(tableReceiver.got, tableSecret).map((e) => e.type)).toEqual([
      'customers.updated',
    ]);
    expect(sqlReceiver.got).toHaveLength(4);
    const log = await run.http('GET', `/api/apps/${appId}/webhooks/${created.body.id}/deliveries`, {
      token,
    });
    expect((log.body as { type: string; status: string }[]).map((d) => [d.type, d.status])).toEqual(
      [
        ['shipOn.executed', 'delivered'],
        ['moveCustomer.executed', 'delivered'],
        ['moveCustomer.executed', 'delivered'],
        ['moveCustomer.executed', 'delivered'],
      ],
    );
  }, 60_000);

  it('a call whose request rolls back sends nothing', async () => {
    const before = sqlReceiver.got.length;
    const res = await gql(`mutation {
      moveCustomer(id: 2, city: "Rolled back") { affected }
      addCustomers(id: 1, name: "Twin", email: "twin@x.pt") { id }
    }`);
    expect(JSON.stringify(res)).toContain('UNIQUE_VIOLATION');
    expect(res.data).toEqual({ moveCustomer: null, addCustomers: null });
    // The next committed call is delivered, and nothing arrived before it.
    await gql('mutation { moveCustomer(id: 2, city: "Committed") { affected } }');
    await sqlReceiver.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 1_000));
    const events = verifiedEvents<CallData>(sqlReceiver.got.slice(before), secret);
    expect(events.map((e) => e.data.arguments.city)).toEqual(['Committed']);
  }, 30_000);
});
