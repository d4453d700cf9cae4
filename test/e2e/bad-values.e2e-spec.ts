import { RunningApp, startApp } from '../support/app-harness';
import { SALES_DIALECTS } from '../support/sales-dialects';
import { placeSqliteFile } from '../support/sqlite-placement';
import { invalidValueCode } from '../support/graphql-form';

/**
 * Issue 11, item 2: a value its column cannot hold is a GraphQL error with
 * `extensions.code = INVALID_VALUE` (or `VALUE_TOO_LONG`) and `extensions.field` the column, HTTP
 * 200 with `data.<field>: null`, never INTERNAL_SERVER_ERROR, no SQL in the message, and nothing
 * written; through `add<Base>` and `update<Base>`, with literals and with variables, on
 * PostgreSQL, MariaDB and SQLite. Checked before any SQL where the model knows the rule
 * (integer ranges, `numeric(p,s)`, real dates, UUID shape, lengths), translated from the
 * database's refusal otherwise (CHECK constraints, PostgreSQL domains).
 *
 * What each database does where it does not refuse, asserted as such:
 * - more decimals than the scale: PostgreSQL and MariaDB round (`1.239` → `1.24`); SQLite keeps
 *   the number as given (a declared `numeric(5,2)` is only an affinity there), so `12345.67` is
 *   stored on SQLite too;
 * - a `smallint` on SQLite is any 64-bit integer (SQLite has no narrower integer);
 * - SQLite has no UUID type and no domains; only PostgreSQL has domains;
 * - an `int` outside 32 bits never reaches the service: GraphQL's `Int` refuses it
 *   (GRAPHQL_VALIDATION_FAILED for a literal, BAD_USER_INPUT for a variable, HTTP 400);
 * - a database enum is a GraphQL enum: a value outside it is refused the same way;
 * - MariaDB's `JSON` (LONGTEXT + `CHECK (json_valid(col))`) is the `JSON` scalar, so text that
 *   is not JSON cannot be sent: a string is stored as a JSON string.
 */

const SETUP = {
  postgres: `CREATE DOMAIN positive_qty AS int CHECK (VALUE > 0);
    CREATE TYPE bad_mood AS ENUM ('happy', 'sad');
    CREATE TABLE bad (id int PRIMARY KEY, small smallint, regular int, big bigint, price numeric(5,2),
      code varchar(5), born date, at timestamp, uid uuid, qty int CHECK (qty > 0), dq positive_qty,
      doc json, mood bad_mood, capped int, CONSTRAINT capped_limit CHECK (capped < 100));
    INSERT INTO bad VALUES (1, 1, 1, 1, 1.00, 'a', '2024-01-01', '2024-01-01 00:00:00',
      '00000000-0000-0000-0000-000000000001', 1, 1, '{}', 'happy', 1);`,
  mysql: `CREATE TABLE bad (id int PRIMARY KEY, small smallint, regular int, big bigint, price decimal(5,2),
      code varchar(5), born date, at datetime, uid uuid, qty int CHECK (qty > 0), doc JSON,
      mood enum('happy', 'sad'), capped int, CONSTRAINT capped_limit CHECK (capped < 100));
    INSERT INTO bad VALUES (1, 1, 1, 1, 1.00, 'a', '2024-01-01', '2024-01-01 00:00:00',
      '00000000-0000-0000-0000-000000000001', 1, '{}', 'happy', 1);`,
  sqlite: `CREATE TABLE bad (id INTEGER PRIMARY KEY, small smallint, regular int, big bigint,
      price numeric(5,2), code varchar(5), born date, at timestamp, qty int CHECK (qty > 0),
      doc JSON, capped int, CONSTRAINT capped_limit CHECK (capped < 100));
    INSERT INTO bad VALUES (1, 1, 1, 1, 1.00, 'a', '2024-01-01', '2024-01-01 00:00:00', 1, '{}', 1);`,
};

type Db = 'postgres' | 'mysql' | 'sqlite';

/** One class of bad value: the column, its GraphQL input type, the value, the answer. */
interface BadValue {
  title: string;
  field: string;
  type: string;
  value: string | number;
  code: 'INVALID_VALUE' | 'VALUE_TOO_LONG';
  on: Db[];
}

const ALL: Db[] = ['postgres', 'mysql', 'sqlite'];

const CLASSES: BadValue[] = [
  {
    title: 'smallint out of range (checked before SQL)',
    field: 'small',
    type: 'Int',
    value: 40000,
    code: 'INVALID_VALUE',
    on: ['postgres', 'mysql'],
  },
  {
    title: 'bigint out of range (checked before SQL)',
    field: 'big',
    type: 'BigInt',
    value: '9223372036854775808',
    code: 'INVALID_VALUE',
    on: ALL,
  },
  {
    title: 'numeric(5,2) overflow (checked before SQL)',
    field: 'price',
    type: 'Decimal',
    value: '12345.67',
    code: 'INVALID_VALUE',
    on: ['postgres', 'mysql'],
  },
  {
    title: 'numeric(5,2) overflow once rounded (checked before SQL)',
    field: 'price',
    type: 'Decimal',
    value: '999.995',
    code: 'INVALID_VALUE',
    on: ['postgres', 'mysql'],
  },
  {
    title: 'a date that does not exist (checked before SQL)',
    field: 'born',
    type: 'Date',
    value: '2024-02-30',
    code: 'INVALID_VALUE',
    on: ALL,
  },
  {
    title: 'a timestamp on a day that does not exist (checked before SQL)',
    field: 'at',
    type: 'LocalDateTime',
    value: '2023-02-29T10:00:00',
    code: 'INVALID_VALUE',
    on: ALL,
  },
  {
    title: 'text that is not a UUID (checked before SQL)',
    field: 'uid',
    type: 'String',
    value: 'not-a-uuid',
    code: 'INVALID_VALUE',
    on: ['postgres', 'mysql'],
  },
  {
    title: "a column's CHECK constraint (the database refuses)",
    field: 'qty',
    type: 'Int',
    value: 0,
    code: 'INVALID_VALUE',
    on: ALL,
  },
  {
    title: 'a named table CHECK constraint (the database refuses; the one column set is named)',
    field: 'capped',
    type: 'Int',
    value: 500,
    code: 'INVALID_VALUE',
    on: ALL,
  },
  {
    title: "a domain's CHECK (the database refuses)",
    field: 'dq',
    type: 'Int',
    value: 0,
    code: 'INVALID_VALUE',
    on: ['postgres'],
  },
  {
    title: 'a string too long (checked before SQL)',
    field: 'code',
    type: 'String',
    value: 'toolong',
    code: 'VALUE_TOO_LONG',
    on: ALL,
  },
];

/** What a refusal's message must never carry: SQL, driver words, a stack. */
const LEAKS =
  /\b(SELECT|INSERT|UPDATE|VALUES|WHERE|violates|constraint "|CONSTRAINT `|SQLITE_|ER_|at row|QueryFailedError)\b|\n\s+at /;

const literal = (value: string | number) =>
  typeof value === 'number' ? String(value) : JSON.stringify(value);

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Bad values on ${dialect.type} (issue 11, item 2)`, () => {
    let run: RunningApp;
    let token: string;
    let cleanup: () => Promise<void>;
    const address = `bad-values-${dialect.type}`;
    let nextId = 100;

    const gql = (query: string, variables?: unknown) =>
      run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, token });

    const readRow = async (id: number) =>
      (await gql(`{ getBad(where: {id: {eq: ${id}}}) { ${FIELDS[dialect.type]} } }`)).body.data
        .getBad;

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      await db.exec(SETUP[dialect.type]);
      const app = (await run.http('POST', '/api/apps', { token, body: { name: 'Bad', address } }))
        .body;
      const registered = await run.http('POST', `/api/apps/${app.id}/datasources`, {
        token,
        body: {
          name: 'bad',
          type: dialect.type,
          url: placeSqliteFile(run.dataDir, app.id, db.url),
        },
      });
      expect(registered.status).toBe(201);
      const imported = await run.http('POST', `/api/apps/${app.id}/model/import`, {
        token,
        body: { datasourceId: registered.body.id, tables: [db.qualify('bad')] },
      });
      expect(imported.status).toBe(201);
      const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
        token,
        body: {
          name: 'bad',
          table: 'bad',
          actions: { select: true, insert: true, update: true, delete: true },
        },
      });
      expect(api.status).toBe(201);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    for (const c of CLASSES.filter((k) => k.on.includes(dialect.type))) {
      it(`${c.title}: ${c.code} naming ${c.field}, add and update, literal and variable, nothing written`, async () => {
        const original = await readRow(1);
        const attempts: { op: 'addBad' | 'updateBad'; query: string; variables?: unknown }[] = [];
        const addId = nextId++;
        attempts.push({
          op: 'addBad',
          query: `mutation { addBad(id: ${addId}, ${c.field}: ${literal(c.value)}) { id } }`,
        });
        attempts.push({
          op: 'addBad',
          query: `mutation ($v: ${c.type}) { addBad(id: ${addId}, ${c.field}: $v) { id } }`,
          variables: { v: c.value },
        });
        attempts.push({
          op: 'updateBad',
          query: `mutation { updateBad(id: 1, ${c.field}: ${literal(c.value)}) { id } }`,
        });
        attempts.push({
          op: 'updateBad',
          query: `mutation ($v: ${c.type}) { updateBad(id: 1, ${c.field}: $v) { id } }`,
          variables: { v: c.value },
        });
        for (const a of attempts) {
          const res = await gql(a.query, a.variables);
          expect([a.query, res.status]).toEqual([a.query, 200]);
          expect([a.query, res.body.data]).toEqual([a.query, { [a.op]: null }]);
          expect([a.query, res.body.errors?.[0]?.extensions]).toEqual([
            a.query,
            { code: c.code, field: c.field },
          ]);
          expect(res.body.errors[0].message).toContain(c.field);
          expect(res.body.errors[0].message).not.toMatch(LEAKS);
        }
        expect(await readRow(addId)).toEqual([]);
        expect(await readRow(1)).toEqual(original);
      });
    }

    it('refuses an int outside 32 bits in GraphQL itself (Int), before the service sees it', async () => {
      const lit = await gql('mutation { addBad(id: 150, regular: 2147483648) { id } }');
      expect(lit.status).toBe(400);
      expect(lit.body.errors[0].extensions.code).toBe(invalidValueCode());
      const variable = await gql('mutation ($v: Int) { updateBad(id: 1, regular: $v) { id } }', {
        v: 2147483648,
      });
      expect(variable.status).toBe(400);
      expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(await readRow(150)).toEqual([]);
      expect((await readRow(1))[0].regular).toBe(1);
    });

    it('rounds extra decimals where the database rounds, and says what SQLite keeps', async () => {
      const res = await gql('mutation { updateBad(id: 1, price: "1.239") { price } }');
      expect(res.body.errors).toBeUndefined();
      // PostgreSQL and MariaDB round to the scale; SQLite keeps the number it was given.
      expect(res.body.data.updateBad.price).toBe(dialect.type === 'sqlite' ? '1.239' : '1.24');
      await gql('mutation { updateBad(id: 1, price: "1.00") { id } }');
    });

    if (dialect.type === 'sqlite') {
      it('stores what SQLite stores: a wide smallint, more digits than numeric(5,2)', async () => {
        const res = await gql(
          'mutation { addBad(id: 160, small: 40000, price: "12345.67") { small price } }',
        );
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.addBad).toEqual({ small: 40000, price: '12345.67' });
        await gql('mutation { deleteBad(id: 160) }');
      });
    }

    if (dialect.type !== 'sqlite') {
      it('refuses a value outside the database enum as a GraphQL validation error', async () => {
        const type = (
          await gql('{ __type(name: "Bad") { fields { name type { name ofType { name } } } } }')
        ).body.data.__type.fields.find((f: { name: string }) => f.name === 'mood').type;
        const enumName = type.name ?? type.ofType.name;
        const lit = await gql('mutation { addBad(id: 170, mood: angry) { id } }');
        expect(lit.status).toBe(400);
        expect(lit.body.errors[0].extensions.code).toBe(invalidValueCode());
        const variable = await gql(
          `mutation ($m: ${enumName}) { updateBad(id: 1, mood: $m) { id } }`,
          { m: 'angry' },
        );
        expect(variable.status).toBe(400);
        expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(await readRow(170)).toEqual([]);
      });
    }

    if (dialect.type === 'mysql') {
      it("reads MariaDB's JSON column (LONGTEXT + json_valid CHECK) as JSON: invalid JSON cannot be sent", async () => {
        const arg = (
          await gql('{ __type(name: "Mutation") { fields { name args { name type { name } } } } }')
        ).body.data.__type.fields
          .find((f: { name: string }) => f.name === 'addBad')
          .args.find((a: { name: string }) => a.name === 'doc');
        expect(arg.type.name).toBe('JSON');
        const res = await gql(
          'mutation ($d: JSON) { a: addBad(id: 180, doc: "{bad") { doc } b: addBad(id: 181, doc: $d) { doc } }',
          { d: { k: [1, 'x'] } },
        );
        expect(res.body.errors).toBeUndefined();
        // Text that is not JSON is stored as a JSON string, which json_valid accepts.
        expect(res.body.data).toEqual({ a: { doc: '{bad' }, b: { doc: { k: [1, 'x'] } } });
        await gql('mutation { a: deleteBad(id: 180) b: deleteBad(id: 181) }');
      });
    }
  });
}

/** The columns read back to prove nothing was written. */
const FIELDS: Record<Db, string> = {
  postgres: 'id small regular big price code born at uid qty dq doc mood capped',
  mysql: 'id small regular big price code born at uid qty doc mood capped',
  sqlite: 'id small regular big price code born at qty doc capped',
};
