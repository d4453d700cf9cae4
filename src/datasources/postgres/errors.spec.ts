import { DataSource, QueryFailedError } from 'typeorm';
import { createPgDatabase, PgDatabase } from '../../../test/support/postgres-fixture';
import { describeWith } from '../../../test/support/services';
import type { DatabaseRefusal, ModelColumn, WriteContext } from '../core/dialect';
import { translatePostgresError } from './errors';
import { PostgresDialect } from './dialect';

/**
 * CONTRACT.md §6 "Database refusals" on PostgreSQL: every error here is a real one, raised by the
 * server and wrapped by TypeORM exactly as in production (a DataSource from PostgresDialect).
 */

function col(name: string, maxLength: number | null = null): ModelColumn {
  return {
    name,
    dbType: maxLength ? `character varying(${maxLength})` : 'text',
    kind: 'text',
    nullable: true,
    hasDefault: false,
    generated: false,
    maxLength,
    enum: null,
  };
}

const COLUMNS: Record<string, ModelColumn[]> = {
  customers: [
    col('id'),
    col('email', 100),
    col('name'),
    col('code', 10),
    col('Display Name'),
    col('nickname'),
    col('age'),
  ],
  memberships: [col('tenant_id'), col('slug')],
  orders: [col('id'), col('customer_id')],
  employees: [col('id'), col('manager_id')],
  products: [col('id'), col('sku', 10), col('label', 10), col('note', 20)],
};

function context(table: string, operation: WriteContext['operation']): WriteContext {
  return { table: { schema: 'public', name: table }, columns: COLUMNS[table], operation };
}

/** SQL keywords as statements spell them, and the words of PostgreSQL's own messages. */
const SQL_KEYWORDS =
  /\b(SELECT|INSERT|UPDATE|DELETE|INTO|VALUES|WHERE|FROM|SET|KEY|CONSTRAINT|REFERENCES|UNIQUE|NULL|TABLE)\b/;
const DRIVER_WORDS =
  /\b(key|constraint|violates|duplicate|relation|null|varying|referenced|present|failing)\b/i;

describeWith('postgres')('translatePostgresError (real PostgreSQL errors through TypeORM)', () => {
  let db: PgDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createPgDatabase('tg_unit_pgerr');
    await db.exec(`
      CREATE TABLE customers (
        id serial PRIMARY KEY,
        email varchar(100) NOT NULL CONSTRAINT customers_email_key UNIQUE,
        name text NOT NULL,
        code varchar(10),
        "Display Name" text CONSTRAINT customers_display_name_key UNIQUE,
        nickname text,
        age int CONSTRAINT customers_age_check CHECK (age >= 0)
      );
      CREATE UNIQUE INDEX customers_nickname_ci ON customers (lower(nickname));
      CREATE TABLE memberships (tenant_id int, slug text, CONSTRAINT memberships_pkey PRIMARY KEY (tenant_id, slug));
      CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL CONSTRAINT orders_customer_fk REFERENCES customers (id));
      CREATE TABLE employees (id int PRIMARY KEY, manager_id int CONSTRAINT employees_manager_fk REFERENCES employees (id));
      CREATE TABLE products (id serial PRIMARY KEY, sku varchar(10), label varchar(10), note varchar(20));
      INSERT INTO customers (email, name, "Display Name", nickname) VALUES ('ann@example.com', 'Ann', 'Ann A.', 'Annie'), ('bob@example.com', 'Bob', NULL, NULL);
      INSERT INTO memberships VALUES (7, 'sales');
      INSERT INTO orders (customer_id) VALUES (1);
      INSERT INTO employees VALUES (1, NULL), (2, 1);
    `);
    ds = new DataSource(new PostgresDialect().connectionOptions(db.url));
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
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
    const error = caught as QueryFailedError & { driverError: Record<string, unknown> };
    const result = translatePostgresError(error, ctx);
    // The raw pg error (what TypeORM wraps) translates the same.
    expect(translatePostgresError(error.driverError, ctx)).toEqual(result);
    return { error, result };
  }

  /** The message is plain words: no SQL, no constraint name, no row value, nothing of the driver's text. */
  function expectPlain(
    result: DatabaseRefusal | null,
    error: QueryFailedError & { driverError: Record<string, unknown> },
    values: string[],
  ) {
    expect(result).not.toBeNull();
    const message = result!.message;
    expect(message).not.toMatch(SQL_KEYWORDS);
    expect(message).not.toMatch(DRIVER_WORDS);
    for (const name of [
      'customers_email_key',
      'customers_display_name_key',
      'customers_nickname_ci',
      'memberships_pkey',
      'orders_customer_fk',
      'employees_manager_fk',
    ]) {
      expect(message).not.toContain(name);
    }
    if (typeof error.driverError.constraint === 'string')
      expect(message).not.toContain(error.driverError.constraint);
    for (const value of values) expect(message).not.toContain(value);
    expect(message).not.toContain(String(error.driverError.message));
    if (typeof error.driverError.detail === 'string')
      expect(message).not.toContain(error.driverError.detail);
    expect(message).not.toContain('(');
  }

  describe('23505 unique_violation → UNIQUE_VIOLATION', () => {
    it('names the column from the detail on insert', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name) VALUES ($1, $2)`,
        ['ann@example.com', 'Another'],
        context('customers', 'insert'),
      );
      expect(error.driverError.detail).toBe('Key (email)=(ann@example.com) already exists.');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'email',
        message: 'A row with this email already exists',
        value: 'ann@example.com', // the refused value, never shown: addMany names its row
      });
      expectPlain(result, error, ['ann@example.com', 'Another']);
    });

    it('names the column on update too', async () => {
      const { error, result } = await refusal(
        `UPDATE customers SET email = $1 WHERE id = $2`,
        ['ann@example.com', 2],
        context('customers', 'update'),
      );
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'email',
        message: 'A row with this email already exists',
        value: 'ann@example.com', // the refused value, never shown: addMany names its row
      });
      expectPlain(result, error, ['ann@example.com']);
    });

    it('names the first column of a multi-column key and lists them all', async () => {
      const { error, result } = await refusal(
        `INSERT INTO memberships VALUES ($1, $2)`,
        [7, 'sales'],
        context('memberships', 'insert'),
      );
      expect(error.driverError.detail).toBe('Key (tenant_id, slug)=(7, sales) already exists.');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'tenant_id',
        message: 'A row with this tenant_id and slug already exists',
      });
      expectPlain(result, error, ['sales', '7']);
    });

    it('unquotes a column name the detail quotes', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, "Display Name") VALUES ($1, $2, $3)`,
        ['new@example.com', 'New', 'Ann A.'],
        context('customers', 'insert'),
      );
      expect(error.driverError.detail).toBe('Key ("Display Name")=(Ann A.) already exists.');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'Display Name',
        message: 'A row with this Display Name already exists',
        value: 'Ann A.', // the refused value, never shown: addMany names its row
      });
      expectPlain(result, error, ['Ann A.', 'new@example.com']);
    });

    it('names no field for an expression index, and shows none of its SQL', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, nickname) VALUES ($1, $2, $3)`,
        ['n2@example.com', 'N2', 'ANNIE'],
        context('customers', 'insert'),
      );
      expect(error.driverError.detail).toBe('Key (lower(nickname))=(annie) already exists.');
      expect(result).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: null,
        message: 'A row with these values already exists',
      });
      expectPlain(result, error, ['annie', 'ANNIE', 'lower', 'nickname']);
    });
  });

  describe('23503 foreign_key_violation → FOREIGN_KEY_VIOLATION', () => {
    it('insert: names the column whose value refers to no row', async () => {
      const { error, result } = await refusal(
        `INSERT INTO orders (customer_id) VALUES ($1)`,
        [99],
        context('orders', 'insert'),
      );
      expect(error.driverError.detail).toBe(
        'Key (customer_id)=(99) is not present in table "customers".',
      );
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'customer_id',
        message: 'customer_id refers to a row that does not exist',
        value: '99', // the refused value, never shown: addMany names its row
      });
      expectPlain(result, error, ['99']);
    });

    it('update: the same, when the new value refers to no row', async () => {
      const { error, result } = await refusal(
        `UPDATE orders SET customer_id = $1 WHERE id = $2`,
        [99, 1],
        context('orders', 'update'),
      );
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'customer_id',
        message: 'customer_id refers to a row that does not exist',
        value: '99', // the refused value, never shown: addMany names its row
      });
      expectPlain(result, error, ['99']);
    });

    it('delete: the row has dependents; names the key column and the referencing table', async () => {
      const { error, result } = await refusal(
        `DELETE FROM customers WHERE id = $1`,
        [1],
        context('customers', 'delete'),
      );
      expect(error.driverError.detail).toBe(
        'Key (id)=(1) is still referenced from table "orders".',
      );
      // Surprise worth pinning: the error's `table` is the referencing table, not the one deleted from.
      expect(error.driverError.table).toBe('orders');
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'id',
        message: 'This row cannot be deleted: rows in orders refer to it',
      });
      expectPlain(result, error, ['1']);
    });

    it('delete: a self-reference names the table itself', async () => {
      const { error, result } = await refusal(
        `DELETE FROM employees WHERE id = $1`,
        [1],
        context('employees', 'delete'),
      );
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'id',
        message: 'This row cannot be deleted: rows in employees refer to it',
      });
      expectPlain(result, error, ['1']);
    });

    it('update of a key other rows refer to: says the key cannot change', async () => {
      const { error, result } = await refusal(
        `UPDATE customers SET id = $1 WHERE id = $2`,
        [1000, 1],
        context('customers', 'update'),
      );
      expect(error.driverError.detail).toBe(
        'Key (id)=(1) is still referenced from table "orders".',
      );
      expect(result).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'id',
        message: 'id cannot be changed: rows in orders refer to this row',
      });
      expectPlain(result, error, ['1000']);
    });
  });

  describe('23502 not_null_violation → NOT_NULL_VIOLATION', () => {
    it('names the column the server names', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name) VALUES ($1, $2)`,
        ['nn@example.com', null],
        context('customers', 'insert'),
      );
      expect(error.driverError.column).toBe('name');
      expect(result).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      });
      // The server's detail is `Failing row contains (…)`: the whole row, which must not leak.
      expectPlain(result, error, ['nn@example.com']);
    });

    it('on update too', async () => {
      const { error, result } = await refusal(
        `UPDATE customers SET name = $1 WHERE id = $2`,
        [null, 2],
        context('customers', 'update'),
      );
      expect(result).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      });
      expectPlain(result, error, ['bob@example.com', 'Bob']);
    });
  });

  describe('22001 string_data_right_truncation → VALUE_TOO_LONG', () => {
    it('names the one column of that length', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, code) VALUES ($1, $2, $3)`,
        ['tl@example.com', 'TL', 'ABCDEFGHIJK'],
        context('customers', 'insert'),
      );
      expect(error.driverError.message).toBe('value too long for type character varying(10)');
      expect(error.driverError.column).toBeUndefined();
      expect(result).toEqual({
        code: 'VALUE_TOO_LONG',
        field: 'code',
        message: 'code is too long: at most 10 characters',
      });
      expectPlain(result, error, ['ABCDEFGHIJK', 'tl@example.com']);
    });

    it('names no field when several columns have that length, but still gives the limit', async () => {
      const { error, result } = await refusal(
        `INSERT INTO products (sku, label) VALUES ($1, $2)`,
        ['ABCDEFGHIJK', 'ok'],
        context('products', 'insert'),
      );
      expect(result).toEqual({
        code: 'VALUE_TOO_LONG',
        field: null,
        message: 'A value is too long: at most 10 characters',
      });
      expectPlain(result, error, ['ABCDEFGHIJK']);
    });

    it('names the column of a unique length', async () => {
      const { error, result } = await refusal(
        `UPDATE products SET note = $1`,
        ['x'.repeat(21)],
        context('products', 'update'),
      );
      expect(result).toEqual({
        code: 'VALUE_TOO_LONG',
        field: 'note',
        message: 'note is too long: at most 20 characters',
      });
      expectPlain(result, error, ['x'.repeat(21)]);
    });
  });

  describe('anything else → null (an internal error for the caller)', () => {
    it('a check constraint (23514)', async () => {
      const { error, result } = await refusal(
        `INSERT INTO customers (email, name, age) VALUES ($1, $2, $3)`,
        ['ck@example.com', 'Ck', -1],
        context('customers', 'insert'),
      );
      expect(error.driverError.code).toBe('23514');
      // Issue 11, item 2: a CHECK is INVALID_VALUE; the default-style name spells the column.
      expect(result).toEqual({
        code: 'INVALID_VALUE',
        field: 'age',
        message: 'age cannot hold this value: it breaks a rule (CHECK constraint) of the table',
      });
    });

    it('a syntax error (42601) and an unknown table (42P01)', async () => {
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
        'duplicate key',
        23505,
        new Error('boom'),
        { code: 'ECONNREFUSED' },
        { code: 'ER_DUP_ENTRY' },
      ]) {
        expect(translatePostgresError(value, ctx)).toBeNull();
      }
    });
  });

  describe('lock conflicts with a concurrent write → TRANSACTION_CONFLICT (issue 24)', () => {
    const conflict: DatabaseRefusal = {
      code: 'TRANSACTION_CONFLICT',
      field: null,
      message: 'The request conflicted with a concurrent write and was rolled back; send it again',
    };

    it('40P01: a real deadlock of two transactions updating the same rows in opposite order', async () => {
      const first = ds.createQueryRunner();
      const second = ds.createQueryRunner();
      try {
        await first.startTransaction('READ COMMITTED');
        await second.startTransaction('READ COMMITTED');
        await first.query(`UPDATE customers SET nickname = nickname WHERE id = 1`);
        await second.query(`UPDATE customers SET nickname = nickname WHERE id = 2`);
        // Each now waits for the row the other holds; PostgreSQL breaks the cycle after
        // deadlock_timeout (1 s by default) by failing one of the two statements with 40P01.
        const outcomes = await Promise.allSettled([
          first.query(`UPDATE customers SET nickname = nickname WHERE id = 2`),
          second.query(`UPDATE customers SET nickname = nickname WHERE id = 1`),
        ]);
        const failed = outcomes.filter((o) => o.status === 'rejected');
        expect(failed).toHaveLength(1);
        const error = (failed[0] as PromiseRejectedResult).reason as QueryFailedError & {
          driverError: Record<string, unknown>;
        };
        expect(error).toBeInstanceOf(QueryFailedError);
        expect(error.driverError.code).toBe('40P01');
        const ctx = context('customers', 'update');
        expect(translatePostgresError(error, ctx)).toEqual(conflict);
        expect(translatePostgresError(error.driverError, ctx)).toEqual(conflict);
        expectPlain(translatePostgresError(error, ctx), error, ['1', '2']);
      } finally {
        for (const runner of [first, second]) {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          await runner.release();
        }
      }
    });

    it('55P03: a lock wait that outlasts lock_timeout', async () => {
      const holder = ds.createQueryRunner();
      const waiter = ds.createQueryRunner();
      try {
        await holder.startTransaction();
        await waiter.startTransaction();
        await holder.query(`UPDATE customers SET nickname = nickname WHERE id = 1`);
        await waiter.query(`SET LOCAL lock_timeout = '50ms'`);
        let caught: unknown;
        try {
          await waiter.query(`UPDATE customers SET nickname = nickname WHERE id = 1`);
        } catch (error) {
          caught = error;
        }
        const error = caught as QueryFailedError & { driverError: Record<string, unknown> };
        expect(error).toBeInstanceOf(QueryFailedError);
        expect(error.driverError.code).toBe('55P03');
        expect(translatePostgresError(error, context('customers', 'update'))).toEqual(conflict);
      } finally {
        for (const runner of [holder, waiter]) {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          await runner.release();
        }
      }
    });

    it('40001 serialization_failure (recorded pg fields) is one too', () => {
      const error = Object.assign(
        new Error('could not serialize access due to concurrent update'),
        { code: '40001', severity: 'ERROR' },
      );
      expect(translatePostgresError(error, context('customers', 'insert'))).toEqual(conflict);
    });
  });
});

describe('translatePostgresError: bad values → INVALID_VALUE (issue 11, item 2; recorded pg fields)', () => {
  const columns: ModelColumn[] = [
    col('id'),
    col('qty'),
    { ...col('dq'), declaredType: 'positive_qty' },
    col('capped'),
  ];
  const ctx = (operation: WriteContext['operation'] = 'insert'): WriteContext => ({
    table: { schema: 'public', name: 'bad' },
    columns,
    operation,
  });
  const pg = (fields: Record<string, string>) =>
    Object.assign(new Error(fields.message), { ...fields });
  const check = 'it breaks a rule (CHECK constraint) of the table';

  it('23514 on a default-named column CHECK names the column', () => {
    const error = pg({
      code: '23514',
      message: 'new row for relation "bad" violates check constraint "bad_qty_check"',
      table: 'bad',
      constraint: 'bad_qty_check',
    });
    expect(translatePostgresError({ driverError: error }, ctx())).toEqual({
      code: 'INVALID_VALUE',
      field: 'qty',
      message: `qty cannot hold this value: ${check}`,
    });
  });

  it('23514 on a named table CHECK names no column', () => {
    const error = pg({
      code: '23514',
      message: 'new row for relation "bad" violates check constraint "capped_limit"',
      table: 'bad',
      constraint: 'capped_limit',
    });
    expect(translatePostgresError(error, ctx())?.field).toBeNull();
  });

  it("23514 of a domain names the column declared with it (the error's dataType)", () => {
    const error = pg({
      code: '23514',
      message: 'value for domain positive_qty violates check constraint "positive_qty_check"',
      dataType: 'positive_qty',
      constraint: 'positive_qty_check',
    });
    expect(translatePostgresError(error, ctx('update'))).toEqual({
      code: 'INVALID_VALUE',
      field: 'dq',
      message: 'dq cannot hold this value: it breaks the rule of its type positive_qty',
    });
  });

  it.each([
    ['22003', 'numeric field overflow', 'out of range for its type'],
    ['22008', 'date/time field value out of range: "2024-02-30"', 'not a valid date or time'],
    ['22P02', 'invalid input syntax for type uuid: "nope"', 'malformed for its type'],
  ])('%s → INVALID_VALUE, no field (PostgreSQL names none)', (code, message, reason) => {
    expect(translatePostgresError(pg({ code, message }), ctx())).toEqual({
      code: 'INVALID_VALUE',
      field: null,
      message: `A value does not fit its column: ${reason}`,
    });
  });
});
