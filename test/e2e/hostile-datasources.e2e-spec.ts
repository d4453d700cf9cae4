import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { loadSalesIntoSqlite } from '../support/sales-fixture';
import { placeSqliteFile } from '../support/sqlite-placement';
import { SERVICE_URLS, describeWith } from '../support/services';

/**
 * Issue 7 part 4 over HTTP: a builder's datasource URL can name no server file, no socket and no
 * other app's file; refusals come at once, name what to change and no server path, and the
 * service answers normally right after.
 */
describe('Hostile datasource URLs', () => {
  let run: RunningApp;
  let token: string;
  let appA: string;
  let appB: string;

  const register = (appId: string, type: string, url: string) =>
    run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: { name: `ds-${Math.random()}`, type, url },
    });

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    appA = (await run.http('POST', '/api/apps', { token, body: { name: 'A', address: 'ds-a' } }))
      .body.id;
    appB = (await run.http('POST', '/api/apps', { token, body: { name: 'B', address: 'ds-b' } }))
      .body.id;
  });

  afterAll(async () => run?.close());

  describeWith('postgres')('PostgreSQL', () => {
    it.each([
      'sslrootcert=/dev/zero',
      'sslcert=/etc/hostname',
      'host=/var/run/postgresql',
      'passfile=/etc/passwd',
    ])('refuses ?%s at once, naming the parameter, and keeps serving', async (query) => {
      const res = await register(appA, 'postgres', `${SERVICE_URLS.postgres}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`"${query.split('=')[0]}"`);
      expect(res.body.message).not.toMatch(/ENOENT|EACCES|no such file/i);
      expect((await run.http('GET', '/api/apps', { token })).status).toBe(200);
    });

    it('registers a URL with an allowed parameter', async () => {
      const res = await register(
        appA,
        'postgres',
        `${SERVICE_URLS.postgres}?sslmode=disable&application_name=tg`,
      );
      expect(res.status).toBe(201);
    });
  });

  describe('SQLite', () => {
    it("opens files of the app's own folder only, refusing symlinks and other apps' files", async () => {
      const own = placeSqliteFile(run.dataDir, appA, loadSalesIntoSqlite(run.dataDir, 'a.db'));
      expect((await register(appA, 'sqlite', own)).status).toBe(201);

      const other = await register(appB, 'sqlite', own);
      expect(other.status).toBe(400);
      const byPath = await register(appB, 'sqlite', `sqlite:../${appA}/a.db`);
      expect(byPath.status).toBe(400);
      const absolute = await register(
        appB,
        'sqlite',
        `sqlite:${join(run.dataDir, 'datasources', appA, 'a.db')}`,
      );
      expect(absolute.status).toBe(400);

      const folderB = join(run.dataDir, 'datasources', appB);
      mkdirSync(folderB, { recursive: true });
      symlinkSync(join(run.dataDir, 'platform.db'), join(folderB, 'store.db'));
      const link = await register(appB, 'sqlite', 'sqlite:store.db');
      expect(link.status).toBe(400);
      expect(link.body.message).toContain('symbolic link');
      symlinkSync(join(run.dataDir, 'datasources', appA), join(folderB, 'shared'));
      expect((await register(appB, 'sqlite', 'sqlite:shared/a.db')).status).toBe(400);

      const missing = await register(appB, 'sqlite', 'sqlite:nope.db');
      expect(missing.status).toBe(400);
      expect(missing.body.message).toContain('nope.db');
      for (const res of [other, byPath, absolute, link, missing]) {
        expect(JSON.stringify(res.body)).not.toContain(run.dataDir);
      }
      expect((await run.http('GET', '/api/apps', { token })).status).toBe(200);
    });
  });
});
