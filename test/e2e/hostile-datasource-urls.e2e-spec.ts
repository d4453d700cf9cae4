import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { HttpAnswer, RunningApp, startApp } from '../support/app-harness';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { describeWith, SERVICE_URLS } from '../support/services';
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
    expect(res.body).toEqual({ data: { countOrders: 20 } });
  });
});
