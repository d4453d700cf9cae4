import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HttpAnswer, RunningApp, startApp } from '../support/app-harness';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { describeWith } from '../support/services';
import { placeSqliteFile } from '../support/sqlite-placement';
import { invalidValueCode } from '../support/graphql-form';

/**
 * Issue 11, item 4 (second part): "PostgreSQL enum types become `String`; database comments are
 * ignored." Now a PostgreSQL enum type and a MySQL/MariaDB `ENUM(…)` are GraphQL enums in rows,
 * in `add`/`update` arguments and in filters, values that are not GraphQL names round-trip under
 * a deterministic name, a value outside the type is a validation error (nothing written); table
 * and column comments become descriptions, next to every field's database type (SQLite: the type
 * only). Over HTTP, against real PostgreSQL and MariaDB and embedded SQLite.
 */

/** The values of the enum, as stored, with the GraphQL names README "Enums" gives them. */
const VALUES: [stored: string, name: string][] = [
  ['happy', 'happy'],
  ['sad', 'sad'],
  ['on hold', 'on_hold'],
  ['1st', 'V_1st'],
  ['true', 'V_true'],
  ['Happy', 'Happy'],
];
const nameOf = (stored: string) => VALUES.find(([s]) => s === stored)![1];
const list = (quote: (v: string) => string) => VALUES.map(([v]) => quote(v)).join(', ');

/** One database under test: its setup, and what its schema calls things. */
interface Case {
  type: 'postgres' | 'mysql';
  describe: jest.Describe;
  /** The GraphQL enum types of `people.mood` and `people.alt`. */
  moodType: string;
  altType: string;
  /** Field descriptions of `People`, by field. */
  descriptions: Record<string, string>;
  setup: string;
  /** The statement that changes the comments and adds `bored` to the enum (for the re-import). */
  alter: string;
  /** The import name of a table. */
  qualify(table: string): string;
}

const pgQuote = (v: string) => `'${v.replace(/'/g, "''")}'`;

const CASES: Case[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    moodType: 'Mood',
    altType: 'Mood',
    descriptions: {
      id: 'Database type: integer.',
      name: "The person's name. Database type: character varying(200).",
      mood: 'How they feel. Database type: mood.',
      alt: 'Database type: mood.',
    },
    setup: `
      CREATE TYPE mood AS ENUM (${list(pgQuote)});
      CREATE TABLE people (id serial PRIMARY KEY, name varchar(200) NOT NULL,
        mood mood NOT NULL DEFAULT 'happy', alt mood);
      COMMENT ON TABLE people IS 'Everyone we know.';
      COMMENT ON COLUMN people.name IS 'The person''s name.';
      COMMENT ON COLUMN people.mood IS 'How they feel';
      CREATE TYPE "PeopleFilter" AS ENUM ('x', 'y z');
      CREATE TABLE tagged (id int PRIMARY KEY, tag "PeopleFilter");
      INSERT INTO tagged VALUES (1, 'y z');`,
    alter: `ALTER TYPE mood ADD VALUE 'bored';
      COMMENT ON TABLE people IS 'People, again.';
      COMMENT ON COLUMN people.mood IS NULL;`,
    qualify: (t) => `public.${t}`,
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    moodType: 'People_mood',
    altType: 'People_alt',
    descriptions: {
      id: 'The key. Database type: int(11).',
      name: "The person's name. Database type: varchar(200).",
      mood: 'How they feel. Database type: enum.',
      alt: 'Database type: enum.',
    },
    // `happy` and `Happy` are two values only under a case-sensitive collation.
    setup: `
      CREATE TABLE people (id int AUTO_INCREMENT PRIMARY KEY COMMENT 'The key',
        name varchar(200) NOT NULL COMMENT 'The person''s name.',
        mood enum(${list(pgQuote)}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'happy' COMMENT 'How they feel',
        alt enum(${list(pgQuote)}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL
      ) COMMENT = 'Everyone we know.';`,
    alter: `ALTER TABLE people COMMENT = 'People, again.',
      MODIFY mood enum(${list(pgQuote)}, 'bored') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'happy';`,
    qualify: (t) => t,
  },
];

const ROWS: [name: string, mood: string, alt: string | null][] = [
  ['Ana', 'happy', null],
  ['Bruno', 'on hold', 'sad'],
  ['Carla', '1st', 'true'],
  ['Dora', 'Happy', null],
];

for (const c of CASES) {
  c.describe(`Database enums and comments on ${c.type}`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let datasourceId: string;
    let exec: (sql: string, params?: unknown[]) => Promise<unknown>;
    let drop: () => Promise<void>;
    const address = `dbenums-${c.type}`;

    const gql = (query: string, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, token });
    const people = async (where = '{}') =>
      (await gql(`{ getPeople(where: ${where}, order: [{id: ASC}]) { name mood alt } }`)).body.data
        .getPeople as { name: string; mood: string; alt: string | null }[];
    /** What the database itself holds for a person (names below are plain ASCII). */
    const stored = async (name: string) =>
      (
        (await exec(`SELECT mood, alt FROM people WHERE name = ${pgQuote(name)}`)) as {
          mood: string;
          alt: string | null;
        }[]
      )[0];
    const importTables = (tables: string[]) =>
      run.http('POST', `/api/apps/${appId}/model/import`, {
        token,
        body: { datasourceId, tables: tables.map(c.qualify) },
      });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = c.type === 'postgres' ? await createPgDatabase() : await createMysqlDatabase();
      exec = db.exec;
      drop = () => db.drop();
      await db.exec(c.setup);
      await db.exec(
        `INSERT INTO people (name, mood, alt) VALUES ${ROWS.map(
          ([n, m, a]) => `(${pgQuote(n)}, ${pgQuote(m)}, ${a === null ? 'NULL' : pgQuote(a)})`,
        ).join(', ')}`,
      );
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'E', address } })).body
        .id;
      const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: { name: 'db', type: c.type, url: db.url },
      });
      expect(ds.status).toBe(201);
      datasourceId = ds.body.id;
      const tables = c.type === 'postgres' ? ['people', 'tagged'] : ['people'];
      const imported = await importTables(tables);
      expect(imported.status).toBe(201);
      for (const table of tables) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, {
          token,
          body: {
            name: table,
            table,
            actions: { select: true, insert: true, update: true, delete: true },
          },
        });
        expect([table, api.status]).toEqual([table, 201]);
      }
    });

    afterAll(async () => {
      await run?.close();
      await drop?.();
    });

    it('stores the enum and the comments in the model', async () => {
      const model = await run.http('GET', `/api/apps/${appId}/model/tables?search=people`, {
        token,
      });
      const table = model.body[0].tables.find((t: { name: string }) => t.name === 'people');
      expect(table.comment).toBe('Everyone we know.');
      const mood = table.fields.find((f: { name: string }) => f.name === 'mood');
      expect(mood).toMatchObject({
        kind: 'text',
        enum: null,
        comment: 'How they feel',
        dbEnum: {
          name: c.type === 'postgres' ? 'mood' : 'people.mood',
          values: VALUES.map(([v]) => v),
        },
      });
    });

    it('reads an enum column as its GraphQL enum, each stored value under its name', async () => {
      expect(await people()).toEqual(
        ROWS.map(([name, mood, alt]) => ({
          name,
          mood: nameOf(mood),
          alt: alt === null ? null : nameOf(alt),
        })),
      );
      const type = await gql(
        `{ __type(name: "People") { fields { name type { kind name ofType { kind name } } } } }`,
      );
      const field = (name: string) =>
        type.body.data.__type.fields.find((f: { name: string }) => f.name === name).type;
      expect(field('mood')).toEqual({
        kind: 'NON_NULL',
        name: null,
        ofType: { kind: 'ENUM', name: c.moodType },
      });
      expect(field('alt')).toEqual({ kind: 'ENUM', name: c.altType, ofType: null });
      const values = await gql(
        `{ __type(name: "${c.moodType}") { kind description enumValues { name description } } }`,
      );
      expect(values.body.data.__type.kind).toBe('ENUM');
      expect(values.body.data.__type.enumValues).toEqual(
        VALUES.map(([v, name]) => ({
          name,
          description: v === name ? null : `Database value: ${JSON.stringify(v)}.`,
        })),
      );
    });

    it('writes with an enum literal, a variable, and the stored text quoted; all round-trip', async () => {
      const added = await gql('mutation { addPeople(name: "Eva", mood: on_hold) { name mood } }');
      expect(added.body).toEqual({ data: { addPeople: { name: 'Eva', mood: 'on_hold' } } });
      expect((await stored('Eva')).mood).toBe('on hold');

      const byName = await gql(
        `mutation ($m: ${c.altType}) { updatePeople(id: 5, alt: $m) { alt } }`,
        { m: 'V_true' },
      );
      expect(byName.body).toEqual({ data: { updatePeople: { alt: 'V_true' } } });
      expect((await stored('Eva')).alt).toBe('true');

      // The stored text in a variable, and quoted in the query, mean that value too.
      const byText = await gql(
        `mutation ($m: ${c.moodType}!) { updatePeople(id: 5, mood: $m) { mood } }`,
        { m: '1st' },
      );
      expect(byText.body).toEqual({ data: { updatePeople: { mood: 'V_1st' } } });
      expect((await stored('Eva')).mood).toBe('1st');
      const quoted = await gql('mutation { updatePeople(id: 5, mood: "Happy") { mood } }');
      expect(quoted.body).toEqual({ data: { updatePeople: { mood: 'Happy' } } });
      expect((await stored('Eva')).mood).toBe('Happy');

      const removed = await gql('mutation { deletePeople(id: 5) }');
      expect(removed.body).toEqual({ data: { deletePeople: true } });
    });

    it('filters with eq, neq, in, nin, null checks and literal text', async () => {
      const names = async (where: string) => (await people(where)).map((p) => p.name);
      expect(await names('{mood: {eq: on_hold}}')).toEqual(['Bruno']);
      expect(await names('{mood: {in: [V_1st, Happy]}}')).toEqual(['Carla', 'Dora']);
      expect(await names('{mood: {nin: [happy, Happy]}}')).toEqual(['Bruno', 'Carla']);
      expect(await names('{mood: {neq: happy}}')).toEqual(['Bruno', 'Carla', 'Dora']);
      expect(await names('{alt: {eq: null}}')).toEqual(['Ana', 'Dora']);
      expect(await names('{alt: {neq: null}}')).toEqual(['Bruno', 'Carla']);
      expect(await names('{mood: {eq: "on hold"}}')).toEqual(['Bruno']);
      expect(await names('{mood: {contains: "HOLD"}}')).toEqual(['Bruno']);
      const variable = await gql(
        `query ($m: [${c.moodType}!]) { countPeople(where: {mood: {in: $m}}) }`,
        { m: ['happy', 'on hold'] },
      );
      expect(variable.body).toEqual({ data: { countPeople: 2 } });
      // Both databases sort an enum by its declared order, not by its text.
      const ordered = await gql('{ getPeople(order: [{mood: DESC}]) { name } }');
      expect(ordered.body.data.getPeople.map((p: { name: string }) => p.name)).toEqual([
        'Dora',
        'Carla',
        'Bruno',
        'Ana',
      ]);
    });

    it('refuses a value outside the type as a validation error, and writes nothing', async () => {
      const before = (await gql('{ countPeople }')).body.data.countPeople;
      for (const query of [
        'mutation { addPeople(name: "Zed", mood: angry) { name } }',
        'mutation { addPeople(name: "Zed", mood: "angry") { name } }',
        'mutation { updatePeople(id: 1, mood: "HAPPY") { name } }',
        '{ getPeople(where: {mood: {eq: angry}}) { name } }',
        '{ getPeople(where: {mood: {in: ["happy", "angry"]}}) { name } }',
      ]) {
        const res = await gql(query);
        expect([query, res.status, res.body.errors[0].extensions.code]).toEqual([
          query,
          400,
          invalidValueCode(),
        ]);
        expect(res.body.data).toBeUndefined();
      }
      const variable = await gql(
        `mutation ($m: ${c.moodType}!) { addPeople(name: "Zed", mood: $m) { name } }`,
        { m: 'angry' },
      );
      expect(variable.status).toBe(400);
      expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(variable.body.errors[0].message).toContain(
        `"angry" does not exist in "${c.moodType}"`,
      );
      expect((await gql('{ countPeople }')).body.data.countPeople).toBe(before);
      expect((await people()).map((p) => p.mood)).toEqual(ROWS.map(([, m]) => nameOf(m)));
    });

    it('describes the row type by the table comment and every field by its comment and type', async () => {
      const type = await gql(
        '{ __type(name: "People") { description fields { name description } } }',
      );
      expect(type.body.data.__type).toEqual({
        description: 'Everyone we know.',
        fields: ['id', 'name', 'mood', 'alt'].map((name) => ({
          name,
          description: c.descriptions[name],
        })),
      });
    });

    it("an app enum assigned to the field wins; its values outside the database's are refused", async () => {
      const created = await run.http('POST', `/api/apps/${appId}/enums`, {
        token,
        body: {
          name: 'Feeling',
          values: [{ value: 'happy' }, { value: 'sad' }, { value: 'angry' }],
        },
      });
      expect(created.status).toBe(201);
      const patched = await run.http('PATCH', `/api/apps/${appId}/model/tables/people/fields/alt`, {
        token,
        body: { enum: 'Feeling' },
      });
      expect(patched.status).toBe(200);
      try {
        const type = await gql('{ __type(name: "People") { fields { name type { name } } } }');
        const alt = type.body.data.__type.fields.find((f: { name: string }) => f.name === 'alt');
        expect(alt.type.name).toBe('Feeling');
        const fine = await gql('mutation { updatePeople(id: 1, alt: sad) { name alt } }');
        expect(fine.body).toEqual({ data: { updatePeople: { name: 'Ana', alt: 'sad' } } });
        const refused = await gql('mutation { updatePeople(id: 1, alt: angry) { name alt } }');
        expect(refused.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'alt' });
        expect((await stored('Ana')).alt).toBe('sad');
      } finally {
        await gql('mutation { updatePeople(id: 1, alt: null) { name } }');
        const cleared = await run.http(
          'PATCH',
          `/api/apps/${appId}/model/tables/people/fields/alt`,
          { token, body: { enum: null } },
        );
        expect(cleared.status).toBe(200);
      }
    });

    if (c.type === 'postgres') {
      it('names an enum type that would clash with a generated name after it, never a 500', async () => {
        const type = await gql('{ __type(name: "Tagged") { fields { name type { kind name } } } }');
        const tag = type.body.data.__type.fields.find((f: { name: string }) => f.name === 'tag');
        // `PeopleFilter` is the filter of the `people` API: the database enum yields.
        expect(tag.type).toEqual({ kind: 'ENUM', name: 'PeopleFilter_2' });
        const read = await gql('{ getTagged(where: {tag: {eq: y_z}}) { id tag } }');
        expect(read.body).toEqual({ data: { getTagged: [{ id: '1', tag: 'y_z' }] } });
        const filter = await gql('{ __type(name: "PeopleFilter") { kind } }');
        expect(filter.body.data.__type.kind).toBe('INPUT_OBJECT');
      });
    }

    it('refreshes comments and enum values when the table is imported again', async () => {
      await exec(c.alter);
      const before = await gql('{ __type(name: "People") { description } }');
      expect(before.body.data.__type.description).toBe('Everyone we know.');
      expect((await importTables(['people'])).status).toBe(201);
      const after = await gql(
        '{ __type(name: "People") { description fields { name description } } }',
      );
      expect(after.body.data.__type.description).toBe('People, again.');
      // The comment removed in the database (MySQL's MODIFY redefines the column without it).
      const mood = after.body.data.__type.fields.find((f: { name: string }) => f.name === 'mood');
      expect(mood.description).toBe(
        c.type === 'postgres' ? 'Database type: mood.' : 'Database type: enum.',
      );
      const bored = await gql('mutation { addPeople(name: "Ivo", mood: bored) { name mood } }');
      expect(bored.body).toEqual({ data: { addPeople: { name: 'Ivo', mood: 'bored' } } });
    });
  });
}

describe('Descriptions on SQLite: the database type only', () => {
  let run: RunningApp;
  const address = 'dbenums-sqlite';

  beforeAll(async () => {
    run = await startApp();
    const token = await run.adminToken();
    const staged = join(run.dataDir, 'datasources');
    mkdirSync(staged, { recursive: true });
    const db = new Database(join(staged, 'notes.db'));
    db.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body VARCHAR(20) NOT NULL, seen BOOLEAN);
      INSERT INTO notes (body, seen) VALUES ('hi', 1);`);
    db.close();
    const appId = (await run.http('POST', '/api/apps', { token, body: { name: 'S', address } }))
      .body.id;
    const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: {
        name: 'notes',
        type: 'sqlite',
        url: placeSqliteFile(run.dataDir, appId, 'sqlite:notes.db'),
      },
    });
    expect(ds.status).toBe(201);
    const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
      token,
      body: { datasourceId: ds.body.id, tables: ['notes'] },
    });
    expect(imported.status).toBe(201);
    expect(imported.body[0]).not.toHaveProperty('comment');
    const api = await run.http('POST', `/api/apps/${appId}/apis`, {
      token,
      body: {
        name: 'notes',
        table: 'notes',
        actions: { select: true, insert: false, update: false, delete: false },
      },
    });
    expect(api.status).toBe(201);
    const gqlToken = token;
    gql = (query) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query }, token: gqlToken });
  });

  let gql: (query: string) => Promise<HttpAnswer>;

  afterAll(async () => {
    await run?.close();
  });

  it('describes the row as a row of its table and each field by its declared type', async () => {
    const type = await gql('{ __type(name: "Notes") { description fields { name description } } }');
    expect(type.body.data.__type).toEqual({
      description: 'A row of notes.',
      fields: [
        { name: 'id', description: 'Database type: INTEGER.' },
        { name: 'body', description: 'Database type: VARCHAR(20).' },
        { name: 'seen', description: 'Database type: BOOLEAN.' },
      ],
    });
    const read = await gql('{ getNotes { id body seen } }');
    expect(read.body).toEqual({ data: { getNotes: [{ id: '1', body: 'hi', seen: true }] } });
  });
});
