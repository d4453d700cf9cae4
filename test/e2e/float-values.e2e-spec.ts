import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Review item 21: a float column is found by the value a read shows, with every number operator,
 * and that value writes back unchanged (a MariaDB `FLOAT` compared as the double it widens to:
 * `eq: 0.1` found nothing, `gt: 0.1` found the row); NaN and infinities, which GraphQL's `Float`
 * and JSON cannot carry, are refused on read with `INVALID_VALUE` naming the field (GraphQL's own
 * error had no code). MariaDB stores neither NaN nor infinities.
 */
const SETUP = {
  postgres: `CREATE TABLE fl (id int PRIMARY KEY, x real, d double precision);
    INSERT INTO fl VALUES (1, 0.1, 0.1), (2, 3.14159, 3.14159), (3, 16777217, 16777217),
      (4, -1.1, 1e300), (5, 'NaN', 'Infinity'), (6, '-Infinity', 'NaN');`,
  mysql: `CREATE TABLE fl (id int PRIMARY KEY, x float, d double);
    INSERT INTO fl VALUES (1, 0.1, 0.1), (2, 3.14159, 3.14159), (3, 16777217, 16777217),
      (4, -1.1, 1e300);`,
  sqlite: `CREATE TABLE fl (id int PRIMARY KEY, x float, d double);
    INSERT INTO fl VALUES (1, 0.1, 0.1), (2, 3.14159, 3.14159), (3, 16777217, 16777217),
      (4, -1.1, 1e300), (5, 9e999, -9e999);`,
};

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Float values on ${dialect.type} (item 21)`, () => {
    let run: RunningApp;
    let token: string;
    let cleanup: () => Promise<void>;
    const address = `floats-${dialect.type}`;
    const gql = (query: string, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, token });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      await db.exec(SETUP[dialect.type]);
      const app = (
        await run.http('POST', '/api/apps', { token, body: { name: 'Floats', address } })
      ).body;
      await registerSalesDatabase(run, token, app.id, dialect.type, {
        url: db.url,
        tables: [db.qualify('fl')],
      });
      const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
        token,
        body: {
          name: 'fl',
          table: 'fl',
          actions: { select: true, insert: true, update: true, delete: true },
        },
      });
      expect(api.status).toBe(201);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('finds each row by the value a read shows: eq, neq, gt, gte, lt, lte, in, nin, and writes it back unchanged', async () => {
      const rows = (await gql('{ getFl(where: {id: {in: ["1", "2", "3", "4"]}}) { id x d } }')).body
        .data.getFl;
      expect(rows.map((r: { id: string }) => r.id)).toEqual(['1', '2', '3', '4']);
      for (const row of rows) {
        for (const column of ['x', 'd']) {
          const v = JSON.stringify(row[column]);
          const where = (filter: string) =>
            `getFl(where: {id: {in: ["1", "2", "3", "4"]}, ${column}: {${filter}}}) { id }`;
          const query = `{ eq: ${where(`eq: ${v}`)} neq: ${where(`neq: ${v}`)}
            gt: ${where(`gt: ${v}`)} gte: ${where(`gte: ${v}`)} lt: ${where(`lt: ${v}`)}
            lte: ${where(`lte: ${v}`)} in: ${where(`in: [${v}]`)} nin: ${where(`nin: [${v}]`)} }`;
          const res = await gql(query);
          expect([column, v, res.body.errors]).toEqual([column, v, undefined]);
          const has = (alias: string) =>
            res.body.data[alias].some((r: { id: string }) => r.id === row.id);
          const found = Object.fromEntries(
            ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'].map((a) => [a, has(a)]),
          );
          expect([column, v, found]).toEqual([
            column,
            v,
            {
              eq: true,
              neq: false,
              gt: false,
              gte: true,
              lt: false,
              lte: true,
              in: true,
              nin: false,
            },
          ]);
          expect(res.body.data.eq).toEqual([{ id: row.id }]);
          const written = await gql(
            `mutation { updateFl(id: ${row.id}, ${column}: ${v}) { ${column} } }`,
          );
          expect(written.body.errors).toBeUndefined();
          expect(written.body.data.updateFl[column]).toBe(row[column]);
        }
      }
    });

    if (dialect.type !== 'mysql') {
      it('refuses NaN and infinities on read, INVALID_VALUE naming the field, the rest of the row kept', async () => {
        const res = await gql('{ getFl(where: {id: {in: ["4", "5", "6"]}}) { id x d } }');
        const rows =
          dialect.type === 'postgres'
            ? [
                { id: '4', x: -1.1, d: 1e300 },
                { id: '5', x: null, d: null },
                { id: '6', x: null, d: null },
              ]
            : [
                { id: '4', x: -1.1, d: 1e300 },
                { id: '5', x: null, d: null },
              ];
        expect(res.body.data.getFl).toEqual(rows);
        const held =
          dialect.type === 'postgres'
            ? [
                [1, 'x', 'NaN'],
                [1, 'd', 'Infinity'],
                [2, 'x', '-Infinity'],
                [2, 'd', 'NaN'],
              ]
            : [
                [1, 'x', 'Infinity'],
                [1, 'd', '-Infinity'],
              ];
        expect(res.body.errors).toEqual(
          held.map(([index, field, value]) => ({
            message: `${field} holds ${value}, which a GraphQL Float cannot carry (JSON has no NaN or Infinity)`,
            path: ['getFl', index, field],
            extensions: { code: 'INVALID_VALUE', field },
          })),
        );
      });
    }
  });
}
