import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, type PgDatabase } from '../support/postgres-fixture';
import { loadSalesIntoPostgres } from '../support/sales-fixture';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { describeWith } from '../support/services';
import { verifiedEvents, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Issue 28 (Tests: "the service killed mid-delivery and restarted, nothing lost that committed";
 * README "Webhooks", Delivery). The built service runs as its own process; a slow receiver keeps
 * deliveries in flight; the process is killed with SIGKILL while some are, and started again on
 * the same metadata store. Every event of a write whose request was answered (its outbox row is
 * written before the answer) arrives, each `webhook-id` at least once, each row's events in the
 * order they committed, and the only duplicates are second arrivals of an id already seen.
 * On the embedded SQLite metadata store and on a PostgreSQL one.
 */

const ADMIN = { email: 'hooks-crash@e2e.test', password: 'hooks-crash-admin-password' };
const ROWS = 5;
const WRITES = 30;

interface CityEvent {
  key: { id: number };
  new: { city: string } | null;
}

const stores: { name: string; describe: jest.Describe }[] = [
  { name: 'sqlite', describe },
  { name: 'postgres', describe: describeWith('postgres') },
];

for (const store of stores) {
  store.describe(`webhooks across a killed process, ${store.name} metadata store`, () => {
    let service: ServiceProcess | null = null;
    let dataDir: string;
    let sales: PgDatabase;
    let meta: PgDatabase | null = null;
    let env: Record<string, string>;
    const receiver = new WebhookReceiver();

    const http = async (
      method: string,
      path: string,
      options: { body?: unknown; token?: string } = {},
    ) => {
      const res = await fetch(service!.baseUrl + path, {
        method,
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.token && { authorization: `Bearer ${options.token}` }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    beforeAll(async () => {
      await receiver.start();
      dataDir = mkdtempSync(join(tmpdir(), 'tg-hooks-crash-'));
      sales = await createPgDatabase('tg_hooks_crash');
      await loadSalesIntoPostgres(sales);
      if (store.name === 'postgres') meta = await createPgDatabase('tg_hooks_meta');
      env = {
        DATA_DIR: dataDir,
        DATABASE_URL: meta ? meta.url : `sqlite:${join(dataDir, 'platform.db')}`,
        PLATFORM_SECRET: 'hooks-crash-platform-secret-0123456789-abcdef',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
      };
      service = await startServiceProcess(env);
    }, 60_000);

    afterAll(async () => {
      await service?.stop();
      await receiver.stop();
      await sales?.drop();
      await meta?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('delivers every committed event after a SIGKILL mid-delivery and a restart, FIFO per row', async () => {
      const token = (await http('POST', '/api/auth/login', { body: ADMIN })).body.token as string;
      const appId = (
        await http('POST', '/api/apps', { token, body: { name: 'crash', address: 'crash' } })
      ).body.id as string;
      const ds = await http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: { name: 'sales', type: 'postgres', url: sales.url },
      });
      expect(ds.status).toBe(201);
      expect(
        (
          await http('POST', `/api/apps/${appId}/model/import`, {
            token,
            body: { datasourceId: ds.body.id, tables: ['public.customers'] },
          })
        ).status,
      ).toBe(201);
      const api = await http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: {
          name: 'customers',
          table: 'customers',
          actions: { select: true, insert: false, update: true, delete: false },
        },
      });
      expect(api.status).toBe(201);
      await http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token });
      const hook = await http('POST', `/api/apps/${appId}/webhooks`, {
        token,
        body: { name: 'slow', url: receiver.url(), apis: [api.body.id], events: ['updated'] },
      });
      expect(hook.status).toBe(201);
      const secret = hook.body.secret as string;
      expect((await http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
        200,
      );

      // Each answer comes 1 s after the body: deliveries stay in flight.
      receiver.delayMs = 1_000;
      const committed: { row: number; city: string }[] = [];
      for (let k = 0; k < WRITES; k++) {
        const row = (k % ROWS) + 1;
        const city = `City ${k}`;
        const res = await http('POST', '/api/graphql/crash', {
          token,
          body: {
            query:
              'mutation Move($id: ID!, $city: String) { updateCustomers(id: $id, city: $city) { id } }',
            variables: { id: row, city },
          },
        });
        expect(res.body.errors).toBeUndefined();
        expect(Number(res.body.data.updateCustomers.id)).toBe(row);
        committed.push({ row, city });
      }
      // Killed while the receiver has some events and others are being sent.
      await receiver.waitFor(8, 30_000);
      expect(receiver.got.length).toBeLessThan(WRITES);
      service!.signal('SIGKILL');
      await service!.exited;
      const beforeRestart = receiver.got.length;
      receiver.delayMs = 0;
      service = await startServiceProcess(env);

      // Every committed event arrives: the distinct ids reach the number of writes.
      const until = Date.now() + 60_000;
      const distinct = () => new Set(receiver.got.map((d) => String(d.headers['webhook-id']))).size;
      while (distinct() < WRITES && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      expect({ distinct: distinct(), beforeRestart }).toEqual({
        distinct: WRITES,
        beforeRestart: expect.any(Number),
      });
      await new Promise((r) => setTimeout(r, 1_000));
      const events = verifiedEvents<CityEvent>(receiver.got, secret);
      // One id per committed write, and an id always carries the same event.
      const byId = new Map<string, string>();
      for (const e of events) {
        const body = JSON.stringify(e.data);
        expect(byId.get(e.id) ?? body).toBe(body);
        byId.set(e.id, body);
      }
      expect(byId.size).toBe(WRITES);
      // The kill came within 50 ms of a body's arrival, its answer 1 s away: at least that
      // delivery was in flight, and is sent again (same id) by the restarted process.
      expect(receiver.got.length).toBeGreaterThan(WRITES);
      // FIFO per row: each row's arrivals follow commit order; a repeat is only of the id
      // that arrived last for that row (the one in flight when the process died).
      for (let row = 1; row <= ROWS; row++) {
        const arrivals = events.filter((e) => e.data.key.id === row);
        const ids = arrivals.map((e) => e.id);
        const firsts = ids.filter((id, i) => ids.indexOf(id) === i);
        expect(firsts.map((id) => arrivals[ids.indexOf(id)].data.new?.city)).toEqual(
          committed.filter((c) => c.row === row).map((c) => c.city),
        );
        for (let i = 1; i < ids.length; i++)
          if (firsts.indexOf(ids[i]) < firsts.indexOf(ids[i - 1]))
            throw new Error(`row ${row}: ${ids[i]} arrived again after a later event`);
      }
      const log = await http('GET', `/api/apps/${appId}/webhooks/${hook.body.id}/deliveries`, {
        token: (await http('POST', '/api/auth/login', { body: ADMIN })).body.token as string,
      });
      expect(log.status).toBe(200);
      expect((log.body as { status: string }[]).every((d) => d.status === 'delivered')).toBe(true);
    }, 150_000);
  });
}
