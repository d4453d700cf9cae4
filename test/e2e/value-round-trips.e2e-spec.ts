import { RunningApp, startApp } from '../support/app-harness';
import { SALES_DIALECTS } from '../support/sales-dialects';
import { placeSqliteFile } from '../support/sqlite-placement';
import { invalidValueCode } from '../support/graphql-form';

/**
 * Issue "every value it stores". Binary columns: bytes read as standard base64 (`Base64`), what is
 * read can be written back unchanged, and an `eq` filter with it finds that row (not a row that
 * holds the base64 text's own bytes), on PostgreSQL (`bytea`), MariaDB (`varbinary`, `blob`) and
 * SQLite (`BLOB`). Bytes are never offered in an order; text that is not base64 is refused.
 * JSON columns (PostgreSQL `json`/`jsonb`, SQLite `JSON`): any JSON value both ways, a JSON
 * string stays a string, compared only with null. MariaDB's JSON (LONGTEXT with a `json_valid`
 * CHECK) is found by that CHECK and is `JSON` too (issue 11, item 2).
 */

/** The table, per database: row 1 holds bytes 00 ff 10; row 2 holds the ASCII text of their base64. */
const FILES_SQL = {
  postgres: `CREATE TABLE files (id int PRIMARY KEY, name text NOT NULL, data bytea);
    INSERT INTO files VALUES (1, 'raw', decode('00ff10', 'hex')), (2, 'text', convert_to('AP8Q', 'UTF8')), (3, 'empty', NULL);`,
  mysql: `CREATE TABLE files (id int PRIMARY KEY, name varchar(20) NOT NULL, data varbinary(64), big blob);
    INSERT INTO files VALUES (1, 'raw', X'00FF10', X'00FF10'), (2, 'text', 'AP8Q', 'AP8Q'), (3, 'empty', NULL, NULL);`,
  sqlite: `CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB);
    INSERT INTO files VALUES (1, 'raw', X'00FF10'), (2, 'text', CAST('AP8Q' AS BLOB)), (3, 'empty', NULL);`,
};

/** A table keyed by (date, number), as a partitioned payments table is. */
const PAYMENTS_SQL = `CREATE TABLE payments (paid_on date NOT NULL, id int NOT NULL, amount int NOT NULL, PRIMARY KEY (paid_on, id));
  INSERT INTO payments VALUES ('2024-01-15', 1, 10), ('2024-02-15', 2, 20), ('2024-03-15', 3, 30);`;

/**
 * Timestamps held with microseconds, keyed by (time, number): two moments a millisecond apart, the
 * first with microseconds the contract's millisecond output cuts (issue 11).
 */
const MOMENTS_SQL = {
  postgres: `CREATE TABLE moments (at timestamp(6) NOT NULL, id int NOT NULL, note text, PRIMARY KEY (at, id));
    INSERT INTO moments VALUES ('2024-01-15 10:00:00.123456', 1, 'a'), ('2024-01-15 10:00:00.124', 2, 'b');`,
  mysql: `CREATE TABLE moments (at datetime(6) NOT NULL, id int NOT NULL, note text, PRIMARY KEY (at, id));
    INSERT INTO moments VALUES ('2024-01-15 10:00:00.123456', 1, 'a'), ('2024-01-15 10:00:00.124', 2, 'b');`,
  sqlite: `CREATE TABLE moments (at DATETIME NOT NULL, id INTEGER NOT NULL, note TEXT, PRIMARY KEY (at, id));
    INSERT INTO moments VALUES ('2024-01-15 10:00:00.123456', 1, 'a'), ('2024-01-15 10:00:00.124', 2, 'b');`,
};

/** Whole numbers of a 16-bit column, and exact decimals with two places (SQLite checks neither). */
const NUMBERS_SQL = `CREATE TABLE numbers (id int PRIMARY KEY, small smallint NOT NULL, price numeric(5,2));
  INSERT INTO numbers VALUES (1, -5, 1.50), (2, 0, 2.00), (3, 300, NULL);`;

/** PostgreSQL types without a GraphQL counterpart (read and written as their text form), and a text[] list. */
const SHAPES_SQL = `CREATE TABLE shapes (id int PRIMARY KEY, span interval, spot point, tags text[], addr inet);
  INSERT INTO shapes VALUES (1, '1 day 02:00:00', '(1,2)', '{a,"b c"}', '10.0.0.1'), (2, NULL, NULL, NULL, NULL);`;

/**
 * Issue 22, item 15: every PostgreSQL type read as its text form, and arrays, with a value in row
 * 1, none in row 2 and another value in row 3. `eq` with what row 1 reads finds row 1 alone, and
 * `neq` finds row 3 alone (an empty field matches no comparison).
 */
const FORMS_SQL = `CREATE TABLE forms (id int PRIMARY KEY, span interval, addr inet, net cidr,
    mac macaddr, mac8 macaddr8, cash money, bits bit(3), vbits varbit(8), ints int4range,
    stamps tsrange, days daterange, nums numrange, doc xml, spot point, ln line, seg lseg, bx box,
    pth path, poly polygon, circ circle, words tsvector, grid int[][], jsons json[], tags text[],
    counts int[], smalls int2[], moments timestamptz[], flags bool[]);
  INSERT INTO forms VALUES
    (1, '1 day 02:00:00', '10.0.0.1', '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05',
     12.5, B'101', B'1101', '[1,5)', '["2024-01-01 10:00","2024-01-02 00:00")',
     '[2024-01-01,2024-02-01)', '(1.5,2.25]', '<a>x</a>', '(1,2)', '{1,-1,0}', '[(0,0),(1,1)]',
     '(1,1),(0,0)', '[(0,0),(1,1),(2,0)]', '((0,0),(1,1),(1,0))', '<(0,0),1.5>', 'fat cat',
     '{{1,2},{3,4}}', ARRAY['{"a": 1}'::json], '{a,"b c",NULL}', '{1,NULL,3}', '{1,-2}',
     '{"2024-02-29 13:45:00+02"}', '{t,f}'),
    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, '00:30:00', '10.0.0.2', '192.168.0.0/16', '08:00:2b:01:02:04', '08:00:2b:01:02:03:04:06',
     3, B'001', B'1', '[2,3)', '["2024-03-01 00:00","2024-03-02 00:00")', 'empty', '[0,1)',
     '<b/>', '(3,4)', '{1,1,0}', '[(0,0),(2,2)]', '(2,2),(0,0)', '((0,0),(1,1),(2,0))',
     '((0,0),(2,2),(2,0))', '<(1,1),2>', 'dog', '{{5}}', ARRAY['[]'::json], '{}', '{}', '{7}',
     '{}', '{f}');`;

/**
 * Text each typed column of `forms` refuses, per column; left out: the columns compared as their
 * text form exactly as read (`grid`, `jsons`), where such text finds nothing, and lists, whose
 * elements are checked by their scalar.
 */
const FORMS_REFUSED: Record<string, string> = {
  span: 'nonsense',
  addr: '10.0.0.999',
  net: '10.0.0.1/8',
  mac: 'zz',
  mac8: 'zz',
  cash: 'abc',
  bits: '102',
  vbits: '12',
  ints: '[1,',
  stamps: '[x,y)',
  days: '[2024-02-30,)',
  nums: 'x',
  doc: '<a>',
  spot: '(1,x)',
  ln: '{1}',
  seg: 'x',
  bx: 'x',
  pth: 'x',
  poly: 'x',
  circ: 'x',
  words: "'fat",
};

/** JSON documents: an object, a JSON string that looks like a number, an empty field. */
const DOCS_SQL = {
  postgres: `CREATE TABLE docs (id int PRIMARY KEY, j json, jb jsonb);
    INSERT INTO docs VALUES (1, '{"b": 1, "a": [1, "x", null]}', '{"a": 1}'), (2, '"123"', '"123"'), (3, NULL, NULL);`,
  mysql: `CREATE TABLE docs (id int PRIMARY KEY, j json, jb json);
    INSERT INTO docs VALUES (1, '{"b": 1, "a": [1, "x", null]}', '{"a": 1}'), (2, '"123"', '"123"'), (3, NULL, NULL);`,
  sqlite: `CREATE TABLE docs (id INTEGER PRIMARY KEY, j JSON, jb JSON);
    INSERT INTO docs VALUES (1, '{"b": 1, "a": [1, "x", null]}', '{"a": 1}'), (2, '"123"', '"123"'), (3, NULL, NULL);`,
};

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Binary and JSON columns on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let cleanup: () => Promise<void>;
    const address = `binary-${dialect.type}`;

    const gql = (query: string, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, token });

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      await db.exec(FILES_SQL[dialect.type]);
      await db.exec(DOCS_SQL[dialect.type]);
      await db.exec(PAYMENTS_SQL);
      await db.exec(NUMBERS_SQL);
      await db.exec(MOMENTS_SQL[dialect.type]);
      if (dialect.type === 'postgres') await db.exec(`${SHAPES_SQL}\n${FORMS_SQL}`);
      const app = (await run.http('POST', '/api/apps', { token, body: { name: 'Bin', address } }))
        .body;
      const registered = await run.http('POST', `/api/apps/${app.id}/datasources`, {
        token,
        body: {
          name: 'files',
          type: dialect.type,
          url: placeSqliteFile(run.dataDir, app.id, db.url),
        },
      });
      expect(registered.status).toBe(201);
      const ds = registered.body;
      const tables = ['files', 'docs', 'payments', 'numbers', 'moments'].concat(
        dialect.type === 'postgres' ? ['shapes', 'forms'] : [],
      );
      const imported = await run.http('POST', `/api/apps/${app.id}/model/import`, {
        token,
        body: { datasourceId: ds.id, tables: tables.map(db.qualify) },
      });
      expect(imported.status).toBe(201);
      // One Table API per table, every action on: the cases below read and write through them.
      for (const table of tables) {
        const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
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

    if (dialect.type === 'postgres') {
      it('reads and writes intervals, points and addresses as their text form, arrays as lists', async () => {
        const read = await gql('{ getShapes(order: [{id: ASC}]) { id span spot tags addr } }');
        // A text[] is a list of strings (README "Values"); the other types keep their text form.
        const first = {
          span: '1 day 02:00:00',
          spot: '(1,2)',
          tags: ['a', 'b c'],
          addr: '10.0.0.1',
        };
        expect(read.body.data.getShapes).toEqual([
          { id: '1', ...first },
          { id: '2', span: null, spot: null, tags: null, addr: null },
        ]);
        const copied = await gql(
          'mutation ($s: String, $p: String, $t: [String], $a: String) { updateShapes(id: 2, span: $s, spot: $p, tags: $t, addr: $a) { id } }',
          { s: first.span, p: first.spot, t: first.tags, a: first.addr },
        );
        expect(copied.body.errors).toBeUndefined();
        const back = await gql('{ getShapes(where: {id: {eq: 2}}) { span spot tags addr } }');
        expect(back.body.data.getShapes).toEqual([first]);
        const empty = await gql('{ getShapes(where: {spot: {neq: null}}) { id } }');
        expect(empty.body.data.getShapes).toHaveLength(2);
        // The value read finds its rows, the copy included (issue 22, item 15).
        const compared = await gql(
          '{ getShapes(where: {spot: {eq: "(1,2)"}, span: {eq: "1 day 02:00:00"}, tags: {eq: ["a", "b c"]}, addr: {eq: "10.0.0.1"}}, order: [{id: ASC}]) { id } }',
        );
        expect(compared.body).toEqual({ data: { getShapes: [{ id: '1' }, { id: '2' }] } });
        const order = await gql('{ __type(name: "ShapesOrder") { inputFields { name } } }');
        expect(order.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual([
          'id',
        ]);
      });
    }

    if (dialect.type === 'postgres') {
      describe('eq with a value read (issue 22, item 15)', () => {
        let columns: string[];
        let read: Record<string, unknown>[];
        const ids = async (where: string) => {
          const res = await gql(`{ getForms(where: ${where}, order: [{id: ASC}]) { id } }`);
          expect([where, res.body.errors]).toEqual([where, undefined]);
          return res.body.data.getForms.map((r: { id: string }) => r.id);
        };
        /** A value as a GraphQL literal (the e2e-variables project sends it as a variable). */
        const literal = (value: unknown) => JSON.stringify(value);

        beforeAll(async () => {
          const type = await gql('{ __type(name: "Forms") { fields { name } } }');
          columns = (type.body.data.__type.fields as { name: string }[])
            .map((f) => f.name)
            .filter((n) => n !== 'id');
          const res = await gql(`{ getForms(order: [{id: ASC}]) { id ${columns.join(' ')} } }`);
          expect(res.body.errors).toBeUndefined();
          read = res.body.data.getForms;
        });

        it('reads every column of row 1 and row 3, and nothing of row 2', () => {
          expect(columns).toHaveLength(28);
          for (const column of columns) {
            expect([
              column,
              read[0][column] === null,
              read[1][column],
              read[2][column] === null,
            ]).toEqual([column, false, null, false]);
          }
          expect(read[0]).toMatchObject({
            span: '1 day 02:00:00',
            addr: '10.0.0.1',
            bits: '101',
            ints: '[1,5)',
            spot: '(1,2)',
            doc: '<a>x</a>',
            grid: '{{1,2},{3,4}}',
            tags: ['a', 'b c', null],
            counts: [1, null, 3],
            moments: ['2024-02-29T11:45:00.000Z'],
          });
        });

        it('finds the row with eq and leaves it out with neq, for every type', async () => {
          const problems: string[] = [];
          for (const column of columns) {
            for (const [row, other] of [
              [0, 2],
              [2, 0],
            ]) {
              const value = literal(read[row][column]);
              const eq = await ids(`{${column}: {eq: ${value}}}`);
              const neq = await ids(`{${column}: {neq: ${value}}}`);
              const expected = [read[row].id, read[other].id];
              if (JSON.stringify([eq, neq]) !== JSON.stringify([[expected[0]], [expected[1]]])) {
                problems.push(`${column} ${value}: eq ${eq}, neq ${neq}`);
              }
            }
          }
          expect(problems).toEqual([]);
        });

        it('counts with the same filters, the filter types being equality only', async () => {
          const count = await gql(
            `{ countForms(where: {span: {eq: ${literal(read[0].span)}}, spot: {neq: "(9,9)"}, counts: {eq: [1, null, 3]}}) }`,
          );
          expect(count.body).toEqual({ data: { countForms: 1 } });
          const filter = await gql(
            '{ a: __type(name: "TextFormFilter") { inputFields { name type { name } } } b: __type(name: "IntListFilter") { inputFields { name type { kind ofType { name } } } } }',
          );
          expect(filter.body.data.a.inputFields).toEqual([
            { name: 'eq', type: { name: 'String' } },
            { name: 'neq', type: { name: 'String' } },
          ]);
          expect(filter.body.data.b.inputFields).toEqual([
            { name: 'eq', type: { kind: 'LIST', ofType: { name: 'Int' } } },
            { name: 'neq', type: { kind: 'LIST', ofType: { name: 'Int' } } },
          ]);
        });

        it('compares by the type: an equal value written otherwise finds the row too', async () => {
          // PostgreSQL counts a day as 24 hours when it compares intervals.
          expect(await ids('{span: {eq: "26:00:00"}}')).toEqual(['1']);
          expect(await ids('{span: {eq: "1 day 2 hours"}}')).toEqual(['1']);
          expect(await ids('{addr: {eq: "10.0.0.1/32"}}')).toEqual(['1']);
          expect(await ids('{ints: {eq: "[1,4]"}}')).toEqual(['1']);
          expect(await ids('{spot: {eq: "( 1 , 2 )"}}')).toEqual(['1']);
          expect(await ids('{bits: {eq: "1011"}}')).toEqual([]);
          // Text forms compared as read: text of another shape finds nothing, and is no error.
          expect(await ids('{grid: {eq: "{{1, 2}, {3, 4}}"}}')).toEqual([]);
          expect(await ids('{grid: {eq: "not an array"}}')).toEqual([]);
          // A list holding an element its type cannot hold matches nothing (neq: every filled one).
          expect(await ids('{smalls: {eq: [1, 40000]}}')).toEqual([]);
          expect(await ids('{smalls: {neq: [1, 40000]}}')).toEqual(['1', '3']);
        });

        it('refuses text its type cannot read as INVALID_VALUE naming the field, without SQL', async () => {
          const problems: string[] = [];
          for (const [column, text] of Object.entries(FORMS_REFUSED)) {
            for (const op of ['eq', 'neq']) {
              const res = await gql(
                `{ getForms(where: {${column}: {${op}: ${literal(text)}}}) { id } }`,
              );
              const error = res.body.errors?.[0];
              const shown = JSON.stringify(res.body);
              if (
                error?.extensions?.code !== 'INVALID_VALUE' ||
                error.extensions.field !== column ||
                /SELECT|\$1|::|portal|syntax/i.test(shown)
              ) {
                problems.push(`${column} ${op} ${JSON.stringify(text)}: ${shown}`);
              }
            }
          }
          expect(problems).toEqual([]);
          // The second of two compared values named, and in a count and a list too.
          const second = await gql(
            '{ countForms(where: {span: {eq: "1 day"}, or: [{id: {eq: 1}}, {addr: {neq: "nope"}}]}) }',
          );
          expect(second.body.errors[0].extensions).toEqual({
            code: 'INVALID_VALUE',
            field: 'addr',
          });
          expect(second.body.errors[0].message).toBe(
            'addr cannot hold or be compared with the value sent: it is malformed or out of range for its type',
          );
          // A list's elements are checked by their scalar first, as in arguments.
          const moment = await gql('{ getForms(where: {moments: {eq: ["yesterday"]}}) { id } }');
          expect(moment.body.errors[0].extensions.code).toBe(invalidValueCode());
        });
      });
    }

    it('finds a timestamp held with microseconds by the millisecond it reads as, in filters and as a key', async () => {
      const read = await gql('{ getMoments(order: [{id: ASC}]) { at id } }');
      expect(read.body.data.getMoments).toEqual([
        { at: '2024-01-15T10:00:00.123', id: '1' },
        { at: '2024-01-15T10:00:00.124', id: '2' },
      ]);
      const ids = async (filter: string) =>
        (
          await gql(`{ getMoments(where: {at: ${filter}}, order: [{id: ASC}]) { id } }`)
        ).body.data.getMoments.map((r: { id: string }) => r.id);
      const at = '"2024-01-15T10:00:00.123"';
      expect(await ids(`{eq: ${at}}`)).toEqual(['1']);
      expect(await ids(`{neq: ${at}}`)).toEqual(['2']);
      expect(await ids(`{gt: ${at}}`)).toEqual(['2']);
      expect(await ids(`{gte: ${at}}`)).toEqual(['1', '2']);
      expect(await ids(`{lt: "2024-01-15T10:00:00.124"}`)).toEqual(['1']);
      expect(await ids(`{lte: ${at}}`)).toEqual(['1']);
      // More digits than milliseconds compare exactly, as sent.
      expect(await ids('{eq: "2024-01-15T10:00:00.123456"}')).toEqual(['1']);
      expect(await ids('{eq: "2024-01-15T10:00:00.123400"}')).toEqual([]);
      // The key read finds its row to update and delete.
      const updated = await gql(
        `mutation { updateMoments(at: ${at}, id: 1, note: "changed") { at id note } }`,
      );
      expect(updated.body).toEqual({
        data: { updateMoments: { at: '2024-01-15T10:00:00.123', id: '1', note: 'changed' } },
      });
      const deleted = await gql(`mutation { deleteMoments(at: ${at}, id: 1) }`);
      expect(deleted.body).toEqual({ data: { deleteMoments: true } });
      expect(await ids('{neq: null}')).toEqual(['2']);
    });

    it('matches no row with a filter value its column cannot hold, on every database', async () => {
      const ids = async (where: string) =>
        (
          await gql(`{ getNumbers(where: ${where}, order: [{id: ASC}]) { id } }`)
        ).body.data.getNumbers.map((r: { id: string }) => r.id);
      expect(await ids('{small: {eq: 99999}}')).toEqual([]);
      expect(await ids('{small: {gt: 99999}}')).toEqual([]);
      expect(await ids('{small: {gte: -99999}}')).toEqual(['1', '2', '3']);
      expect(await ids('{small: {lt: 99999}}')).toEqual(['1', '2', '3']);
      expect(await ids('{small: {neq: -99999}}')).toEqual(['1', '2', '3']);
      expect(await ids('{small: {in: [99999, 300]}}')).toEqual(['3']);
      expect(await ids('{small: {nin: [99999, 300]}}')).toEqual(['1', '2']);
      expect(await ids('{id: {eq: "9223372036854775808"}}')).toEqual([]);
    });

    it('refuses a value its column cannot hold as INVALID_VALUE, before or from the database', async () => {
      const tooBig = await gql('mutation { addNumbers(id: 10, small: 40000) { id } }');
      const bigPrice = await gql('mutation { updateNumbers(id: 1, price: "123456.78") { id } }');
      if (dialect.type === 'sqlite') {
        // SQLite stores any 64-bit integer and any number in these columns, as documented.
        expect(tooBig.body.errors).toBeUndefined();
        expect(bigPrice.body.errors).toBeUndefined();
        return;
      }
      expect(tooBig.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'small' });
      expect(tooBig.body.errors[0].message).toBe(
        'small cannot hold 40000: it takes whole numbers from -32768 to 32767',
      );
      expect(bigPrice.body.errors[0].extensions.code).toBe('INVALID_VALUE');
      const unchanged = await gql('{ getNumbers(where: {id: {in: [1, 10]}}) { id price } }');
      expect(unchanged.body.data.getNumbers).toEqual([{ id: '1', price: '1.50' }]);
    });

    it('keeps a date key its own scalar, so it can be range-filtered; a number key stays ID', async () => {
      const types = await gql(
        '{ __type(name: "Payments") { fields { name type { name ofType { name } } } } }',
      );
      const typeOf = (name: string) => {
        const field = types.body.data.__type.fields.find((f: { name: string }) => f.name === name);
        return field.type.name ?? field.type.ofType.name;
      };
      expect(typeOf('paid_on')).toBe('Date');
      expect(typeOf('id')).toBe('ID');
      const range = await gql(
        '{ getPayments(where: {paid_on: {gte: "2024-02-01", lt: "2024-03-01"}}) { paid_on id } }',
      );
      expect(range.body.data.getPayments).toEqual([{ paid_on: '2024-02-15', id: '2' }]);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('reads bytes as base64, and eq finds the row holding those bytes only', async () => {
      const read = await gql('{ getFiles(order: [{id: ASC}]) { id data } }');
      expect(read.body.data.getFiles).toEqual([
        { id: '1', data: 'AP8Q' },
        { id: '2', data: Buffer.from('AP8Q').toString('base64') },
        { id: '3', data: null },
      ]);
      const found = await gql('query ($d: Base64) { getFiles(where: {data: {eq: $d}}) { id } }', {
        d: 'AP8Q',
      });
      expect(found.body.data.getFiles).toEqual([{ id: '1' }]);
      const inList = await gql('{ getFiles(where: {data: {in: ["AP8Q", "QVA4UQ=="]}}) { id } }');
      expect(inList.body.data.getFiles.map((r: { id: string }) => r.id).sort()).toEqual(['1', '2']);
      const empty = await gql('{ getFiles(where: {data: {eq: null}}) { id } }');
      expect(empty.body.data.getFiles).toEqual([{ id: '3' }]);
    });

    it('writes back what it read unchanged, as bytes', async () => {
      const added = await gql(
        'mutation ($d: Base64) { addFiles(id: 10, name: "new", data: $d) { id data } }',
        { d: '3q2+7w==' },
      );
      expect(added.body.errors).toBeUndefined();
      const copy = await gql('{ getFiles(where: {id: {eq: 1}}) { data } }');
      const bytes = copy.body.data.getFiles[0].data;
      const updated = await gql(
        'mutation ($d: Base64) { updateFiles(id: 2, data: $d) { id data } }',
        { d: bytes },
      );
      expect(updated.body.errors).toBeUndefined();
      const after = await gql(
        '{ a: getFiles(where: {data: {eq: "AP8Q"}}, order: [{id: ASC}]) { id } b: getFiles(where: {data: {eq: "3q2+7w=="}}) { id data } }',
      );
      expect(after.body.data.a).toEqual([{ id: '1' }, { id: '2' }]);
      expect(after.body.data.b).toEqual([{ id: '10', data: '3q2+7w==' }]);
    });

    it('refuses text that is not base64, and offers no order on bytes', async () => {
      const bad = await gql('{ getFiles(where: {data: {eq: "not base64!"}}) { id } }');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].message).toContain('standard base64');
      const badVariable = await gql(
        'query ($d: Base64) { addFiles(id: 11, name: "x", data: $d) { id } }',
        {
          d: 'AP8',
        },
      );
      expect(badVariable.status).toBe(400);
      expect(JSON.stringify(badVariable.body)).not.toContain('INTERNAL_SERVER_ERROR');
      const order = await gql('{ __type(name: "FilesOrder") { inputFields { name } } }');
      expect(order.body.data.__type.inputFields.map((f: { name: string }) => f.name)).not.toContain(
        'data',
      );
      const ordered = await gql('{ getFiles(order: [{data: ASC}]) { id } }');
      expect(ordered.status).toBe(400);
    });

    it('reads and writes any JSON value, a JSON string stays a string', async () => {
      const read = await gql('{ getDocs(order: [{id: ASC}]) { id j jb } }');
      expect(read.body.data.getDocs).toEqual([
        { id: '1', j: { b: 1, a: [1, 'x', null] }, jb: { a: 1 } },
        { id: '2', j: '123', jb: '123' },
        { id: '3', j: null, jb: null },
      ]);
      const added = await gql(
        'mutation ($j: JSON) { a: addDocs(id: 10, j: $j, jb: [1, {k: "v"}, false]) { id } b: addDocs(id: 11, j: "plain text", jb: 12.5) { id } }',
        { j: { nested: { list: [true, 2.5, 'é'] } } },
      );
      expect(added.body.errors).toBeUndefined();
      const updated = await gql('mutation { updateDocs(id: 1, jb: {a: 2}) { id } }');
      expect(updated.body.errors).toBeUndefined();
      const back = await gql(
        '{ getDocs(where: {id: {in: [1, 10, 11]}}, order: [{id: ASC}]) { id j jb } }',
      );
      expect(back.body.data.getDocs).toEqual([
        { id: '1', j: { b: 1, a: [1, 'x', null] }, jb: { a: 2 } },
        { id: '10', j: { nested: { list: [true, 2.5, 'é'] } }, jb: [1, { k: 'v' }, false] },
        { id: '11', j: 'plain text', jb: 12.5 },
      ]);
    });

    it('compares JSON only with null and never orders by it', async () => {
      const empty = await gql('{ getDocs(where: {j: {eq: null}}) { id } }');
      expect(empty.body.data.getDocs).toEqual([{ id: '3' }]);
      const compared = await gql('{ getDocs(where: {j: {eq: {a: 1}}}) { id } }');
      expect(JSON.stringify(compared.body)).toContain('can only be compared with null');
      expect(compared.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const order = await gql('{ __type(name: "DocsOrder") { inputFields { name } } }');
      expect(order.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual([
        'id',
      ]);
    });
  });
}
