import type { DatabaseRefusal, WriteContext } from '../core/dialect';
import {
  invalidValue,
  isObject,
  knownColumn,
  referencedRowRefusal,
  text,
  transactionConflict,
  uniqueRefusal,
} from '../core/refusal-helpers';

/**
 * SQL Server error numbers of the four refusals (SQL Server docs, "Database engine events and
 * errors", ranges 0–999, 2000–2999 and 8000–8999; the texts are those of `sys.messages` in
 * us_english, the session language the pool pins).
 */
const UNIQUE_CONSTRAINT = 2627; // Violation of %ls constraint '%.*ls'. Cannot insert duplicate key in object '%.*ls'. The duplicate key value is %ls.
const UNIQUE_INDEX = 2601; // Cannot insert duplicate key row in object '%.*ls' with unique index '%.*ls'. The duplicate key value is %ls.
const CONSTRAINT_CONFLICT = 547; // The %ls statement conflicted with the %ls constraint "%.*ls". The conflict occurred in database "%.*ls", table "%.*ls"[, column '%.*ls'].
const NULL_NOT_ALLOWED = 515; // Cannot insert the value NULL into column '%.*ls', table '%.*ls'; column does not allow nulls. %ls fails.
const TRUNCATED = 8152; // String or binary data would be truncated.
const DEADLOCK_VICTIM = 1205; // Transaction (Process ID %d) was deadlocked on %.*ls resources with another process and has been chosen as the deadlock victim. Rerun the transaction.
const LOCK_TIMEOUT = 1222; // Lock request time out period exceeded.
const TRUNCATED_NAMED = 2628; // String or binary data would be truncated in table '%.*ls', column '%.*ls'. Truncated value: '%.*ls'.

/**
 * Conversion failures and overflows: a value its column cannot hold (SQL Server docs, "Database
 * engine events and errors"), in plain words. None of their texts names the column.
 */
const BAD_VALUES: Record<number, string> = {
  220: 'out of range for its type', // Arithmetic overflow error for data type %ls, value = %ld.
  8115: 'out of range for its type', // Arithmetic overflow error converting %ls to data type %ls.
  517: 'out of range for its type', // Adding a value to a '%ls' column caused an overflow.
  241: 'not a valid date or time', // Conversion failed when converting date and/or time from character string.
  242: 'not a valid date or time', // The conversion of a %ls data type to a %ls data type resulted in an out-of-range value.
  8169: 'not a valid UUID', // Conversion failed when converting from a character string to uniqueidentifier.
  244: 'out of range for its type', // The conversion of the %ls value '%.*ls' overflowed an %hs column.
  248: 'out of range for its type', // The conversion of the %ls value '%.*ls' overflowed an int column.
  245: 'not a valid value of its type', // Conversion failed when converting the %ls value '%.*ls' to data type %ls.
  8114: 'not a valid value of its type', // Error converting data type %ls to %ls.
  13609: 'not valid JSON', // JSON text is not properly formatted. Unexpected character '%lc' is found at position %d.
};

const REFUSAL_NUMBERS = new Set([
  ...Object.keys(BAD_VALUES).map(Number),
  UNIQUE_CONSTRAINT,
  UNIQUE_INDEX,
  CONSTRAINT_CONFLICT,
  NULL_NOT_ALLOWED,
  TRUNCATED,
  TRUNCATED_NAMED,
  DEADLOCK_VICTIM,
  LOCK_TIMEOUT,
]);

/** One server error as the driver reported it. */
interface ServerError {
  number: number;
  message: string;
}

/**
 * Translates a SQL Server error into the contract's refusal (CONTRACT.md §6 "Database refusals"),
 * or returns null when it is none of them (the caller then reports an internal error).
 *
 * Accepted shapes (recorded from `mssql` v12 `lib/tedious/request.js` and tedious v19
 * `lib/token/handler.js`, see `mssql-errors.spec.ts`):
 * - the `mssql` `RequestError` a query rejects with: `.number`, `.message`, `.originalError`
 *   (an `Error` whose `.info` is tedious's ERROR token `{number, state, class, message, serverName,
 *   procName, lineNumber}`) and `.precedingErrors` (earlier errors of the same batch; the rejected
 *   error is the last one the server sent);
 * - tedious's own `RequestError` (`.number` set from the token), or an `AggregateError` of them;
 * - any of these under a TypeORM-style `.driverError`.
 * The first error (in the order the server sent them) whose number is a refusal decides.
 *
 * Numbers (SQL Server docs, "Database engine events and errors"):
 * - 2627 (UNIQUE KEY/PRIMARY KEY constraint) and 2601 (unique index) → `UNIQUE_VIOLATION`. The
 *   message names the constraint or index and the duplicate value, never the column: the field is
 *   named only when the key has one value and the constraint's name spells exactly one column of
 *   `context.columns` as a whole `_`-separated part (`UQ_customers_email` → email); else null.
 * - 547 → `FOREIGN_KEY_VIOLATION` for `FOREIGN KEY`/`REFERENCE` conflicts. 547 is also the CHECK
 *   conflict (`… conflicted with the CHECK constraint "CK__t__qty__…". The conflict occurred in
 *   database "d", table "dbo.t", column 'qty'.`) → `INVALID_VALUE`, field from `column '…'`
 *   (present when the constraint is a column's own), else null. An INSERT/UPDATE `FOREIGN KEY` conflict names the
 *   *referenced* table and column; the local column is named only when the constraint's name spells
 *   exactly one column of the table, else null. A `REFERENCE` conflict (DELETE, or an UPDATE of a
 *   referenced key) means the row has dependents: the message names the referencing table.
 * - 515 → `NOT_NULL_VIOLATION`, field from `column '…'`.
 * - 220, 8115, 517, 244, 248 (overflows), 241, 242 (dates), 8169 (uniqueidentifier), 245, 8114
 *   (conversions), 13609 (JSON) → `INVALID_VALUE`, field null: their texts name no column (the
 *   service checks integer ranges, UUID shape, real dates and `decimal(p,s)` before any SQL).
 * - 2628 → `VALUE_TOO_LONG`, field from `column '…'` (SQL Server 2019+, or 2016/2017 with trace
 *   flag 460); 8152 (older servers and compatibility levels) names nothing → field null.
 * - 1205 (chosen as deadlock victim) and 1222 (lock request timeout, `SET LOCK_TIMEOUT`) →
 *   `TRANSACTION_CONFLICT`, field null: the request's transaction rolls back and may be sent again.
 *
 * A field is named only when it is a column `context.columns` holds (any name when it is empty).
 * Messages are plain words; they never carry SQL text, constraint or index names, key or
 * truncated values, or the server's message.
 *
 * @param error whatever a query threw; never thrown again, never modified.
 * @param context the write that failed: its table, the table's columns and the operation.
 * @returns the refusal, or null for any other error (including non-objects).
 */
export function translateMssqlError(error: unknown, context: WriteContext): DatabaseRefusal | null {
  const found = serverErrors(error).find((e) => REFUSAL_NUMBERS.has(e.number));
  if (!found) return null;
  if (BAD_VALUES[found.number] !== undefined) return invalidValue(null, BAD_VALUES[found.number]);
  switch (found.number) {
    case UNIQUE_CONSTRAINT:
    case UNIQUE_INDEX:
      return uniqueViolation(found, context);
    case CONSTRAINT_CONFLICT:
      return constraintConflict(found, context);
    case DEADLOCK_VICTIM:
    case LOCK_TIMEOUT:
      return transactionConflict();
    case NULL_NOT_ALLOWED: {
      const field = knownColumn(/into column '(.*?)', table '/s.exec(found.message)?.[1], context);
      return {
        code: 'NOT_NULL_VIOLATION',
        field,
        message: field ? `${field} cannot be empty` : 'A required field cannot be empty',
      };
    }
    default: {
      const name =
        found.number === TRUNCATED_NAMED
          ? /, column '(.*?)'\. Truncated value: /s.exec(found.message)?.[1]
          : undefined;
      return valueTooLong(knownColumn(name, context), context);
    }
  }
}

/** Every server error in `error`, in the order the server sent them. */
function serverErrors(error: unknown, depth = 0): ServerError[] {
  if (!isObject(error) || depth > 4) return [];
  const out: ServerError[] = [];
  if (Array.isArray(error.precedingErrors))
    for (const e of error.precedingErrors) out.push(...serverErrors(e, depth + 1));
  const own = serverError(error);
  if (own) out.push(own);
  if (Array.isArray(error.errors))
    for (const e of error.errors) out.push(...serverErrors(e, depth + 1));
  if (isObject(error.driverError)) out.push(...serverErrors(error.driverError, depth + 1));
  if (!own && isObject(error.originalError) && Array.isArray(error.originalError.errors)) {
    for (const e of error.originalError.errors) out.push(...serverErrors(e, depth + 1));
  }
  return out;
}

/** The number and message of one error object, from itself or its tedious token (`.info`). */
function serverError(error: Record<string, unknown>): ServerError | null {
  const original = isObject(error.originalError) ? error.originalError : undefined;
  const info = isObject(error.info)
    ? error.info
    : original && isObject(original.info)
      ? original.info
      : undefined;
  const number =
    errorNumber(error.number) ?? errorNumber(info?.number) ?? errorNumber(original?.number);
  if (number === undefined) return null;
  const message = text(info?.message) ?? text(error.message) ?? text(original?.message) ?? '';
  return { number, message };
}

function errorNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

function uniqueViolation(error: ServerError, context: WriteContext): DatabaseRefusal {
  // 2627: constraint '…'; 2601: unique index '…'. Names may hold quotes: match up to the known
  // text that follows them.
  const name =
    error.number === UNIQUE_CONSTRAINT
      ? /constraint '(.*?)'\. Cannot insert duplicate key in object '/s.exec(error.message)?.[1]
      : /with unique index '(.*?)'\. The duplicate key value is \(/s.exec(error.message)?.[1];
  const values = /The duplicate key value is \((.*)\)\.?$/s.exec(error.message)?.[1];
  // Values print unquoted, joined by ", ": a value holding ", " overcounts, which only makes the
  // field null (never a wrong one).
  const single = values !== undefined && !values.includes(', ');
  const spelled = name && single ? columnsSpelledBy(name, context) : [];
  const field = spelled.length === 1 ? spelled[0] : null;
  return uniqueRefusal(field ? [field] : null);
}

function constraintConflict(error: ServerError, context: WriteContext): DatabaseRefusal | null {
  const m =
    /^The (?:INSERT|UPDATE|DELETE|MERGE) statement conflicted with the (FOREIGN KEY SAME TABLE|SAME TABLE REFERENCE|FOREIGN KEY|REFERENCE|CHECK) constraint "(.*?)"\. The conflict occurred in database "/s.exec(
      error.message,
    );
  if (!m) {
    // Not the us_english text: only a delete is surely a foreign key (a CHECK never fails on delete).
    if (context.operation !== 'delete') return null;
    return referencedRowRefusal('delete', null, undefined);
  }
  const [, kind, constraint] = m;
  if (kind === 'CHECK') {
    const column = /, column '(.*)'\.$/s.exec(error.message)?.[1];
    return invalidValue(
      knownColumn(column, context),
      'it breaks a rule (CHECK constraint) of the table',
    );
  }
  const table = /, table "(.*?)"(?:, column '|\.$)/s.exec(error.message)?.[1];
  if (kind === 'REFERENCE' || kind === 'SAME TABLE REFERENCE' || context.operation === 'delete') {
    // The table named is the referencing one (`dbo.orders`); its schema is left out.
    const referencing = table ? table.slice(table.indexOf('.') + 1) : undefined;
    return referencedRowRefusal(context.operation, null, referencing || undefined);
  }
  // The column named is the referenced one, in the referenced table; a multi-column key names none.
  const single = /, column '(.*)'\.$/s.test(error.message);
  const spelled = single ? columnsSpelledBy(constraint, context) : [];
  const field = spelled.length === 1 ? spelled[0] : null;
  return {
    code: 'FOREIGN_KEY_VIOLATION',
    field,
    message: field
      ? `${field} refers to a row that does not exist`
      : 'A value refers to a row that does not exist',
  };
}

function valueTooLong(field: string | null, context: WriteContext): DatabaseRefusal {
  if (!field) return { code: 'VALUE_TOO_LONG', field: null, message: 'A value is too long' };
  const max = context.columns.find((c) => c.name === field)?.maxLength;
  if (!max) return { code: 'VALUE_TOO_LONG', field, message: `${field} is too long` };
  return {
    code: 'VALUE_TOO_LONG',
    field,
    message: `${field} is too long: at most ${max} ${max === 1 ? 'character' : 'characters'}`,
  };
}

/**
 * Columns of the table that a constraint's name spells as whole `_`-separated parts
 * (`FK_orders_customer_id` → customer_id), case-insensitively. A column spelled only inside a
 * longer spelled column (`id` inside `customer_id`) does not count.
 */
function columnsSpelledBy(constraint: string, context: WriteContext): string[] {
  const name = constraint.toLowerCase();
  const spans: { column: string; start: number; end: number }[] = [];
  for (const column of context.columns) {
    const wanted = column.name.toLowerCase();
    if (!wanted) continue;
    for (let at = name.indexOf(wanted); at >= 0; at = name.indexOf(wanted, at + 1)) {
      const end = at + wanted.length;
      const before = at === 0 || name[at - 1] === '_';
      const after = end === name.length || name[end] === '_';
      if (before && after) spans.push({ column: column.name, start: at, end });
    }
  }
  const outer = spans.filter(
    (s) =>
      !spans.some(
        (o) => o !== s && o.start <= s.start && o.end >= s.end && o.end - o.start > s.end - s.start,
      ),
  );
  return [...new Set(outer.map((s) => s.column))];
}
