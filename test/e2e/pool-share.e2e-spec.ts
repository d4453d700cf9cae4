import { RunningApp, startApp } from '../support/app-harness';
import { publishTableApis, SELECT_ONLY } from '../support/table-apis';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';
import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';

/**
 * Issue 22, item 3 (CONTRACT.md §6 Limits): one request may not monopolise its datasource's pool.
 * A request of many aliased `count` fields (counts read no rows, so the row estimate does not
 * see them) runs at most a quarter of the pool's connections at a time, measured on the database
 * itself (its list of running statements) while a second caller of the same app is answered; and
 * a request whose statements (root fields × navigation levels, fragments expanded) exceed
 * `LIMIT_STATEMENTS` is refused before any SQL.
 */

/** Pool of 8 connections: a quarter is 2. */
const POOL_SIZE = 8;
const SHARE = 2;
/** How long each statement over the slow view takes, in seconds. */
const SLEEP_SECONDS = 0.25;

/** A one-row view whose every read sleeps, per database. */
const SLOW_VIEW: Record<string, string> = {
  postgres: `CREATE VIEW slow_one AS SELECT 1 AS id FROM (SELECT pg_sleep(${SLEEP_SECONDS})) s`,
  mysql: `CREATE VIEW slow_one AS SELECT 1 AS id FROM DUAL WHERE SLEEP(${SLEEP_SECONDS}) = 0`,
};

/** Statements over the slow view running right now, read from a separate connection. */
type RunningCount = () => Promise<number>;

async function runningCounter(
  type: string,
  url: string,
): Promise<{ count: RunningCount; end(): Promise<void> }> {
  const name = new URL(url).pathname.slice(1);
  if (type === 'postgres') {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: url });
    await client.connect();
    return {
      count: async () =>
        Number(
          (
            await client.query(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE '%slow_one%' AND pid <> pg_backend_pid()`,
              [name],
            )
          ).rows[0].n,
        ),
      end: () => client.end(),
    };
  }
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection(url);
  return {
    count: async () => {
      const [rows] = await conn.query(
        `SELECT count(*) AS n FROM information_schema.processlist WHERE db = ? AND info LIKE '%slow_one%' AND id <> connection_id()`,
        [name],
      );
      return Number((rows as { n: number }[])[0].n);
    },
    end: () => conn.end(),
  };
}

for (const dialect of SALES_DIALECTS.filter((d) => d.type !== 'sqlite')) {
  dialect.describe(`One request's share of the pool on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let url: string;
    let cleanup: () => Promise<void>;
    const address = `pool-share-${dialect.type}`;
    const gql = (query: string) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query }, token });

    beforeAll(async () => {
      run = await startApp({
        env: { DATASOURCE_POOL_SIZE: String(POOL_SIZE), LIMIT_STATEMENTS: '300' },
      });
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      url = db.url;
      cleanup = db.cleanup;
      await db.exec(SLOW_VIEW[dialect.type]);
      const app = await run.http('POST', '/api/apps', { token, body: { name: 'Pool', address } });
      expect(app.status).toBe(201);
      const appId = app.body.id as string;
      const dsId = await registerSalesDatabase(run, token, appId, dialect.type, db, false);
      const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId: dsId, tables: [...db.tables, db.qualify('slow_one')] },
      });
      expect(imported.status).toBe(201);
      const levels = {
        id: true,
        customer: { id: true, orders: { id: true, customer: { id: true } } },
      };
      await publishTableApis(run, token, appId, [
        { name: 'slow', table: 'slow_one', actions: SELECT_ONLY },
        { name: 'orders', table: 'orders', actions: SELECT_ONLY, fields: levels },
        { name: 'customers', table: 'customers', actions: SELECT_ONLY },
      ]);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('runs 12 aliased counts at most a quarter of the pool at a time while another caller is answered', async () => {
      const counter = await runningCounter(dialect.type, url);
      try {
        const aliases = Array.from({ length: 12 }, (_, i) => `c${i}: countSlow`).join(' ');
        let done = false;
        const attack = gql(`{ ${aliases} }`).finally(() => {
          done = true;
        });
        const seen: number[] = [];
        const others: number[] = [];
        while (!done) {
          seen.push(await counter.count());
          const other = await gql('{ getCustomers(take: 1) { id } }');
          others.push(other.status === 200 && !other.body.errors ? 200 : other.status);
        }
        const answer = await attack;
        expect(answer.status).toBe(200);
        expect(answer.body.errors).toBeUndefined();
        expect(Object.values(answer.body.data)).toEqual(Array(12).fill(1));
        // Before the cap, all 8 connections ran the slow counts at once.
        expect(Math.max(...seen)).toBeGreaterThanOrEqual(1);
        expect(Math.max(...seen)).toBeLessThanOrEqual(SHARE);
        expect(others.length).toBeGreaterThan(0);
        expect(others.every((s) => s === 200)).toBe(true);
      } finally {
        await counter.end();
      }
    });

    it('refuses a request of more statements than LIMIT_STATEMENTS before any SQL, naming the count and the limit', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      const before = pools.statementsExecuted;
      // 100 aliases (the alias ceiling) × 4 levels = 400 statements, 400 rows estimated.
      const fields = Array.from(
        { length: 100 },
        (_, i) => `o${i}: getOrders(take: 1) { ...Levels }`,
      ).join(' ');
      const answer = await gql(
        `{ ${fields} } fragment Levels on Orders { customer { orders(take: 1) { customer { id } } } }`,
      );
      expect(answer.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/runs 400 SQL statements.*the limit is 300/),
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      });
      expect(pools.statementsExecuted).toBe(before);
      // Three levels are 300 statements: served.
      const served = await gql(
        `{ ${fields} } fragment Levels on Orders { customer { orders(take: 1) { id } } }`,
      );
      expect(served.body.errors).toBeUndefined();
      expect(Object.keys(served.body.data)).toHaveLength(100);
    });
  });
}
