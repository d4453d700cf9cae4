import { linkSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadLibraryIntoMysql,
  loadLibraryIntoPostgres,
  loadLibraryIntoSqlite,
} from '../support/library-fixture';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { describeWith } from '../support/services';

const ZONES = ['America/Sao_Paulo', 'Asia/Kolkata'];
const ADMIN = { email: 'tz@e2e.test', password: 'tz-admin-password' };

interface Case {
  type: 'postgres' | 'mysql' | 'sqlite';
  describe: jest.Describe;
  setup(sqliteDir: string): Promise<{ url: string; cleanup(): Promise<void> }>;
  /** books.published_at written as `2024-05-06T07:08:09.120+02:00` (or local where the database has no zone). */
  published: { write: string; read: string };
}

const CASES: Case[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async setup() {
      const db = await createPgDatabase('tg_tz');
      await loadLibraryIntoPostgres(db);
      await db.exec(`ALTER DATABASE "${db.name}" SET timezone TO 'Pacific/Auckland'`);
      return { url: db.url, cleanup: () => db.drop() };
    },
    published: { write: '2024-05-06T07:08:09.120+02:00', read: '2024-05-06T05:08:09.120Z' },
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async setup() {
      const db = await createMysqlDatabase('tg_tz');
      await loadLibraryIntoMysql(db);
      return { url: db.url, cleanup: () => db.drop() };
    },
    published: { write: '2024-05-06T07:08:09.120+02:00', read: '2024-05-06T05:08:09.120Z' },
  },
  {
    type: 'sqlite',
    describe,
    async setup(sqliteDir) {
      loadLibraryIntoSqlite(join(sqliteDir, '..'));
      return { url: 'sqlite:library.db', cleanup: async () => undefined };
    },
    published: { write: '2024-05-06T07:08:09.120', read: '2024-05-06T07:08:09.120' },
  },
];

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status >= 300 || json.errors)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Sets an app up over HTTP like a builder would; returns a GraphQL caller with a key. */
async function setUp(base: string, type: string, url: string, place?: (appId: string) => void) {
  const { token } = await call(base, 'POST', '/api/auth/login', ADMIN);
  const auth = { authorization: `Bearer ${token}` };
  const app = await call(base, 'POST', '/api/apps', { name: 'TZ', address: 'tz' }, auth);
  place?.(app.id);
  const ds = await call(
    base,
    'POST',
    `/api/apps/${app.id}/datasources`,
    { name: 'library', type, url },
    auth,
  );
  await call(
    base,
    'POST',
    `/api/apps/${app.id}/model/import`,
    { datasourceId: ds.id, tables: ['countries', 'authors', 'books'] },
    auth,
  );
  const api = await call(
    base,
    'POST',
    `/api/apps/${app.id}/apis`,
    {
      name: 'books',
      table: 'books',
      actions: { select: true, insert: true, update: true, delete: false },
    },
    auth,
  );
  await call(base, 'POST', `/api/apps/${app.id}/apis/${api.id}/publish`, undefined, auth);
  const authors = await call(
    base,
    'POST',
    `/api/apps/${app.id}/apis`,
    {
      name: 'authors',
      table: 'authors',
      actions: { select: true, insert: false, update: false, delete: false },
    },
    auth,
  );
  await call(base, 'POST', `/api/apps/${app.id}/apis/${authors.id}/publish`, undefined, auth);
  await call(base, 'POST', `/api/apps/${app.id}/versions/publish`, undefined, auth);
  const { key } = await call(
    base,
    'POST',
    '/api/admin/api-keys',
    { name: 'tz', scope: [{ appId: app.id, endpoints: 'all' }] },
    auth,
  );
  return (query: string) =>
    call(base, 'POST', '/api/graphql/tz', { query }, { 'x-api-key': key }).then((r) => r.data);
}

for (const c of CASES) {
  c.describe(`Date and time values under two process time zones on ${c.type}`, () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-tz-'));
    const sqliteDir = join(root, 'datasources');
    const services: ServiceProcess[] = [];
    let cleanup: () => Promise<void> = async () => undefined;

    afterAll(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await cleanup();
      rmSync(root, { recursive: true, force: true });
    });

    it('reads and writes every date kind identically in America/Sao_Paulo and Asia/Kolkata', async () => {
      mkdirSync(sqliteDir, { recursive: true });
      const db = await c.setup(sqliteDir);
      cleanup = db.cleanup;
      const callers = [];
      for (const zone of ZONES) {
        const dataDir = join(root, zone.replace('/', '-'));
        const service = await startServiceProcess({
          TZ: zone,
          DATA_DIR: dataDir,
          SQLITE_DATASOURCE_DIR: sqliteDir,
          PLATFORM_SECRET: 'tz-platform-secret-0123456789-abcdefghijk',
          ADMIN_EMAIL: ADMIN.email,
          ADMIN_PASSWORD: ADMIN.password,
          DEMO: '0',
        });
        services.push(service);
        // Each service's app opens SQLite files from its own folder: the same file, hard-linked
        // there (a hard link is the file itself, not a symbolic link the service would refuse).
        const place =
          c.type === 'sqlite'
            ? (appId: string) => {
                mkdirSync(join(sqliteDir, appId), { recursive: true });
                linkSync(join(sqliteDir, 'library.db'), join(sqliteDir, appId, 'library.db'));
              }
            : undefined;
        callers.push(await setUp(service.baseUrl, c.type, db.url, place));
      }
      const [west, east] = callers;
      // Written in one zone…
      const added =
        await west(`mutation { addBooks(author_id: 1, title: "Zones", published_at: "${c.published.write}",
        written_on: "2023-12-31", edited_at: "2024-01-02T03:04:05.678") { id } }`);
      const read = `{ getBooks(where: {id: {eq: ${added.addBooks.id}}}) { published_at written_on edited_at } getAuthors(where: {id: {eq: 1}}) { born created_at } }`;
      // …read in both.
      const fromWest = await west(read);
      const fromEast = await east(read);
      expect(fromEast).toEqual(fromWest);
      expect(fromWest).toEqual({
        getBooks: [
          {
            published_at: c.published.read,
            written_on: '2023-12-31',
            edited_at: '2024-01-02T03:04:05.678',
          },
        ],
        getAuthors: [{ born: '1839-06-21', created_at: '2024-01-01T10:00:00' }],
      });
      // A filter on a date means the same in both zones.
      const filter = '{ countBooks(where: {written_on: {eq: "2023-12-31"}}) }';
      expect(await east(filter)).toEqual(await west(filter));
      expect((await east(filter)).countBooks).toBe(1);
    });
  });
}
