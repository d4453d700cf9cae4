import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunningApp, startApp } from '../support/app-harness';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { describeWith } from '../support/services';
import { placeSqliteFile } from '../support/sqlite-placement';
import { namedType, printType, TYPE_REF, TypeRef } from '../support/type-refs';

/**
 * Issue 11, "tried as a new user would": two real sample databases, Pagila on PostgreSQL and
 * Chinook on MariaDB and on SQLite, loaded from the vendored files in
 * `test/fixtures/sample-databases/` (the projects' own schema, their data trimmed to a few rows
 * per table with foreign keys intact). Over the service's HTTP API only, each is registered as a
 * datasource; every table and view it lists is imported, each view gets the key a builder would
 * choose, and one Table API per table or view exposes every column (select only for views, every
 * action for tables). Then, for every table and view: a read of every column answers rows; for
 * tables, the first row written back unchanged with `update<Base>` answers and reads back the
 * same values; and an `eq` filter with a value read finds its row, for every column whose filter
 * offers `eq`. No answer anywhere is an `INTERNAL_SERVER_ERROR`.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'sample-databases');
const fixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

const EVERY_ACTION = { select: true, insert: true, update: true, delete: true };
const SELECT_ONLY = { select: true, insert: false, update: false, delete: false };

/** One sample database on one server, as the suite drives it. */
interface Sample {
  title: string;
  type: 'postgres' | 'mysql' | 'sqlite';
  describe: jest.Describe;
  /** Loads the sample into a throwaway database; the URL to register and how to remove it. */
  load(dataDir: string): Promise<{
    url: string;
    /** Runs SQL on the database itself (not through the service); its rows where it has any. */
    exec(sql: string): Promise<unknown>;
    cleanup(): Promise<void>;
  }>;
  tables: string[];
  /** Each view and the key a builder chooses for it (views declare none). */
  views: Record<string, string[]>;
  /**
   * Columns a trigger of the sample rewrites on every update (Pagila's `last_updated()` sets
   * `last_update = CURRENT_TIMESTAMP`), so writing the row back cannot leave them unchanged.
   */
  triggerSet: string[];
  /** Columns left out of APIs because their names are not GraphQL names (README "Names"). */
  unnamed: string[];
  /**
   * `table.column` whose sample values carry microseconds, which reads cut to milliseconds
   * (README "Values"); a value read still finds its row, since it compares as the whole
   * millisecond it reads as (asserted by its own test too).
   */
  subMillisecond: string[];
}

const PAGILA_TABLES = [
  'actor',
  'address',
  'category',
  'city',
  'country',
  'customer',
  'film',
  'film_actor',
  'film_category',
  'inventory',
  'language',
  'payment',
  'rental',
  'staff',
  'store',
];

const CHINOOK_TABLES = [
  'Album',
  'Artist',
  'Customer',
  'Employee',
  'Genre',
  'Invoice',
  'InvoiceLine',
  'MediaType',
  'Playlist',
  'PlaylistTrack',
  'Track',
];

const SAMPLES: Sample[] = [
  {
    title: 'Pagila on PostgreSQL',
    type: 'postgres',
    describe: describeWith('postgres'),
    async load() {
      const db = await createPgDatabase('tg_pagila');
      await db.exec(fixture('pagila/pagila-schema.sql'));
      await db.exec(fixture('pagila/pagila-data.sql'));
      return {
        url: db.url,
        exec: (sql) => db.exec(sql),
        cleanup: () => db.drop(),
      };
    },
    tables: PAGILA_TABLES,
    views: {
      actor_info: ['actor_id'],
      customer_list: ['id'],
      film_list: ['fid'],
      nicer_but_slower_film_list: ['fid'],
      rental_by_category: ['category'],
      sales_by_film_category: ['category'],
      sales_by_store: ['store'],
      staff_list: ['id'],
    },
    triggerSet: ['last_update'],
    unnamed: ['customer_list.zip code', 'staff_list.zip code'],
    subMillisecond: ['film.last_update', 'staff.last_update', 'payment.payment_date'],
  },
  {
    title: 'Chinook on MariaDB',
    type: 'mysql',
    describe: describeWith('mysql'),
    async load() {
      const db = await createMysqlDatabase('tg_chinook');
      await db.exec(fixture('chinook/Chinook_MySql.sql'));
      return {
        url: db.url,
        exec: (sql) => db.exec(sql),
        cleanup: () => db.drop(),
      };
    },
    tables: CHINOOK_TABLES,
    views: {},
    triggerSet: [],
    unnamed: [],
    subMillisecond: [],
  },
  {
    title: 'Chinook on SQLite',
    type: 'sqlite',
    describe,
    async load(dataDir) {
      // Staged in the datasource root; registration moves it into the app's own folder.
      mkdirSync(join(dataDir, 'datasources'), { recursive: true });
      const db = new Database(join(dataDir, 'datasources', 'chinook.db'));
      db.exec(fixture('chinook/Chinook_Sqlite.sql'));
      db.close();
      return {
        url: 'sqlite:chinook.db',
        exec: () => Promise.reject(new Error('not needed on SQLite')),
        cleanup: async () => undefined,
      };
    },
    tables: CHINOOK_TABLES,
    views: {},
    triggerSet: [],
    unnamed: [],
    subMillisecond: [],
  },
];

interface Field {
  name: string;
  type: TypeRef;
}

interface ModelTable {
  name: string;
  readOnly: boolean;
  primaryKey: string[];
  fields: { name: string; computed?: boolean }[];
}

/** Every INTERNAL_SERVER_ERROR an answer carried, with the request that got it. */
const internalErrors = (answers: { query: string; body: unknown }[]) =>
  answers
    .filter((a) => JSON.stringify(a.body).includes('INTERNAL_SERVER_ERROR'))
    .map((a) => `${a.query} → ${JSON.stringify(a.body)}`);

for (const sample of SAMPLES) {
  sample.describe(`${sample.title}, tried as a new user would`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let dsId: string;
    let db: Awaited<ReturnType<Sample['load']>>;
    /** Every GraphQL request of this database and its answer. */
    const answers: { query: string; body: any }[] = [];
    const model = new Map<string, ModelTable>();
    const address = `sample-${sample.type}`;
    const names = [...sample.tables, ...Object.keys(sample.views)];

    const gql = async (query: string, variables?: Record<string, unknown>) => {
      const res = await run.http('POST', `/api/graphql/${address}`, {
        body: { query, variables },
        token,
      });
      answers.push({ query, body: res.body });
      return res;
    };
    const introspect = async (name: string): Promise<{ fields: Field[]; inputs: Field[] }> => {
      const res = await gql(
        `{ __type(name: "${name}") { fields { name type ${TYPE_REF} } inputFields { name type ${TYPE_REF} } } }`,
      );
      return {
        fields: res.body.data.__type.fields ?? [],
        inputs: res.body.data.__type.inputFields ?? [],
      };
    };
    const baseOf = (table: string) => table.charAt(0).toUpperCase() + table.slice(1);

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      db = await sample.load(run.dataDir);
      const app = await run.http('POST', '/api/apps', {
        token,
        body: { name: sample.title, address },
      });
      expect(app.status).toBe(201);
      appId = app.body.id;
      const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: {
          name: 'sample',
          type: sample.type,
          url: placeSqliteFile(run.dataDir, appId, db.url),
        },
      });
      expect([ds.status, ds.body]).toEqual([201, expect.objectContaining({ type: sample.type })]);
      dsId = ds.body.id;
    });

    afterAll(async () => {
      await run?.close();
      await db?.cleanup();
    });

    it('lists every table and view of the sample, each once and with its kind', async () => {
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${dsId}/tables`, {
        token,
      });
      expect(listed.status).toBe(200);
      const kinds = (listed.body as { name: string; kind: string }[])
        .map((t) => `${t.name}:${t.kind}`)
        .sort();
      expect(kinds).toEqual(
        [
          ...sample.tables.map((t) => `${t}:table`),
          ...Object.keys(sample.views).map((v) => `${v}:view`),
        ].sort(),
      );
    });

    it('imports every table and view offered; views come read-only and without a key', async () => {
      const listed = await run.http('GET', `/api/apps/${appId}/datasources/${dsId}/tables`, {
        token,
      });
      const offered = (listed.body as { schema: string | null; name: string }[]).map((t) =>
        sample.type === 'postgres' ? `${t.schema}.${t.name}` : t.name,
      );
      const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId: dsId, tables: offered },
      });
      expect([imported.status, imported.body.message]).toEqual([201, undefined]);
      for (const table of imported.body as ModelTable[]) model.set(table.name, table);
      expect([...model.keys()].sort()).toEqual([...names].sort());
      for (const table of sample.tables) {
        expect([table, model.get(table)!.readOnly]).toEqual([table, false]);
        expect([table, model.get(table)!.primaryKey.length > 0]).toEqual([table, true]);
      }
      for (const view of Object.keys(sample.views))
        expect([view, model.get(view)!.readOnly, model.get(view)!.primaryKey]).toEqual([
          view,
          true,
          [],
        ]);
    });

    it('takes the key a builder chooses for each view', async () => {
      for (const [view, key] of Object.entries(sample.views)) {
        const keyed = await run.http('PATCH', `/api/apps/${appId}/model/tables/${view}`, {
          token,
          body: { primaryKey: key },
        });
        expect([view, keyed.status, keyed.body.primaryKey, keyed.body.primaryKeyChosen]).toEqual([
          view,
          200,
          key,
          true,
        ]);
        model.set(view, keyed.body);
      }
    });

    it('creates one Table API per table and view, exposing every column with a GraphQL name', async () => {
      for (const name of names) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, {
          token,
          body: {
            name,
            table: name,
            actions: model.get(name)!.readOnly ? SELECT_ONLY : EVERY_ACTION,
          },
        });
        expect([name, api.status, api.body.message]).toEqual([name, 201, undefined]);
      }
      const left: string[] = [];
      for (const name of names) {
        const { fields } = await introspect(baseOf(name));
        const exposed = fields.map((f) => f.name);
        const columns = model.get(name)!.fields.map((f) => f.name);
        expect([name, exposed]).toEqual([name, columns.filter((c) => exposed.includes(c))]);
        left.push(...columns.filter((c) => !exposed.includes(c)).map((c) => `${name}.${c}`));
      }
      // The only columns left out are those whose names GraphQL cannot spell (`zip code`).
      expect(left).toEqual(sample.unnamed);
    });

    if (sample.type === 'postgres')
      it('answers a materialized view nobody refreshed yet with a clear error, and its rows once refreshed', async () => {
        const query = '{ getRental_by_category { category total_sales } }';
        const before = await gql(query);
        expect(before.body.data).toBeNull();
        expect(before.body.errors).toEqual([
          {
            message:
              'A materialized view this query reads has no data yet: the database owner must run REFRESH MATERIALIZED VIEW on it',
            path: ['getRental_by_category'],
            extensions: { code: 'CONFLICT' },
          },
        ]);
        await db.exec('REFRESH MATERIALIZED VIEW public.rental_by_category');
        const after = await gql(query);
        expect(after.body.errors).toBeUndefined();
        expect(after.body.data.getRental_by_category.length).toBeGreaterThan(0);
      });

    if (sample.subMillisecond.length > 0)
      it('reads timestamps held with microseconds cut to milliseconds, and eq and an update by such a key still find the row', async () => {
        for (const entry of sample.subMillisecond) {
          const [table, column] = entry.split('.');
          const base = baseOf(table);
          const key = model.get(table)!.primaryKey;
          // The database holds them with microseconds.
          const stored = (await db.exec(
            `SELECT count(*)::int AS n FROM public.${table} WHERE date_trunc('milliseconds', ${column}) <> ${column}`,
          )) as { n: number }[];
          expect([entry, stored[0].n > 0]).toEqual([entry, true]);
          const read = await gql(
            `{ get${base}(take: 1) { ${[...new Set([...key, column])].join(' ')} } }`,
          );
          const row = read.body.data[`get${base}`][0];
          expect([entry, row[column]]).toEqual([entry, expect.stringMatching(/\.\d{3}Z$/)]);
          const found = await gql(
            `query($v: DateTime) { get${base}(where: {${column}: {eq: $v}}) { ${key.join(' ')} } }`,
            { v: row[column] },
          );
          const keys = (found.body.data[`get${base}`] as Record<string, unknown>[]).map((r) =>
            JSON.stringify(key.map((k) => r[k])),
          );
          expect([entry, keys]).toEqual([
            entry,
            expect.arrayContaining([JSON.stringify(key.map((k) => row[k]))]),
          ]);
        }
        const payment = (await gql('{ getPayment(take: 1) { payment_id payment_date amount } }'))
          .body.data.getPayment[0];
        const update = await gql(
          'mutation($id: ID!, $at: DateTime!, $amount: Decimal) { updatePayment(payment_id: $id, payment_date: $at, amount: $amount) { payment_id } }',
          { id: payment.payment_id, at: payment.payment_date, amount: payment.amount },
        );
        expect(update.body).toEqual({
          data: { updatePayment: { payment_id: payment.payment_id } },
        });
      });

    it.each(names)(
      '%s: reads every column, writes a row back unchanged and finds it with eq on each column',
      async (name) => {
        const table = model.get(name)!;
        const base = baseOf(name);
        const problems: string[] = [];
        const { fields } = await introspect(base);
        const selection = fields.map((f) => f.name).join(' ');
        const read = await gql(`{ get${base}(take: 5) { ${selection} } }`);
        expect([name, read.body.errors]).toEqual([name, undefined]);
        const rows = read.body.data[`get${base}`] as Record<string, unknown>[];
        expect([name, rows.length > 0]).toEqual([name, true]);
        const key = table.primaryKey;
        const keyOf = (row: Record<string, unknown>) => JSON.stringify(key.map((k) => row[k]));

        if (!table.readOnly) {
          const mutations = await gql(
            `{ __schema { mutationType { fields { name args { name type ${TYPE_REF} } } } } }`,
          );
          const args = (
            mutations.body.data.__schema.mutationType.fields as { name: string; args: Field[] }[]
          ).find((f) => f.name === `update${base}`)!.args;
          // A column the update cannot set is one the database computes, and the schema says so.
          const absent = fields.filter((f) => !args.some((a) => a.name === f.name));
          const computed = table.fields.filter((f) => f.computed).map((f) => f.name);
          expect([name, absent.map((f) => f.name)]).toEqual([
            name,
            computed.filter((c) => fields.some((f) => f.name === c)),
          ]);
          const sent = args.filter((a) => fields.some((f) => f.name === a.name));
          const row = rows[0];
          const written = await gql(
            `mutation(${sent.map((a) => `$${a.name}: ${printType(a.type)}`).join(', ')}) { update${base}(${sent
              .map((a) => `${a.name}: $${a.name}`)
              .join(', ')}) { ${selection} } }`,
            Object.fromEntries(sent.map((a) => [a.name, row[a.name]])),
          );
          const back = written.body.data?.[`update${base}`] as Record<string, unknown> | null;
          if (written.body.errors || !back) {
            problems.push(`write back: ${JSON.stringify(written.body)}`);
          } else {
            const same = (r: Record<string, unknown>) =>
              Object.fromEntries(Object.entries(r).filter(([c]) => !sample.triggerSet.includes(c)));
            expect([name, same(back)]).toEqual([name, same(row)]);
            for (const c of sample.triggerSet.filter((c) => c in row))
              expect([name, c, String(back[c]) >= String(row[c])]).toEqual([name, c, true]);
            const again = await gql(
              `query(${key.map((k, i) => `$k${i}: ${printType(fields.find((f) => f.name === k)!.type).replace(/!$/, '')}`).join(', ')}) { get${base}(where: {${key
                .map((k, i) => `${k}: {eq: $k${i}}`)
                .join(', ')}}) { ${selection} } }`,
              Object.fromEntries(key.map((k, i) => [`k${i}`, row[k]])),
            );
            expect([name, again.body.errors, again.body.data?.[`get${base}`]]).toEqual([
              name,
              undefined,
              [back],
            ]);
            rows[0] = back;
          }
        }

        const { inputs: filter } = await introspect(`${base}Filter`);
        let checked = 0;
        for (const field of fields) {
          const input = filter.find((f) => f.name === field.name);
          if (!input) {
            problems.push(`${field.name}: no filter`);
            continue;
          }
          const eq = (await introspect(namedType(input.type))).inputs.find((o) => o.name === 'eq');
          if (!eq) continue;
          // The first row read that holds a value there (eq: null matches empty fields).
          const row = rows.find((r) => r[field.name] !== null) ?? rows[0];
          const found = await gql(
            `query($v: ${printType(eq.type)}) { get${base}(where: {${field.name}: {eq: $v}}) { ${key.join(' ')} } }`,
            { v: row[field.name] },
          );
          const refused = found.body.errors?.[0];
          if (
            refused?.extensions?.code === 'BAD_USER_INPUT' &&
            /can only be compared with null/.test(refused.message) &&
            row[field.name] !== null
          )
            continue;
          checked++;
          const keys = (found.body.data?.[`get${base}`] ?? []).map(keyOf);
          if (refused || !keys.includes(keyOf(row)))
            problems.push(
              `${field.name}: eq ${JSON.stringify(row[field.name])} → ${JSON.stringify(found.body)}`,
            );
        }
        expect([name, problems]).toEqual([name, []]);
        expect([name, checked > 0]).toEqual([name, true]);
      },
    );

    it('answered no request with INTERNAL_SERVER_ERROR', () => {
      expect(answers.length).toBeGreaterThan(names.length * 3);
      expect(internalErrors(answers)).toEqual([]);
    });
  });
}
