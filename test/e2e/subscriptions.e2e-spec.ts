import { type Client, createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { CLOSE_LONG_LIVED } from '../../src/graceful-shutdown';
import { ChangeFeedService } from '../../src/subscriptions/change-feed.service';
import { MAX_PER_CONNECTION, MAX_PER_KEY } from '../../src/subscriptions/subscriptions-server';
import { RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';
import { describeWith, SERVICE_URLS } from '../support/services';
import { createAppKey, publishTableApis } from '../support/table-apis';

/**
 * Issue 28 item 2 (README "Subscriptions"): `on<Base>Changed(where, events)` over graphql-ws on
 * the app's endpoint, through the graphql-ws client as applications use it (variables, one
 * WebSocket per client). Inserts, updates and deletes made over HTTP arrive; `where` and
 * `events` filter; an app user whose row rule hides rows receives none of their events, deletes
 * included; credentials travel in `connection_init` (a bad key, or a key of another app, closes
 * the socket 4403); queries are refused on the socket. On two instances sharing PostgreSQL and
 * Redis, a write through A reaches a subscriber on B, and a key's open subscriptions are counted
 * across both.
 */

const postgres = SALES_DIALECTS.find((d) => d.type === 'postgres')!;
const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

const CHANGES = `subscription Changes($where: CustomersFilter, $events: [ChangeEvent!]) {
  onCustomersChanged(where: $where, events: $events) {
    event
    key
    old { id name city }
    new { id name city }
  }
}`;

interface Change {
  event: 'INSERTED' | 'UPDATED' | 'DELETED';
  key: { id: number };
  old: { id: string; name: string; city: string | null } | null;
  new: { id: string; name: string; city: string | null } | null;
}

/** One subscription through a graphql-ws client: what arrived, and how it ended. */
class Listener {
  readonly got: Change[] = [];
  errors: unknown[] = [];
  closedWith: { code: number; reason: string } | null = null;
  completed = false;
  readonly client: Client;
  private dispose: () => void = () => undefined;

  constructor(
    baseUrl: string,
    address: string,
    connectionParams: Record<string, string>,
    private readonly variables: Record<string, unknown> = {},
    private readonly query = CHANGES,
  ) {
    this.client = createClient({
      url: `${baseUrl.replace(/^http/, 'ws')}/api/graphql/${address}`,
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: true,
    });
    this.client.on('closed', (event) => {
      const e = event as { code: number; reason: string };
      this.closedWith = { code: e.code, reason: String(e.reason) };
    });
  }

  start(): this {
    this.dispose = this.client.subscribe<{ onCustomersChanged: Change }>(
      { query: this.query, variables: this.variables },
      {
        next: (value) => {
          if (value.errors) this.errors.push(...value.errors);
          if (value.data) this.got.push(value.data.onCustomersChanged);
        },
        error: (error) => this.errors.push(error),
        complete: () => (this.completed = true),
      },
    );
    return this;
  }

  /** Waits until `check` holds (at most 20 s). */
  async until(check: () => boolean, what: string): Promise<void> {
    const until = Date.now() + 20_000;
    while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    if (!check())
      throw new Error(
        `${what}: got ${JSON.stringify(this.got)}, errors ${JSON.stringify(this.errors)}`,
      );
  }

  /** Waits until an event of the row with key `id` and `event` arrived. */
  waitFor(id: number, event: Change['event']): Promise<void> {
    return this.until(
      () => this.got.some((c) => Number(c.key.id) === id && c.event === event),
      `${event} of ${id}`,
    );
  }

  async stop(): Promise<void> {
    this.dispose();
    await this.client.dispose();
  }
}

/** Waits until `feed` holds `count` open subscriptions. */
async function openOn(run: RunningApp, count: number): Promise<void> {
  const feed = run.app.get(ChangeFeedService);
  const until = Date.now() + 20_000;
  while (feed.openHere() !== count && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  expect(feed.openHere()).toBe(count);
}

const summary = (got: Change[]) =>
  got.map((c) => `${c.event} ${Number(c.key.id)} ${c.old?.city ?? '-'}>${c.new?.city ?? '-'}`);

postgres.describe('subscriptions on one instance (issue 28 item 2)', () => {
  let run: RunningApp;
  let token: string;
  let appId: string;
  let key: string;
  let userToken: string;
  let cleanup: () => Promise<void>;
  const address = 'subs-one';

  const write = async (query: string) => {
    const res = await run.http('POST', `/api/graphql/${address}`, {
      body: { query },
      headers: { 'x-api-key': key },
    });
    if (res.status !== 200 || res.body.errors)
      throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    const db = await postgres.create(run.dataDir);
    cleanup = db.cleanup;
    appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Subs', address } })).body
      .id;
    await registerSalesDatabase(run, token, appId, 'postgres', db);
    const rules = { tables: { customers: { where: { city: { eq: '$user.city' } } } } };
    expect(
      (await run.http('PUT', `/api/apps/${appId}/permissions/local`, { token, body: rules }))
        .status,
    ).toBe(200);
    await publishTableApis(run, token, appId, [
      {
        name: 'customers',
        table: 'customers',
        actions: EVERY_ACTION,
        fields: { id: true, name: true, email: true, city: true },
      },
    ]);
    key = await createAppKey(run, token, appId, 'subscriber');
    const created = await run.http('POST', `/api/apps/${appId}/users`, {
      token,
      body: {
        email: 'faro@example.com',
        password: 'faro-password',
        roles: ['local'],
        attributes: { city: 'Faro' },
      },
    });
    expect(created.status).toBe(201);
    userToken = (
      await run.http('POST', `/api/apps/${appId}/auth/login`, {
        body: { email: 'faro@example.com', password: 'faro-password' },
      })
    ).body.token;
  });

  afterAll(async () => {
    await run?.close();
    await cleanup?.();
  });

  it('delivers inserts, updates and deletes, filtered by where and events, and by the row rule of an app user', async () => {
    const all = new Listener(run.baseUrl, address, { 'x-api-key': key }).start();
    const braga = new Listener(
      run.baseUrl,
      address,
      { 'x-api-key': key },
      { where: { city: { eq: 'Braga' } }, events: ['UPDATED', 'DELETED'] },
    ).start();
    const user = new Listener(run.baseUrl, address, {
      authorization: `Bearer ${userToken}`,
    }).start();
    await openOn(run, 3);

    await write(
      `mutation { addCustomers(id: 201, name: "Ana", email: "ana201@x.pt", city: "Faro") { id } }`,
    );
    await write(`mutation { updateCustomers(id: 201, city: "Braga") { id } }`);
    await write(`mutation { deleteCustomers(id: 201) }`);
    await write(
      `mutation { addCustomers(id: 202, name: "Bia", email: "bia202@x.pt", city: "Lisboa") { id } }`,
    );
    await write(`mutation { deleteCustomers(id: 202) }`);
    await write(
      `mutation { addCustomers(id: 203, name: "Caio", email: "caio203@x.pt", city: "Faro") { id } }`,
    );
    await write(`mutation { deleteCustomers(id: 203) }`);
    // Events of one app arrive in commit order: once the last one is in, every earlier one is.
    await write(
      `mutation { addCustomers(id: 299, name: "End", email: "end299@x.pt", city: "Braga") { id } }`,
    );
    await write(`mutation { deleteCustomers(id: 299) }`);
    await all.waitFor(299, 'DELETED');
    await braga.waitFor(299, 'DELETED');
    await user.waitFor(203, 'DELETED');
    // The user's last visible event is 203's delete; 299's events are outside her rule.
    await write(
      `mutation { addCustomers(id: 298, name: "Fim", email: "fim298@x.pt", city: "Faro") { id } }`,
    );
    await user.waitFor(298, 'INSERTED');
    await all.waitFor(298, 'INSERTED');

    expect(summary(all.got)).toEqual([
      'INSERTED 201 ->Faro',
      'UPDATED 201 Faro>Braga',
      'DELETED 201 Braga>-',
      'INSERTED 202 ->Lisboa',
      'DELETED 202 Lisboa>-',
      'INSERTED 203 ->Faro',
      'DELETED 203 Faro>-',
      'INSERTED 299 ->Braga',
      'DELETED 299 Braga>-',
      'INSERTED 298 ->Faro',
    ]);
    // Only the API's columns, in the query's value forms (ID as text, key as JSON).
    expect(all.got[0]).toEqual({
      event: 'INSERTED',
      key: { id: 201 },
      old: null,
      new: { id: '201', name: 'Ana', city: 'Faro' },
    });
    // where on the new row for updates, on the old row for deletes; events limits the kinds.
    expect(summary(braga.got)).toEqual([
      'UPDATED 201 Faro>Braga',
      'DELETED 201 Braga>-',
      'DELETED 299 Braga>-',
    ]);
    // The rule city = Faro: the row that moved to Braga, and its delete, are not hers; nor are
    // Lisboa's insert and delete.
    expect(summary(user.got)).toEqual([
      'INSERTED 201 ->Faro',
      'INSERTED 203 ->Faro',
      'DELETED 203 Faro>-',
      'INSERTED 298 ->Faro',
    ]);
    for (const l of [all, braga, user]) expect(l.errors).toEqual([]);
    await Promise.all([all.stop(), braga.stop(), user.stop()]);
    await openOn(run, 0);
  });

  it('takes credentials from connection_init: a bad key, or a key of another app, closes the socket 4403', async () => {
    const bad = new Listener(run.baseUrl, address, { 'x-api-key': 'tg_not-a-key' }).start();
    await bad.until(() => bad.closedWith !== null, 'closed');
    expect(bad.closedWith!.code).toBe(4403);
    expect(bad.got).toEqual([]);

    const other = (
      await run.http('POST', '/api/apps', { token, body: { name: 'Other', address: 'subs-other' } })
    ).body.id as string;
    const otherKey = await createAppKey(run, token, other, 'other app');
    const foreign = new Listener(run.baseUrl, address, { 'x-api-key': otherKey }).start();
    await foreign.until(() => foreign.closedWith !== null, 'closed');
    expect(foreign.closedWith!.code).toBe(4403);
    await Promise.all([bad.stop(), foreign.stop()]);
  });

  it('refuses queries on the socket, and a subscription sent over HTTP', async () => {
    const query = new Listener(
      run.baseUrl,
      address,
      { 'x-api-key': key },
      {},
      '{ getCustomers(take: 1) { id } }',
    ).start();
    await query.until(() => query.errors.length > 0, 'refused');
    expect(JSON.stringify(query.errors)).toContain('subscriptions only');
    await query.stop();
    const http = await run.http('POST', `/api/graphql/${address}`, {
      body: { query: 'subscription { onCustomersChanged { event } }' },
      headers: { 'x-api-key': key },
    });
    expect(JSON.stringify(http.body)).toContain('WebSocket');
  });

  it('refuses an upgrade whose URL carries a key', async () => {
    const url = `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${address}?api_key=${key}`;
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(url, 'graphql-transport-ws');
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(400);
  });

  it('leaves nothing open when the socket closes while subscriptions start (graphql-ws #532)', async () => {
    for (let round = 0; round < 5; round++) {
      const client = createClient({
        url: `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${address}`,
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': key },
        retryAttempts: 0,
      });
      let acknowledged = false;
      client.on('connected', () => (acknowledged = true));
      for (let i = 0; i < 5; i++)
        client.subscribe(
          { query: CHANGES },
          { next: () => undefined, error: () => undefined, complete: () => undefined },
        );
      const until = Date.now() + 10_000;
      while (!acknowledged && Date.now() < until) await new Promise((r) => setImmediate(r));
      // Closed right after the acknowledgement, while its subscribes may still be opening.
      await client.dispose();
    }
    await openOn(run, 0);
  });

  it(`holds at most ${MAX_PER_CONNECTION} subscriptions per connection`, async () => {
    const client = createClient({
      url: `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${address}`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
    });
    const errors: unknown[] = [];
    const disposers: (() => void)[] = [];
    for (let i = 0; i < MAX_PER_CONNECTION; i++)
      disposers.push(
        client.subscribe(
          { query: CHANGES },
          { next: () => undefined, error: (e) => errors.push(e), complete: () => undefined },
        ),
      );
    await openOn(run, MAX_PER_CONNECTION);
    let refused: unknown = null;
    client.subscribe(
      { query: CHANGES },
      { next: () => undefined, error: (e) => (refused = e), complete: () => undefined },
    );
    const until = Date.now() + 10_000;
    while (!refused && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.stringify(refused)).toContain(`${MAX_PER_CONNECTION} subscriptions open`);
    expect(errors).toEqual([]);
    disposers.forEach((d) => d());
    await client.dispose();
    await openOn(run, 0);
  });
});

postgres.describe('subscriptions when the service stops (graceful shutdown)', () => {
  it('closes every socket with 1001 when the server stops accepting', async () => {
    const run = await startApp();
    try {
      const token = await run.adminToken();
      const db = await postgres.create(run.dataDir);
      try {
        const appId = (
          await run.http('POST', '/api/apps', {
            token,
            body: { name: 'Stop', address: 'subs-stop' },
          })
        ).body.id as string;
        await registerSalesDatabase(run, token, appId, 'postgres', db);
        await publishTableApis(run, token, appId, [
          { name: 'customers', table: 'customers', actions: EVERY_ACTION },
        ]);
        const key = await createAppKey(run, token, appId, 'stop');
        const listener = new Listener(run.baseUrl, 'subs-stop', { 'x-api-key': key }).start();
        await openOn(run, 1);
        // What closeGracefully emits once the server stops accepting connections.
        run.app.getHttpServer().emit(CLOSE_LONG_LIVED);
        await listener.until(() => listener.closedWith !== null, 'closed');
        expect(listener.closedWith!.code).toBe(1001);
        await openOn(run, 0);
        await listener.stop();
      } finally {
        await db.cleanup();
      }
    } finally {
      await run.close();
    }
  });
});

describeWith('postgres')('subscriptions on two instances sharing PostgreSQL and Redis', () => {
  describeWith('redis')('with Redis', () => {
    let meta: PgDatabase;
    let a: RunningApp;
    let b: RunningApp;
    let token: string;
    let key: string;
    let cleanup: () => Promise<void>;
    const address = 'subs-two';

    beforeAll(async () => {
      meta = await createPgDatabase('tg_meta');
      const env = { REDIS_URL: SERVICE_URLS.redis };
      a = await startApp({ databaseUrl: meta.url, env });
      b = await startApp({ databaseUrl: meta.url, env });
      token = await a.adminToken();
      const db = await postgres.create(a.dataDir);
      cleanup = db.cleanup;
      const appId = (await a.http('POST', '/api/apps', { token, body: { name: 'Two', address } }))
        .body.id as string;
      await registerSalesDatabase(a, token, appId, 'postgres', db);
      await publishTableApis(a, token, appId, [
        { name: 'customers', table: 'customers', actions: EVERY_ACTION },
      ]);
      key = await createAppKey(a, token, appId, 'two instances', { rateLimitPerMinute: 1000 });
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await cleanup?.();
      await meta?.drop();
    });

    it('delivers a write made through A to a subscriber on B', async () => {
      const onB = new Listener(b.baseUrl, address, { 'x-api-key': key }).start();
      await openOn(b, 1);
      // A learns from Redis that B listens: its capture reads the rows.
      const res = await a.http('POST', `/api/graphql/${address}`, {
        body: {
          query: `mutation { addCustomers(id: 401, name: "Duda", email: "duda@x.pt", city: "Porto") { id } }`,
        },
        headers: { 'x-api-key': key },
      });
      expect(res.body.errors).toBeUndefined();
      await a.http('POST', `/api/graphql/${address}`, {
        body: { query: 'mutation { deleteCustomers(id: 401) }' },
        headers: { 'x-api-key': key },
      });
      await onB.waitFor(401, 'DELETED');
      expect(summary(onB.got)).toEqual(['INSERTED 401 ->Porto', 'DELETED 401 Porto>-']);
      await onB.stop();
      await openOn(b, 0);
    });

    it(`counts a key's open subscriptions across instances (at most ${MAX_PER_KEY})`, async () => {
      const clients: Client[] = [];
      const connect = (run: RunningApp) => {
        const client = createClient({
          url: `${run.baseUrl.replace(/^http/, 'ws')}/api/graphql/${address}`,
          webSocketImpl: WebSocket,
          connectionParams: { 'x-api-key': key },
          retryAttempts: 0,
        });
        clients.push(client);
        return client;
      };
      const errors: unknown[] = [];
      let opened = 0;
      for (const run of [a, b]) {
        for (let c = 0; opened < (run === a ? MAX_PER_KEY / 2 : MAX_PER_KEY); c++) {
          const client = connect(run);
          for (
            let i = 0;
            i < MAX_PER_CONNECTION && opened < (run === a ? MAX_PER_KEY / 2 : MAX_PER_KEY);
            i++, opened++
          )
            client.subscribe(
              { query: CHANGES },
              { next: () => undefined, error: (e) => errors.push(e), complete: () => undefined },
            );
        }
      }
      await openOn(a, MAX_PER_KEY / 2);
      await openOn(b, MAX_PER_KEY / 2);
      let refused: unknown = null;
      connect(a).subscribe(
        { query: CHANGES },
        { next: () => undefined, error: (e) => (refused = e), complete: () => undefined },
      );
      const until = Date.now() + 10_000;
      while (!refused && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(JSON.stringify(refused)).toContain(`${MAX_PER_KEY} subscriptions open`);
      expect(errors).toEqual([]);
      await Promise.all(clients.map((c) => c.dispose()));
      await openOn(a, 0);
      await openOn(b, 0);
    });
  });
});
