import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, QueryFailedError } from 'typeorm';
import type { DatabaseRefusal, ModelColumn, WriteContext } from '../core/dialect';
import { translateSqliteError } from './errors';
import { SqliteDialect } from './dialect';

/**
 * CONTRACT.md §6 "Database refusals" on SQLite: every error here is a real one, raised by
 * better-sqlite3 and wrapped by TypeORM exactly as in production (a DataSource from SqliteDialect).
 */

function col(name: string): ModelColumn {
  return {
    name,
    dbType: 'TEXT',
    kind: 'text',
    nullable: true,
    hasDefault: false,
    generated: false,
    maxLength: null,
    enum: null,
  };
}

const COLUMNS: Record<string, ModelColumn[]> = {
  customers: [col('id'), col('email'), col('name'), col('nickname'), col('age')],
  memberships: [col('tenant_id'), col('slug')],
  tags: [col('code')],
  orders: [col('id'), col('customer_id')],
};

function context(table: string, operation: WriteContext['operation']): WriteContext {
  return { table: { schema: null, name: table }, columns: COLUMNS[table], operation };
}

/** SQL keywords as statements spell them, and the words of SQLite's own messages. */
const SQL_KEYWORDS =
  /\b(SELECT|INSERT|UPDATE|DELETE|INTO|VALUES|WHERE|FROM|SET|KEY|CONSTRAINT|REFERENCES|UNIQUE|NULL|INDEX|PRIMARY)\b/;
const DRIVER_WORDS = /\b(key|constraint|failed|index|null|sqlite\w*)\b/i;

describe('translateSqliteError (real SQLite errors through TypeORM)', () => {
  let dir: string;
  let ds: DataSource;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-sqlite-errors-'));
    const file = join(dir, 'refusals.db');
    // SqliteDialect opens existing files only.
    const raw = new Database(file);
    raw.exec(`
      CREATE TABLE customers (
        id INTEGER PRIMARY KEY,
        email varchar(100) NOT NULL UNIQUE,
        name TEXT NOT NULL,
        nickname TEXT,
        age INTEGER CONSTRAINT customers_age_check CHECK (age >= 0)
      );
      CREATE UNIQUE INDEX customers_nickname_ci ON customers (lower(nickname));
      CREATE TABLE memberships (tenant_id INTEGER, slug TEXT, PRIMARY KEY (tenant_id, slug));
      CREATE TABLE tags (code TEXT PRIMARY KEY);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL CONSTRAINT orders_customer_fk REFERENCES customers (id));
      INSERT INTO customers (id, email, name, nickname) VALUES (1, 'ann@example.com', 'Ann', 'Annie'), (2, 'bob@example.com', 'Bob', NULL);
      INSERT INTO memberships VALUES (7, 'sales');
      INSERT INTO tags VALUES ('vip');
      INSERT INTO orders (id, customer_id) VALUES (1, 1);
    `);
    raw.close();
    ds = new DataSource(new SqliteDialect().connectionOptions('sqlite:' + file));
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a statement that must fail, and translates what TypeORM threw. */
  async function refusal(sql: string, params: unknown[], ctx: WriteContext) {
    let caught: unknown;
    try {
      await ds.query(sql, params);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QueryFailedError);
    const error = caught as QueryFailedError & { driverError: Error & { code: string } };
    const result = translateSqliteError(error, ctx);
    // The raw SqliteError (what TypeORM wraps) translates the same.
    expect(translateSqliteError(error.driverError, ctx)).toEqual(result);
    return { error, result };
  }

  /** The message is plain words: no SQL, no index or constraint name, no row value, nothing of the driver's text. */
  function expectPlain(
    result: DatabaseRefusal | null,
    error: QueryFailedError & { driverError: Error },
    values: string[],
  ) {
    expect(result).not.toBeNull();
    const message = result!.message;
    expect(message).not.toMatch(SQL_KEYWORDS);
    expect(message).not.toMatch(DRIVER_WORDS);
    for (const name of [
      'customers_nickname_ci',
      'customers_age_check',
      'orders_customer_fk',
      'sqlite_autoindex',
    ])
      expect(message).not.toContain(name);
    for (const value of values) expect(message).not.toContain(value);
    expect(message).not.toContain(error.driverError.message);
    expect(message).not.toContain('.');
  }

  describe('SQLITE_CONSTRAINT_UNIQUE / SQLITE_CONSTRAINT_PRIMARYKEY → UNIQUE_VIOLATION', () => {
    it('names the column from `UNIQUE constraint failed: customers.email`', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name) VALUES (?, ?)`,
        ['ann@example.com', 'Another'],
        context('customers', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
      expect(error.driverError.message).toBe('UNIQUE constraint failed: customers.email');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'email',
        message: 'A row with this email already exists',
      });
      expectPlain(result, error, ['ann@example.com', 'Another']);
    });

    it('on update too', async () => {
      const { error, result } = await refusal(
        `UPDATE customers SET email = ? WHERE id = ?`,
        ['ann@example.com', 2],
        context('customers', 'update'),
      );
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'email',
        message: 'A row with this email already exists',
      });
      expectPlain(result, error, ['ann@example.com']);
    });

    it('a duplicate rowid primary key', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (id, email, name) VALUES (?, ?, ?)`,
        [1, 'x@example.com', 'X'],
        context('customers', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'id',
        message: 'A row with this id already exists',
      });
      expectPlain(result, error, ['x@example.com']);
    });

    it('a duplicate text primary key', async () => {
      const { error, result } = await refusal(
        `INSERT INTO tags VALUES (?)`,
        ['vip'],
        context('tags', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'code',
        message: 'A row with this code already exists',
      });
      expectPlain(result, error, ['vip']);
    });

    it('a multi-column key: first column as field, all named in the message', async () => {
      const { error, result } = await refusal(
        `INSERT INTO memberships VALUES (?, ?)`,
        [7, 'sales'],
        context('memberships', 'insert'),
      );
      expect(error.driverError.message).toBe(
        'UNIQUE constraint failed: memberships.tenant_id, memberships.slug',
      );
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'tenant_id',
        message: 'A row with this tenant_id and slug already exists',
      });
      expectPlain(result, error, ['7', 'sales']);
    });

    it('an expression index: no field, and not its name', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, nickname) VALUES (?, ?, ?)`,
        ['n2@example.com', 'N2', 'ANNIE'],
        context('customers', 'insert'),
      );
      expect(error.driverError.message).toBe(
        "UNIQUE constraint failed: index 'customers_nickname_ci'",
      );
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: null,
        message: 'A row with these values already exists',
      });
      expectPlain(result, error, ['ANNIE', 'annie', 'nickname']);
    });
  });

  describe('SQLITE_CONSTRAINT_NOTNULL → NOT_NULL_VIOLATION', () => {
    it('names the column from `NOT NULL constraint failed: customers.name`', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name) VALUES (?, ?)`,
        ['nn@example.com', null],
        context('customers', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
      expect(result).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      });
      expectPlain(result, error, ['nn@example.com']);
    });

    it('on update too', async () => {
      const { error, result } = await refusal(
        `UPDATE customers SET name = ? WHERE id = ?`,
        [null, 2],
        context('customers', 'update'),
      );
      expect(result).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      });
      expectPlain(result, error, ['Bob', 'bob@example.com']);
    });
  });

  describe('SQLITE_CONSTRAINT_FOREIGNKEY → FOREIGN_KEY_VIOLATION (SQLite names no column)', () => {
    beforeAll(async () => {
      await ds.query('PRAGMA foreign_keys = ON');
      expect(await ds.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1n }]);
    });

    it('insert: the row refers to a row that does not exist', async () => {
      const { error, result } = await refusal(
        `INSERT INTO orders (customer_id) VALUES (?)`,
        [99],
        context('orders', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
      expect(error.driverError.message).toBe('FOREIGN KEY constraint failed');
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row refers to a row that does not exist',
      });
      expectPlain(result, error, ['99']);
    });

    it('delete: other rows refer to this one', async () => {
      const { error, result } = await refusal(
        `DELETE FROM customers WHERE id = ?`,
        [1],
        context('customers', 'delete'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row cannot be deleted: other rows refer to it',
      });
      expectPlain(result, error, ['1']);
    });

    it('update: either direction, in one sentence', async () => {
      const { error, result } = await refusal(
        `UPDATE orders SET customer_id = ? WHERE id = ?`,
        [99, 1],
        context('orders', 'update'),
      );
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row would refer to a row that does not exist, or other rows refer to it',
      });
      expectPlain(result, error, ['99']);
    });
  });

  describe('anything else → null (an internal error for the caller)', () => {
    it('a check constraint (SQLITE_CONSTRAINT_CHECK)', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, age) VALUES (?, ?, ?)`,
        ['ck@example.com', 'Ck', -1],
        context('customers', 'insert'),
      );
      expect(error.driverError.code).toBe('SQLITE_CONSTRAINT_CHECK');
      // Issue 11, item 2: a CHECK is INVALID_VALUE; `customers_age_check` spells the column.
      expect(result).toEqual({
        code: 'INVALID_VALUE',
        field: 'age',
        message: 'age cannot hold this value: it breaks a rule (CHECK constraint) of the table',
      });
    });

    it('a syntax error and an unknown table (SQLITE_ERROR)', async () => {
      expect(
        (await refusal(`INSERT INTO customers VALUES (`, [], context('customers', 'insert')))
          .result,
      ).toBeNull();
      expect(
        (await refusal(`DELETE FROM nowhere`, [], context('customers', 'delete'))).result,
      ).toBeNull();
    });

    it('values that are not database errors', () => {
      const ctx = context('customers', 'insert');
      for (const value of [
        null,
        undefined,
        'UNIQUE constraint failed: customers.email',
        19,
        new Error('boom'),
        { code: 'ECONNREFUSED' },
        { code: '23505' },
      ]) {
        expect(translateSqliteError(value, ctx)).toBeNull();
      }
    });
  });
});

describe('translateSqliteError: CHECK constraints → INVALID_VALUE (issue 11, item 2; recorded texts)', () => {
  const ctx: WriteContext = {
    table: { schema: null, name: 'bad' },
    columns: [col('id'), col('qty'), col('capped'), col('lo'), col('hi')],
    operation: 'insert',
  };
  const sqlite = (message: string) =>
    Object.assign(new Error(message), { code: 'SQLITE_CONSTRAINT_CHECK' });
  it.each([
    ['CHECK constraint failed: qty > 0', 'qty'],
    ['CHECK constraint failed: "qty">0', 'qty'],
    ['CHECK constraint failed: bad_capped_check', 'capped'],
    ['CHECK constraint failed: capped_limit', null],
    ['CHECK constraint failed: lo <= hi', null],
  ])('%s → field %s', (message, field) => {
    expect(translateSqliteError({ driverError: sqlite(message) }, ctx)?.field).toBe(field);
    expect(translateSqliteError({ driverError: sqlite(message) }, ctx)?.code).toBe('INVALID_VALUE');
  });
});

describe('translateSqliteError: a busy database file → TRANSACTION_CONFLICT (issue 24)', () => {
  it('SQLITE_BUSY and SQLITE_BUSY_SNAPSHOT, raw or under TypeORM, give TRANSACTION_CONFLICT with no field', () => {
    const ctx = context('customers', 'insert');
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']) {
      const raw = Object.assign(new Error('database is locked'), { name: 'SqliteError', code });
      const expected = {
        code: 'TRANSACTION_CONFLICT',
        field: null,
        message:
          'The request conflicted with a concurrent write and was rolled back; send it again',
      };
      expect(translateSqliteError(raw, ctx)).toEqual(expected);
      expect(translateSqliteError({ driverError: raw, code }, ctx)).toEqual(expected);
    }
  });
});
