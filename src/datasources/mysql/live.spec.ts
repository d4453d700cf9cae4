import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { SERVICE_URLS, describeWith } from '../../../test/support/services';
import { ALL_ROWS } from '../core/dialect';
import type {
  CompiledQuery,
  Condition,
  DatabaseRefusal,
  IntrospectedTable,
  ModelColumn,
  SqlPool,
  WriteContext,
} from '../core/dialect';
import { translateMysqlError } from './errors';
import { MysqlPool, toMysqlParameter } from './pool';
import { MysqlDialect } from './dialect';

/**
 * The MySQL/MariaDB adapter against the real server (SERVICE_URLS.mysql, MariaDB in the dev
 * setup): introspection, values through the pool, zone independence, literal case-insensitive
 * matching, INSERT … RETURNING, and real refusal errors translated (CONTRACT.md §6). Everything
 * happens in a throwaway database `tg_my_<random>`; no global setting is changed.
 */

const dialect = new MysqlDialect();
const DB = `tg_my_${randomBytes(5).toString('hex')}`;

function databaseUrl(name: string): string {
  const url = new URL(SERVICE_URLS.mysql);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A raw mysql2 connection (setup, and sessions the adapter does not control). */
async function rawConnection(database?: string): Promise<mysql.Connection> {
  return mysql.createConnection({
    uri: database ? databaseUrl(database) : SERVICE_URLS.mysql,
    multipleStatements: true,
    dateStrings: true,
  });
}

const SETUP = `
  CREATE TABLE kinds (
    id int AUTO_INCREMENT PRIMARY KEY,
    flag tinyint(1),
    bitflag bit(1),
    tiny tinyint,
    small smallint,
    medium mediumint unsigned,
    regular int,
    uint int unsigned,
    big bigint,
    ubig bigint unsigned,
    price decimal(40,10),
    ratio float,
    amount double,
    born date,
    at_local datetime(3),
    at_instant timestamp(3) NULL DEFAULT NULL,
    clock time,
    yr year,
    code varchar(10) NOT NULL DEFAULT 'x',
    label char(4),
    body text,
    doc json,
    mood enum('happy','sad'),
    bits bit(12),
    bin varbinary(8),
    total_cents bigint GENERATED ALWAYS AS (regular * 100) STORED,
    shout varchar(20) AS (UPPER(code)) VIRTUAL,
    created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    note varchar(5) NULL
  );
  CREATE TABLE customers (
    id int AUTO_INCREMENT PRIMARY KEY,
    email varchar(100) NOT NULL,
    name varchar(50) NOT NULL,
    code varchar(10),
    label varchar(10),
    note varchar(20),
    age int,
    UNIQUE KEY email (email),
    UNIQUE KEY customers_code_uq (code),
    CONSTRAINT customers_age_ck CHECK (age >= 0)
  );
  CREATE TABLE orders (
    id bigint AUTO_INCREMENT PRIMARY KEY,
    customer_id int NOT NULL,
    placed_at datetime,
    CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (id)
  );
  CREATE TABLE memberships (tenant_id int, slug varchar(20), PRIMARY KEY (tenant_id, slug));
  CREATE TABLE line_items (
    id int PRIMARY KEY,
    tenant_id int,
    slug varchar(20),
    CONSTRAINT line_items_membership_fk FOREIGN KEY (tenant_id, slug) REFERENCES memberships (tenant_id, slug)
  );
  CREATE TABLE employees (id int PRIMARY KEY, manager_id int, CONSTRAINT employees_manager_fk FOREIGN KEY (manager_id) REFERENCES employees (id));
  CREATE TABLE texts (
    id int PRIMARY KEY,
    bin_col varchar(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    ci_col varchar(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,
    ai_col varchar(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
    latin_col varchar(50) CHARACTER SET latin1 COLLATE latin1_swedish_ci
  );
  CREATE VIEW customer_names AS SELECT name FROM customers;
  INSERT INTO customers (email, name, code) VALUES ('ann@example.com', 'Ann', 'A1'), ('bob@example.com', 'Bob', NULL);
  INSERT INTO orders (customer_id, placed_at) VALUES (1, '2024-01-02 03:04:05');
  INSERT INTO memberships VALUES (7, 'sales');
  INSERT INTO employees VALUES (1, NULL), (2, 1);
`;

/** The texts every collation column holds (row id → value). */
const TEXTS: Record<number, string | null> = {
  1: 'Café au lait',
  2: 'CAFE NOIR',
  3: 'cafe',
  4: '50% off',
  5: '50 off',
  6: 'a_b',
  7: 'axb',
  8: 'back\\slash',
  9: 'backslash',
  10: 'pipe|bar',
  11: 'pipe bar',
  12: '[brackets]',
  13: 'ÉCOLE',
  14: 'ecole',
  15: 'x||y',
  16: null,
};

describeWith('mysql')('MySQL/MariaDB adapter (live)', () => {
  let admin: mysql.Connection;
  let pool: SqlPool;
  let globalZone: string;
  let tables: Map<string, IntrospectedTable>;

  beforeAll(async () => {
    admin = await rawConnection();
    globalZone = String(
      (
        (await admin.query('SELECT @@global.time_zone AS tz')) as unknown as [{ tz: string }[]]
      )[0][0].tz,
    );
    await admin.query(`CREATE DATABASE \`${DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    await admin.query(`USE \`${DB}\``);
    await admin.query(SETUP);
    const rows = Object.entries(TEXTS).map(([id, v]) => [Number(id), v, v, v, v]);
    await admin.query('INSERT INTO texts (id, bin_col, ci_col, ai_col, latin_col) VALUES ?', [
      rows,
    ]);
    pool = await dialect.open(databaseUrl(DB), { poolSize: 3 });
    const found = await dialect.introspect(pool, await dialect.listTables(pool));
    tables = new Map(found.map((t) => [t.dbName, t]));
  });

  afterAll(async () => {
    await pool?.close();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS \`${DB}\``);
      // Nothing here may leak into the server's globals.
      const [rows] = (await admin.query('SELECT @@global.time_zone AS tz')) as unknown as [
        { tz: string }[],
      ];
      expect(rows[0].tz).toBe(globalZone);
      await admin.end();
    }
  });

  const table = (name: string) => ({ schema: DB, name });
  const columns = (name: string): ModelColumn[] => tables.get(name)!.columns;
  const column = (t: string, c: string): ModelColumn => columns(t).find((x) => x.name === c)!;

  describe('connection and sessions', () => {
    it('refuses a URL that is not a mysql URL, or names no database', async () => {
      await expect(
        dialect.open('postgres://root@127.0.0.1/x', { poolSize: 1 }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(
        dialect.open('mysql://root@127.0.0.1:3306', { poolSize: 1 }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(
        dialect.open(`${databaseUrl(DB)}?dateStrings=false`, { poolSize: 1 }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    });

    it('fails to open when the server cannot be reached or the database does not exist', async () => {
      await expect(
        dialect.open('mysql://root@127.0.0.1:1/x', { poolSize: 1 }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(
        dialect.open(databaseUrl(`${DB}_missing`), { poolSize: 1 }),
      ).rejects.toMatchObject({ errno: 1049 });
    });

    it('pins every pooled session to UTC and a strict sql_mode', async () => {
      // Three at once, so the pool opens all three connections.
      const sessions = await Promise.all(
        [0, 1, 2].map(() =>
          pool.run({
            sql: 'SELECT CONNECTION_ID() AS id, @@session.time_zone AS tz, @@session.sql_mode AS mode, SLEEP(?) AS s',
            params: [0.2],
          }),
        ),
      );
      const ids = new Set(sessions.map((s) => s.rows[0].id));
      expect(ids.size).toBe(3);
      for (const s of sessions) {
        expect(s.rows[0].tz).toBe('+00:00');
        expect(String(s.rows[0].mode).split(',')).toEqual(
          expect.arrayContaining(['STRICT_ALL_TABLES', 'NO_ZERO_DATE', 'NO_ZERO_IN_DATE']),
        );
        expect(String(s.rows[0].mode)).not.toMatch(
          /ANSI_QUOTES|NO_BACKSLASH_ESCAPES|PIPES_AS_CONCAT/,
        );
      }
    });

    it('fails to open, with the cause, when the session cannot be pinned', async () => {
      await expect(
        MysqlPool.open(databaseUrl(DB), { poolSize: 1 }, "SET SESSION sql_mode = 'NOT_A_MODE'"),
      ).rejects.toMatchObject({ errno: 1231 });
    });

    it('never runs a statement on a pooled session that could not be pinned', async () => {
      // Session setup reads its mode from a table: valid while the pool opens, invalid for the
      // connections it opens later.
      await admin.query(
        `CREATE TABLE \`${DB}\`.modes (m varchar(100)); INSERT INTO \`${DB}\`.modes VALUES ('STRICT_ALL_TABLES')`,
      );
      await admin.query(`CREATE TABLE \`${DB}\`.session_log (mode varchar(200))`);
      const p = await MysqlPool.open(
        databaseUrl(DB),
        { poolSize: 3 },
        `SET SESSION sql_mode = (SELECT m FROM \`${DB}\`.modes)`,
      );
      try {
        await admin.query(`UPDATE \`${DB}\`.modes SET m = 'NOT_A_MODE'`);
        const log = {
          sql: 'INSERT INTO session_log (mode) SELECT @@session.sql_mode FROM DUAL WHERE SLEEP(?) = 0',
          params: [0.2],
        };
        const outcomes = await Promise.allSettled([p.run(log), p.run(log), p.run(log)]);
        expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected', 'rejected']);
        const [rows] = (await admin.query(`SELECT mode FROM \`${DB}\`.session_log`)) as unknown as [
          { mode: string }[],
        ];
        expect(rows).toEqual([{ mode: 'STRICT_ALL_TABLES' }]);
      } finally {
        await p.close();
        await admin.query(`DROP TABLE \`${DB}\`.modes, \`${DB}\`.session_log`);
      }
    });

    it('reports the server version and what it can do', async () => {
      const version = await pool.serverVersion();
      expect(version).toMatch(/^\d+\.\d+\.\d+/);
      const mariaReturning = /mariadb/i.test(version) && !/^10\.[0-4]\./.test(version);
      expect(dialect.capabilities(version)).toEqual({
        insertReturning: mariaReturning,
        updateReturning: false,
        upsertMatchesAnyKey: true,
      });
    });
  });

  describe('introspection', () => {
    it('lists the tables and views of the URL database with the database as schema and their kind', async () => {
      const listed = await dialect.listTables(pool);
      // Ordered by the server's information_schema collation (`_` after letters under *_general_ci).
      const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
      expect([...listed].sort(byName)).toEqual(
        [
          'customer_names',
          'customers',
          'employees',
          'kinds',
          'line_items',
          'memberships',
          'orders',
          'texts',
        ].map((name) => ({ schema: DB, name, kind: name === 'customer_names' ? 'view' : 'table' })),
      );
    });

    it('introspects a view: kind view, its columns with their nullability, no keys (issue 11)', () => {
      const view = tables.get('customer_names')!;
      expect(view).toMatchObject({ schema: DB, kind: 'view', primaryKey: [], foreignKeys: [] });
      expect(view.columns.map((c) => [c.name, c.kind, c.nullable, c.generated])).toEqual([
        ['name', 'text', false, false],
      ]);
      expect(tables.get('customers')!.kind).toBe('table');
    });

    it('leaves out a view whose table is gone (MySQL error 1356 hides its columns)', async () => {
      await admin.query('CREATE TABLE doomed (id int)');
      await admin.query('CREATE VIEW doomed_view AS SELECT id FROM doomed');
      await admin.query('DROP TABLE doomed');
      try {
        const listed = await dialect.listTables(pool);
        expect(listed).toContainEqual({ schema: DB, name: 'doomed_view', kind: 'view' });
        const found = await dialect.introspect(pool, [
          { schema: DB, name: 'doomed_view' },
          { schema: DB, name: 'customer_names' },
        ]);
        expect(found.map((t) => [t.dbName, t.kind])).toEqual([['customer_names', 'view']]);
      } finally {
        await admin.query('DROP VIEW doomed_view');
      }
    });

    it('maps every column type to its kind, with nullability, defaults, generation and lengths', () => {
      const kinds = tables.get('kinds')!;
      expect(kinds.schema).toBe(DB);
      expect(kinds.primaryKey).toEqual(['id']);
      expect(kinds.foreignKeys).toEqual([]);
      const summary = Object.fromEntries(
        kinds.columns.map((c) => [
          c.name,
          [c.kind, c.nullable, c.hasDefault, c.generated, Boolean(c.computed), c.maxLength],
        ]),
      );
      expect(summary).toEqual({
        id: ['int', false, false, true, false, null],
        flag: ['boolean', true, false, false, false, null],
        bitflag: ['boolean', true, false, false, false, null],
        tiny: ['int', true, false, false, false, null],
        small: ['int', true, false, false, false, null],
        medium: ['int', true, false, false, false, null],
        regular: ['int', true, false, false, false, null],
        uint: ['bigint', true, false, false, false, null],
        big: ['bigint', true, false, false, false, null],
        ubig: ['bigint', true, false, false, false, null],
        price: ['decimal', true, false, false, false, null],
        ratio: ['float', true, false, false, false, null],
        amount: ['float', true, false, false, false, null],
        born: ['date', true, false, false, false, null],
        at_local: ['timestamp', true, false, false, false, null],
        at_instant: ['timestamptz', true, false, false, false, null],
        clock: ['duration', true, false, false, false, null],
        yr: ['int', true, false, false, false, null],
        code: ['text', false, true, false, false, 10],
        label: ['text', true, false, false, false, 4],
        body: ['text', true, false, false, false, null],
        // MariaDB's JSON is LONGTEXT with a json_valid check, found in CHECK_CONSTRAINTS: json.
        doc: ['json', true, false, false, false, null],
        mood: ['text', true, false, false, false, null],
        bits: ['bigint', true, false, false, false, null],
        bin: ['binary', true, false, false, false, null],
        total_cents: ['bigint', true, false, true, true, null],
        shout: ['text', true, false, true, true, 20],
        created_at: ['timestamptz', false, true, false, false, null],
        note: ['text', true, false, false, false, 5],
      });
      expect(column('kinds', 'flag').dbType).toBe('tinyint(1)');
      expect(column('kinds', 'code').dbType).toBe('varchar(10)');
    });

    it('reads single, composite and self-referencing foreign keys and composite primary keys', () => {
      // fanOut (index statistics) is checked in its own test.
      const keysOf = (name: string) =>
        tables.get(name)!.foreignKeys.map(({ fanOut: _fanOut, ...fk }) => fk);
      expect(keysOf('orders')).toEqual([
        {
          columns: ['customer_id'],
          referencedSchema: DB,
          referencedTable: 'customers',
          referencedColumns: ['id'],
        },
      ]);
      expect(keysOf('line_items')).toEqual([
        {
          columns: ['tenant_id', 'slug'],
          referencedSchema: DB,
          referencedTable: 'memberships',
          referencedColumns: ['tenant_id', 'slug'],
        },
      ]);
      expect(keysOf('employees')).toEqual([
        {
          columns: ['manager_id'],
          referencedSchema: DB,
          referencedTable: 'employees',
          referencedColumns: ['id'],
        },
      ]);
      expect(tables.get('memberships')!.primaryKey).toEqual(['tenant_id', 'slug']);
      expect(tables.get('orders')!.primaryKey).toEqual(['id']);
      expect(column('orders', 'id')).toMatchObject({
        kind: 'bigint',
        generated: true,
        hasDefault: false,
        nullable: false,
      });
      expect(column('customers', 'email')).toMatchObject({
        kind: 'text',
        maxLength: 100,
        nullable: false,
        hasDefault: false,
      });
    });

    it('reads ENUM values from the real COLUMN_TYPE, and table and column comments (issue 11, item 4)', async () => {
      expect(column('kinds', 'mood').dbEnum).toEqual({
        name: 'kinds.mood',
        values: ['happy', 'sad'],
      });
      expect(column('kinds', 'mood')).not.toHaveProperty('comment');
      expect(tables.get('kinds')).not.toHaveProperty('comment');
      const odd = ["it's", 'c\\d', 'nl\nx', 'e,f', 'x)y', 'on hold', '', 'TRUE', '1st', 'é ü'];
      const literal = (v: string) =>
        `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\n/g, '\\n')}'`;
      await admin.query(
        `CREATE TABLE commented (id int PRIMARY KEY COMMENT 'The key', m enum(${odd.map(literal).join(',')}) COMMENT 'It''s the mood') COMMENT = 'Rows with comments'`,
      );
      await admin.query('CREATE VIEW commented_view AS SELECT id, m FROM commented');
      try {
        const [table, view] = await dialect.introspect(pool, [
          { schema: DB, name: 'commented' },
          { schema: DB, name: 'commented_view' },
        ]);
        expect(table.comment).toBe('Rows with comments');
        expect(table.columns.map((c) => [c.name, c.comment])).toEqual([
          ['id', 'The key'],
          ['m', "It's the mood"],
        ]);
        expect(table.columns[1].dbEnum).toEqual({ name: 'commented.m', values: odd });
        // Each value read back is exactly what the ENUM lists.
        await admin.query('INSERT INTO commented VALUES ?', [odd.map((v, i) => [i + 1, v])]);
        const { rows } = await pool.run({
          sql: 'SELECT m FROM commented ORDER BY id',
          params: [],
        });
        expect(rows.map((r) => r.m)).toEqual(odd);
        expect(view.kind).toBe('view');
        expect(view).not.toHaveProperty('comment');
        expect(view.columns[1].dbEnum).toEqual({ name: 'commented_view.m', values: odd });
      } finally {
        await admin.query('DROP VIEW commented_view');
        await admin.query('DROP TABLE commented');
      }
    });

    it('keeps the order asked for, skips missing tables and reads a null schema as the URL database', async () => {
      const found = await dialect.introspect(pool, [
        { schema: null, name: 'orders' },
        { schema: DB, name: 'nowhere' },
        { schema: DB, name: 'customers' },
      ]);
      expect(found.map((t) => [t.schema, t.dbName])).toEqual([
        [DB, 'orders'],
        [DB, 'customers'],
      ]);
    });
  });

  describe('values through the pool', () => {
    const written = {
      flag: true,
      bitflag: true,
      tiny: -128,
      small: 32767,
      medium: 16777215,
      regular: -2147483648,
      uint: '4294967295',
      big: '-9223372036854775808',
      ubig: '18446744073709551615',
      price: '123456789012345678901234567890.1234567891',
      ratio: 1.1,
      amount: 0.1,
      born: '1839-06-21',
      at_local: '2024-01-02T03:04:05.678',
      at_instant: '2024-01-02T08:34:05.678+05:30',
      clock: '10:20:30',
      yr: 2024,
      code: "O'Brien\\",
      label: 'abcd',
      body: 'multi\nline ✓ 😀',
      doc: '{"a": [1, 2]}',
      mood: 'sad',
      bits: '4095',
      note: null,
    } as const;
    let id: unknown;

    it('writes every kind with bound parameters and reads it back in the contract form', async () => {
      const kinds = columns('kinds');
      const values = Object.entries(written).map(([name, value]) => ({
        column: name,
        value: dialect.bindValue(
          kinds.find((c) => c.name === name)!,
          value,
        ),
      }));
      const caps = dialect.capabilities(await pool.serverVersion());
      const insert = dialect.compileInsert({
        table: table('kinds'),
        values,
        returning: caps.insertReturning ? ['id', 'total_cents', 'shout'] : [],
      });
      const result = await pool.run(insert);
      expect(result.affected).toBe(1);
      if (caps.insertReturning) {
        expect(result.rows).toEqual([{ id: 1, total_cents: '-214748364800', shout: "O'BRIEN\\" }]);
      }
      id = 1;
      const names = kinds.map((c) => c.name);
      const { rows } = await pool.run(
        dialect.compileSelect({
          scope: ALL_ROWS,
          table: table('kinds'),
          columns: names,
          where: { kind: 'compare', column: 'id', op: 'eq', value: id },
          order: [{ column: 'id', direction: 'ASC' }],
          take: 1,
          skip: 0,
        }),
      );
      const out = Object.fromEntries(
        kinds.map((c) => [c.name, dialect.formatValue(c, rows[0][c.name])]),
      );
      expect(out).toEqual({
        id: 1,
        flag: true,
        bitflag: true,
        tiny: -128,
        small: 32767,
        medium: 16777215,
        regular: -2147483648,
        uint: '4294967295',
        big: '-9223372036854775808',
        ubig: '18446744073709551615',
        price: '123456789012345678901234567890.1234567891',
        ratio: 1.1,
        amount: 0.1,
        born: '1839-06-21',
        at_local: '2024-01-02T03:04:05.678',
        at_instant: '2024-01-02T03:04:05.678Z',
        clock: '10:20:30',
        yr: 2024,
        code: "O'Brien\\",
        label: 'abcd',
        body: 'multi\nline ✓ 😀',
        doc: '{"a": [1, 2]}',
        mood: 'sad',
        bits: '4095',
        bin: null,
        total_cents: '-214748364800',
        shout: "O'BRIEN\\",
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
        note: null,
      });
    });

    it('filters 64-bit integers and decimals exactly, beyond 2^53 and 15 digits', async () => {
      const kinds = columns('kinds');
      const c = (name: string) => kinds.find((k) => k.name === name)!;
      const countWhere = async (where: Condition) =>
        Number(
          (await pool.run(dialect.compileCount({ scope: ALL_ROWS, table: table('kinds'), where })))
            .rows[0].count,
        );
      const cmp = (name: string, op: 'eq' | 'lt' | 'gt', value: unknown): Condition => ({
        kind: 'compare',
        column: name,
        op,
        value: dialect.bindValue(c(name), value),
      });
      expect(await countWhere(cmp('ubig', 'eq', '18446744073709551615'))).toBe(1);
      expect(await countWhere(cmp('ubig', 'lt', '18446744073709551615'))).toBe(0);
      expect(await countWhere(cmp('big', 'eq', '-9223372036854775808'))).toBe(1);
      expect(await countWhere(cmp('big', 'gt', '-9223372036854775808'))).toBe(0);
      expect(
        await countWhere(cmp('price', 'eq', '123456789012345678901234567890.1234567891')),
      ).toBe(1);
      expect(
        await countWhere(cmp('price', 'eq', '123456789012345678901234567890.1234567892')),
      ).toBe(0);
      expect(
        await countWhere(cmp('price', 'lt', '123456789012345678901234567890.1234567892')),
      ).toBe(1);
      expect(await countWhere(cmp('uint', 'eq', 4294967295))).toBe(1);
      expect(await countWhere(cmp('flag', 'eq', true))).toBe(1);
      expect(await countWhere(cmp('bitflag', 'eq', true))).toBe(1);
      expect(await countWhere(cmp('bitflag', 'eq', false))).toBe(0);
      expect(await countWhere(cmp('at_instant', 'eq', '2024-01-02T03:04:05.678Z'))).toBe(1);
      expect(await countWhere(cmp('at_instant', 'eq', '2024-01-02T00:04:05.678-03:00'))).toBe(1);
      expect(await countWhere(cmp('at_local', 'eq', '2024-01-02T03:04:05.678'))).toBe(1);
      expect(await countWhere(cmp('born', 'lt', '1900-01-01'))).toBe(1);
      // Text matching on date, enum and JSON columns compares their text.
      expect(
        await countWhere({ kind: 'like', column: 'born', mode: 'startsWith', value: '1839-06' }),
      ).toBe(1);
      expect(
        await countWhere({
          kind: 'like',
          column: 'at_local',
          mode: 'startsWith',
          value: '2024-01-02 03',
        }),
      ).toBe(1);
      expect(
        await countWhere({ kind: 'like', column: 'mood', mode: 'contains', value: 'AD' }),
      ).toBe(1);
      // MariaDB's JSON is now kind json (compared only with null); MySQL's never took LIKE either.
      if (c('doc').kind === 'text') {
        expect(
          await countWhere({ kind: 'like', column: 'doc', mode: 'contains', value: '"A"' }),
        ).toBe(1);
      }
      expect(
        await countWhere({
          kind: 'in',
          column: 'big',
          values: ['1', '-9223372036854775808'].map((v) => dialect.bindValue(c('big'), v)),
          negated: false,
        }),
      ).toBe(1);
    });

    it('writes, reads and compares TIME values beyond a time of day, as mysql2 reads them (issue 22, item 16)', async () => {
      await admin.query('CREATE TABLE spans (id int PRIMARY KEY, t time, t3 time(3), t6 time(6))');
      try {
        const spans = (await dialect.introspect(pool, [table('spans')]))[0].columns;
        const c = (name: string) => spans.find((k) => k.name === name)!;
        expect(spans.map((k) => [k.name, k.kind, k.dbType])).toEqual([
          ['id', 'int', 'int(11)'],
          ['t', 'duration', 'time'],
          ['t3', 'duration', 'time(3)'],
          ['t6', 'duration', 'time(6)'],
        ]);
        const rows: Record<string, string>[] = [
          { t: '-01:30:00', t3: '-01:30:00.5', t6: '-00:00:00.000001' },
          { t: '100:00:00', t3: '838:59:59.999', t6: '838:59:59' },
          { t: '-838:59:59', t3: '13:45:00.123', t6: '34:00:00.25' },
          { t: '00:00:00', t3: '12:30', t6: '-838:59:59' },
        ];
        for (const [i, row] of rows.entries()) {
          await pool.run(
            dialect.compileInsert({
              table: table('spans'),
              values: [
                { column: 'id', value: i + 1 },
                ...Object.entries(row).map(([name, value]) => ({
                  column: name,
                  value: dialect.bindValue(c(name), value),
                })),
              ],
              returning: [],
            }),
          );
        }
        const read = await pool.run(
          dialect.compileSelect({
            scope: ALL_ROWS,
            table: table('spans'),
            columns: ['id', 't', 't3', 't6'],
            where: ALL_ROWS,
            order: [{ column: 'id', direction: 'ASC' }],
            take: null,
            skip: 0,
          }),
        );
        const out = read.rows.map((r) =>
          Object.fromEntries(['t', 't3', 't6'].map((n) => [n, dialect.formatValue(c(n), r[n])])),
        );
        // The binary protocol's text: hours past 24 kept, the fraction's trailing zeros cut
        // (mysql2 `readTimeString`), `12:30` stored as 12:30:00.
        expect(out).toEqual([
          { t: '-01:30:00', t3: '-01:30:00.5', t6: '-00:00:00.000001' },
          { t: '100:00:00', t3: '838:59:59.999', t6: '838:59:59' },
          { t: '-838:59:59', t3: '13:45:00.123', t6: '34:00:00.25' },
          { t: '00:00:00', t3: '12:30:00', t6: '-838:59:59' },
        ]);
        const ids = async (where: Condition) =>
          (
            await pool.run(
              dialect.compileSelect({
                scope: ALL_ROWS,
                table: table('spans'),
                columns: ['id'],
                where,
                order: [{ column: 'id', direction: 'ASC' }],
                take: null,
                skip: 0,
              }),
            )
          ).rows.map((r) => r.id);
        const cmp = (name: string, op: 'eq' | 'lt' | 'gt', value: string): Condition => ({
          kind: 'compare',
          column: name,
          op,
          value: dialect.bindValue(c(name), value),
        });
        // Compared as durations, not as text: '-01:30:00' is below '00:00:00'.
        expect(await ids(cmp('t', 'lt', '00:00:00'))).toEqual([1, 3]);
        expect(await ids(cmp('t', 'gt', '24:00:00'))).toEqual([2]);
        expect(await ids(cmp('t', 'eq', '-01:30:00'))).toEqual([1]);
        expect(await ids(cmp('t3', 'eq', '-01:30:00.5'))).toEqual([1]);
        expect(await ids(cmp('t6', 'eq', '-00:00:00.000001'))).toEqual([1]);
        expect(await ids(cmp('t6', 'eq', '34:00:00.25'))).toEqual([3]);
        expect(await ids(cmp('t6', 'lt', '-00:00:00'))).toEqual([1, 4]);
        expect(
          await ids({
            kind: 'in',
            column: 't',
            values: ['100:00:00', '-838:59:59'],
            negated: false,
          }),
        ).toEqual([2, 3]);
      } finally {
        await admin.query('DROP TABLE spans');
      }
    });

    it('updates report rows found (not only changed), deletes report rows removed', async () => {
      const where: Condition = { kind: 'compare', column: 'id', op: 'eq', value: id };
      const same = await pool.run(
        dialect.compileUpdate({
          scope: ALL_ROWS,
          table: table('kinds'),
          set: [{ column: 'tiny', value: -128 }],
          where,
          returning: [],
        }),
      );
      expect(same).toEqual({ rows: [], affected: 1 });
      const none = await pool.run(
        dialect.compileUpdate({
          scope: ALL_ROWS,
          table: table('kinds'),
          set: [{ column: 'tiny', value: 1 }],
          where: { kind: 'compare', column: 'id', op: 'eq', value: 999 },
          returning: [],
        }),
      );
      expect(none.affected).toBe(0);
      const extra = await pool.run(
        dialect.compileInsert({ table: table('kinds'), values: [], returning: [] }),
      );
      expect(extra.affected).toBe(1);
      const removed = await pool.run(
        dialect.compileDelete({
          scope: ALL_ROWS,
          table: table('kinds'),
          where: { kind: 'compare', column: 'id', op: 'gt', value: id },
        }),
      );
      expect(removed.affected).toBe(1);
      expect(
        (
          await pool.run(
            dialect.compileDelete({
              scope: ALL_ROWS,
              table: table('kinds'),
              where: { kind: 'compare', column: 'id', op: 'gt', value: id },
            }),
          )
        ).affected,
      ).toBe(0);
    });

    it('pages with bound LIMIT/OFFSET, skip without take, and per-partition windows', async () => {
      const ids = async (take: number | null, skip: number) =>
        (
          await pool.run(
            dialect.compileSelect({
              scope: ALL_ROWS,
              table: table('texts'),
              columns: ['id'],
              where: { kind: 'and', items: [] },
              order: [{ column: 'id', direction: 'DESC' }],
              take,
              skip,
            }),
          )
        ).rows.map((r) => r.id);
      expect(await ids(3, 0)).toEqual([16, 15, 14]);
      expect(await ids(2, 3)).toEqual([13, 12]);
      expect(await ids(0, 0)).toEqual([]);
      expect(await ids(null, 14)).toEqual([2, 1]);
      await admin.query(
        'INSERT INTO orders (customer_id, placed_at) VALUES (1, ?), (1, ?), (2, ?)',
        ['2024-02-01 00:00:00', '2024-03-01 00:00:00', '2024-01-01 00:00:00'],
      );
      const { rows } = await pool.run(
        dialect.compileSelect({
          scope: ALL_ROWS,
          table: table('orders'),
          columns: ['id', 'customer_id'],
          where: { kind: 'in', column: 'customer_id', values: [1, 2], negated: false },
          order: [
            { column: 'placed_at', direction: 'DESC' },
            { column: 'id', direction: 'ASC' },
          ],
          take: 1,
          skip: 1,
          partition: { column: 'customer_id' },
        }),
      );
      expect(rows).toEqual([{ id: '2', customer_id: 1 }]);
      // NULL sorts first under ASC, last under DESC, with no NULLS clause.
      const nulls = async (direction: 'ASC' | 'DESC') =>
        (
          await pool.run(
            dialect.compileSelect({
              scope: ALL_ROWS,
              table: table('texts'),
              columns: ['id'],
              where: { kind: 'in', column: 'id', values: [15, 16], negated: false },
              order: [{ column: 'bin_col', direction }],
              take: null,
              skip: 0,
            }),
          )
        ).rows.map((r) => r.id);
      expect(await nulls('ASC')).toEqual([16, 15]);
      expect(await nulls('DESC')).toEqual([15, 16]);
    });

    it('INSERT … RETURNING gives the generated key and defaults on MariaDB ≥ 10.5', async () => {
      const caps = dialect.capabilities(await pool.serverVersion());
      if (!caps.insertReturning) return; // MySQL: add<Base> answers true, nothing to return.
      const q = dialect.compileInsert({
        table: table('customers'),
        values: [
          { column: 'email', value: 'cy@example.com' },
          { column: 'name', value: 'Cy' },
        ],
        returning: ['id', 'email', 'code'],
      });
      const result = await pool.run(q);
      expect(result.rows).toEqual([{ id: 3, email: 'cy@example.com', code: null }]);
      expect(result.affected).toBe(1);
      await pool.run(
        dialect.compileDelete({
          scope: ALL_ROWS,
          table: table('customers'),
          where: { kind: 'compare', column: 'id', op: 'eq', value: 3 },
        }),
      );
    });
  });

  describe('date and time values are independent of every time zone', () => {
    const read = async (p: SqlPool, id: number) => {
      const kinds = columns('kinds');
      const names = ['born', 'at_local', 'at_instant'];
      const { rows } = await p.run(
        dialect.compileSelect({
          scope: ALL_ROWS,
          table: table('kinds'),
          columns: names,
          where: { kind: 'compare', column: 'id', op: 'eq', value: id },
          order: [{ column: 'id', direction: 'ASC' }],
          take: 1,
          skip: 0,
        }),
      );
      return Object.fromEntries(
        names.map((n) => [
          n,
          dialect.formatValue(
            kinds.find((c) => c.name === n)!,
            rows[0][n],
          ),
        ]),
      );
    };
    const expected = {
      born: '1839-06-21',
      at_local: '2024-01-02T03:04:05.678',
      at_instant: '2024-01-02T03:04:05.678Z',
    };

    /**
     * Jest gives each test file a copy of `process.env`, so the process zone cannot be changed in
     * here: a child Node process with TZ set loads the adapter's TypeScript (transpiled on the
     * fly), reads the row, writes an instant with an offset, and reads it again.
     */
    const CHILD = `
      const ts = require('typescript');
      const fs = require('fs');
      require.extensions['.ts'] = (m, file) => {
        const out = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
        m._compile(out.outputText, file);
      };
      const { MysqlDialect } = require(process.env.TG_DIALECT);
      (async () => {
        const dialect = new MysqlDialect();
        const pool = await dialect.open(process.env.TG_URL, { poolSize: 1 });
        const [table] = await dialect.introspect(pool, [{ schema: null, name: 'kinds' }]);
        const names = ['born', 'at_local', 'at_instant'];
        const where = { kind: 'compare', column: 'id', op: 'eq', value: 1 };
        const read = async () => {
          const { rows } = await pool.run(dialect.compileSelect({ table: { schema: table.schema, name: 'kinds' }, columns: names, where, scope: { kind: 'and', items: [] }, order: [{ column: 'id', direction: 'ASC' }], take: 1, skip: 0 }));
          return Object.fromEntries(names.map((n) => [n, dialect.formatValue(table.columns.find((c) => c.name === n), rows[0][n])]));
        };
        const before = await read();
        const ts = table.columns.find((c) => c.name === 'at_instant');
        await pool.run(dialect.compileUpdate({ table: { schema: table.schema, name: 'kinds' }, set: [{ column: 'at_instant', value: dialect.bindValue(ts, '2024-01-02T00:04:05.678-03:00') }], where, scope: { kind: 'and', items: [] }, returning: [] }));
        const after = await read();
        await pool.close();
        process.stdout.write(JSON.stringify({ offset: new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset(), before, after }));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;

    it.each([
      ['America/Sao_Paulo', 180],
      ['Asia/Kolkata', -330],
      ['UTC', 0],
    ])('process TZ %s', async (zone, offset) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', CHILD], {
        env: {
          ...process.env,
          TZ: zone,
          TG_URL: databaseUrl(DB),
          TG_DIALECT: join(__dirname, 'dialect.ts'),
        },
      });
      expect(JSON.parse(stdout)).toEqual({ offset, before: expected, after: expected });
    });

    it('a session in another zone writes instants the adapter reads in UTC; DATETIME stays as stored', async () => {
      const other = await rawConnection(DB);
      try {
        await other.query("SET SESSION time_zone = '+05:30'");
        await other.query(
          "INSERT INTO kinds (id, born, at_local, at_instant) VALUES (50, '2024-02-29', '2024-01-02 08:34:05.123', '2024-01-02 08:34:05.123')",
        );
        const [seen] = (await other.query(
          'SELECT at_instant FROM kinds WHERE id = 50',
        )) as unknown as [{ at_instant: string }[]];
        expect(seen[0].at_instant).toBe('2024-01-02 08:34:05.123');
      } finally {
        await other.end();
      }
      expect(await read(pool, 50)).toEqual({
        born: '2024-02-29',
        at_local: '2024-01-02T08:34:05.123',
        at_instant: '2024-01-02T03:04:05.123Z',
      });
      expect(await read(pool, 1)).toEqual(expected);
      // And the instant the adapter wrote earlier is the same seen from a +05:30 session.
      const check = await rawConnection(DB);
      try {
        await check.query("SET SESSION time_zone = '+05:30'");
        const [r] = (await check.query(
          'SELECT at_instant, UNIX_TIMESTAMP(at_instant) AS epoch FROM kinds WHERE id = 1',
        )) as unknown as [{ at_instant: string; epoch: string }[]];
        expect(r[0].at_instant).toBe('2024-01-02 08:34:05.678');
        expect(Number(r[0].epoch)).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 678) / 1000);
      } finally {
        await check.end();
      }
      await pool.run(
        dialect.compileDelete({
          scope: ALL_ROWS,
          table: table('kinds'),
          where: { kind: 'compare', column: 'id', op: 'eq', value: 50 },
        }),
      );
    });
  });

  describe('contains / startsWith / endsWith: literal text, case ignored, accents kept, on every collation', () => {
    const cases: [mode: 'contains' | 'startsWith' | 'endsWith', value: string, ids: number[]][] = [
      ['contains', 'café', [1]],
      ['contains', 'CAFE', [2, 3]],
      ['startsWith', 'caf', [1, 2, 3]],
      ['endsWith', 'LAIT', [1]],
      ['endsWith', 'noir', [2]],
      ['contains', '%', [4]],
      ['contains', '50%', [4]],
      ['startsWith', '50%', [4]],
      ['contains', '_', [6]],
      ['contains', 'a_b', [6]],
      ['contains', '\\', [8]],
      ['contains', 'k\\s', [8]],
      ['endsWith', '\\slash', [8]],
      ['contains', '|', [10, 15]],
      ['contains', 'e|b', [10]],
      ['contains', '||', [15]],
      ['startsWith', '[', [12]],
      ['endsWith', ']', [12]],
      ['contains', '[brackets]', [12]],
      ['contains', 'éc', [13]],
      ['contains', 'ÉC', [13]],
      ['startsWith', 'e', [14]],
      ['startsWith', 'É', [13]],
      ['endsWith', 'OLE', [13, 14]],
      ['contains', '', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]],
    ];
    const match = async (
      p: { run(q: CompiledQuery): Promise<{ rows: Record<string, unknown>[] }> },
      columnName: string,
      mode: 'contains' | 'startsWith' | 'endsWith',
      value: string,
    ) =>
      (
        await p.run(
          dialect.compileSelect({
            scope: ALL_ROWS,
            table: table('texts'),
            columns: ['id'],
            where: { kind: 'like', column: columnName, mode, value },
            order: [{ column: 'id', direction: 'ASC' }],
            take: null,
            skip: 0,
          }),
        )
      ).rows.map((r) => r.id);

    for (const columnName of ['bin_col', 'ci_col', 'ai_col', 'latin_col']) {
      it.each(cases)(`${columnName}: %s %j → %j`, async (mode, value, ids) => {
        expect(await match(pool, columnName, mode, value)).toEqual(ids);
      });
    }

    it('the compiled SQL means the same with NO_BACKSLASH_ESCAPES and ANSI_QUOTES on', async () => {
      const raw = await rawConnection(DB);
      try {
        await raw.query("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES'");
        const viaRaw = {
          run: async (q: CompiledQuery) => ({
            rows: (
              (await raw.execute(q.sql, q.params.map(toMysqlParameter) as never[])) as unknown as [
                Record<string, unknown>[],
              ]
            )[0],
          }),
        };
        for (const [mode, value, ids] of cases) {
          expect([mode, value, await match(viaRaw, 'bin_col', mode, value)]).toEqual([
            mode,
            value,
            ids,
          ]);
        }
      } finally {
        await raw.end();
      }
    });
  });

  describe('refusals: real errors translated (MySQL server error reference)', () => {
    function context(name: string, operation: WriteContext['operation']): WriteContext {
      return { table: table(name), columns: columns(name), operation };
    }

    /** Runs a statement through the pool that must fail, and translates what it threw. */
    async function refusal(query: CompiledQuery, ctx: WriteContext) {
      let caught: unknown;
      try {
        await pool.run(query);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(Error);
      const error = caught as Error & { errno: number; sqlMessage: string };
      const result = translateMysqlError(error, ctx);
      expect(dialect.translateError(error, ctx)).toEqual(result);
      // Wrapped (as an ORM would), it translates the same.
      expect(translateMysqlError({ message: 'wrapped', driverError: error }, ctx)).toEqual(result);
      return { error, result };
    }

    const SQL_KEYWORDS =
      /\b(SELECT|INSERT|UPDATE|DELETE|INTO|VALUES|WHERE|FROM|SET|KEY|CONSTRAINT|REFERENCES|UNIQUE|NULL|TABLE|FOREIGN|PRIMARY)\b/;
    const DRIVER_WORDS =
      /\b(key|constraint|duplicate|entry|foreign|fails|null|default|data|child|parent|primary|references|field|column)\b/i;
    const NAMES = [
      'customers_code_uq',
      'customers_age_ck',
      'orders_customer_fk',
      'line_items_membership_fk',
      'employees_manager_fk',
      'PRIMARY',
      DB,
    ];

    function expectPlain(
      result: DatabaseRefusal | null,
      error: { sqlMessage: string },
      values: string[],
    ) {
      expect(result).not.toBeNull();
      const message = result!.message;
      expect(message).not.toMatch(SQL_KEYWORDS);
      expect(message).not.toMatch(DRIVER_WORDS);
      for (const name of NAMES) expect(message).not.toContain(name);
      for (const value of values) expect(message).not.toContain(value);
      expect(message).not.toContain(error.sqlMessage);
      expect(message).not.toMatch(/[`'()]/);
    }

    const insert = (name: string, values: Record<string, unknown>) =>
      dialect.compileInsert({
        table: table(name),
        values: Object.entries(values).map(([column, value]) => ({ column, value })),
        returning: [],
      });
    const update = (name: string, set: Record<string, unknown>, id: unknown) =>
      dialect.compileUpdate({
        scope: ALL_ROWS,
        table: table(name),
        set: Object.entries(set).map(([column, value]) => ({ column, value })),
        where: { kind: 'compare', column: 'id', op: 'eq', value: id },
        returning: [],
      });
    const remove = (name: string, id: unknown) =>
      dialect.compileDelete({
        scope: ALL_ROWS,
        table: table(name),
        where: { kind: 'compare', column: 'id', op: 'eq', value: id },
      });

    describe('1062 ER_DUP_ENTRY → UNIQUE_VIOLATION', () => {
      it('names the column of a unique key named after it, on insert and update', async () => {
        const { error, result } = await refusal(
          insert('customers', { email: 'ann@example.com', name: 'Another' }),
          context('customers', 'insert'),
        );
        expect(error.errno).toBe(1062);
        expect(result).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: 'email',
          message: 'A row with this email already exists',
          value: 'ann@example.com', // the refused value, never shown: addMany names its row
        });
        expectPlain(result, error, ['ann@example.com', 'Another']);
        const again = await refusal(
          update('customers', { email: 'ann@example.com' }, 2),
          context('customers', 'update'),
        );
        expect(again.result).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: 'email',
          message: 'A row with this email already exists',
          value: 'ann@example.com', // the refused value, never shown: addMany names its row
        });
      });

      it('names no field for the primary key or an index named otherwise, and never the index name', async () => {
        const pk = await refusal(
          insert('customers', { id: 1, email: 'new@example.com', name: 'New' }),
          context('customers', 'insert'),
        );
        expect(pk.error.sqlMessage).toMatch(/PRIMARY/);
        expect(pk.result).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: null,
          message: 'A row with these values already exists',
        });
        expectPlain(pk.result, pk.error, ['new@example.com']);
        const named = await refusal(
          insert('customers', { email: 'n2@example.com', name: 'N2', code: 'A1' }),
          context('customers', 'insert'),
        );
        expect(named.error.sqlMessage).toMatch(/customers_code_uq/);
        expect(named.result).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: null,
          message: 'A row with these values already exists',
        });
        expectPlain(named.result, named.error, ['A1', 'n2@example.com']);
        const composite = await refusal(
          insert('memberships', { tenant_id: 7, slug: 'sales' }),
          context('memberships', 'insert'),
        );
        expect(composite.result).toEqual({
          code: 'UNIQUE_VIOLATION',
          field: null,
          message: 'A row with these values already exists',
        });
        expectPlain(composite.result, composite.error, ['sales', '7-sales']);
      });
    });

    describe('1452 / 1451 → FOREIGN_KEY_VIOLATION', () => {
      it('1452 insert: names the column whose value refers to no row', async () => {
        const { error, result } = await refusal(
          insert('orders', { customer_id: 99 }),
          context('orders', 'insert'),
        );
        expect(error.errno).toBe(1452);
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'customer_id',
          message: 'customer_id refers to a row that does not exist',
        });
        expectPlain(result, error, ['99']);
      });

      it('1452 update: the same', async () => {
        const { error, result } = await refusal(
          update('orders', { customer_id: 99 }, 1),
          context('orders', 'update'),
        );
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'customer_id',
          message: 'customer_id refers to a row that does not exist',
        });
        expectPlain(result, error, ['99']);
      });

      it('1452 with a composite key lists its columns', async () => {
        const { error, result } = await refusal(
          insert('line_items', { id: 1, tenant_id: 7, slug: 'nowhere' }),
          context('line_items', 'insert'),
        );
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'tenant_id',
          message: 'tenant_id and slug refer to a row that does not exist',
        });
        expectPlain(result, error, ['nowhere']);
      });

      it('1451 delete: the row has dependents; names the key and the referencing table', async () => {
        const { error, result } = await refusal(
          remove('customers', 1),
          context('customers', 'delete'),
        );
        expect(error.errno).toBe(1451);
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'id',
          message: 'This row cannot be deleted: rows in orders refer to it',
        });
        expectPlain(result, error, []);
      });

      it('1451 delete of a self-referenced row names the table itself', async () => {
        const { error, result } = await refusal(
          remove('employees', 1),
          context('employees', 'delete'),
        );
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'id',
          message: 'This row cannot be deleted: rows in employees refer to it',
        });
        expectPlain(result, error, []);
      });

      it('1451 update of a key other rows refer to: says the key cannot change', async () => {
        const { error, result } = await refusal(
          update('customers', { id: 1000 }, 1),
          context('customers', 'update'),
        );
        expect(result).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: 'id',
          message: 'id cannot be changed: rows in orders refer to this row',
        });
        expectPlain(result, error, ['1000']);
      });
    });

    describe('1048 / 1364 → NOT_NULL_VIOLATION', () => {
      it('1048: an explicit null, on insert and update', async () => {
        const { error, result } = await refusal(
          insert('customers', { email: 'nn@example.com', name: null }),
          context('customers', 'insert'),
        );
        expect(error.errno).toBe(1048);
        expect(result).toEqual({
          code: 'NOT_NULL_VIOLATION',
          field: 'name',
          message: 'name cannot be empty',
        });
        expectPlain(result, error, ['nn@example.com']);
        const upd = await refusal(
          update('customers', { name: null }, 2),
          context('customers', 'update'),
        );
        expect(upd.result).toEqual({
          code: 'NOT_NULL_VIOLATION',
          field: 'name',
          message: 'name cannot be empty',
        });
      });

      it("1364: a required column left out (strict mode: doesn't have a default value)", async () => {
        const { error, result } = await refusal(
          insert('customers', { email: 'nd@example.com' }),
          context('customers', 'insert'),
        );
        expect(error.errno).toBe(1364);
        expect(result).toEqual({
          code: 'NOT_NULL_VIOLATION',
          field: 'name',
          message: 'name cannot be empty',
        });
        expectPlain(result, error, ['nd@example.com']);
      });
    });

    describe('1406 ER_DATA_TOO_LONG → VALUE_TOO_LONG (refused, never truncated)', () => {
      it('names the column and its limit, even when another column has the same length', async () => {
        const { error, result } = await refusal(
          insert('customers', { email: 'tl@example.com', name: 'TL', label: 'ABCDEFGHIJK' }),
          context('customers', 'insert'),
        );
        expect(error.errno).toBe(1406);
        expect(result).toEqual({
          code: 'VALUE_TOO_LONG',
          field: 'label',
          message: 'label is too long: at most 10 characters',
        });
        expectPlain(result, error, ['ABCDEFGHIJK', 'tl@example.com']);
        const upd = await refusal(
          update('customers', { note: 'x'.repeat(21) }, 2),
          context('customers', 'update'),
        );
        expect(upd.result).toEqual({
          code: 'VALUE_TOO_LONG',
          field: 'note',
          message: 'note is too long: at most 20 characters',
        });
        const [rows] = (await admin.query(
          `SELECT note FROM \`${DB}\`.customers WHERE id = 2`,
        )) as unknown as [{ note: string | null }[]];
        expect(rows[0].note).toBeNull();
      });

      it('counts characters, not bytes', async () => {
        const ok = await pool.run(update('customers', { label: 'ÉÉÉÉÉÉÉÉÉ😀' }, 2));
        expect(ok.affected).toBe(1);
        const { result } = await refusal(
          update('customers', { label: 'ÉÉÉÉÉÉÉÉÉ😀x' }, 2),
          context('customers', 'update'),
        );
        expect(result?.code).toBe('VALUE_TOO_LONG');
      });
    });

    describe('anything else → null', () => {
      it('a check constraint, a syntax error, an unknown table', async () => {
        const check = await refusal(
          insert('customers', { email: 'ck@example.com', name: 'Ck', age: -1 }),
          context('customers', 'insert'),
        );
        expect([3819, 4025]).toContain(check.error.errno);
        // Issue 11, item 2: a CHECK is INVALID_VALUE (MariaDB names a column's own constraint
        // `<table>.<column>`; MySQL's default `customers_chk_1` names none).
        expect(check.result?.code).toBe('INVALID_VALUE');
        expect([null, 'age']).toContain(check.result?.field);
        expect(
          (
            await refusal(
              { sql: 'INSERT INTO customers VALUES (', params: [] },
              context('customers', 'insert'),
            )
          ).result,
        ).toBeNull();
        expect(
          (
            await refusal(
              { sql: 'DELETE FROM nowhere', params: [] },
              context('customers', 'delete'),
            )
          ).result,
        ).toBeNull();
      });

      it('values that are not database errors', () => {
        const ctx = context('customers', 'insert');
        for (const value of [
          null,
          undefined,
          'Duplicate entry',
          1062,
          new Error('boom'),
          { code: 'ECONNREFUSED' },
          { code: '23505' },
          { errno: 9999 },
        ]) {
          expect(translateMysqlError(value, ctx)).toBeNull();
        }
      });
    });
  });
});
