import { RunningApp, startApp } from '../support/app-harness';
import {
  registerSalesDatabase,
  SALES_DIALECTS,
  type SalesDatabase,
} from '../support/sales-dialects';
import { publishTableApis } from '../support/table-apis';
import {
  type ReceivedDelivery,
  verifiedEvents,
  WebhookReceiver,
} from '../support/webhook-receiver';

/**
 * Issue 28 item 1 (README "Webhooks"): signed change webhooks over HTTP. A receiver on loopback
 * (the service runs with the test switch WEBHOOKS_ALLOW_PRIVATE_TARGETS=1) verifies every
 * delivery with the Standard Webhooks reference library; add, update, delete and addMany each
 * deliver once per event with the right type and rows, on PostgreSQL, MariaDB and SQLite; a
 * receiver that is down and comes back gets every event once per id, in order per row; without
 * the switch a URL reaching 127.0.0.1 or localhost is refused at save.
 */

/** The `data` of a Table API's change event (README "Webhooks"). */
interface ChangeData {
  api: string;
  key: Record<string, unknown>;
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
  origin: string;
  actor: { kind: string; id: string | null };
}

/** Verifies each delivery with the reference library and returns its event. */
const verified = (got: readonly ReceivedDelivery[], secret: string) =>
  verifiedEvents<ChangeData>(got, secret);

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`webhooks on ${dialect.type} (issue 28 item 1)`, () => {
    let run: RunningApp;
    let token: string;
    let db: SalesDatabase;
    let secret: string;
    let webhookId: string;
    let appId: string;
    const receiver = new WebhookReceiver();
    const address = `webhooks-${dialect.type}`;

    const data = async (query: string) => {
      const res = await run.http('POST', `/api/graphql/${address}`, {
        body: { query },
        headers: { authorization: `Bearer ${token}` },
      });
      if (res.status !== 200 || (res.body as { errors?: unknown }).errors) {
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return (res.body as { data: Record<string, unknown> }).data;
    };

    beforeAll(async () => {
      await receiver.start();
      run = await startApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' } });
      token = await run.adminToken();
      db = await dialect.create(run.dataDir);
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Hooks', address } }))
        .body.id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, {
        url: db.url,
        tables: db.tables,
      });
      const [customers] = await publishTableApis(run, token, appId, [
        {
          name: 'customers',
          table: 'customers',
          actions: EVERY_ACTION,
          fields: { id: true, name: true, email: true, city: true },
        },
      ]);
      const created = await run.http('POST', `/api/apps/${appId}/webhooks`, {
        token,
        body: {
          name: 'receiver',
          url: `http://127.0.0.1:${receiver.port}/hook?source=tablegraph`,
          apis: [customers],
          events: ['inserted', 'updated', 'deleted'],
        },
      });
      expect(created.status).toBe(201);
      const body = created.body as { id: string; secret: string };
      expect(body.secret).toMatch(/^whsec_/);
      secret = body.secret;
      webhookId = body.id;
      // The secret is shown once: never in a list.
      const listed = await run.http('GET', `/api/apps/${appId}/webhooks`, { token });
      expect(JSON.stringify(listed.body)).not.toContain(secret);
      // Fires only from main: nothing is delivered before the version is published.
      await data(`mutation { addCustomers(id: 300, name: "Draft", email: "draft@x.pt") { id } }`);
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
    }, 60_000);

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
      await receiver.stop();
    });

    it('delivers add, update, delete and addMany once per event, signed, with the API’s columns', async () => {
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.got).toHaveLength(0);
      await data(
        `mutation { addCustomers(id: 201, name: "Ana", email: "ana@x.pt", city: "Faro") { id } }`,
      );
      await data(`mutation { updateCustomers(id: 201, city: "Braga") { id } }`);
      await data(`mutation { deleteCustomers(id: 201) }`);
      await data(`mutation { addManyCustomers(rows: [
        {id: 202, name: "Bia", email: "bia@x.pt"}, {id: 203, name: "Caio", email: "caio@x.pt"}]) { affected } }`);
      await receiver.waitFor(5);
      await new Promise((r) => setTimeout(r, 500));
      const events = verified(receiver.got, secret);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      const byKey = (id: number) => events.filter((e) => Number(e.data.key.id) === id);
      expect(events).toHaveLength(5);
      const ana = byKey(201);
      expect(ana.map((e) => e.type)).toEqual([
        'customers.inserted',
        'customers.updated',
        'customers.deleted',
      ]);
      expect(ana[0].data.old).toBeNull();
      // Only the API's included columns: created_at is left out.
      expect(ana[0].data.new).toEqual({
        id: expect.anything(),
        name: 'Ana',
        email: 'ana@x.pt',
        city: 'Faro',
      });
      expect(ana[1].data.old).toMatchObject({ city: 'Faro' });
      expect(ana[1].data.new).toMatchObject({ city: 'Braga', name: 'Ana' });
      expect(ana[2].data.old).toMatchObject({ city: 'Braga' });
      expect(ana[2].data.new).toBeNull();
      expect(ana[0].data.origin).toBe('graphql');
      expect(ana[0].data.actor.kind).toBe('builder');
      expect(byKey(202).map((e) => e.data.new?.name)).toEqual(['Bia']);
      expect(byKey(203).map((e) => e.data.new?.name)).toEqual(['Caio']);
      for (const e of events)
        expect(Object.keys(e.data.new ?? e.data.old ?? {})).not.toContain('created_at');

      const log = await run.http('GET', `/api/apps/${appId}/webhooks/${webhookId}/deliveries`, {
        token,
      });
      expect(log.status).toBe(200);
      const entries = log.body as { status: string; attempts: number }[];
      expect(entries).toHaveLength(5);
      expect(entries.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    }, 60_000);

    it('a rolled-back request delivers nothing', async () => {
      const before = receiver.got.length;
      const res = await run.http('POST', `/api/graphql/${address}`, {
        token,
        body: {
          query: `mutation { a: addCustomers(id: 210, name: "X", email: "x@x.pt") { id }
            b: addCustomers(id: 211, name: "Y", email: "x@x.pt") { id } }`,
        },
      });
      expect(JSON.stringify(res.body)).toContain('UNIQUE_VIOLATION');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(receiver.got.length).toBe(before);
    }, 30_000);

    it('a receiver down and back gets every event once per id, in order per row', async () => {
      await receiver.stop();
      const before = receiver.got.length;
      await data(`mutation { updateCustomers(id: 202, city: "C1") { id } }`);
      await data(`mutation { updateCustomers(id: 203, city: "D1") { id } }`);
      await data(`mutation { updateCustomers(id: 202, city: "C2") { id } }`);
      await data(
        `mutation { updateManyCustomers(where: {id: {in: [202, 203]}}, set: {city: "E"}, atMost: 2) { affected } }`,
      );
      // The first attempts fail (connection refused); the next comes 5 s later.
      await new Promise((r) => setTimeout(r, 1_500));
      await receiver.start();
      await receiver.waitFor(before + 5, 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const events = verified(receiver.got.slice(before), secret);
      expect(events).toHaveLength(5);
      expect(new Set(events.map((e) => e.id)).size).toBe(5);
      const cities = (id: number) =>
        events.filter((e) => Number(e.data.key.id) === id).map((e) => e.data.new?.city);
      expect(cities(202)).toEqual(['C1', 'C2', 'E']);
      expect(cities(203)).toEqual(['D1', 'E']);
    }, 60_000);

    // MySQL/MariaDB offer no upsert on a table with a second unique key (customers' email):
    // ON DUPLICATE KEY would match either (README "Writing rows").
    const itUpserts = dialect.type === 'mysql' ? () => undefined : it;
    itUpserts(
      'upserts deliver inserted and updated, and nothing for a row left as it was',
      async () => {
        const before = receiver.got.length;
        await data(`mutation { upsertManyCustomers(on: id, rows: [
        {id: 202, name: "Bia 2", email: "bia@x.pt", city: "E"},
        {id: 203, name: "Caio", email: "caio@x.pt", city: "E"},
        {id: 204, name: "Dani", email: "dani@x.pt"}]) { inserted updated unchanged } }`);
        await receiver.waitFor(before + 2);
        await new Promise((r) => setTimeout(r, 1_000));
        const events = verified(receiver.got.slice(before), secret);
        expect(events.map((e) => [e.type, Number(e.data.key.id)]).sort()).toEqual([
          ['customers.inserted', 204],
          ['customers.updated', 202],
        ]);
        const updated = events.find((e) => e.type === 'customers.updated')!;
        expect(updated.data.old).toMatchObject({ name: 'Bia' });
        expect(updated.data.new).toMatchObject({ name: 'Bia 2' });
      },
      30_000,
    );

    it('signs with both secrets for a day after a rotation', async () => {
      const rotated = await run.http(
        'POST',
        `/api/apps/${appId}/webhooks/${webhookId}/rotate-secret`,
        {
          token,
        },
      );
      expect(rotated.status).toBe(201);
      const next = (rotated.body as { secret: string }).secret;
      expect(next).toMatch(/^whsec_/);
      expect(next).not.toBe(secret);
      const before = receiver.got.length;
      await data(`mutation { updateCustomers(id: 202, city: "Rotated") { id } }`);
      await receiver.waitFor(before + 1);
      const got = receiver.got.slice(before);
      expect(String(got[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verified(got, next)[0].data.new?.city).toBe('Rotated');
      expect(verified(got, secret)[0].data.new?.city).toBe('Rotated');
      secret = next;
    }, 30_000);

    it('a 410 suspends the webhook with the reason; enabling it again and a retry deliver', async () => {
      receiver.answer = 410;
      const before = receiver.got.length;
      await data(`mutation { updateCustomers(id: 202, city: "Gone") { id } }`);
      await receiver.waitFor(before + 1);
      await new Promise((r) => setTimeout(r, 500));
      receiver.answer = 204;
      const read = await run.http('GET', `/api/apps/${appId}/webhooks/${webhookId}`, { token });
      const view = read.body as {
        suspended: { reason: string } | null;
        apis: string[];
        url: string;
      };
      expect(view.suspended?.reason).toMatch(/410/);
      // Suspended: a new event waits.
      await data(`mutation { updateCustomers(id: 203, city: "Waits") { id } }`);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(receiver.got.length).toBe(before + 1);
      const log = (
        await run.http('GET', `/api/apps/${appId}/webhooks/${webhookId}/deliveries`, { token })
      ).body as { id: string; status: string; lastStatusCode: number | null }[];
      const gone = log.find((d) => d.lastStatusCode === 410)!;
      expect(gone.status).toBe('failed');
      const put = await run.http('PUT', `/api/apps/${appId}/webhooks/${webhookId}`, {
        token,
        body: {
          name: 'receiver',
          url: view.url,
          apis: view.apis,
          events: ['inserted', 'updated', 'deleted'],
          enabled: true,
        },
      });
      expect(put.status).toBe(200);
      await receiver.waitFor(before + 2);
      const retried = await run.http(
        'POST',
        `/api/apps/${appId}/webhooks/${webhookId}/deliveries/${gone.id}/retry`,
        { token },
      );
      expect(retried.status).toBe(202);
      await receiver.waitFor(before + 3);
      const events = verified(receiver.got.slice(before), secret);
      expect(events.map((e) => e.data.new?.city)).toEqual(['Gone', 'Waits', 'Gone']);
      // The retry is the same event: the same webhook-id as the first attempt.
      expect(events[2].id).toBe(events[0].id);
    }, 30_000);
  });
}

describe('webhook targets without the test switch', () => {
  let run: RunningApp;
  let token: string;
  let appId: string;

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    appId = (
      await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Ssrf', address: 'webhooks-ssrf' },
      })
    ).body.id as string;
  });
  afterAll(() => run?.close());

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
  ])('refuses %s at save', async (url) => {
    const res = await run.http('POST', `/api/apps/${appId}/webhooks`, {
      token,
      body: { name: 'x', url, apis: ['any'], events: ['inserted'] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/not a public address/);
  });
});
