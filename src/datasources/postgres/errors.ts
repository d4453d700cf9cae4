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
 * SQLSTATE codes of the four refusals (PostgreSQL docs, Appendix A "PostgreSQL Error Codes",
 * class 23 "Integrity Constraint Violation" and class 22 "Data Exception").
 */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const NOT_NULL_VIOLATION = '23502';
const STRING_DATA_RIGHT_TRUNCATION = '22001';
const CHECK_VIOLATION = '23514';

/**
 * Lock conflicts with a concurrent transaction (PostgreSQL docs, Appendix A: class 40
 * "Transaction Rollback" and 55P03 lock_not_available, raised when `lock_timeout` runs out).
 */
const TRANSACTION_CONFLICTS = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
  '55P03', // lock_not_available
]);

/** Class 22 "Data Exception" codes in plain words (PostgreSQL docs, Appendix A). */
const DATA_EXCEPTIONS: Record<string, string> = {
  '22003': 'out of range for its type', // numeric_value_out_of_range
  '22007': 'not a valid date or time', // invalid_datetime_format
  '22008': 'not a valid date or time', // datetime_field_overflow
  '22P02': 'malformed for its type', // invalid_text_representation
  '22021': 'not valid text in the database encoding', // character_not_in_repertoire
  '22P05': 'not valid text in the database encoding', // untranslatable_character
};

/** The fields of pg's `DatabaseError` this translation reads (all optional: the server sends only some). */
interface PgErrorFields {
  code?: string;
  detail?: string;
  column?: string;
  table?: string;
  constraint?: string;
  dataType?: string;
  message?: string;
}

/**
 * Translates a PostgreSQL error into the contract's refusal (CONTRACT.md §6 "Database refusals"),
 * or returns null when it is not one of them (the caller then reports an internal error).
 *
 * Accepts the error as TypeORM throws it (`QueryFailedError`, the `pg` error in `.driverError`,
 * some of its fields copied onto the wrapper) or the raw `pg` `DatabaseError`. Reads its SQLSTATE
 * `code` (PostgreSQL docs, Appendix A "Error Codes"):
 * - `23505` unique_violation → `UNIQUE_VIOLATION`; field: the first column of `detail`
 *   `Key (email)=(…) already exists.`
 * - `23503` foreign_key_violation → `FOREIGN_KEY_VIOLATION`. Written row pointing nowhere
 *   (`Key (customer_id)=(99) is not present in table "customers".`): field customer_id. Deleted or
 *   re-keyed row with dependents (`Key (id)=(1) is still referenced from table "orders".`): field
 *   id, and the message names the referencing table (from the error's `table`).
 * - `23502` not_null_violation → `NOT_NULL_VIOLATION`; field: the error's `column`.
 * - `22001` string_data_right_truncation → `VALUE_TOO_LONG`. PostgreSQL names only the type
 *   (`value too long for type character varying(10)`), so the field is named only when exactly
 *   one column of `context.columns` has that `maxLength`.
 * - `23514` check_violation → `INVALID_VALUE`. A domain's CHECK (`value for domain pos_int
 *   violates check constraint …`, the error's `dataType` the domain): field, the one column of
 *   `context.columns` declared with that domain (`declaredType`). A table's CHECK (the error's
 *   `constraint`): field, the column its name spells when it is PostgreSQL's default name
 *   `<table>_<column>_check[N]` (PostgreSQL "CREATE TABLE": a column constraint's default name);
 *   any other name gives field null (`runWrite` then names the one column the write set, if so).
 * - class `22` "Data Exception" but 22001 (`22003` numeric out of range, `22007`/`22008` dates,
 *   `22P02` malformed text such as a UUID) → `INVALID_VALUE`; PostgreSQL names no column for
 *   these (`column` when it does), so field null most often. The service checks integer ranges,
 *   UUID shape, real dates and `numeric(p,s)` before any SQL, naming the field; these are for
 *   what it does not know.
 *
 * - `40P01` deadlock_detected, `40001` serialization_failure, `55P03` lock_not_available →
 *   `TRANSACTION_CONFLICT`, field null: a concurrent write held the rows; the request's
 *   transaction rolls back and may be sent again.
 *
 * A field is named only when it is a plain column name that `context.columns` holds (any name when
 * `context.columns` is empty): an expression index (`Key (lower(email::text))=…`) or a column of
 * another table (a trigger's write) gives field null. Messages are plain words; they never carry
 * SQL text, constraint names, row values or the driver's message.
 *
 * @param error whatever a query threw; never thrown again, never modified.
 * @param context the write that failed: its table, the table's columns and the operation.
 * @returns the refusal, or null for any other error (including non-objects).
 */
export function translatePostgresError(
  error: unknown,
  context: WriteContext,
): DatabaseRefusal | null {
  const fields = pgFields(error);
  if (!fields) return null;
  switch (fields.code) {
    case UNIQUE_VIOLATION:
      return uniqueViolation(fields, context);
    case FOREIGN_KEY_VIOLATION:
      return foreignKeyViolation(fields, context);
    case NOT_NULL_VIOLATION: {
      const field = knownColumn(fields.column, context);
      return {
        code: 'NOT_NULL_VIOLATION',
        field,
        message: field ? `${field} cannot be empty` : 'A required field cannot be empty',
      };
    }
    case STRING_DATA_RIGHT_TRUNCATION:
      return valueTooLong(fields, context);
    case CHECK_VIOLATION:
      return checkViolation(fields, context);
    default:
      if (fields.code && TRANSACTION_CONFLICTS.has(fields.code)) return transactionConflict();
      if (fields.code?.startsWith('22')) {
        return invalidValue(
          knownColumn(fields.column, context),
          DATA_EXCEPTIONS[fields.code] ?? 'not a value its type can hold',
        );
      }
      return null;
  }
}

/** The driver error's fields, preferring `.driverError` (TypeORM's wrapper) over the object itself. */
function pgFields(error: unknown): PgErrorFields | null {
  if (!isObject(error)) return null;
  const driver = isObject(error.driverError) ? error.driverError : error;
  const pick = (key: keyof PgErrorFields): string | undefined =>
    text(driver[key]) ?? text(error[key]);
  const code = pick('code');
  // SQLSTATE is five characters; anything else (`ECONNREFUSED`, `ER_DUP_ENTRY`) is not PostgreSQL's.
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return null;
  return {
    code,
    detail: pick('detail'),
    column: pick('column'),
    table: pick('table'),
    constraint: pick('constraint'),
    dataType: pick('dataType'),
    message: text(driver.message),
  };
}

function uniqueViolation(fields: PgErrorFields, context: WriteContext): DatabaseRefusal {
  const columns = keyColumns(fields.detail, context);
  if (!columns) return uniqueRefusal(null);
  return { ...uniqueRefusal(columns), ...keyValue(fields.detail, columns) };
}

/**
 * `{value}` of a one-column key's `detail` (`Key (email)=(ann@example.com) already exists.`, the
 * part between `)=(` and the last `)`), for naming the row of a multi-row INSERT; `{}` otherwise.
 */
function keyValue(detail: string | undefined, columns: string[]): { value?: string } {
  if (columns.length !== 1 || !detail) return {};
  const value = /\)=\((.*)\)[^)]*$/s.exec(detail)?.[1];
  return value === undefined ? {} : { value };
}

function foreignKeyViolation(fields: PgErrorFields, context: WriteContext): DatabaseRefusal {
  const detail = fields.detail ?? '';
  const columns = keyColumns(fields.detail, context);
  const field = columns ? columns[0] : null;
  // The row has dependents when it is deleted, or when an update changes a key others refer to.
  // The English detail says so; whatever the server's language, the error's `table` is then the
  // referencing table, not the one written (a self-reference aside, which only a delete can hit).
  const referencedElsewhere = fields.table !== undefined && fields.table !== context.table.name;
  const hasDependents =
    context.operation === 'delete' ||
    /is still referenced from table/.test(detail) ||
    (!/is not present in table/.test(detail) && referencedElsewhere);
  if (hasDependents) {
    const from =
      fields.table ??
      /is still referenced from table "((?:[^"]|"")+)"/.exec(detail)?.[1]?.replace(/""/g, '"');
    return referencedRowRefusal(context.operation, field, from || undefined);
  }
  if (!columns)
    return {
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'A value refers to a row that does not exist',
    };
  const verb = columns.length === 1 ? 'refers' : 'refer';
  return {
    code: 'FOREIGN_KEY_VIOLATION',
    field,
    message: `${wordList(columns)} ${verb} to a row that does not exist`,
    ...keyValue(fields.detail, columns),
  };
}

function valueTooLong(fields: PgErrorFields, context: WriteContext): DatabaseRefusal {
  // `value too long for type character varying(10)`; the digits survive translated messages.
  const limit = /\((\d+)\)[^(]*$/.exec(fields.message ?? '')?.[1];
  if (!limit) return { code: 'VALUE_TOO_LONG', field: null, message: 'A value is too long' };
  const max = Number(limit);
  const candidates = context.columns.filter((c) => c.maxLength === max);
  const field = candidates.length === 1 ? candidates[0].name : null;
  const unit = max === 1 ? 'character' : 'characters';
  return {
    code: 'VALUE_TOO_LONG',
    field,
    message: field
      ? `${field} is too long: at most ${max} ${unit}`
      : `A value is too long: at most ${max} ${unit}`,
  };
}

/**
 * The key columns of a `detail` such as `Key (a, "B c")=(…) …` (the part before `)=(`, which
 * translated messages keep too), unquoted; null when absent (the server leaves the key out of
 * `detail` for a user who may not read it), when it is an expression, or when a column is not one
 * of the table's.
 */
function keyColumns(detail: string | undefined, context: WriteContext): string[] | null {
  const list = detail ? /\((.+?)\)=\(/.exec(detail)?.[1] : undefined;
  if (!list) return null;
  const names: string[] = [];
  const identifier = /\s*(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*))\s*(,|$)/y;
  let position = 0;
  while (position < list.length) {
    identifier.lastIndex = position;
    const m = identifier.exec(list);
    if (!m) return null;
    const name = knownColumn(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2], context);
    if (!name) return null;
    names.push(name);
    position = identifier.lastIndex;
    if (m[3] === '') break;
  }
  return names.length ? names : null;
}

/** The unquoted last part of a possibly schema-qualified, possibly quoted name. */
function bareName(name: string): string {
  const m = /(?:^|\.)(?:"((?:[^"]|"")+)"|([^."]+))$/.exec(name);
  return m ? (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]) : name;
}

function checkViolation(fields: PgErrorFields, context: WriteContext): DatabaseRefusal {
  if (fields.dataType) {
    const domain = fields.dataType;
    const columns = context.columns.filter(
      (c) => c.declaredType !== undefined && bareName(c.declaredType) === domain,
    );
    const field = columns.length === 1 ? columns[0].name : null;
    return invalidValue(field, `it breaks the rule of its type ${domain}`);
  }
  // `<table>_<column>_check`, `…_check1` for a second one (PostgreSQL "CREATE TABLE").
  const prefix = `${context.table.name}_`;
  const name = fields.constraint ?? '';
  const spelled = name.startsWith(prefix)
    ? /^(.+)_check\d*$/.exec(name.slice(prefix.length))?.[1]
    : undefined;
  const field = context.columns.length > 0 ? knownColumn(spelled, context) : null;
  return invalidValue(field, 'it breaks a rule (CHECK constraint) of the table');
}
