import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Review item 20: text that is not WKT, written to a nullable MariaDB spatial column, was stored as
 * NULL without a word (MariaDB's `ST_GeomFromText` answers NULL for it). It is refused with
 * `INVALID_VALUE` naming the field, in `add` and `update`, and nothing is written; WKT and `null`
 * are written as before.
 */
const SETUP = `CREATE TABLE places (id int PRIMARY KEY, shape geometry, note varchar(20));
  CREATE TABLE routes (id int PRIMARY KEY, start point, path geometry);
  INSERT INTO places VALUES (1, ST_GeomFromText('POINT(1 2)'), 'one');
  INSERT INTO routes VALUES (1, ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('LINESTRING(0 0,1 1)'));`;

const mysql = SALES_DIALECTS.find((d) => d.type === 'mysql')!;

mysql.describe('Spatial values on MariaDB (item 20)', () => {
  let run: RunningApp;
  let token: string;
  let cleanup: () => Promise<void>;
  const address = 'spatial-mysql';
  const gql = (query: string) =>
    run.http('POST', `/api/graphql/${address}`, { body: { query }, token });

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    const db = await mysql.create(run.dataDir);
    cleanup = db.cleanup;
    await db.exec(SETUP);
    const app = (await run.http('POST', '/api/apps', { token, body: { name: 'Spatial', address } }))
      .body;
    await registerSalesDatabase(run, token, app.id, 'mysql', {
      url: db.url,
      tables: ['places', 'routes'],
    });
    for (const table of ['places', 'routes']) {
      const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
        token,
        body: {
          name: table,
          table,
          actions: { select: true, insert: true, update: true, delete: true },
        },
      });
      expect(api.status).toBe(201);
    }
  });

  afterAll(async () => {
    await run?.close();
    await cleanup?.();
  });

  it('refuses text that is not WKT with INVALID_VALUE naming the field; nothing is written', async () => {
    const attempts: [string, string, string][] = [
      ['addPlaces', 'addPlaces(id: 2, shape: "nonsense", note: "two") { id }', 'shape'],
      ['addPlaces', 'addPlaces(id: 2, shape: "POINT(1)") { id }', 'shape'],
      ['updatePlaces', 'updatePlaces(id: 1, shape: "nonsense", note: "x") { id }', 'shape'],
      ['updateRoutes', 'updateRoutes(id: 1, path: "LINESTRING(") { id }', 'path'],
      ['addRoutes', 'addRoutes(id: 2, start: "not a point") { id }', 'start'],
    ];
    for (const [operation, field, name] of attempts) {
      const res = await gql(`mutation { ${field} }`);
      expect([field, res.status, res.body.data]).toEqual([field, 200, { [operation]: null }]);
      expect([field, res.body.errors?.[0]?.extensions]).toEqual([
        field,
        { code: 'INVALID_VALUE', field: name },
      ]);
      expect(res.body.errors[0].message).toContain(name);
    }
    const places = await gql('{ getPlaces { id shape note } getRoutes { id start path } }');
    expect(places.body.data).toEqual({
      getPlaces: [{ id: '1', shape: 'POINT(1 2)', note: 'one' }],
      getRoutes: [{ id: '1', start: 'POINT(0 0)', path: 'LINESTRING(0 0,1 1)' }],
    });
  });

  it('finds a row with eq and the WKT read, leaves it out with neq (issue 22, item 15)', async () => {
    const ids = async (where: string) =>
      (
        await gql(`{ getRoutes(where: ${where}, order: [{id: ASC}]) { id } }`)
      ).body.data.getRoutes.map((r: { id: string }) => r.id);
    const added = await gql('mutation { addRoutes(id: 5, start: "POINT(1.5 -2.25)") { id } }');
    expect(added.body.errors).toBeUndefined();
    expect(await ids('{start: {eq: "POINT(0 0)"}}')).toEqual(['1']);
    expect(await ids('{start: {neq: "POINT(0 0)"}}')).toEqual(['5']);
    expect(await ids('{start: {eq: "POINT(1.5 -2.25)"}, path: {eq: null}}')).toEqual(['5']);
    expect(await ids('{path: {eq: "LINESTRING(0 0,1 1)"}}')).toEqual(['1']);
    // Compared as the WKT read: other text finds nothing, and is no error.
    expect(await ids('{start: {eq: "not a point"}}')).toEqual([]);
    await gql('mutation { deleteRoutes(id: 5) }');
  });

  it('writes WKT and null as before', async () => {
    const res = await gql(`mutation {
      a: addPlaces(id: 3, shape: "LINESTRING(0 0,2 2)", note: "three") { id shape note }
      b: updatePlaces(id: 1, shape: null) { id shape }
      c: updateRoutes(id: 1, path: "POINT(5 5)") { id path } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      a: { id: '3', shape: 'LINESTRING(0 0,2 2)', note: 'three' },
      b: { id: '1', shape: null },
      c: { id: '1', path: 'POINT(5 5)' },
    });
  });
});
