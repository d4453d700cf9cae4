import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Issue 23 item 5, cost from statistics (README "Limits"): the row estimate counts, for a level
 * without `take`, what the database's statistics (read when the tables are imported) expect —
 * the table's rows at the root, the foreign key's average fan-out below, at most 10,000 — and a
 * count is charged its table's estimated rows against `LIMIT_SCANNED_ROWS`. On PostgreSQL,
 * MariaDB and SQLite, each analyzed before the import (SQLite's foreign-key column has no index,
 * so its fan-out is counted).
 *
 * Data: the sales fixture (12 orders) plus 3,000 lines spread over the 12 orders, about 250 each.
 */
const DIGITS = `(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
  UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)`;
const BULK_LINES = `INSERT INTO order_lines (id, order_id, product, quantity, unit_price)
  SELECT n + 1000, (n % 12) + 1, 'bulk', 1, 1 FROM (SELECT a.d * 1000 + b.d * 100 + c.d * 10 + e.d AS n
    FROM ${DIGITS} a, ${DIGITS} b, ${DIGITS} c, ${DIGITS} e) x WHERE n < 3000`;
const ANALYZE: Record<string, string> = {
  postgres: 'ANALYZE customers, orders, order_lines',
  mysql: 'ANALYZE TABLE customers, orders, order_lines',
  sqlite: 'ANALYZE',
};

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Cost from statistics on ${dialect.type} (issue 23 item 5)`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let lines: number;
    const address = `statistics-${dialect.type}`;

    const gql = (query: string) => run.http('POST', `/api/graphql/${address}`, { body: { query } });
    const statements = () => run.app.get(DatasourcePoolsService).statementsExecuted;

    beforeAll(async () => {
      run = await startApp({ env: { LIMIT_SCANNED_ROWS: '5000' } });
      const token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      await db.exec(BULK_LINES);
      await db.exec(ANALYZE[dialect.type]);
      const appId = (await run.http('POST', '/api/apps', { token, body: { name: 'S', address } }))
        .body.id;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const select = { select: true, insert: false, update: false, delete: false };
      const specs = [
        {
          name: 'orders',
          table: 'orders',
          fields: { id: true, customer: { name: true }, order_lines: { product: true } },
        },
        {
          name: 'lines',
          table: 'order_lines',
          fields: { id: true, product: true, order: { id: true, order_lines: { product: true } } },
        },
      ];
      for (const spec of specs) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, {
          token,
          body: { ...spec, actions: select, public: select },
        });
        expect(api.status).toBe(201);
        const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
          token,
        });
        expect(published.status).toBe(200);
      }
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
      const counted = await gql('{ countLines }');
      expect(counted.body.errors).toBeUndefined();
      lines = counted.body.data.countLines;
      expect(lines).toBeGreaterThan(3_000);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('serves a nested read without take on small tables (refused as 200,020,000 rows without statistics)', async () => {
      const res = await gql('{ getOrders { id customer { name } order_lines { product } } }');
      expect(res.body.errors).toBeUndefined();
      expect(res.status).toBe(200);
      const orders = res.body.data.getOrders as { order_lines: unknown[] }[];
      expect(orders).toHaveLength(12);
      expect(orders.reduce((sum, o) => sum + o.order_lines.length, 0)).toBe(lines);
    });

    it('refuses a shape the statistics say is large before any SQL: each line loads its order’s ~250 lines', async () => {
      const before = statements();
      const res = await gql('{ getLines { id order { order_lines { product } } } }');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      // About 3,000 lines × 250 lines each; the fan-out is the database's estimate.
      const estimate = Number(
        /may read up to ([\d,]+) rows/.exec(res.body.errors[0].message)![1].replace(/,/g, ''),
      );
      expect(estimate).toBeGreaterThan(300_000);
      expect(estimate).toBeLessThan(3_000_000);
      expect(statements()).toBe(before);
      // With take, as before: 5 lines, 5 orders, 5 × 10 lines.
      const paged = await gql(
        '{ getLines(take: 5) { id order { order_lines(take: 10) { product } } } }',
      );
      expect(paged.body.errors).toBeUndefined();
    });

    it('charges each count its table’s estimated rows against LIMIT_SCANNED_ROWS, before any SQL', async () => {
      expect((await gql('{ countLines countOrders }')).body.errors).toBeUndefined();
      const before = statements();
      const res = await gql('{ a: countLines b: countLines }');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect(res.body.errors[0].message).toMatch(
        /counts and aggregates may scan [\d,]+ rows \(the tables' estimated rows\); the limit is 5,000/,
      );
      expect(statements()).toBe(before);
    });
  });
}
