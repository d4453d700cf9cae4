import Database from 'better-sqlite3';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { ORDERS } from '../support/sales-fixture';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';

/**
 * Issue 11, item 4: views (every database) and PostgreSQL materialized views are listed with
 * their kind and import as read-only model tables: a Table API on one offers select only, and the
 * builder may choose its key (`PATCH …/model/tables/:table {primaryKey}`), which then completes
 * every order and is typed `ID`. A PostgreSQL partitioned table is listed and imported once (its
 * partitions are not), with its own key and foreign keys, and navigates both ways. Runs on
 * PostgreSQL, MariaDB and SQLite over the sales dataset (sales-fixture.ts).
 */

/** A view over orders whose key column is not its first, so the key's part in the order shows. */
const SUMMARY_VIEW =
  'CREATE VIEW order_summary AS SELECT o.status AS status, o.customer_id AS customer_id, o.id AS order_id FROM orders o';

/** A second view, recreated without its chosen key column to see what a re-import keeps. */
const CITY_VIEW = 'CREATE VIEW city_list AS SELECT id AS customer_id, city FROM customers';

/** A plain table that later becomes a view of the same name. */
const FLIP_TABLE = 'CREATE TABLE flip (id int PRIMARY KEY, label varchar(20))';

/** PostgreSQL: a materialized view, and a partitioned table with foreign keys both ways. */
const POSTGRES_ONLY = `
  CREATE MATERIALIZED VIEW status_counts AS SELECT status, count(*) AS n FROM orders GROUP BY status;
  CREATE TABLE regions (id int PRIMARY KEY, name text NOT NULL);
  CREATE TABLE readings (id int PRIMARY KEY, region_id int NOT NULL REFERENCES regions(id), value int NOT NULL)
    PARTITION BY RANGE (id);
  CREATE TABLE readings_low PARTITION OF readings FOR VALUES FROM (MINVALUE) TO (100);
  CREATE TABLE readings_high PARTITION OF readings FOR VALUES FROM (100) TO (MAXVALUE);
  CREATE TABLE flags (id int PRIMARY KEY, reading_id int NOT NULL REFERENCES readings(id), note text NOT NULL);
  INSERT INTO regions VALUES (1, 'North'), (2, 'South');
  INSERT INTO readings VALUES (1, 1, 10), (2, 2, 20), (150, 1, 15), (160, 2, 25);
  INSERT INTO flags VALUES (1, 150, 'spike'), (2, 1, 'low'), (3, 150, 'again');`;

const SELECT_ONLY = { select: true, insert: false, update: false, delete: false };

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Views and partitioned tables on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let dsId: string;
    let exec: (sql: string) => Promise<void>;
    let qualify: (table: string) => string;
    let cleanup: () => Promise<void>;
    const address = `views-${dialect.type}`;

    const gql = (query: string) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query }, token });
    /** The data of a query that must succeed. */
    const data = async (query: string) => {
      const res = await gql(query);
      if (res.status !== 200 || res.body.errors)
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    const importTables = (tables: string[]) =>
      run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId: dsId, tables: tables.map(qualify) },
      });
    const patchTable = (table: string, body: unknown) =>
      run.http('PATCH', `/api/apps/${appId}/model/tables/${table}`, { token, body });
    const createApi = (body: Record<string, unknown>) =>
      run.http('POST', `/api/apps/${appId}/apis`, { token, body });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      exec = db.exec;
      qualify = db.qualify;
      await exec(SUMMARY_VIEW);
      await exec(CITY_VIEW);
      await exec(FLIP_TABLE);
      if (dialect.type === 'postgres') await exec(POSTGRES_ONLY);
      const app = await run.http('POST', '/api/apps', { token, body: { name: 'Views', address } });
      expect(app.status).toBe(201);
      appId = app.body.id;
      dsId = await registerSalesDatabase(run, token, appId, dialect.type, db, false);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('lists views with kind "view" and tables with kind "table"', async () => {
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${dsId}/tables`, {
        token,
      });
      expect(listed.status).toBe(200);
      const kinds = Object.fromEntries(
        listed.body.map((t: { name: string; kind: string }) => [t.name, t.kind]),
      );
      expect(kinds).toMatchObject({
        customers: 'table',
        orders: 'table',
        order_lines: 'table',
        flip: 'table',
        order_summary: 'view',
        city_list: 'view',
      });
      const summary = listed.body.find((t: { name: string }) => t.name === 'order_summary');
      expect(Object.keys(summary).sort()).toEqual(['kind', 'name', 'schema']);
    });

    it('imports a view as a read-only model table without a key', async () => {
      const imported = await importTables(['orders', 'order_summary', 'city_list']);
      expect(imported.status).toBe(201);
      const view = imported.body.find((t: { name: string }) => t.name === 'order_summary');
      expect(view).toMatchObject({
        readOnly: true,
        primaryKey: [],
        primaryKeyChosen: false,
        relations: [],
      });
      expect(view.fields.map((f: { name: string }) => f.name)).toEqual([
        'status',
        'customer_id',
        'order_id',
      ]);
      const orders = imported.body.find((t: { name: string }) => t.name === 'orders');
      expect(orders).toMatchObject({
        readOnly: false,
        primaryKey: ['id'],
        primaryKeyChosen: false,
      });
      const listed = await run.http('GET', `/api/apps/${appId}/model/tables?search=summary`, {
        token,
      });
      expect(listed.body[0].tables).toEqual([expect.objectContaining({ readOnly: true })]);
    });

    it('refuses a Table API with insert, update or delete on a view, saying it is a view', async () => {
      const refused = await createApi({
        name: 'summaryWrites',
        table: 'order_summary',
        actions: { select: true, insert: true, update: false, delete: true },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('INVALID_INPUT');
      expect(refused.body.message).toBe('Table "order_summary" is a view: only select is possible');
      expect(refused.body.details).toEqual([
        'actions: "order_summary" is a view, so only select is possible; switch off insert, delete',
      ]);
      const apis = await run.http('GET', `/api/apps/${appId}/apis`, { token });
      expect(apis.body.map((a: { name: string }) => a.name)).not.toContain('summaryWrites');
    });

    it('answers a select-only API on a view; a chosen key completes the order and is typed ID', async () => {
      const api = await createApi({
        name: 'orderSummary',
        table: 'order_summary',
        actions: SELECT_ONLY,
      });
      expect(api.status).toBe(201);
      expect(
        (await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token }))
          .status,
      ).toBe(200);
      const paid = ORDERS.filter((o) => o.status === 'PAID');
      const query =
        '{ getOrderSummary(where: {status: {eq: "PAID"}}, order: [{status: ASC}]) { order_id customer_id } countOrderSummary(where: {status: {eq: "PAID"}}) }';
      // No key: every column completes the order, in column order (customer_id before order_id).
      const before = await data(query);
      expect(before.countOrderSummary).toBe(paid.length);
      expect(before.getOrderSummary).toEqual(
        [...paid]
          .sort((a, b) => a.customer_id - b.customer_id || a.id - b.id)
          .map((o) => ({ order_id: o.id, customer_id: o.customer_id })),
      );

      const keyed = await patchTable('order_summary', { primaryKey: ['order_id'] });
      expect(keyed.status).toBe(200);
      expect(keyed.body).toMatchObject({
        readOnly: true,
        primaryKey: ['order_id'],
        primaryKeyChosen: true,
      });
      expect(
        keyed.body.fields.map((f: { name: string; primaryKey: boolean }) => [f.name, f.primaryKey]),
      ).toEqual([
        ['status', false],
        ['customer_id', false],
        ['order_id', true],
      ]);

      // The key completes the order: ties on status come by order_id, which is now an ID.
      const after = await data(query);
      expect(after.getOrderSummary).toEqual(
        paid.map((o) => ({ order_id: String(o.id), customer_id: o.customer_id })),
      );
      const page = await data(
        '{ getOrderSummary(where: {status: {eq: "PAID"}}, order: [{status: DESC}], take: 2, skip: 1) { order_id } }',
      );
      expect(page.getOrderSummary).toEqual(
        paid.slice(1, 3).map((o) => ({ order_id: String(o.id) })),
      );
      const byKey = await data(
        '{ getOrderSummary(where: {order_id: {in: ["3", "4"]}}, order: [{order_id: DESC}]) { order_id status } }',
      );
      expect(byKey.getOrderSummary).toEqual(
        [4, 3].map((id) => ({ order_id: String(id), status: ORDERS[id - 1].status })),
      );
      const type = await data(
        '{ __type(name: "OrderSummary") { fields { name type { name ofType { name } } } } }',
      );
      const orderId = type.__type.fields.find((f: { name: string }) => f.name === 'order_id');
      expect(orderId.type.name ?? orderId.type.ofType.name).toBe('ID');
      const mutations = await data('{ __schema { mutationType { fields { name } } } }');
      const names = (mutations.__schema.mutationType?.fields ?? []).map(
        (f: { name: string }) => f.name,
      );
      expect(names.filter((n: string) => n.endsWith('OrderSummary'))).toEqual([]);
    });

    it('refuses switching a write action on for an API of a view', async () => {
      const apis = await run.http('GET', `/api/apps/${appId}/apis`, { token });
      const api = apis.body.find((a: { name: string }) => a.name === 'orderSummary');
      const patched = await run.http('PATCH', `/api/apps/${appId}/apis/${api.id}`, {
        token,
        body: { actions: { ...SELECT_ONLY, update: true } },
      });
      expect(patched.status).toBe(400);
      expect(patched.body.message).toBe('Table "order_summary" is a view: only select is possible');
      const moved = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: { name: 'ordersToo', table: 'orders', actions: { ...SELECT_ONLY, insert: true } },
      });
      expect(moved.status).toBe(201);
      const retargeted = await run.http('PATCH', `/api/apps/${appId}/apis/${moved.body.id}`, {
        token,
        body: { table: 'order_summary', name: 'ordersToo' },
      });
      expect(retargeted.status).toBe(400);
      expect(retargeted.body.details[0]).toContain('switch off insert');
      await run.http('DELETE', `/api/apps/${appId}/apis/${moved.body.id}`, { token });
    });

    it('refuses a chosen key with unknown columns, and on a table whose database declares one', async () => {
      const unknown = await patchTable('order_summary', { primaryKey: ['order_id', 'nope'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual(['primaryKey: "order_summary" has no column "nope"']);
      const declared = await patchTable('orders', { primaryKey: ['status'] });
      expect(declared.status).toBe(400);
      expect(declared.body.message).toBe(
        '"orders" has a primary key declared by its database (id); only a view or a table without one takes a chosen key',
      );
      const notList = await patchTable('order_summary', { primaryKey: 'order_id' });
      expect(notList.status).toBe(400);
      const model = await run.http('GET', `/api/apps/${appId}/model/tables`, { token });
      const tables = model.body[0].tables;
      expect(tables.find((t: { name: string }) => t.name === 'orders').primaryKey).toEqual(['id']);
      expect(tables.find((t: { name: string }) => t.name === 'order_summary').primaryKey).toEqual([
        'order_id',
      ]);
    });

    it('a re-import keeps a chosen key while its columns exist, and drops it when one goes', async () => {
      expect((await patchTable('city_list', { primaryKey: ['customer_id'] })).status).toBe(200);
      const again = await importTables(['city_list']);
      expect(again.status).toBe(201);
      expect(again.body[0]).toMatchObject({ primaryKey: ['customer_id'], primaryKeyChosen: true });
      await exec('DROP VIEW city_list');
      await exec('CREATE VIEW city_list AS SELECT city FROM customers');
      const changed = await importTables(['city_list']);
      expect(changed.status).toBe(201);
      expect(changed.body[0]).toMatchObject({
        readOnly: true,
        primaryKey: [],
        primaryKeyChosen: false,
      });
      expect(changed.body[0].fields.map((f: { name: string }) => f.name)).toEqual(['city']);
    });

    it('refuses re-importing a table that became a view while an API writes to it', async () => {
      expect((await importTables(['flip'])).status).toBe(201);
      const api = await createApi({
        name: 'flip',
        table: 'flip',
        actions: { ...SELECT_ONLY, insert: true },
      });
      expect(api.status).toBe(201);
      await exec('DROP TABLE flip');
      await exec('CREATE VIEW flip AS SELECT id, name AS label FROM customers');
      const refused = await importTables(['flip']);
      expect(refused.status).toBe(409);
      expect(refused.body.details).toEqual([
        '"flip" is a view, so only select is possible; Table API "flip" has insert active',
      ]);
      const patched = await run.http('PATCH', `/api/apps/${appId}/apis/${api.body.id}`, {
        token,
        body: { actions: SELECT_ONLY },
      });
      expect(patched.status).toBe(200);
      const imported = await importTables(['flip']);
      expect(imported.status).toBe(201);
      expect(imported.body[0]).toMatchObject({ readOnly: true, primaryKey: [] });
      const rows = await data('{ countFlip }');
      expect(rows.countFlip).toBe(6);
    });

    if (dialect.type !== 'postgres') return;

    it('imports a materialized view read-only and answers from it', async () => {
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${dsId}/tables`, {
        token,
      });
      expect(listed.body).toContainEqual({ schema: 'public', name: 'status_counts', kind: 'view' });
      const imported = await importTables(['status_counts']);
      expect(imported.status).toBe(201);
      expect(imported.body[0]).toMatchObject({ readOnly: true, primaryKey: [] });
      expect(
        imported.body[0].fields.map((f: { name: string; kind: string }) => [f.name, f.kind]),
      ).toEqual([
        ['status', 'text'],
        ['n', 'bigint'],
      ]);
      expect((await patchTable('status_counts', { primaryKey: ['status'] })).status).toBe(200);
      const refused = await createApi({
        name: 'statusCounts',
        table: 'status_counts',
        actions: { ...SELECT_ONLY, delete: true },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('Table "status_counts" is a view: only select is possible');
      expect(
        (await createApi({ name: 'statusCounts', table: 'status_counts', actions: SELECT_ONLY }))
          .status,
      ).toBe(201);
      const counts = await data(
        '{ getStatusCounts(where: {status: {neq: "PENDING"}}, order: [{status: DESC}]) { status n } }',
      );
      expect(
        counts.getStatusCounts.map((r: { status: string; n: unknown }) => [r.status, String(r.n)]),
      ).toEqual([
        ['SHIPPED', '4'],
        ['PAID', '4'],
      ]);
    });

    it('lists a partitioned table once, without its partitions, which cannot be imported', async () => {
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${dsId}/tables`, {
        token,
      });
      const names = listed.body.map((t: { name: string }) => t.name);
      expect(listed.body).toContainEqual({ schema: 'public', name: 'readings', kind: 'table' });
      expect(names).not.toContain('readings_low');
      expect(names).not.toContain('readings_high');
      const refused = await importTables(['readings_low']);
      expect(refused.status).toBe(400);
      expect(refused.body.details).toEqual(['no table "public.readings_low"']);
    });

    it('imports a partitioned table with its key and foreign keys; navigation works both ways', async () => {
      const imported = await importTables(['regions', 'readings', 'flags']);
      expect(imported.status).toBe(201);
      const byName = Object.fromEntries(imported.body.map((t: { name: string }) => [t.name, t]));
      expect(byName.readings).toMatchObject({ readOnly: false, primaryKey: ['id'] });
      expect(
        byName.readings.relations.map((r: { name: string; kind: string; to: string }) => [
          r.name,
          r.kind,
          r.to,
        ]),
      ).toEqual([
        ['region', 'manyToOne', 'regions'],
        ['flags', 'oneToMany', 'flags'],
      ]);
      // Only the foreign key to the parent: PostgreSQL's per-partition copies (PostgreSQL ≥ 12
      // adds one per partition to the referencing table) are not stored in the model.
      const store = new Database(join(run.dataDir, 'platform.db'), { readonly: true });
      const versions = store
        .prepare("SELECT definition FROM app_version WHERE app_id = ? AND slot <> 'main'")
        .all(appId) as { definition: string }[];
      store.close();
      expect(versions).toHaveLength(1);
      const stored = JSON.parse(versions[0].definition).tables;
      const storedTable = (name: string) => stored.find((t: { name: string }) => t.name === name);
      expect(storedTable('flags').foreignKeys).toEqual([
        {
          columns: ['reading_id'],
          referencedSchema: 'public',
          referencedTable: 'readings',
          referencedColumns: ['id'],
        },
      ]);
      expect(storedTable('readings').foreignKeys).toEqual([
        {
          columns: ['region_id'],
          referencedSchema: 'public',
          referencedTable: 'regions',
          referencedColumns: ['id'],
        },
      ]);
      expect('readOnly' in storedTable('readings')).toBe(false);
      expect(storedTable('status_counts').readOnly).toBe(true);
      expect('kind' in storedTable('readings')).toBe(false);
      expect(
        byName.flags.relations.map((r: { name: string; to: string }) => [r.name, r.to]),
      ).toEqual([['reading', 'readings']]);
      for (const [name, table, fields] of [
        [
          'readings',
          'readings',
          { id: true, value: true, region: { name: true }, flags: { id: true, note: true } },
        ],
        ['regions', 'regions', { id: true, name: true, readings: { id: true, value: true } }],
        [
          'flags',
          'flags',
          { id: true, note: true, reading_id: true, reading: { id: true, value: true } },
        ],
      ] as const) {
        const api = await createApi({ name: `p_${name}`, table, actions: SELECT_ONLY, fields });
        expect([name, api.status]).toEqual([name, 201]);
      }
      const readings = await data(
        '{ getP_readings(order: [{id: ASC}], take: 10) { id value region { name } flags(order: [{id: ASC}], take: 10) { note } } }',
      );
      expect(readings.getP_readings).toEqual([
        { id: '1', value: 10, region: { name: 'North' }, flags: [{ note: 'low' }] },
        { id: '2', value: 20, region: { name: 'South' }, flags: [] },
        {
          id: '150',
          value: 15,
          region: { name: 'North' },
          flags: [{ note: 'spike' }, { note: 'again' }],
        },
        { id: '160', value: 25, region: { name: 'South' }, flags: [] },
      ]);
      const regions = await data(
        '{ getP_regions(order: [{id: ASC}], take: 10) { name readings(order: [{value: DESC}], take: 10) { id value } } }',
      );
      expect(regions.getP_regions).toEqual([
        {
          name: 'North',
          readings: [
            { id: '150', value: 15 },
            { id: '1', value: 10 },
          ],
        },
        {
          name: 'South',
          readings: [
            { id: '160', value: 25 },
            { id: '2', value: 20 },
          ],
        },
      ]);
      const flags = await data(
        '{ getP_flags(where: {reading_id: {eq: "150"}}, order: [{id: ASC}]) { note reading { id value } } }',
      );
      expect(flags.getP_flags).toEqual([
        { note: 'spike', reading: { id: '150', value: 15 } },
        { note: 'again', reading: { id: '150', value: 15 } },
      ]);
      const count = await data('{ countP_readings(where: {id: {in: ["150", "160", "3"]}}) }');
      expect(count.countP_readings).toBe(2);
    });
  });
}
