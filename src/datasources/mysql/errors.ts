import type { DatabaseRefusal, WriteContext } from '../core/dialect';
import {
  invalidValue,
  isObject,
  knownColumn,
  referencedRowRefusal,
  text,
  transactionConflict,
  uniqueRefusal,
  wordList,
} from '../core/refusal-helpers';

/**
 * Server error numbers of the four refusals (MySQL "Server Error Message Reference"; MariaDB
 * "MariaDB Error Codes" uses the same numbers and names).
 */
const ER_DUP_ENTRY = 1062; // Duplicate entry '%s' for key '%s'
const ER_DUP_ENTRY_WITH_KEY_NAME = 1586; // Duplicate entry '%s' for key '%s'
const ER_NO_REFERENCED_ROW = 1216; // Cannot add or update a child row: a foreign key constraint fails
const ER_ROW_IS_REFERENCED = 1217; // Cannot delete or update a parent row: a foreign key constraint fails
const ER_ROW_IS_REFERENCED_2 = 1451; // … fails (%s): the referencing table and key
const ER_NO_REFERENCED_ROW_2 = 1452; // … fails (%s): the referencing table and key
const ER_BAD_NULL_ERROR = 1048; // Column '%s' cannot be null
const ER_WARN_NULL_TO_NOTNULL = 1263; // Column set to default value; NULL supplied to NOT NULL column '%s' at row %ld
const ER_NO_DEFAULT_FOR_FIELD = 1364; // Field '%s' doesn't have a default value
const ER_DATA_TOO_LONG = 1406; // Data too long for column '%s' at row %ld
const ER_WARN_DATA_OUT_OF_RANGE = 1264; // Out of range value for column '%s' at row %ld
const WARN_DATA_TRUNCATED = 1265; // Data truncated for column '%s' at row %ld
const ER_TRUNCATED_WRONG_VALUE = 1292; // Incorrect %-.32s value: '%-.128s' (MariaDB: … for column `db`.`t`.`c` at row %lu)
const ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = 1366; // Incorrect %-.32s value: '%-.128s' for column '%.192s' at row %lu
const ER_ILLEGAL_VALUE_FOR_TYPE = 1367; // Illegal %s '%-.192s' value found during parsing
const ER_WRONG_VALUE_FOR_TYPE = 1411; // Incorrect %-.32s value: '%-.128s' for function %-.32s
const ER_DATA_OUT_OF_RANGE = 1690; // %-.32s value is out of range in '%-.192s'
const ER_CANT_CREATE_GEOMETRY_OBJECT = 1416; // Cannot get geometry object from data you send to the GEOMETRY field
const ER_GIS_INVALID_DATA = 3037; // MySQL: Invalid GIS data provided to function %s.
const ER_INVALID_JSON_TEXT = 3140; // MySQL: Invalid JSON text: "%s" at position %u in value for column '%-.200s'.
const ER_CHECK_CONSTRAINT_VIOLATED = 3819; // MySQL 8.0.16+: Check constraint '%-.192s' is violated.
const ER_CONSTRAINT_FAILED = 4025; // MariaDB: CONSTRAINT %`s failed for %`-.192s.%`-.192s
const ER_LOCK_WAIT_TIMEOUT = 1205; // Lock wait timeout exceeded; try restarting transaction
const ER_LOCK_DEADLOCK = 1213; // Deadlock found when trying to get lock; try restarting transaction

/** mysql2's `code` names of the same errors, for an error that carries no `errno`. */
const BY_NAME: Record<string, number> = {
  ER_DUP_ENTRY,
  ER_DUP_ENTRY_WITH_KEY_NAME,
  ER_NO_REFERENCED_ROW,
  ER_ROW_IS_REFERENCED,
  ER_ROW_IS_REFERENCED_2,
  ER_NO_REFERENCED_ROW_2,
  ER_BAD_NULL_ERROR,
  ER_WARN_NULL_TO_NOTNULL,
  ER_NO_DEFAULT_FOR_FIELD,
  ER_DATA_TOO_LONG,
  ER_WARN_DATA_OUT_OF_RANGE,
  WARN_DATA_TRUNCATED,
  ER_TRUNCATED_WRONG_VALUE,
  ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
  ER_ILLEGAL_VALUE_FOR_TYPE,
  ER_WRONG_VALUE_FOR_TYPE,
  ER_DATA_OUT_OF_RANGE,
  ER_INVALID_JSON_TEXT,
  ER_CANT_CREATE_GEOMETRY_OBJECT,
  ER_GIS_INVALID_DATA,
  ER_CHECK_CONSTRAINT_VIOLATED,
  ER_CONSTRAINT_FAILED,
  ER_LOCK_WAIT_TIMEOUT,
  ER_LOCK_DEADLOCK,
};
const BY_NAME_VALUES = new Set(Object.values(BY_NAME));

/**
 * Translates a MySQL/MariaDB error into the contract's refusal (CONTRACT.md §6 "Database
 * refusals"), or returns null when it is not one of them (the caller then reports an internal
 * error).
 *
 * Accepts mysql2's error (`errno`, `code` such as `ER_DUP_ENTRY`, `sqlMessage`) or a wrapper
 * holding it in `.driverError`. Reads the server error number (MySQL "Server Error Message
 * Reference") and, for the field, the English message's quoted names:
 * - `1062`/`1586` ER_DUP_ENTRY (`Duplicate entry '…' for key 'email'`; MySQL 8 writes
 *   `'customers.email'`) → `UNIQUE_VIOLATION`. The server names the index, not its columns: the
 *   field is named when the index is named as a column of the table (MySQL's default name for a
 *   one-column unique key); `PRIMARY` or any other index gives field null.
 * - `1452` ER_NO_REFERENCED_ROW_2 (`Cannot add or update a child row: … (`db`.`orders`,
 *   CONSTRAINT `…` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`))`) →
 *   `FOREIGN_KEY_VIOLATION`, field: the first FOREIGN KEY column.
 * - `1451` ER_ROW_IS_REFERENCED_2 (`Cannot delete or update a parent row: …`, same detail, the
 *   table being the referencing one) → `FOREIGN_KEY_VIOLATION`, field: the first REFERENCES
 *   column; the message names the referencing table. On update it says the key cannot change.
 * - `1216`/`1217` (the same without detail) → `FOREIGN_KEY_VIOLATION`, field null.
 * - `1048` ER_BAD_NULL_ERROR (`Column 'name' cannot be null`), `1364` ER_NO_DEFAULT_FOR_FIELD
 *   (`Field 'name' doesn't have a default value`: a required column left out, strict mode) and
 *   `1263` ER_WARN_NULL_TO_NOTNULL → `NOT_NULL_VIOLATION`, field: the column.
 * - `1406` ER_DATA_TOO_LONG (`Data too long for column 'code' at row 1`, strict mode) →
 *   `VALUE_TOO_LONG`, field: the column; the limit comes from the column's `maxLength`.
 * - `1264` out of range, `1265` data truncated (an ENUM value outside the list, strict mode),
 *   `1292`/`1366` incorrect value (an impossible date, a malformed UUID or number), `1367`,
 *   `1411`, `1690`, `3140` invalid JSON (MySQL) → `INVALID_VALUE`; field: the column the message
 *   names, `'c'` (MySQL) or `` `db`.`t`.`c` `` (MariaDB), else null.
 * - `1416` ER_CANT_CREATE_GEOMETRY_OBJECT (text that is not WKT written to a spatial column:
 *   `MysqlDialect.writeItem`), `3037` ER_GIS_INVALID_DATA (MySQL's `ST_GeomFromText`) →
 *   `INVALID_VALUE`; field: the table's one spatial column, else null.
 * - `4025` ER_CONSTRAINT_FAILED (MariaDB: ``CONSTRAINT `t.qty` failed for `db`.`t` ``) and `3819`
 *   (MySQL: `Check constraint 't_chk_1' is violated.`) → `INVALID_VALUE`: a CHECK constraint, or
 *   MariaDB's automatic `json_valid()` CHECK of a `JSON` column. MariaDB names a column's own
 *   constraint `<table>.<column>` (MariaDB "CONSTRAINT": a column constraint is named after its
 *   column): field, that column; a named table constraint whose name is a column of the table
 *   gives that column; any other name gives field null.
 * - `1213` ER_LOCK_DEADLOCK (InnoDB rolled the transaction back) and `1205`
 *   ER_LOCK_WAIT_TIMEOUT (`innodb_lock_wait_timeout` ran out) → `TRANSACTION_CONFLICT`, field
 *   null: a concurrent write held the rows; the request's transaction rolls back and may be sent
 *   again.
 *
 * A field is named only when it is a column `context.columns` holds (any column the message
 * names when `context.columns` is empty, but never an index name). Messages are plain words; they never carry SQL text, index or
 * constraint names, row values or the driver's message. A server answering in another language
 * (`lc_messages`) still gets the right code (it comes from the number); the field is then the
 * first single-quoted name in the message that is a column of the table, else null.
 *
 * @param error whatever a query threw; never thrown again, never modified.
 * @param context the write that failed: its table, the table's columns and the operation.
 * @returns the refusal, or null for any other error (including non-objects).
 */
export function translateMysqlError(error: unknown, context: WriteContext): DatabaseRefusal | null {
  if (!isObject(error)) return null;
  const driver = isObject(error.driverError) ? error.driverError : error;
  const errno = errorNumber(driver) ?? errorNumber(error);
  if (errno === undefined) return null;
  const message = text(driver.sqlMessage) ?? text(driver.message) ?? '';
  switch (errno) {
    case ER_DUP_ENTRY:
    case ER_DUP_ENTRY_WITH_KEY_NAME:
      return uniqueViolation(message, context);
    case ER_NO_REFERENCED_ROW:
    case ER_NO_REFERENCED_ROW_2:
      return missingReference(message, context);
    case ER_ROW_IS_REFERENCED:
    case ER_ROW_IS_REFERENCED_2:
      return hasDependents(message, context);
    case ER_BAD_NULL_ERROR:
    case ER_WARN_NULL_TO_NOTNULL:
    case ER_NO_DEFAULT_FOR_FIELD: {
      const named = NOT_NULL_MESSAGES.map((re) => re.exec(message)?.[1]).find(
        (n) => n !== undefined,
      );
      const field = knownColumn(named ?? fallbackName(message, context), context);
      return {
        code: 'NOT_NULL_VIOLATION',
        field,
        message: field ? `${field} cannot be empty` : 'A required field cannot be empty',
      };
    }
    case ER_DATA_TOO_LONG:
      return valueTooLong(message, context);
    case ER_CHECK_CONSTRAINT_VIOLATED:
    case ER_CONSTRAINT_FAILED:
      return checkFailed(message, context);
    case ER_WARN_DATA_OUT_OF_RANGE:
    case ER_DATA_OUT_OF_RANGE:
      return invalidValue(columnOfValueError(message, context), 'out of range for its type');
    case ER_INVALID_JSON_TEXT:
      return invalidValue(columnOfValueError(message, context), 'not valid JSON');
    case ER_CANT_CREATE_GEOMETRY_OBJECT:
    case ER_GIS_INVALID_DATA:
      return invalidValue(onlySpatialColumn(context), 'not WKT (well-known text) of a geometry');
    case WARN_DATA_TRUNCATED:
    case ER_TRUNCATED_WRONG_VALUE:
    case ER_TRUNCATED_WRONG_VALUE_FOR_FIELD:
    case ER_ILLEGAL_VALUE_FOR_TYPE:
    case ER_WRONG_VALUE_FOR_TYPE:
      return invalidValue(columnOfValueError(message, context), 'not a valid value of its type');
    case ER_LOCK_DEADLOCK:
    case ER_LOCK_WAIT_TIMEOUT:
      return transactionConflict();
    default:
      return null;
  }
}

/**
 * The table's one spatial column, which a geometry refusal (whose message names no column) must be
 * about; null when the table has several (a write setting exactly one column gets it named by
 * the gateway's `runWrite`).
 */
function onlySpatialColumn(context: WriteContext): string | null {
  const spatial = context.columns.filter((c) => SPATIAL.test(c.dbType));
  return spatial.length === 1 ? spatial[0].name : null;
}

/** MySQL/MariaDB spatial type names (`dbType` as introspected). */
const SPATIAL =
  /^(geometry|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection|geomcollection)\b/i;

/** The server error number: `errno`, else mysql2's `code` name. */
function errorNumber(error: Record<string, unknown>): number | undefined {
  if (typeof error.errno === 'number' && BY_NAME_VALUES.has(error.errno)) return error.errno;
  if (typeof error.code === 'string' && error.code in BY_NAME) return BY_NAME[error.code];
  return undefined;
}

function uniqueViolation(message: string, context: WriteContext): DatabaseRefusal {
  // The key name is the last quoted text: the duplicate value before it may hold anything.
  const at = message.lastIndexOf(" for key '");
  let key = at >= 0 && message.endsWith("'") ? message.slice(at + " for key '".length, -1) : '';
  // MySQL 8.0.19+ qualifies the index with its table (`customers.email`).
  if (key.startsWith(`${context.table.name}.`)) key = key.slice(context.table.name.length + 1);
  const primary =
    key === 'PRIMARY' && context.primaryKey?.length === 1 ? context.primaryKey[0] : null;
  const field =
    primary ??
    (key && key !== 'PRIMARY' && context.columns.length > 0 ? knownColumn(key, context) : null);
  if (!field) return uniqueRefusal(null);
  // `Duplicate entry '<value>' for key …`: the value, for naming the row of a multi-row INSERT.
  const head = "Duplicate entry '";
  const value =
    message.startsWith(head) && message[at - 1] === "'"
      ? message.slice(head.length, at - 1)
      : undefined;
  return { ...uniqueRefusal([field]), ...(value === undefined ? {} : { value }) };
}

/** The parts of a foreign-key error's detail `(`db`.`t`, CONSTRAINT `c` FOREIGN KEY (…) REFERENCES `p` (…))`. */
interface ForeignKeyDetail {
  table: string | null;
  columns: string[];
  referencedColumns: string[];
}

function foreignKeyDetail(message: string): ForeignKeyDetail | null {
  const open = message.indexOf('(`');
  if (open < 0) return null;
  // Read in order, so a name that happens to contain ` FOREIGN KEY (` cannot mislead.
  const path = identifiers(message, open + 1, '.');
  if (!path) return null;
  const table = path.names[path.names.length - 1];
  let position = path.end;
  if (!message.startsWith(', CONSTRAINT ', position))
    return { table, columns: [], referencedColumns: [] };
  const constraint = identifiers(message, position + ', CONSTRAINT '.length, '\u0000');
  if (!constraint || !message.startsWith(' FOREIGN KEY (', constraint.end))
    return { table, columns: [], referencedColumns: [] };
  const columns = identifiers(message, constraint.end + ' FOREIGN KEY ('.length, ', ');
  if (!columns || !message.startsWith(') REFERENCES ', columns.end))
    return { table, columns: columns?.names ?? [], referencedColumns: [] };
  position = columns.end + ') REFERENCES '.length;
  const target = identifiers(message, position, '.');
  const referenced =
    target && message.startsWith(' (', target.end)
      ? identifiers(message, target.end + 2, ', ')
      : null;
  return { table, columns: columns.names, referencedColumns: referenced?.names ?? [] };
}

/** Backtick-quoted names from `start`, separated by `separator` (`` `a`, `b` `` or `` `db`.`t` ``). */
function identifiers(
  textValue: string,
  start: number,
  separator: string,
): { names: string[]; end: number } | null {
  const names: string[] = [];
  let position = start;
  for (;;) {
    if (textValue[position] !== '`') return names.length ? { names, end: position } : null;
    let name = '';
    let i = position + 1;
    for (; i < textValue.length; i++) {
      if (textValue[i] === '`') {
        if (textValue[i + 1] === '`') {
          name += '`';
          i++;
        } else break;
      } else name += textValue[i];
    }
    if (i >= textValue.length) return null;
    names.push(name);
    position = i + 1;
    if (!textValue.startsWith(separator, position)) return { names, end: position };
    position += separator.length;
  }
}

function missingReference(message: string, context: WriteContext): DatabaseRefusal {
  const detail = foreignKeyDetail(message);
  const columns = detail?.columns.map((c) => knownColumn(c, context)) ?? [];
  if (columns.length === 0 || columns.some((c) => c === null)) {
    return {
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'A value refers to a row that does not exist',
    };
  }
  const names = columns as string[];
  const verb = names.length === 1 ? 'refers' : 'refer';
  return {
    code: 'FOREIGN_KEY_VIOLATION',
    field: names[0],
    message: `${wordList(names)} ${verb} to a row that does not exist`,
  };
}

function hasDependents(message: string, context: WriteContext): DatabaseRefusal {
  const detail = foreignKeyDetail(message);
  const referenced = detail?.referencedColumns.map((c) => knownColumn(c, context)) ?? [];
  const field = referenced.length > 0 && referenced.every((c) => c !== null) ? referenced[0] : null;
  return referencedRowRefusal(context.operation, field, detail?.table || undefined);
}

function valueTooLong(message: string, context: WriteContext): DatabaseRefusal {
  const field = knownColumn(
    /^Data too long for column '(.*)' at row \d+$/.exec(message)?.[1] ??
      fallbackName(message, context),
    context,
  );
  const max = field ? (context.columns.find((c) => c.name === field)?.maxLength ?? null) : null;
  const unit = max === 1 ? 'character' : 'characters';
  if (!field) return { code: 'VALUE_TOO_LONG', field: null, message: 'A value is too long' };
  return {
    code: 'VALUE_TOO_LONG',
    field,
    message: max !== null ? `${field} is too long: at most ${max} ${unit}` : `${field} is too long`,
  };
}

/** The English messages of the not-null errors; the column name may itself hold quotes. */
const NOT_NULL_MESSAGES = [
  /^Column '(.*)' cannot be null$/,
  /^Field '(.*)' doesn't have a default value$/,
  /NULL supplied to NOT NULL column '(.*)' at row \d+$/,
];

/**
 * For a message in another language (`lc_messages`): the first single-quoted text that is a column
 * of the table. Only when the table's columns are known, so no other text can pass for a name.
 */
function fallbackName(message: string, context: WriteContext): string | undefined {
  if (context.columns.length === 0) return undefined;
  for (const m of message.matchAll(/'([^']*)'/g)) {
    if (context.columns.some((c) => c.name === m[1])) return m[1];
  }
  return undefined;
}

/**
 * The column a bad-value message names: `for column 'c' at row 1` (MySQL), `` for column
 * `db`.`t`.`c` at row 1 `` (MariaDB), `in value for column 't.c'.` (MySQL 3140); null otherwise.
 */
function columnOfValueError(message: string, context: WriteContext): string | null {
  const quoted = / for column '(.*)'(?: at row \d+|\.)?$/.exec(message)?.[1];
  if (quoted !== undefined) {
    const own = knownColumn(quoted, context);
    if (own) return own;
    const prefix = `${context.table.name}.`;
    if (quoted.startsWith(prefix)) return knownColumn(quoted.slice(prefix.length), context);
    return null;
  }
  const at = message.lastIndexOf(' for column `');
  if (at >= 0) {
    const path = identifiers(message, at + ' for column '.length, '.');
    const name = path?.names[path.names.length - 1];
    return knownColumn(name, context);
  }
  return knownColumn(fallbackName(message, context), context);
}

function checkFailed(message: string, context: WriteContext): DatabaseRefusal {
  // MariaDB: CONSTRAINT `t.qty` failed for `db`.`t`; MySQL: Check constraint 'name' is violated.
  const backticked = message.startsWith('CONSTRAINT `')
    ? identifiers(message, 'CONSTRAINT '.length, '\u0000')?.names[0]
    : undefined;
  const name = backticked ?? /^Check constraint '(.*)' is violated\.?$/.exec(message)?.[1];
  let field: string | null = null;
  if (name !== undefined && context.columns.length > 0) {
    const prefix = `${context.table.name}.`;
    field =
      knownColumn(name.startsWith(prefix) ? name.slice(prefix.length) : undefined, context) ??
      knownColumn(name, context);
  }
  return invalidValue(field, 'it breaks a rule (CHECK constraint) of the table');
}
