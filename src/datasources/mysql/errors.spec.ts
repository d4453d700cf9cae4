import type { ModelColumn, WriteContext } from '../core/dialect';
import { translateMysqlError } from './errors';

/**
 * translateMysqlError on error shapes the live MariaDB does not produce: MySQL 8's messages
 * (table-qualified key names), the detail-less foreign-key errors, messages in another language,
 * truncated details and contexts without columns. The live spec (mysql.live.spec.ts) covers the
 * real MariaDB errors.
 */

function col(name: string, maxLength: number | null = null): ModelColumn {
  return {
    name,
    dbType: maxLength ? `varchar(${maxLength})` : 'int',
    kind: maxLength ? 'text' : 'int',
    nullable: true,
    hasDefault: false,
    generated: false,
    maxLength,
    enum: null,
  };
}

const CUSTOMERS = [col('id'), col('email', 100), col('name', 50), col('code', 10), col("it's", 5)];

function ctx(
  operation: WriteContext['operation'],
  columns = CUSTOMERS,
  name = 'customers',
): WriteContext {
  return { table: { schema: 'shop', name }, columns, operation };
}

/** A mysql2 error as the driver builds it. */
function driverError(errno: number, code: string, sqlMessage: string) {
  return Object.assign(new Error(sqlMessage), {
    errno,
    code,
    sqlState: '23000',
    sqlMessage,
    sql: 'INSERT …',
  });
}

describe('translateMysqlError (synthetic MySQL errors)', () => {
  it('MySQL 8 qualifies the key with its table: the prefix is dropped', () => {
    const e = driverError(
      1062,
      'ER_DUP_ENTRY',
      "Duplicate entry 'ann@example.com' for key 'customers.email'",
    );
    expect(translateMysqlError(e, ctx('insert'))).toEqual({
      code: 'UNIQUE_VIOLATION',
      field: 'email',
      message: 'A row with this email already exists',
      value: 'ann@example.com', // the refused value, never shown: addMany names its row
    });
    const pk = driverError(1062, 'ER_DUP_ENTRY', "Duplicate entry '1' for key 'customers.PRIMARY'");
    expect(translateMysqlError(pk, ctx('insert'))).toEqual({
      code: 'UNIQUE_VIOLATION',
      field: null,
      message: 'A row with these values already exists',
    });
  });

  it('a duplicate value that looks like a key clause does not mislead', () => {
    const e = driverError(
      1062,
      'ER_DUP_ENTRY',
      "Duplicate entry 'x' for key 'name'' for key 'email'",
    );
    expect(translateMysqlError(e, ctx('insert'))?.field).toBe('email');
  });

  it('never names an index when the table columns are unknown', () => {
    const e = driverError(1062, 'ER_DUP_ENTRY', "Duplicate entry 'a' for key 'customers_code_uq'");
    expect(translateMysqlError(e, ctx('insert', []))).toEqual({
      code: 'UNIQUE_VIOLATION',
      field: null,
      message: 'A row with these values already exists',
    });
  });

  it('1586 reads like 1062; the mysql2 code name is enough without errno', () => {
    expect(
      translateMysqlError(
        driverError(1586, 'ER_DUP_ENTRY_WITH_KEY_NAME', "Duplicate entry 'a' for key 'email'"),
        ctx('update'),
      )?.field,
    ).toBe('email');
    expect(
      translateMysqlError(
        { code: 'ER_DUP_ENTRY', message: "Duplicate entry 'a' for key 'email'" },
        ctx('insert'),
      )?.code,
    ).toBe('UNIQUE_VIOLATION');
  });

  it('1216 / 1217 carry no detail: field null, plain words', () => {
    expect(
      translateMysqlError(
        driverError(
          1216,
          'ER_NO_REFERENCED_ROW',
          'Cannot add or update a child row: a foreign key constraint fails',
        ),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'A value refers to a row that does not exist',
    });
    expect(
      translateMysqlError(
        driverError(
          1217,
          'ER_ROW_IS_REFERENCED',
          'Cannot delete or update a parent row: a foreign key constraint fails',
        ),
        ctx('delete'),
      ),
    ).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'This row cannot be deleted: other rows refer to it',
    });
  });

  it('quoted names with backticks and a constraint name that imitates the syntax', () => {
    const columns = [col('id'), col('cust`id')];
    const e = driverError(
      1452,
      'ER_NO_REFERENCED_ROW_2',
      'Cannot add or update a child row: a foreign key constraint fails (`db`.`or``ders`, CONSTRAINT `x FOREIGN KEY (``id``) REFERENCES` FOREIGN KEY (`cust``id`) REFERENCES `cust` (`id`))',
    );
    expect(translateMysqlError(e, ctx('insert', columns, 'or`ders'))).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: 'cust`id',
      message: 'cust`id refers to a row that does not exist',
    });
  });

  it('a truncated detail names what it can', () => {
    const e = driverError(
      1451,
      'ER_ROW_IS_REFERENCED_2',
      'Cannot delete or update a parent row: a foreign key constraint fails (`db`.`orders`, CONSTRAINT `orders_customer_fk` FOREIGN KEY (`customer_id`) REFER',
    );
    expect(translateMysqlError(e, ctx('delete'))).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'This row cannot be deleted: rows in orders refer to it',
    });
    expect(translateMysqlError(e, ctx('update'))).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'This row cannot be changed: rows in orders refer to it',
    });
  });

  it('not-null and too-long messages with quotes in the column name', () => {
    expect(
      translateMysqlError(
        driverError(1048, 'ER_BAD_NULL_ERROR', "Column 'it's' cannot be null"),
        ctx('insert'),
      )?.field,
    ).toBe("it's");
    expect(
      translateMysqlError(
        driverError(1364, 'ER_NO_DEFAULT_FOR_FIELD', "Field 'it's' doesn't have a default value"),
        ctx('insert'),
      )?.field,
    ).toBe("it's");
    expect(
      translateMysqlError(
        driverError(
          1263,
          'ER_WARN_NULL_TO_NOTNULL',
          "Column set to default value; NULL supplied to NOT NULL column 'name' at row 2",
        ),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'NOT_NULL_VIOLATION',
      field: 'name',
      message: 'name cannot be empty',
    });
    expect(
      translateMysqlError(
        driverError(1406, 'ER_DATA_TOO_LONG', "Data too long for column 'it's' at row 1"),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'VALUE_TOO_LONG',
      field: "it's",
      message: "it's is too long: at most 5 characters",
    });
  });

  it('a column the table does not have (a trigger writing elsewhere) is not named', () => {
    expect(
      translateMysqlError(
        driverError(1048, 'ER_BAD_NULL_ERROR', "Column 'audit_user' cannot be null"),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'NOT_NULL_VIOLATION',
      field: null,
      message: 'A required field cannot be empty',
    });
    expect(
      translateMysqlError(
        driverError(1406, 'ER_DATA_TOO_LONG', "Data too long for column 'audit_note' at row 1"),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'VALUE_TOO_LONG',
      field: null,
      message: 'A value is too long',
    });
  });

  it('a message in another language (lc_messages) still names a column of the table', () => {
    expect(
      translateMysqlError(
        driverError(1048, 'ER_BAD_NULL_ERROR', "La colonne 'name' ne peut être vide"),
        ctx('insert'),
      )?.field,
    ).toBe('name');
    expect(
      translateMysqlError(
        driverError(
          1406,
          'ER_DATA_TOO_LONG',
          "Datos demasiado largos para la columna 'code' en la fila 1",
        ),
        ctx('insert'),
      ),
    ).toEqual({
      code: 'VALUE_TOO_LONG',
      field: 'code',
      message: 'code is too long: at most 10 characters',
    });
    // Without the table's columns nothing is guessed from a foreign message.
    expect(
      translateMysqlError(
        driverError(1048, 'ER_BAD_NULL_ERROR', "La colonne 'name' ne peut être vide"),
        ctx('insert', []),
      )?.field,
    ).toBeNull();
  });

  it('a text column with no declared length: too long, no limit given', () => {
    const columns = [col('id'), { ...col('body'), kind: 'text' as const, dbType: 'text' }];
    expect(
      translateMysqlError(
        driverError(1406, 'ER_DATA_TOO_LONG', "Data too long for column 'body' at row 1"),
        ctx('insert', columns),
      ),
    ).toEqual({
      code: 'VALUE_TOO_LONG',
      field: 'body',
      message: 'body is too long',
    });
  });
});

describe('bad values → INVALID_VALUE (issue 11, item 2; texts recorded from MariaDB 10.11 and MySQL 8)', () => {
  const BAD = [...CUSTOMERS, col('qty'), col('born'), col('uid'), col('small'), col('doc')];
  const c = (operation: WriteContext['operation'] = 'insert') => ctx(operation, BAD);
  const check = 'it breaks a rule (CHECK constraint) of the table';
  it.each([
    [
      1264,
      'ER_WARN_DATA_OUT_OF_RANGE',
      "Out of range value for column 'small' at row 1",
      'small',
      'out of range for its type',
    ],
    [
      1292,
      'ER_TRUNCATED_WRONG_VALUE',
      "Incorrect date value: '2024-02-30' for column `shop`.`customers`.`born` at row 1",
      'born',
      'not a valid value of its type',
    ],
    [
      1292,
      'ER_TRUNCATED_WRONG_VALUE',
      "Incorrect date value: '2024-02-30' for column 'born' at row 1",
      'born',
      'not a valid value of its type',
    ],
    [
      1292,
      'ER_TRUNCATED_WRONG_VALUE',
      "Incorrect uuid value: 'nope' for column `shop`.`customers`.`uid` at row 1",
      'uid',
      'not a valid value of its type',
    ],
    [
      1366,
      'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
      "Incorrect integer value: 'abc' for column `shop`.`customers`.`small` at row 1",
      'small',
      'not a valid value of its type',
    ],
    [
      1265,
      'WARN_DATA_TRUNCATED',
      "Data truncated for column 'small' at row 1",
      'small',
      'not a valid value of its type',
    ],
    [
      3140,
      'ER_INVALID_JSON_TEXT',
      'Invalid JSON text: "Invalid value." at position 1 in value for column \'customers.doc\'.',
      'doc',
      'not valid JSON',
    ],
    [
      4025,
      'ER_CONSTRAINT_FAILED',
      'CONSTRAINT `customers.qty` failed for `shop`.`customers`',
      'qty',
      check,
    ],
    [4025, 'ER_CONSTRAINT_FAILED', 'CONSTRAINT `qty` failed for `shop`.`customers`', 'qty', check],
    [
      4025,
      'ER_CONSTRAINT_FAILED',
      'CONSTRAINT `capped_limit` failed for `shop`.`customers`',
      null,
      check,
    ],
    [
      3819,
      'ER_CHECK_CONSTRAINT_VIOLATED',
      "Check constraint 'customers_chk_1' is violated.",
      null,
      check,
    ],
    [
      1690,
      'ER_DATA_OUT_OF_RANGE',
      "BIGINT value is out of range in '`shop`.`customers`.`small` + 1'",
      null,
      'out of range for its type',
    ],
  ])('%i %s: %s', (errno, code, message, field, reason) => {
    expect(translateMysqlError(driverError(errno, code, message), c())).toEqual({
      code: 'INVALID_VALUE',
      field,
      message: field
        ? `${field} cannot hold this value: ${reason}`
        : `A value does not fit its column: ${reason}`,
    });
  });

  it('never names a column of another table, nor carries the value or SQL', () => {
    const r = translateMysqlError(
      driverError(
        1264,
        'ER_WARN_DATA_OUT_OF_RANGE',
        "Out of range value for column 'elsewhere' at row 1",
      ),
      c(),
    );
    expect(r).toEqual({
      code: 'INVALID_VALUE',
      field: null,
      message: 'A value does not fit its column: out of range for its type',
    });
  });
});

describe('translateMysqlError: text that is not WKT (review item 20)', () => {
  const spatial = (name: string, dbType: string): ModelColumn => ({
    ...col(name),
    kind: 'other',
    dbType,
  });
  const e = () =>
    driverError(
      1416,
      'ER_CANT_CREATE_GEOMETRY_OBJECT',
      'Cannot get geometry object from data you send to the GEOMETRY field',
    );

  it('names the table’s one spatial column', () => {
    const columns = [col('id'), spatial('shape', 'geometry'), col('note', 20)];
    expect(translateMysqlError(e(), ctx('insert', columns, 'places'))).toEqual({
      code: 'INVALID_VALUE',
      field: 'shape',
      message: 'shape cannot hold this value: not WKT (well-known text) of a geometry',
    });
  });

  it('names no field when the table has several', () => {
    const columns = [col('id'), spatial('start', 'point'), spatial('path', 'geometry')];
    expect(translateMysqlError(e(), ctx('update', columns, 'routes'))?.field).toBeNull();
  });
});

describe('translateMysqlError: lock conflicts → TRANSACTION_CONFLICT (issue 24; recorded from MariaDB 10.11)', () => {
  const conflict = {
    code: 'TRANSACTION_CONFLICT',
    field: null,
    message: 'The request conflicted with a concurrent write and was rolled back; send it again',
  };
  // Recorded from two mysql2 connections updating rows 1 and 2 in opposite order, and from a wait
  // on a held row with innodb_lock_wait_timeout=1.
  const deadlock = () =>
    Object.assign(
      driverError(
        1213,
        'ER_LOCK_DEADLOCK',
        'Deadlock found when trying to get lock; try restarting transaction',
      ),
      { sqlState: '40001' },
    );
  const lockWait = () =>
    Object.assign(
      driverError(
        1205,
        'ER_LOCK_WAIT_TIMEOUT',
        'Lock wait timeout exceeded; try restarting transaction',
      ),
      { sqlState: 'HY000' },
    );

  it.each([
    ['1213 deadlock', deadlock],
    ['1205 lock wait timeout', lockWait],
  ])('%s → TRANSACTION_CONFLICT, field null, in plain words', (_name, make) => {
    for (const operation of ['insert', 'update', 'delete'] as const) {
      expect(translateMysqlError(make(), ctx(operation))).toEqual(conflict);
      expect(translateMysqlError({ driverError: make() }, ctx(operation))).toEqual(conflict);
    }
    expect(translateMysqlError(make(), ctx('insert'))?.message).not.toMatch(/deadlock|lock wait/i);
  });

  it('by its mysql2 code name alone (no errno)', () => {
    expect(translateMysqlError({ code: 'ER_LOCK_DEADLOCK' }, ctx('insert'))).toEqual(conflict);
    expect(translateMysqlError({ code: 'ER_LOCK_WAIT_TIMEOUT' }, ctx('update'))).toEqual(conflict);
  });
});

describe('translateMysqlError: the duplicate value, for naming the row of addMany (issue 24 item 6)', () => {
  it('is the text between "Duplicate entry \'" and the last "\' for key", quotes inside kept', () => {
    const e = driverError(1062, 'ER_DUP_ENTRY', "Duplicate entry 'o'neil' for key 'email'");
    expect(translateMysqlError(e, ctx('insert'))?.value).toBe("o'neil");
    expect(translateMysqlError(e, ctx('insert'))?.message).not.toContain('neil');
  });

  it('is absent when no field is named (primary key, other index names)', () => {
    const e = driverError(1062, 'ER_DUP_ENTRY', "Duplicate entry '7-x' for key 'uq_pair'");
    expect(translateMysqlError(e, ctx('insert'))).toEqual({
      code: 'UNIQUE_VIOLATION',
      field: null,
      message: 'A row with these values already exists',
    });
  });
});
