import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { RunningApp, startApp } from '../support/app-harness';
import { createAppKey, publishTableApis, SELECT_ONLY } from '../support/table-apis';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Issue 22 item 10, over HTTP on PostgreSQL, MariaDB and SQLite:
 * - a page whose rows pass the request's byte budget (`LIMIT_RESPONSE_BYTES`) answers
 *   QUERY_TOO_COMPLEX having read about the budget, not the page: rows are charged as they come
 *   from the driver and the read stops at the row that passes it (measured as the growth of this
 *   process's heap while the request runs: the page is 60 MB, the budget 2 MiB); the pool serves
 *   the next request;
 * - a statement binding more values than its database takes (a 70,000-element `in` list in a
 *   variable, allowed by `LIMIT_IN_LIST=100000`) answers BAD_USER_INPUT naming the database's
 *   limit, before any SQL, instead of DATASOURCE_UNAVAILABLE or an internal error.
 */

const BUDGET = 2 * 1024 * 1024;
const ROWS = 60;
const MB = 1024 * 1024;

/** 60 rows of 1 MB text each, written by the database itself. */
const BLOBS: Record<string, string[]> = {
  postgres: [
    'CREATE TABLE blobs (id int PRIMARY KEY, payload text NOT NULL)',
    `INSERT INTO blobs SELECT g, repeat(chr(97 + g % 26), ${MB}) FROM generate_series(1, ${ROWS}) g`,
  ],
  mysql: [
    'CREATE TABLE blobs (id int PRIMARY KEY, payload LONGTEXT NOT NULL)',
    `INSERT INTO blobs (id, payload) WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${ROWS}) SELECT g, REPEAT(CHAR(97 + g % 26), ${MB}) FROM s`,
  ],
  sqlite: [
    'CREATE TABLE blobs (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)',
    `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${ROWS}) INSERT INTO blobs SELECT g, replace(hex(zeroblob(${MB / 2})), '0', char(97 + g % 26)) FROM s`,
  ],
};

/** The documented limit of bound values per statement, as the refusal names it. */
const PARAMETER_LIMIT = { postgres: '65,535', mysql: '65,535', sqlite: '32,766' };

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Statement bounds on ${dialect.type}`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let key: string;
    const address = `bounds-${dialect.type}`;

    const gql = (query: string, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query, variables },
        headers: { 'x-api-key': key },
      });
    const statements = () => run.app.get(DatasourcePoolsService).statementsExecuted;

    /** The pool still answers: a small page of blobs and of customers. */
    const expectServing = async () => {
      const blobs = await gql('{ getBlobs(take: 2) { id } }');
      expect(blobs.status).toBe(200);
      expect(blobs.body.data.getBlobs).toEqual([{ id: '1' }, { id: '2' }]);
      const customers = await gql('{ getCustomers(take: 2) { id } }');
      expect(customers.body.data.getCustomers).toHaveLength(2);
    };

    beforeAll(async () => {
      run = await startApp({
        env: { LIMIT_RESPONSE_BYTES: String(BUDGET), LIMIT_IN_LIST: '100000' },
      });
      const token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      for (const sql of BLOBS[dialect.type]) await db.exec(sql);
      const app = await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Bounds', address },
      });
      const appId = app.body.id;
      await registerSalesDatabase(run, token, appId, dialect.type, {
        url: db.url,
        tables: [...db.tables, db.qualify('blobs')],
      });
      await publishTableApis(run, token, appId, [
        {
          name: 'blobs',
          table: 'blobs',
          actions: SELECT_ONLY,
          fields: { id: true, payload: true },
        },
        { name: 'customers', table: 'customers', actions: SELECT_ONLY },
      ]);
      key = await createAppKey(run, token, appId, 'bounds');
      await expectServing();
    }, 120_000);

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('stops reading a page at the row that passes the byte budget, and serves the next request', async () => {
      const start = process.memoryUsage().heapUsed;
      let peak = start;
      const sample = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }, 2);
      let res;
      try {
        res = await gql(`{ getBlobs(take: ${ROWS}) { id payload } }`);
      } finally {
        clearInterval(sample);
      }
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect(res.body.errors[0].message).toContain('2,097,152 bytes');
      // The whole page is 60 MB: read whole, it stays on the heap until the request ends (and
      // longer, until a collection). Stopped at the budget, a few rows at most are ever held.
      expect((peak - start) / MB).toBeLessThan(30);
      await expectServing();
    });

    it('refuses a statement binding more values than the database takes, before any SQL', async () => {
      const before = statements();
      const ids = Array.from({ length: 70_000 }, (_, i) => String(i + 1));
      const res = await gql('query($ids: [ID!]) { getCustomers(where: {id: {in: $ids}}) { id } }', {
        ids,
      });
      expect(JSON.stringify(res.body)).not.toMatch(/INTERNAL_SERVER_ERROR|DATASOURCE_UNAVAILABLE/);
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors[0].message).toContain(PARAMETER_LIMIT[dialect.type]);
      expect(res.body.errors[0].message).not.toMatch(/SELECT|\$\d|\?/);
      expect(statements()).toBe(before);
      await expectServing();
    });
  });
}
