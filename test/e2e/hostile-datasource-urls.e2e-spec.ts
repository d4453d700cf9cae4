import Database from 'better-sqlite3';
import { existsSync, linkSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { HttpAnswer, RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { describeWith, serviceAvailable, SERVICE_URLS } from '../support/services';
import { placeSqliteFile } from '../support/sqlite-placement';

/** An app's own SQLite folder under the harness's `DATA_DIR`, created when missing. */
function sqliteAppFolder(dataDir: string, appId: string): string {
  const folder = join(dataDir, 'datasources', appId);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * Datasource URLs a builder could use against the server itself (CONTRACT.md §8, last bullet):
 * files named in PostgreSQL parameters, sockets, unknown driver options, SQLite files outside the
 * app's own folder. Each is refused with 400 before any driver sees it, and the service keeps
 * answering.
 */
describe('Hostile datasource URLs over HTTP', () => {
  let run: RunningApp;
  let token: string;
  let appA: string;
  let appB: string;

  const register = (appId: string, type: string, url: string) =>
    run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: { name: `ds-${Math.random().toString(36).slice(2, 8)}`, type, url },
    });

  /** A 400 whose message holds no absolute server path; then a normal request still answers. */
  const expectRefused = async (answer: HttpAnswer, message: RegExp) => {
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(message);
    const text = JSON.stringify(answer.body);
    for (const path of [run.dataDir, tmpdir(), '/dev/', '/etc/', '/var/', '/tmp/'])
      expect(text).not.toContain(path);
    // The process is not stuck reading a file or waiting on a socket: the next request answers.
    expect((await run.http('GET', '/api/apps', { token })).status).toBe(200);
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    const create = async (address: string) =>
      (await run.http('POST', '/api/apps', { token, body: { name: address, address } })).body.id;
    appA = await create('hostile-a');
    appB = await create('hostile-b');
  });

  afterAll(() => run?.close());

  describe('PostgreSQL', () => {
    const base = 'postgres://postgres@127.0.0.1:5432/postgres';

    it.each([
      ['sslrootcert', '/dev/zero'],
      ['sslcert', '/etc/passwd'],
      ['sslkey', '/etc/shadow'],
      ['host', '/var/run/postgresql'],
      ['passfile', '/tmp/pgpass'],
      ['no_such_option', 'x'],
    ])(
      'refuses ?%s=… with 400 naming it and listing the accepted parameters',
      async (name, value) => {
        const answer = await register(appA, 'postgres', `${base}?${name}=${value}`);
        await expectRefused(
          answer,
          new RegExp(
            `Unknown postgres datasource URL parameter "${name}"; accepted: sslmode, application_name`,
          ),
        );
      },
    );

    it('refuses a socket path as host, several hosts and sslmode=verify-ca', async () => {
      await expectRefused(
        await register(appA, 'postgres', 'postgres://postgres@%2Fvar%2Frun%2Fpostgresql/postgres'),
        /socket paths are not accepted/,
      );
      await expectRefused(
        await register(appA, 'postgres', 'postgres://postgres@db1,db2/postgres'),
        /several hosts/,
      );
      await expectRefused(
        await register(appA, 'postgres', `${base}?sslmode=verify-ca`),
        /"sslmode" takes disable, prefer, require, verify-full/,
      );
    });

    describeWith('postgres')('on a real server', () => {
      it('a valid URL with sslmode=disable still registers and lists tables', async () => {
        const url = new URL(SERVICE_URLS.postgres);
        url.search = '?sslmode=disable&application_name=tg-hostile';
        const answer = await register(appA, 'postgres', url.toString());
        expect(answer.status).toBe(201);
        const tables = await run.http(
          'GET',
          `/api/apps/${appA}/datasources/${answer.body.id}/tables`,
          { token },
        );
        expect(tables.status).toBe(200);
        expect(Array.isArray(tables.body)).toBe(true);
      });
    });
  });

  describe('MySQL and SQL Server', () => {
    it('refuses socketPath, localInfile and a socket host for MySQL', async () => {
      await expectRefused(
        await register(appA, 'mysql', 'mysql://root@127.0.0.1/test?socketPath=/tmp/mysql.sock'),
        /Unknown mysql datasource URL parameter "socketPath"; accepted: ssl/,
      );
      await expectRefused(
        await register(appA, 'mysql', 'mysql://root@127.0.0.1/test?localInfile=true'),
        /"localInfile"; accepted: ssl/,
      );
      await expectRefused(
        await register(appA, 'mysql', 'mysql://root@%2Ftmp%2Fmysql.sock/test'),
        /socket paths are not accepted/,
      );
    });

    it('refuses an unknown SQL Server parameter, listing the accepted ones', async () => {
      await expectRefused(
        await register(appA, 'mssql', 'mssql://sa:pw@127.0.0.1/db?domain=CORP'),
        /"domain"; accepted: encrypt, trustServerCertificate, instanceName, connectTimeout, requestTimeout/,
      );
    });
  });

  describe("SQLite: files in the app's own folder only", () => {
    beforeAll(() => {
      placeSqliteFile(run.dataDir, appA, loadSalesIntoSqlite(run.dataDir));
    });

    it("registers a file of the app's own folder", async () => {
      expect((await register(appA, 'sqlite', 'sqlite:sales.db')).status).toBe(201);
    });

    it('refuses a symbolic link to the metadata store', async () => {
      symlinkSync(
        join(run.dataDir, 'platform.db'),
        join(sqliteAppFolder(run.dataDir, appA), 'store.db'),
      );
      await expectRefused(
        await register(appA, 'sqlite', 'sqlite:store.db'),
        /^store\.db in this app's datasource folder is a symbolic link/,
      );
    });

    it('refuses a symlinked folder inside the app folder', async () => {
      symlinkSync(run.dataDir, join(sqliteAppFolder(run.dataDir, appA), 'up'));
      await expectRefused(
        await register(appA, 'sqlite', 'sqlite:up/platform.db'),
        /^up in this app's datasource folder is a symbolic link/,
      );
    });

    it("app B cannot register app A's file, by name, by .. or by absolute path", async () => {
      await expectRefused(
        await register(appB, 'sqlite', 'sqlite:sales.db'),
        /^No SQLite database file sales\.db in this app's datasource folder$/,
      );
      await expectRefused(
        await register(appB, 'sqlite', `sqlite:../${appA}/sales.db`),
        /may not contain "\.\."/,
      );
      await expectRefused(
        await register(
          appB,
          'sqlite',
          `sqlite:${join(run.dataDir, 'datasources', appA, 'sales.db')}`,
        ),
        /not an absolute path/,
      );
      // Nor through a link placed in its own folder.
      symlinkSync(
        join(sqliteAppFolder(run.dataDir, appA), 'sales.db'),
        join(sqliteAppFolder(run.dataDir, appB), 'sales.db'),
      );
      await expectRefused(await register(appB, 'sqlite', 'sqlite:sales.db'), /symbolic link/);
    });

    it('refuses the metadata store by absolute path, and a folder named like a file', async () => {
      await expectRefused(
        await register(appA, 'sqlite', `sqlite:${join(run.dataDir, 'platform.db')}`),
        /not an absolute path/,
      );
      mkdirSync(join(sqliteAppFolder(run.dataDir, appA), 'folder.db'));
      await expectRefused(
        await register(appA, 'sqlite', 'sqlite:folder.db'),
        /folder\.db in this app's datasource folder is not a regular file/,
      );
    });

    it('refuses a hard link to the metadata store (a regular file in the folder), before opening it', async () => {
      // A hard link passes every folder rule (no symbolic link, a regular file inside the
      // folder): the store is told by its real path, device and inode (issue 22, item 1).
      linkSync(
        join(run.dataDir, 'platform.db'),
        join(sqliteAppFolder(run.dataDir, appA), 'hard.db'),
      );
      const answer = await register(appA, 'sqlite', 'sqlite:hard.db');
      await expectRefused(answer, /^This datasource is the service's own metadata store/);
      expect(answer.body.code).toBe('INVALID_INPUT');
    });

    it("refuses a copy of the store's tables placed in the app's folder", async () => {
      const copy = new Database(join(sqliteAppFolder(run.dataDir, appA), 'store-copy.db'));
      copy.exec(
        'CREATE TABLE account (id TEXT); CREATE TABLE api_key (id TEXT); CREATE TABLE app_version (id TEXT)',
      );
      copy.close();
      await expectRefused(
        await register(appA, 'sqlite', 'sqlite:store-copy.db'),
        /copy of the service's metadata store \(account, api_key, app_version in "main"\)/,
      );
    });

    it('checks the file again on every open: a file swapped for a link after registration is refused', async () => {
      const folder = sqliteAppFolder(run.dataDir, appA);
      placeSqliteFile(run.dataDir, appA, loadSalesIntoSqlite(run.dataDir, 'swap.db'));
      const ds = await register(appA, 'sqlite', 'sqlite:swap.db');
      expect(ds.status).toBe(201);
      rmSync(join(folder, 'swap.db'));
      symlinkSync(join(run.dataDir, 'platform.db'), join(folder, 'swap.db'));
      await expectRefused(
        await run.http('GET', `/api/apps/${appA}/datasources/${ds.body.id}/tables`, { token }),
        /^swap\.db in this app's datasource folder is a symbolic link/,
      );
    });

    it("creates the app's folder on its first SQLite registration", async () => {
      const appC = (
        await run.http('POST', '/api/apps', { token, body: { name: 'c', address: 'hostile-c' } })
      ).body.id;
      const folder = join(run.dataDir, 'datasources', appC);
      expect(existsSync(folder)).toBe(false);
      await expectRefused(
        await register(appC, 'sqlite', 'sqlite:sales.db'),
        /No SQLite database file sales\.db/,
      );
      expect(existsSync(folder)).toBe(true);
    });
  });
});

describe("Demo app's SQLite file", () => {
  let run: RunningApp;
  afterAll(() => run?.close());

  it("lives in the demo app's own folder and serves queries", async () => {
    run = await startApp();
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    const demo = await seedDemo(run.app, config);
    expect(demo?.address).toBe('demo');
    const token = await run.adminToken();
    const apps = (await run.http('GET', '/api/apps', { token })).body as {
      id: string;
      address: string;
    }[];
    const id = apps.find((a) => a.address === 'demo')!.id;
    expect(existsSync(join(run.dataDir, 'datasources', id, 'demo.db'))).toBe(true);
    expect(existsSync(join(run.dataDir, 'datasources', 'demo.db'))).toBe(false);
    const res = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': demo!.key },
      body: { query: '{ countOrders }' },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ countOrders: 20 });
  });
});

/** `url` with another host name for the same server. */
function withHost(url: string, host: string): string {
  const parsed = new URL(url);
  parsed.hostname = host;
  return parsed.toString();
}

/**
 * Issue 22, item 1: a builder who registers the service's own PostgreSQL metadata database (with
 * the credentials a deployment's documentation suggested) would import `account` and `api_key`,
 * read every hash and make themselves administrator. The store, under any name of its server,
 * and any database holding a copy of its tables are refused once connected; every new connection
 * of a registered datasource is checked again.
 */
describeWith('postgres')("The service's own PostgreSQL metadata store as a datasource", () => {
  let meta: PgDatabase;
  const others: PgDatabase[] = [];
  let run: RunningApp;
  let token: string;
  let appId: string;

  const register = (url: string) =>
    run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: { name: `ds-${Math.random().toString(36).slice(2, 8)}`, type: 'postgres', url },
    });

  beforeAll(async () => {
    meta = await createPgDatabase('tg_meta');
    run = await startApp({ databaseUrl: meta.url });
    token = await run.adminToken();
    appId = (
      await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Store guard', address: 'store-guard' },
      })
    ).body.id;
  });

  afterAll(async () => {
    await run?.close();
    for (const db of others) await db.drop();
    await meta?.drop();
  });

  it('refuses the metadata database by its own URL and by other names of its server', async () => {
    for (const url of [
      meta.url,
      withHost(meta.url, 'localhost'),
      `${meta.url}?application_name=innocent`,
    ]) {
      const answer = await register(url);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('INVALID_INPUT');
      expect(answer.body.message).toBe(
        "This datasource is the service's own metadata store (the same PostgreSQL database, " +
          "whatever address reached it); it can never be a datasource. Register a database of your app's " +
          "own, with a login that has no rights on the service's store",
      );
    }
    expect((await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body).toEqual([]);
  });

  it("refuses a database holding a copy of the store's tables, in any schema", async () => {
    const copy = await createPgDatabase('tg_copy');
    others.push(copy);
    await copy.exec(
      'CREATE SCHEMA backup; CREATE TABLE backup.account (id text, password_hash text, role text); ' +
        'CREATE TABLE backup.api_key (id text, hash text); CREATE TABLE backup.app_version (id text)',
    );
    const answer = await register(copy.url);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(
      /^This database holds the tables of a copy of the service's metadata store \(account, api_key, app_version in "backup"\)/,
    );
  });

  it('accepts an ordinary database of the same server, and checks it again when its pool opens', async () => {
    const shop = await createPgDatabase('tg_shop');
    others.push(shop);
    await shop.exec(
      "CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO items (name) VALUES ('a'), ('b')",
    );
    const ds = await register(shop.url);
    expect(ds.status).toBe(201);
    expect(
      (
        await run.http('POST', `/api/apps/${appId}/model/import`, {
          token,
          body: { datasourceId: ds.body.id, tables: ['items'] },
        })
      ).status,
    ).toBe(201);
    const api = await run.http('POST', `/api/apps/${appId}/apis`, {
      token,
      body: {
        name: 'items',
        table: 'items',
        actions: { select: true, insert: false, update: false, delete: false },
        public: { select: true },
      },
    });
    expect(api.status).toBe(201);
    expect(
      (await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token })).status,
    ).toBe(200);
    expect((await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
      200,
    );

    // The database becomes a copy of the store before the app's pool first opens (as a host
    // name that now resolves to the store would): the pool refuses it.
    await shop.exec(
      'CREATE TABLE account (id text); CREATE TABLE api_key (id text); CREATE TABLE app_version (id text)',
    );
    const call = await run.http('POST', '/api/graphql/store-guard', {
      body: { query: '{ countItems }' },
    });
    expect(call.body.errors[0].extensions.code).toBe('DATASOURCE_UNAVAILABLE');
    expect(JSON.stringify(call.body)).not.toMatch(/metadata store|account|api_key/);
    const tables = await run.http('GET', `/api/apps/${appId}/datasources/${ds.body.id}/tables`, {
      token,
    });
    expect(tables.status).toBe(400);
    expect(tables.body.message).toMatch(/copy of the service's metadata store/);

    // Without the copy it serves again.
    await shop.exec('DROP TABLE account, api_key, app_version');
    const again = await run.http('POST', '/api/graphql/store-guard', {
      body: { query: '{ countItems }' },
    });
    expect(again.body).toEqual({ data: { countItems: 2 } });
  });
});

/**
 * Issue 22, item 9: registration must not be a port scanner. A closed port, a port that accepts
 * and says nothing, an HTTP server and another database's port answer the same status and message,
 * and no sooner than the connection deadline (as a silent port does: a lower bound the service
 * waits out, which load cannot break). That the silent port's attempt ends at all is the opening's
 * deadline; how much later than the deadline an answer comes is the machine's load, not asserted
 * (timing belongs in bench/).
 */
describe('Datasource registration is no port scanner', () => {
  const ACQUIRE_MS = 1_000;
  let run: RunningApp;
  let token: string;
  let appId: string;
  let closedPort: number;
  let silentPort: number;
  let httpPort: number;
  let silent: Server;
  const silentSockets = new Set<Socket>();
  let http: ReturnType<typeof createHttpServer>;

  const listen = (server: Server | ReturnType<typeof createHttpServer>) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );

  const attempt = async (type: string, port: number) => {
    const scheme = type === 'postgres' ? 'postgres' : 'mysql';
    const started = Date.now();
    const answer = await run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: {
        name: `probe-${port}-${type}`,
        type,
        url: `${scheme}://scanner:p@127.0.0.1:${port}/db`,
      },
    });
    return { ...answer, elapsed: Date.now() - started };
  };

  beforeAll(async () => {
    run = await startApp({ env: { DATASOURCE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS) } });
    token = await run.adminToken();
    appId = (
      await run.http('POST', '/api/apps', { token, body: { name: 'Scan', address: 'scan' } })
    ).body.id;
    const closed = createServer();
    closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    silent = createServer((socket) => {
      silentSockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => silentSockets.delete(socket));
    });
    silentPort = await listen(silent);
    http = createHttpServer((_req, res) => res.end('<html>hello</html>'));
    httpPort = await listen(http);
  });

  afterAll(async () => {
    for (const socket of silentSockets) socket.destroy();
    silent?.close();
    http?.close();
    await run?.close();
  });

  for (const type of ['postgres', 'mysql']) {
    it(`${type}: closed, silent, HTTP and another database's port answer alike`, async () => {
      const ports: [string, number][] = [
        ['closed', closedPort],
        ['silent', silentPort],
        ['http', httpPort],
      ];
      // The other database: MariaDB for a postgres URL, PostgreSQL for a mysql URL.
      const other = new URL(type === 'postgres' ? SERVICE_URLS.mysql : SERVICE_URLS.postgres);
      if (serviceAvailable(type === 'postgres' ? 'mysql' : 'postgres'))
        ports.push(['other database', Number(other.port)]);
      const answers = [];
      for (const [label, port] of ports) answers.push({ label, ...(await attempt(type, port)) });
      const server = type === 'postgres' ? 'PostgreSQL' : 'MySQL/MariaDB';
      for (const answer of answers) {
        expect({ label: answer.label, status: answer.status, body: answer.body }).toEqual({
          label: answer.label,
          status: 400,
          body: {
            statusCode: 400,
            code: 'DATASOURCE_UNREACHABLE',
            message:
              `Could not connect to the datasource: no ${server} server accepted the connection at ` +
              `that host and port: it may be down, unreachable from the service, slow to answer or ` +
              `not a ${server} server; check the host, the port and the TLS setting`,
          },
        });
        // As late as a silent port, so a closed port is not told apart by time.
        expect(answer.elapsed).toBeGreaterThanOrEqual(ACQUIRE_MS - 50);
      }
      expect((await run.http('GET', `/api/apps/${appId}/datasources`, { token })).body).toEqual([]);
    });
  }
});
