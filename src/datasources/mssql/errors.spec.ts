import { RequestError as TediousRequestError } from 'tedious';
import { ErrorMessageToken } from 'tedious/lib/token/token';
import type { DatabaseRefusal, ModelColumn, WriteContext } from '../core/dialect';
import { translateMssqlError } from './errors';
import { MssqlDialect } from './dialect';

/**
 * CONTRACT.md §6 "Database refusals" on SQL Server, from recorded driver error shapes. No SQL
 * Server runs here, so each error is built the way the drivers build it:
 * - the server's ERROR token is tedious v19's `ErrorMessageToken` (lib/token/token.js), its text
 *   the `sys.messages` (us_english) text of the error number with realistic arguments;
 * - `mssql` v12 (lib/tedious/request.js `handleError`) wraps each token as
 *   `new RequestError(Object.assign(new Error(info.message), { info }), 'EREQUEST')` — the real
 *   class is used below — and rejects with the last error of the batch, the earlier ones in
 *   `precedingErrors`. ("The statement has been terminated." is severity 0, an INFO token, so it
 *   never joins them.)
 * - tedious alone (lib/token/handler.js `onErrorMessage`) throws its `RequestError` with the
 *   token's fields copied on, or an `AggregateError` of several.
 * mssql.live.spec.ts checks the same translations against a real server where TEST_MSSQL_URL is set.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports -- mssql ships no type declarations
const mssql = require('mssql') as {
  RequestError: new (error: Error, code: string) => Error & Record<string, unknown>;
};

/** A server ERROR token as tedious parses it (class 14/16: user errors; state as the server sends). */
function token(number: number, message: string, klass = 16): ErrorMessageToken {
  return new ErrorMessageToken({
    number,
    state: 1,
    class: klass,
    message,
    serverName: 'sql-1',
    procName: '',
    lineNumber: 1,
  });
}

/** What an `mssql` query rejects with when the server sent these ERROR tokens, in order. */
function recorded(...tokens: ErrorMessageToken[]): Error & Record<string, unknown> {
  const errors = tokens.map(
    (info) => new mssql.RequestError(Object.assign(new Error(info.message), { info }), 'EREQUEST'),
  );
  const error = errors.pop()!;
  error.precedingErrors = errors;
  return error;
}

/** What tedious alone throws for one ERROR token. */
function tediousError(info: ErrorMessageToken): TediousRequestError {
  const error = new TediousRequestError(info.message, 'EREQUEST');
  Object.assign(error, {
    number: info.number,
    state: info.state,
    class: info.class,
    serverName: info.serverName,
    procName: info.procName,
    lineNumber: info.lineNumber,
  });
  return error;
}

function col(name: string, maxLength: number | null = null): ModelColumn {
  return {
    name,
    dbType: maxLength ? 'nvarchar' : 'int',
    kind: maxLength ? 'text' : 'int',
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
    col('name', 200),
    col('code', 10),
    col('nickname', 50),
    col('display_name', 100),
    col('age'),
    col('initial', 1),
  ],
  memberships: [col('tenant_id'), col('slug', 40)],
  orders: [col('id'), col('customer_id'), col('note', 20)],
  employees: [col('id'), col('manager_id')],
  order_lines: [col('order_id'), col('line_no'), col('product_id')],
};

function context(table: string, operation: WriteContext['operation']): WriteContext {
  return { table: { schema: 'dbo', name: table }, columns: COLUMNS[table], operation };
}

/** Constraint and index names, and row values, used in the recorded messages: none may leak. */
const SECRETS = [
  'UQ_customers_email',
  'PK__customer__3213E83F1A2B3C4D',
  'UQ__customer__AB6E6164F2D1A6B0',
  'IX_customers_nickname',
  'UX_customers_display_name',
  'PK_memberships',
  'FK_orders_customer_id',
  'FK__orders__custome__3B75D760',
  'FK_employees_manager_id',
  'FK_order_lines_orders',
  'CK_customers_age',
  'tg_shop',
  'ann@example.com',
  'Annie',
  'Smith, John',
  'sales',
  'ABCDEFGHIJ',
  'sql-1',
];
const SQL_WORDS =
  /\b(SELECT|INSERT|UPDATE|DELETE|INTO|VALUES|WHERE|FROM|SET|KEY|CONSTRAINT|REFERENCES|UNIQUE|NULL|TABLE|INDEX|dbo)\b/;
const DRIVER_WORDS =
  /\b(violation|constraint|duplicate|conflicted|truncated|nulls|statement|object|database)\b/i;

function expectPlain(refusal: DatabaseRefusal | null): void {
  expect(refusal).not.toBeNull();
  const message = refusal!.message;
  for (const secret of SECRETS) expect(message).not.toContain(secret);
  expect(message).not.toMatch(SQL_WORDS);
  expect(message).not.toMatch(DRIVER_WORDS);
  expect(message).not.toMatch(/['"()]/);
}

const T = {
  uniqueEmail: token(
    2627,
    "Violation of UNIQUE KEY constraint 'UQ_customers_email'. Cannot insert duplicate key in object 'dbo.customers'. The duplicate key value is (ann@example.com).",
    14,
  ),
  uniqueAuto: token(
    2627,
    "Violation of UNIQUE KEY constraint 'UQ__customer__AB6E6164F2D1A6B0'. Cannot insert duplicate key in object 'dbo.customers'. The duplicate key value is (ann@example.com).",
    14,
  ),
  primaryAuto: token(
    2627,
    "Violation of PRIMARY KEY constraint 'PK__customer__3213E83F1A2B3C4D'. Cannot insert duplicate key in object 'dbo.customers'. The duplicate key value is (1).",
    14,
  ),
  primaryComposite: token(
    2627,
    "Violation of PRIMARY KEY constraint 'PK_memberships'. Cannot insert duplicate key in object 'dbo.memberships'. The duplicate key value is (7, sales).",
    14,
  ),
  indexNickname: token(
    2601,
    "Cannot insert duplicate key row in object 'dbo.customers' with unique index 'IX_customers_nickname'. The duplicate key value is (Annie).",
    14,
  ),
  indexCommaValue: token(
    2601,
    "Cannot insert duplicate key row in object 'dbo.customers' with unique index 'UX_customers_display_name'. The duplicate key value is (Smith, John).",
    14,
  ),
  fkInsert: token(
    547,
    'The INSERT statement conflicted with the FOREIGN KEY constraint "FK_orders_customer_id". The conflict occurred in database "tg_shop", table "dbo.customers", column \'id\'.',
  ),
  fkInsertAutoName: token(
    547,
    'The INSERT statement conflicted with the FOREIGN KEY constraint "FK__orders__custome__3B75D760". The conflict occurred in database "tg_shop", table "dbo.customers", column \'id\'.',
  ),
  fkUpdate: token(
    547,
    'The UPDATE statement conflicted with the FOREIGN KEY constraint "FK_orders_customer_id". The conflict occurred in database "tg_shop", table "dbo.customers", column \'id\'.',
  ),
  fkMultiColumn: token(
    547,
    'The INSERT statement conflicted with the FOREIGN KEY constraint "FK_order_lines_orders". The conflict occurred in database "tg_shop", table "dbo.orders".',
  ),
  fkDelete: token(
    547,
    'The DELETE statement conflicted with the REFERENCE constraint "FK_orders_customer_id". The conflict occurred in database "tg_shop", table "dbo.orders", column \'customer_id\'.',
  ),
  fkUpdateReferenced: token(
    547,
    'The UPDATE statement conflicted with the REFERENCE constraint "FK_orders_customer_id". The conflict occurred in database "tg_shop", table "dbo.orders", column \'customer_id\'.',
  ),
  fkSelfInsert: token(
    547,
    'The INSERT statement conflicted with the FOREIGN KEY SAME TABLE constraint "FK_employees_manager_id". The conflict occurred in database "tg_shop", table "dbo.employees", column \'id\'.',
  ),
  fkSelfDelete: token(
    547,
    'The DELETE statement conflicted with the SAME TABLE REFERENCE constraint "FK_employees_manager_id". The conflict occurred in database "tg_shop", table "dbo.employees", column \'manager_id\'.',
  ),
  check: token(
    547,
    'The INSERT statement conflicted with the CHECK constraint "CK_customers_age". The conflict occurred in database "tg_shop", table "dbo.customers", column \'age\'.',
  ),
  nullInsert: token(
    515,
    "Cannot insert the value NULL into column 'name', table 'tg_shop.dbo.customers'; column does not allow nulls. INSERT fails.",
  ),
  nullUpdate: token(
    515,
    "Cannot insert the value NULL into column 'email', table 'tg_shop.dbo.customers'; column does not allow nulls. UPDATE fails.",
  ),
  truncatedNamed: token(
    2628,
    "String or binary data would be truncated in table 'tg_shop.dbo.customers', column 'code'. Truncated value: 'ABCDEFGHIJ'.",
  ),
  truncatedOneChar: token(
    2628,
    "String or binary data would be truncated in table 'tg_shop.dbo.customers', column 'initial'. Truncated value: 'A'.",
  ),
  truncatedOld: token(8152, 'String or binary data would be truncated.'),
  uncommittable: token(
    3998,
    'Uncommittable transaction is detected at the end of the batch. The transaction is rolled back.',
  ),
};

describe('translateMssqlError (recorded mssql/tedious error shapes)', () => {
  it('the recorded shape is what mssql builds: RequestError with number, originalError.info and precedingErrors', () => {
    const error = recorded(T.uniqueEmail);
    expect(error.name).toBe('RequestError');
    expect(error.code).toBe('EREQUEST');
    expect(error.number).toBe(2627);
    expect(error.class).toBe(14);
    expect((error.originalError as { info: ErrorMessageToken }).info).toBeInstanceOf(
      ErrorMessageToken,
    );
    expect(error.precedingErrors).toEqual([]);
  });

  describe('2627 / 2601 duplicate key → UNIQUE_VIOLATION', () => {
    it('names the field when the constraint spells exactly one column and the key has one value', () => {
      const refusal = translateMssqlError(recorded(T.uniqueEmail), context('customers', 'insert'));
      expect(refusal).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'email',
        message: 'A row with this email already exists',
      });
      expectPlain(refusal);
    });

    it('a unique index (2601) the same way', () => {
      const refusal = translateMssqlError(
        recorded(T.indexNickname),
        context('customers', 'update'),
      );
      expect(refusal).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: 'nickname',
        message: 'A row with this nickname already exists',
      });
      expectPlain(refusal);
    });

    it.each([
      ['a system-generated constraint name', T.uniqueAuto, 'customers'],
      ['a primary key whose name spells no column', T.primaryAuto, 'customers'],
      ['a two-column key', T.primaryComposite, 'memberships'],
      ['a value holding ", " (the count is unsure)', T.indexCommaValue, 'customers'],
    ])('field null for %s', (_what, info, table) => {
      const refusal = translateMssqlError(recorded(info), context(table, 'insert'));
      expect(refusal).toEqual({
        code: 'UNIQUE_VIOLATION',
        field: null,
        message: 'A row with these values already exists',
      });
      expectPlain(refusal);
    });

    it('a name spelling a column of another table names nothing', () => {
      const refusal = translateMssqlError(recorded(T.uniqueEmail), context('orders', 'insert'));
      expect(refusal?.field).toBeNull();
    });
  });

  describe('547 → FOREIGN_KEY_VIOLATION', () => {
    it('insert pointing nowhere: the local column when the constraint spells it (not the referenced id)', () => {
      const refusal = translateMssqlError(recorded(T.fkInsert), context('orders', 'insert'));
      expect(refusal).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'customer_id',
        message: 'customer_id refers to a row that does not exist',
      });
      expectPlain(refusal);
      expect(translateMssqlError(recorded(T.fkUpdate), context('orders', 'update'))?.field).toBe(
        'customer_id',
      );
    });

    it('insert with a system-generated name or a multi-column key: field null', () => {
      for (const info of [T.fkInsertAutoName, T.fkMultiColumn]) {
        const refusal = translateMssqlError(
          recorded(info),
          context(info === T.fkMultiColumn ? 'order_lines' : 'orders', 'insert'),
        );
        expect(refusal).toEqual({
          code: 'FOREIGN_KEY_VIOLATION',
          field: null,
          message: 'A value refers to a row that does not exist',
        });
        expectPlain(refusal);
      }
    });

    it('self reference (FOREIGN KEY SAME TABLE): the referencing column, not the referenced id', () => {
      const refusal = translateMssqlError(recorded(T.fkSelfInsert), context('employees', 'insert'));
      expect(refusal).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: 'manager_id',
        message: 'manager_id refers to a row that does not exist',
      });
    });

    it('delete of a row with dependents (REFERENCE): names the referencing table, no schema', () => {
      const refusal = translateMssqlError(recorded(T.fkDelete), context('customers', 'delete'));
      expect(refusal).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row cannot be deleted: rows in orders refer to it',
      });
      expectPlain(refusal);
      expect(translateMssqlError(recorded(T.fkSelfDelete), context('employees', 'delete'))).toEqual(
        {
          code: 'FOREIGN_KEY_VIOLATION',
          field: null,
          message: 'This row cannot be deleted: rows in employees refer to it',
        },
      );
    });

    it('update of a key other rows refer to (REFERENCE on UPDATE)', () => {
      const refusal = translateMssqlError(
        recorded(T.fkUpdateReferenced),
        context('customers', 'update'),
      );
      expect(refusal).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row cannot be changed: rows in orders refer to it',
      });
      expectPlain(refusal);
    });

    it('a CHECK conflict is also 547: INVALID_VALUE naming the column (issue 11, item 2)', () => {
      expect(translateMssqlError(recorded(T.check), context('customers', 'insert'))).toEqual({
        code: 'INVALID_VALUE',
        field: 'age',
        message: 'age cannot hold this value: it breaks a rule (CHECK constraint) of the table',
      });
    });

    it('a text it cannot read (another session language): only a delete is surely a foreign key', () => {
      const foreign = token(
        547,
        'Die DELETE-Anweisung steht in Konflikt mit der REFERENCE-Einschränkung "FK_orders_customer_id".',
      );
      expect(translateMssqlError(recorded(foreign), context('customers', 'delete'))).toEqual({
        code: 'FOREIGN_KEY_VIOLATION',
        field: null,
        message: 'This row cannot be deleted: other rows refer to it',
      });
      expect(translateMssqlError(recorded(foreign), context('customers', 'insert'))).toBeNull();
    });
  });

  describe('515 → NOT_NULL_VIOLATION', () => {
    it('names the column on insert and update', () => {
      const insert = translateMssqlError(recorded(T.nullInsert), context('customers', 'insert'));
      expect(insert).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      });
      expectPlain(insert);
      expect(translateMssqlError(recorded(T.nullUpdate), context('customers', 'update'))).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: 'email',
        message: 'email cannot be empty',
      });
    });

    it('a column not of the written table (a trigger’s write) is not named', () => {
      expect(translateMssqlError(recorded(T.nullInsert), context('orders', 'insert'))).toEqual({
        code: 'NOT_NULL_VIOLATION',
        field: null,
        message: 'A required field cannot be empty',
      });
    });
  });

  describe('2628 / 8152 → VALUE_TOO_LONG', () => {
    it('2628 names the column and its length, never the truncated value', () => {
      const refusal = translateMssqlError(
        recorded(T.truncatedNamed),
        context('customers', 'insert'),
      );
      expect(refusal).toEqual({
        code: 'VALUE_TOO_LONG',
        field: 'code',
        message: 'code is too long: at most 10 characters',
      });
      expectPlain(refusal);
      expect(
        translateMssqlError(recorded(T.truncatedOneChar), context('customers', 'update'))?.message,
      ).toBe('initial is too long: at most 1 character');
    });

    it('8152 (before SQL Server 2019) names nothing', () => {
      const refusal = translateMssqlError(recorded(T.truncatedOld), context('customers', 'insert'));
      expect(refusal).toEqual({
        code: 'VALUE_TOO_LONG',
        field: null,
        message: 'A value is too long',
      });
      expectPlain(refusal);
    });
  });

  describe('shapes', () => {
    it('the refusal among several errors of a batch decides, even when it is in precedingErrors', () => {
      const error = recorded(T.uniqueEmail, T.uncommittable);
      expect(error.number).toBe(3998);
      expect(translateMssqlError(error, context('customers', 'insert'))?.field).toBe('email');
    });

    it('tedious RequestError, an AggregateError of them, originalError only, and a TypeORM-style driverError', () => {
      const expected = {
        code: 'NOT_NULL_VIOLATION',
        field: 'name',
        message: 'name cannot be empty',
      };
      expect(
        translateMssqlError(tediousError(T.nullInsert), context('customers', 'insert')),
      ).toEqual(expected);
      expect(
        translateMssqlError(
          new AggregateError([tediousError(T.uncommittable), tediousError(T.nullInsert)]),
          context('customers', 'insert'),
        ),
      ).toEqual(expected);
      expect(
        translateMssqlError(
          { originalError: Object.assign(new Error(T.nullInsert.message), { info: T.nullInsert }) },
          context('customers', 'insert'),
        ),
      ).toEqual(expected);
      expect(
        translateMssqlError(
          { driverError: recorded(T.nullInsert) },
          context('customers', 'insert'),
        ),
      ).toEqual(expected);
    });

    it('the dialect delegates to the same translation', () => {
      expect(
        new MssqlDialect().translateError(recorded(T.fkDelete), context('customers', 'delete'))
          ?.code,
      ).toBe('FOREIGN_KEY_VIOLATION');
    });

    it('with no columns in the context, any named column is taken', () => {
      const ctx: WriteContext = {
        table: { schema: 'dbo', name: 'customers' },
        columns: [],
        operation: 'insert',
      };
      expect(translateMssqlError(recorded(T.nullInsert), ctx)?.field).toBe('name');
      expect(translateMssqlError(recorded(T.truncatedNamed), ctx)).toEqual({
        code: 'VALUE_TOO_LONG',
        field: 'code',
        message: 'code is too long',
      });
    });
  });

  describe('not refusals → null', () => {
    it.each([
      [
        'OUTPUT on a table with a trigger (334)',
        recorded(
          token(
            334,
            "The target table 'dbo.orders' of the DML statement cannot have any enabled triggers if the statement contains an OUTPUT clause without INTO clause.",
          ),
        ),
      ],
      [
        'a request timeout',
        new mssql.RequestError(
          Object.assign(new Error('Timeout: Request failed to complete in 15000ms'), {
            code: 'ETIMEOUT',
          }),
          'ETIMEOUT',
        ),
      ],
      ['a plain Error', new Error('socket hang up')],
      ['null', null],
      ['a string', 'Violation of UNIQUE KEY constraint'],
      ['a number', 2627],
    ])('%s', (_what, error) => {
      expect(translateMssqlError(error, context('customers', 'insert'))).toBeNull();
    });
  });
});

describe('bad values → INVALID_VALUE (issue 11, item 2; SQL Server docs, "Database engine events and errors")', () => {
  const ck = (message: string) => recorded(token(547, message));
  it('547 CHECK names the column the message gives, else none', () => {
    expect(
      translateMssqlError(
        ck(
          'The UPDATE statement conflicted with the CHECK constraint "CK__customers__age__3B75D760". The conflict occurred in database "tg_shop", table "dbo.customers", column \'age\'.',
        ),
        context('customers', 'update'),
      ),
    ).toEqual({
      code: 'INVALID_VALUE',
      field: 'age',
      message: 'age cannot hold this value: it breaks a rule (CHECK constraint) of the table',
    });
    // A table constraint over several columns: no column in the message.
    expect(
      translateMssqlError(
        ck(
          'The INSERT statement conflicted with the CHECK constraint "CK_range". The conflict occurred in database "tg_shop", table "dbo.customers".',
        ),
        context('customers', 'insert'),
      ),
    ).toEqual({
      code: 'INVALID_VALUE',
      field: null,
      message: 'A value does not fit its column: it breaks a rule (CHECK constraint) of the table',
    });
  });

  it.each([
    [
      220,
      'Arithmetic overflow error for data type smallint, value = 40000.',
      'out of range for its type',
    ],
    [
      8115,
      'Arithmetic overflow error converting numeric to data type numeric.',
      'out of range for its type',
    ],
    [
      241,
      'Conversion failed when converting date and/or time from character string.',
      'not a valid date or time',
    ],
    [
      242,
      'The conversion of a varchar data type to a datetime data type resulted in an out-of-range value.',
      'not a valid date or time',
    ],
    [
      8169,
      'Conversion failed when converting from a character string to uniqueidentifier.',
      'not a valid UUID',
    ],
    [
      245,
      "Conversion failed when converting the nvarchar value 'abc' to data type int.",
      'not a valid value of its type',
    ],
  ])('%i → INVALID_VALUE, no field (the text names no column)', (number, message, reason) => {
    expect(
      translateMssqlError(recorded(token(number, message)), context('customers', 'insert')),
    ).toEqual({
      code: 'INVALID_VALUE',
      field: null,
      message: `A value does not fit its column: ${reason}`,
    });
  });
});

describe('lock conflicts → TRANSACTION_CONFLICT (issue 24; SQL Server docs, "Database engine events and errors")', () => {
  const conflict = {
    code: 'TRANSACTION_CONFLICT',
    field: null,
    message: 'The request conflicted with a concurrent write and was rolled back; send it again',
  };

  it.each([
    [
      1205,
      'Transaction (Process ID 53) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction.',
      13,
    ],
    [1222, 'Lock request time out period exceeded.', 16],
  ])('%i → TRANSACTION_CONFLICT, field null', (number, message, klass) => {
    const info = token(number, message, klass);
    expect(translateMssqlError(recorded(info), context('customers', 'insert'))).toEqual(conflict);
    expect(translateMssqlError(tediousError(info), context('customers', 'update'))).toEqual(
      conflict,
    );
    // Plain words: no process id, no lock resource, nothing of the server's text.
    const said = translateMssqlError(recorded(info), context('customers', 'delete'))!.message;
    expect(said).not.toMatch(/\d|deadlock|lock|process|victim|\(/i);
  });
});
