import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { SERVICE_URLS, describeWith } from '../../../test/support/services';
import { ErrorCode } from '../../common/domain-error';
import { StatementRefusal } from '../datasources.errors';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';
import {
  type ColumnKind,
  type Dialect,
  type ModelColumn,
  type PoolOptions,
  type SqlPool,
  type StatementDescription,
} from './dialect';
import { bindNamedValues, parseNamedStatement } from './sql-statement';

/**
 * SQL APIs' statement port on the real databases (issue 26): `SqlPool.readOnly` refuses writes
 * and commits nothing, `Dialect.describeStatement` types a report with a join, an aggregate and a
 * window function, dates with and without zone and expressions, nullable and NOT NULL columns,
 * and refuses an unknown table; `compileStatementSelect` filters, orders and pages around it.
 * Each run has a database (or file) of its own.
 */

const LIMITS: PoolOptions = { poolSize: 2, statementTimeoutMs: 5_000, acquireTimeoutMs: 2_000 };
const tag = `tg_stmt_${randomBytes(4).toString('hex')}`;

/** The refusal a promise rejects with, or a failure when it resolves or rejects otherwise. */
async function refusalOf(promise: Promise<unknown>): Promise<StatementRefusal> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StatementRefusal) return error;
    throw error;
  }
  throw new Error('resolved');
}

/** Describes `text` on `dialect`'s pool, parsed for its type. */
function describe_(dialect: Dialect, pool: SqlPool, text: string): Promise<StatementDescription> {
  return dialect.describeStatement(pool, parseNamedStatement(text, dialect.type));
}

/** The columns of a description as `[name, kind, nullable]`. */
const shape = (d: StatementDescription) =>
  d.columns.map((c) => [c.name, c.kind, c.nullable] as [string, ColumnKind | null, boolean | null]);

/** A confirmed result column, as the SQL API keeps it. */
const column = (name: string, kind: ColumnKind, nullable = true): ModelColumn => ({
  name,
  dbType: kind,
  kind,
  nullable,
  hasDefault: false,
  generated: false,
  maxLength: null,
});

/** The report every database describes: a join, an aggregate and a window function. */
const REPORT = `SELECT c.name, c.region, count(o.id) AS orders, sum(o.amount) AS total,
  rank() OVER (ORDER BY sum(o.amount) DESC) AS place
FROM customers c JOIN orders o ON o.customer_id = c.id
WHERE o.amount >= :least -- a comment (a colon here: is text)
GROUP BY c.id, c.name, c.region`;

const SEED = [
  "INSERT INTO customers (id, name, region) VALUES (1, 'Ana', 'north'), (2, 'Bo', NULL), (3, 'Cy', 'south')",
  "INSERT INTO orders (id, customer_id, placed_at, amount) VALUES (1, 1, '2026-01-02 03:04:05', 10.50), (2, 1, '2026-01-03 00:00:00', 5.25), (3, 2, '2026-02-01 12:00:00', 40.00), (4, 3, '2026-03-01 08:00:00', 1.00)",
];

/** The compiled report around its statement: orders ≥ 1, by total descending, 2 rows. */
async function pagedReport(dialect: Dialect, pool: SqlPool): Promise<Record<string, unknown>[]> {
  const statement = parseNamedStatement(REPORT, dialect.type);
  const query = dialect.compileStatementSelect({
    statement,
    params: bindNamedValues(statement, { least: 2 }),
    columns: [column('name', 'text', false), column('total', 'decimal')],
    where: { kind: 'compare', column: 'orders', op: 'gte', value: 1 },
    order: [{ column: 'total', direction: 'DESC' }],
    take: 2,
    skip: 0,
  });
  const { rows } = await pool.readOnly((run) => run(query));
  return rows.map((r) => ({ name: r.name, total: Number(r.total) }));
}

describeWith('postgres')('SQL API statements on PostgreSQL', () => {
  const dialect = new PostgresDialect();
  let admin: Client;
  let db: Client;
  let pool: SqlPool;
  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

  beforeAll(async () => {
    admin = new Client({ connectionString: SERVICE_URLS.postgres });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${tag}`);
    const url = SERVICE_URLS.postgres.replace(/\/[^/]*$/, `/${tag}`);
    db = new Client({ connectionString: url });
    await db.connect();
    await db.query(`CREATE TABLE customers (id int PRIMARY KEY, name varchar(100) NOT NULL, region text);
      CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers,
        placed_at timestamp NOT NULL, placed_tz timestamptz, amount numeric(10,2) NOT NULL);
      CREATE TABLE audit (id serial PRIMARY KEY, note text);
      CREATE TYPE mood AS ENUM ('sad', 'happy');
      CREATE TABLE moods (id int PRIMARY KEY, mood mood NOT NULL);
      CREATE FUNCTION audit_write(x int) RETURNS int LANGUAGE sql VOLATILE AS
        $$ INSERT INTO audit (note) VALUES ('written'); SELECT x $$;`);
    for (const sql of SEED) await db.query(sql);
    pool = await dialect.open(url, LIMITS);
  });

  afterAll(async () => {
    await pool?.close();
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${tag} WITH (FORCE)`);
    await admin?.end();
  });

  it('describes a report with a join, an aggregate and a window function', async () => {
    const d = await describe_(dialect, pool, REPORT);
    expect(d.parameters).toEqual([{ name: 'least', databaseType: 'numeric', kind: 'decimal' }]);
    expect(shape(d)).toEqual([
      ['name', 'text', false],
      ['region', 'text', true],
      ['orders', 'bigint', null],
      ['total', 'decimal', null],
      ['place', 'bigint', null],
    ]);
    expect(d.columns[0].databaseType).toBe('character varying');
  });

  it('tells timestamp from timestamptz, for columns and expressions', async () => {
    const d = await describe_(
      dialect,
      pool,
      "SELECT placed_at, placed_tz, now() AS at_now, date_trunc('day', placed_at) AS day, date_trunc('day', placed_tz) AS day_tz, placed_at::date AS on_date FROM orders WHERE placed_tz > :after",
    );
    expect(shape(d)).toEqual([
      ['placed_at', 'timestamp', false],
      ['placed_tz', 'timestamptz', true],
      ['at_now', 'timestamptz', null],
      ['day', 'timestamp', null],
      ['day_tz', 'timestamptz', null],
      ['on_date', 'date', null],
    ]);
    expect(d.parameters).toEqual([
      { name: 'after', databaseType: 'timestamp with time zone', kind: 'timestamptz' },
    ]);
  });

  it('reports NOT NULL as unknown under an outer join, and types enum columns and parameters as text', async () => {
    const d = await describe_(
      dialect,
      pool,
      'SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id',
    );
    expect(shape(d)).toEqual([
      ['name', 'text', null],
      ['id', 'int', null],
    ]);
    const m = await describe_(dialect, pool, 'SELECT id, mood FROM moods WHERE mood = :m');
    expect(shape(m)).toEqual([
      ['id', 'int', false],
      ['mood', 'text', false],
    ]);
    expect(m.parameters).toEqual([{ name: 'm', databaseType: 'mood', kind: 'text' }]);
  });

  it('refuses an unknown table and a syntax error with the database’s words, no SQL', async () => {
    const unknown = await refusalOf(describe_(dialect, pool, 'SELECT * FROM nope WHERE a = :a'));
    expect(unknown.reason).toBe('INVALID_STATEMENT');
    expect(unknown.message).toBe(
      'The database refused the statement: relation "nope" does not exist',
    );
    const syntax = await refusalOf(describe_(dialect, pool, 'SELECT id FORM orders'));
    expect(syntax.message).toMatch(/syntax error/);
    // The pool is still usable: the describing connection was rolled back and deallocated.
    expect((await describe_(dialect, pool, 'SELECT 1 AS one')).columns).toHaveLength(1);
  });

  it('describes writes (RETURNING, none, a data-modifying WITH) without committing them', async () => {
    const before = [await count('customers'), await count('orders')];
    const insert = await describe_(
      dialect,
      pool,
      'INSERT INTO customers (id, name) VALUES (:id, :name) RETURNING id, name, region',
    );
    expect(insert.parameters.map((p) => [p.name, p.kind])).toEqual([
      ['id', 'int'],
      ['name', 'text'],
    ]);
    expect(shape(insert)).toEqual([
      ['id', 'int', false],
      ['name', 'text', false],
      ['region', 'text', true],
    ]);
    expect((await describe_(dialect, pool, 'DELETE FROM orders WHERE id = :id')).columns).toEqual(
      [],
    );
    const fed = await describe_(
      dialect,
      pool,
      "WITH src AS (SELECT 9 AS id, 'Zed' AS name) INSERT INTO customers (id, name) SELECT id, name FROM src",
    );
    expect(fed.columns).toEqual([]);
    const cte = await describe_(
      dialect,
      pool,
      'WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) AS n FROM gone',
    );
    expect(shape(cte)).toEqual([['n', 'bigint', null]]);
    expect([await count('customers'), await count('orders')]).toEqual(before);
  });

  it('readOnly refuses an INSERT and a function that writes from a SELECT, committing nothing', async () => {
    const insert = await refusalOf(
      pool.readOnly((run) => run({ sql: "INSERT INTO audit (note) VALUES ('x')", params: [] })),
    );
    expect(insert.reason).toBe('READ_ONLY');
    expect(insert.message).not.toMatch(/INSERT|audit/);
    const fn = await refusalOf(
      pool.readOnly((run) => run({ sql: 'SELECT audit_write($1) AS x', params: [1] })),
    );
    expect(fn.reason).toBe('READ_ONLY');
    expect(await count('audit')).toBe(0);
    // A read answers, and whatever work returns is its answer.
    const rows = await pool.readOnly(
      async (run) => (await run({ sql: 'SELECT 2 AS two', params: [] })).rows,
    );
    expect(rows).toEqual([{ two: 2 }]);
  });

  it('readOnly cancels on the signal and rolls back', async () => {
    const abort = new AbortController();
    const call = pool.readOnly((run) =>
      run({ sql: 'SELECT pg_sleep(3)', params: [] }, { signal: abort.signal }),
    );
    setTimeout(() => abort.abort(new Error('caller left')), 100);
    await expect(call).rejects.toThrow('caller left');
    expect((await pool.run({ sql: 'SELECT 1 AS one', params: [] })).rows).toEqual([{ one: 1 }]);
  });

  it('readOnly keeps the statement deadline (TIMEOUT), and the connection serves writes after', async () => {
    const url = SERVICE_URLS.postgres.replace(/\/[^/]*$/, `/${tag}`);
    const quick = await dialect.open(url, { ...LIMITS, poolSize: 1, statementTimeoutMs: 200 });
    try {
      const code = await quick
        .readOnly((run) => run({ sql: 'SELECT pg_sleep(2)', params: [] }))
        .then(
          () => 'resolved',
          (e: unknown) => (e as { code?: string }).code,
        );
      expect(code).toBe(ErrorCode.Timeout);
      // The one connection was rolled back, not left read-only: a write commits.
      await quick.run({ sql: "INSERT INTO audit (note) VALUES ('after timeout')", params: [] });
      expect(await count('audit')).toBe(1);
      await db.query('DELETE FROM audit');
    } finally {
      await quick.close();
    }
  });

  it('filters, orders and pages around the statement', async () => {
    expect(await pagedReport(dialect, pool)).toEqual([
      { name: 'Bo', total: 40 },
      { name: 'Ana', total: 15.75 },
    ]);
  });
});

describeWith('mysql')('SQL API statements on MariaDB/MySQL', () => {
  const dialect = new MysqlDialect();
  let admin: mysql.Connection;
  let pool: SqlPool;
  const count = async (table: string) => {
    const [rows] = await admin.query(`SELECT count(*) AS n FROM ${tag}.${table}`);
    return Number((rows as { n: number }[])[0].n);
  };

  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: SERVICE_URLS.mysql, multipleStatements: true });
    await admin.query(`CREATE DATABASE ${tag}`);
    await admin.query(`USE ${tag};
      CREATE TABLE customers (id int PRIMARY KEY, name varchar(100) NOT NULL, region varchar(20));
      CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, placed_at datetime NOT NULL,
        placed_tz timestamp NULL, amount decimal(10,2) NOT NULL);
      CREATE TABLE audit (id int AUTO_INCREMENT PRIMARY KEY, note text);
      CREATE FUNCTION audit_write(x int) RETURNS int MODIFIES SQL DATA
        BEGIN INSERT INTO audit (note) VALUES ('written'); RETURN x; END;`);
    for (const sql of SEED) await admin.query(sql);
    pool = await dialect.open(SERVICE_URLS.mysql.replace(/\/[^/]*$/, `/${tag}`), LIMITS);
  });

  afterAll(async () => {
    await pool?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${tag}`);
    await admin?.end();
  });

  it('describes a report with a join, an aggregate and a window function', async () => {
    const d = await describe_(dialect, pool, REPORT);
    expect(d.parameters).toEqual([{ name: 'least', databaseType: null, kind: null }]);
    expect(shape(d).map(([name, kind, nullable]) => [name, kind, nullable])).toEqual([
      ['name', 'text', false],
      ['region', 'text', true],
      ['orders', 'bigint', false],
      ['total', 'decimal', null],
      ['place', 'bigint', false],
    ]);
  });

  it('tells DATETIME (timestamp) from TIMESTAMP (timestamptz), and types expressions', async () => {
    const d = await describe_(
      dialect,
      pool,
      'SELECT placed_at, placed_tz, NOW() AS at_now, DATE(placed_at) AS on_date FROM orders WHERE placed_at > :after',
    );
    expect(shape(d)).toEqual([
      ['placed_at', 'timestamp', false],
      ['placed_tz', 'timestamptz', true],
      ['at_now', 'timestamp', false],
      ['on_date', 'date', null],
    ]);
  });

  it('reports NOT NULL as unknown under an outer join', async () => {
    const d = await describe_(
      dialect,
      pool,
      'SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id',
    );
    expect(shape(d)).toEqual([
      ['name', 'text', null],
      ['id', 'int', null],
    ]);
  });

  it('refuses an unknown table and a syntax error with the server’s words, no SQL', async () => {
    const unknown = await refusalOf(describe_(dialect, pool, 'SELECT * FROM nope WHERE a = :a'));
    expect(unknown.reason).toBe('INVALID_STATEMENT');
    expect(unknown.message).toMatch(/nope' doesn't exist/);
    const syntax = await refusalOf(
      describe_(dialect, pool, 'SELECT id FORM orders WHERE id = :secret_text'),
    );
    expect(syntax.message).toMatch(/SQL syntax.* at line 1$/);
    expect(syntax.message).not.toMatch(/FORM|secret/);
  });

  it('describes writes without committing them', async () => {
    const before = await count('customers');
    const insert = await describe_(
      dialect,
      pool,
      'INSERT INTO customers (id, name) VALUES (:id, :name)',
    );
    expect(insert.parameters.map((p) => p.name)).toEqual(['id', 'name']);
    expect(insert.columns).toEqual([]);
    // MariaDB describes a write's RETURNING columns only by executing it: a clear refusal.
    const returning = await refusalOf(
      describe_(dialect, pool, 'DELETE FROM customers WHERE id = :id RETURNING id, name'),
    );
    expect(returning.message).toMatch(/RETURNING/);
    expect(await count('customers')).toBe(before);
  });

  it('answers a SELECT of a writing function refused while describing as READ_ONLY, as a call does', async () => {
    // MariaDB refuses to prepare it inside the read-only transaction (error 1792): the same
    // answer, naming the mutation kind, not the database's words as INVALID_STATEMENT.
    // (A server that prepares it describes it: the call is then refused, as the e2e suite shows.)
    const refused = await describe_(dialect, pool, 'SELECT audit_write(:x) AS x').then(
      () => null,
      (error: unknown) => error,
    );
    if (refused !== null) {
      expect(refused).toBeInstanceOf(StatementRefusal);
      expect((refused as StatementRefusal).reason).toBe('READ_ONLY');
      expect((refused as StatementRefusal).message).toMatch(
        /^The statement tried to write.*mutation-kind SQL API/,
      );
    }
    expect(await count('audit')).toBe(0);
  });

  it('runs a statement on the connection that described it (the prepared one left its cache)', async () => {
    const single = await dialect.open(SERVICE_URLS.mysql.replace(/\/[^/]*$/, `/${tag}`), {
      ...LIMITS,
      poolSize: 1,
    });
    try {
      const statement = parseNamedStatement('SELECT name FROM customers WHERE id = :id', 'mysql');
      for (let i = 0; i < 2; i++) {
        await dialect.describeStatement(single, statement);
        const { rows } = await single.run({ sql: statement.sql, params: [1] });
        expect(rows).toEqual([{ name: 'Ana' }]);
      }
    } finally {
      await single.close();
    }
  });

  it('readOnly refuses an INSERT and a function that writes from a SELECT, committing nothing', async () => {
    const insert = await refusalOf(
      pool.readOnly((run) => run({ sql: "INSERT INTO audit (note) VALUES ('x')", params: [] })),
    );
    expect(insert.reason).toBe('READ_ONLY');
    const fn = await refusalOf(
      pool.readOnly((run) => run({ sql: 'SELECT audit_write(?) AS x', params: [1] })),
    );
    expect(fn.reason).toBe('READ_ONLY');
    expect(await count('audit')).toBe(0);
    // The connection went back usable: a write outside readOnly commits.
    await pool.run({ sql: "INSERT INTO audit (note) VALUES ('after')", params: [] });
    expect(await count('audit')).toBe(1);
  });

  it('filters, orders and pages around the statement', async () => {
    expect(await pagedReport(dialect, pool)).toEqual([
      { name: 'Bo', total: 40 },
      { name: 'Ana', total: 15.75 },
    ]);
  });
});

describe('SQL API statements on SQLite', () => {
  const dialect = new SqliteDialect();
  let dir: string;
  let file: string;
  let pool: SqlPool;
  const count = (table: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `${tag}-`));
    file = join(dir, 'stmt.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, region TEXT);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, placed_at DATETIME NOT NULL,
        placed_tz TEXT, amount DECIMAL(10,2) NOT NULL);
      CREATE TABLE audit (id INTEGER PRIMARY KEY, note TEXT);`);
    for (const sql of SEED) db.exec(sql);
    db.close();
    pool = await dialect.open(`sqlite:${file}`, LIMITS);
  });

  afterAll(async () => {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('describes a report: declared types for columns, nothing for expressions', async () => {
    const d = await describe_(dialect, pool, REPORT);
    expect(d.parameters).toEqual([{ name: 'least', databaseType: null, kind: null }]);
    expect(shape(d)).toEqual([
      ['name', 'text', false],
      ['region', 'text', true],
      ['orders', null, null],
      ['total', null, null],
      ['place', null, null],
    ]);
    expect(d.columns[0].databaseType).toBe('VARCHAR(100)');
    const dates = await describe_(
      dialect,
      pool,
      "SELECT placed_at, strftime('%Y-%m-%d', placed_at) AS day, datetime('now') AS at_now FROM orders",
    );
    expect(shape(dates)).toEqual([
      ['placed_at', 'timestamp', false],
      ['day', null, null],
      ['at_now', null, null],
    ]);
  });

  it('reports NOT NULL as unknown under an outer join', async () => {
    const d = await describe_(
      dialect,
      pool,
      'SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id',
    );
    expect(shape(d)).toEqual([
      ['name', 'text', null],
      ['id', 'int', null],
    ]);
  });

  it('refuses an unknown table with SQLite’s words', async () => {
    const unknown = await refusalOf(describe_(dialect, pool, 'SELECT * FROM nope WHERE a = :a'));
    expect(unknown.reason).toBe('INVALID_STATEMENT');
    expect(unknown.message).toBe('The database refused the statement: no such table: nope');
  });

  it('describes a write without running it', async () => {
    const returning = await describe_(
      dialect,
      pool,
      'INSERT INTO audit (note) VALUES (:note) RETURNING id, note',
    );
    // `id INTEGER PRIMARY KEY` (the rowid) declares no NOT NULL: nullable, as table_xinfo says.
    expect(shape(returning)).toEqual([
      ['id', 'int', true],
      ['note', 'text', true],
    ]);
    expect((await describe_(dialect, pool, 'DELETE FROM audit WHERE id = :id')).columns).toEqual(
      [],
    );
    expect(count('audit')).toBe(0);
  });

  it('readOnly refuses a write, commits nothing, and leaves every worker connection writable', async () => {
    for (let i = 0; i < 6; i++) {
      const refusal = await refusalOf(
        pool.readOnly((run) => run({ sql: "INSERT INTO audit (note) VALUES ('x')", params: [] })),
      );
      expect(refusal.reason).toBe('READ_ONLY');
    }
    expect(count('audit')).toBe(0);
    // The same worker threads run ordinary statements: query_only was set back OFF.
    for (let i = 0; i < 6; i++) {
      await pool.run({ sql: 'INSERT INTO audit (note) VALUES (?)', params: [`n${i}`] });
    }
    expect(count('audit')).toBe(6);
    const rows = await pool.readOnly(
      async (run) => (await run({ sql: 'SELECT count(*) AS n FROM audit', params: [] })).rows,
    );
    expect(rows).toEqual([{ n: 6n }]);
  });

  it('filters, orders and pages around the statement', async () => {
    expect(await pagedReport(dialect, pool)).toEqual([
      { name: 'Bo', total: 40 },
      { name: 'Ana', total: 15.75 },
    ]);
  });

  it('readOnly stops a statement at its deadline (TIMEOUT) or on the signal, and writes work after', async () => {
    const quick = await dialect.open(`sqlite:${file}`, { ...LIMITS, statementTimeoutMs: 200 });
    // A read that runs for about a second (a million recursive rows): its worker thread is
    // ended, with its connection (the native step still runs to its end: ADR 0005).
    const slow =
      'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT count(*) AS c FROM n';
    try {
      const code = await quick
        .readOnly((run) => run({ sql: slow, params: [] }))
        .then(
          () => 'resolved',
          (e: unknown) => (e as { code?: string }).code,
        );
      expect(code).toBe(ErrorCode.Timeout);
      const abort = new AbortController();
      const call = pool.readOnly((run) => run({ sql: slow, params: [] }, { signal: abort.signal }));
      setTimeout(() => abort.abort(new Error('caller left')), 100);
      await expect(call).rejects.toThrow('caller left');
      const before = count('audit');
      // (On the pool with the longer deadline: a new worker thread takes time to start.)
      for (let i = 0; i < 4; i++) {
        await pool.run({ sql: 'INSERT INTO audit (note) VALUES (?)', params: ['after'] });
      }
      expect(count('audit')).toBe(before + 4);
    } finally {
      await quick.close();
    }
  });
});
