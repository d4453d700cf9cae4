import type { DatabaseRefusal, WriteContext } from '../core/dialect';
import {
  invalidValue,
  isObject,
  soleColumnOf,
  text,
  transactionConflict,
  uniqueRefusal,
} from '../core/refusal-helpers';

/**
 * Translates a SQLite error into the contract's refusal (CONTRACT.md §6 "Database refusals"), or
 * returns null when it is not one of them (the caller then reports an internal error).
 *
 * Accepts the error as TypeORM throws it (`QueryFailedError`, better-sqlite3's `SqliteError` in
 * `.driverError`, its `code` copied onto the wrapper) or the raw `SqliteError`. Reads the extended
 * result code (SQLite "Result and Error Codes", §5 extended result codes, better-sqlite3 names them
 * as strings) and, for the field, the `table.column` list of the error's message:
 * - `SQLITE_CONSTRAINT_UNIQUE` and `SQLITE_CONSTRAINT_PRIMARYKEY` (`UNIQUE constraint failed:
 *   customers.email`, several columns `t.a, t.b`) → `UNIQUE_VIOLATION`, field: the first column.
 * - `SQLITE_CONSTRAINT_FOREIGNKEY` (`FOREIGN KEY constraint failed`) → `FOREIGN_KEY_VIOLATION`,
 *   field null: SQLite does not say which key, only `context.operation` tells the two cases apart.
 * - `SQLITE_CONSTRAINT_NOTNULL` (`NOT NULL constraint failed: customers.name`) →
 *   `NOT_NULL_VIOLATION`, field: the column.
 * - `SQLITE_CONSTRAINT_CHECK` (`CHECK constraint failed: qty > 0`, or the constraint's name when
 *   it has one: SQLite ≥ 3.26 prints the expression of an unnamed one) → `INVALID_VALUE`; field:
 *   the column a name `<table>_<column>_check[N]` spells, else the one column of
 *   `context.columns` the name or expression mentions, else null.
 * - `SQLITE_MISMATCH` (a non-integer into an `INTEGER PRIMARY KEY`) and `SQLITE_TOOBIG` →
 *   `INVALID_VALUE`, field null.
 * - `SQLITE_BUSY` and its extended codes (`SQLITE_BUSY_SNAPSHOT`, …), should one reach a write
 *   (the pool takes the write lock with `BEGIN IMMEDIATE` and answers a busy file itself) →
 *   `TRANSACTION_CONFLICT`, field null: the request's transaction rolls back and may be sent again.
 * - the primary code `SQLITE_CONSTRAINT` (extended codes off) is classified by the message's prefix.
 *
 * There is no `VALUE_TOO_LONG`: SQLite does not enforce `varchar(n)` (sqlite.org/datatype3.html),
 * so the service checks lengths itself before any SQL runs.
 *
 * A field is named only when the message lists the written table's column and `context.columns`
 * holds it (any name when `context.columns` is empty); a unique expression index, reported as
 * `index 'name'`, gives field null. Messages are plain words; they never carry SQL text, index or
 * constraint names, row values or the driver's message.
 *
 * @param error whatever a query threw; never thrown again, never modified.
 * @param context the write that failed: its table, the table's columns and the operation.
 * @returns the refusal, or null for any other error (including non-objects).
 */
export function translateSqliteError(
  error: unknown,
  context: WriteContext,
): DatabaseRefusal | null {
  if (!isObject(error)) return null;
  const driver = isObject(error.driverError) ? error.driverError : error;
  const code = text(driver.code) ?? text(error.code);
  // TypeORM's wrapper message is `SqliteError: …` (it strips only `Error: `); the driver's is bare.
  const message = (text(driver.message) ?? text(error.message) ?? '').replace(/^SqliteError: /, '');
  if (code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_')) return transactionConflict();
  switch (kindOf(code, message)) {
    case 'unique': {
      return uniqueRefusal(listedColumns(message, context));
    }
    case 'notnull': {
      const field = listedColumns(message, context)?.[0] ?? null;
      return {
        code: 'NOT_NULL_VIOLATION',
        field,
        message: field ? `${field} cannot be empty` : 'A required field cannot be empty',
      };
    }
    case 'foreignkey':
      return { code: 'FOREIGN_KEY_VIOLATION', field: null, message: foreignKeyMessage(context) };
    case 'check': {
      const rule = /^CHECK constraint failed: (.+)$/s.exec(message)?.[1] ?? '';
      // A name such as PostgreSQL's default `<table>_<column>_check`, else the expression.
      const prefix = `${context.table.name}_`;
      const spelled = rule.startsWith(prefix)
        ? /^(.+)_check\d*$/.exec(rule.slice(prefix.length))?.[1]
        : undefined;
      const named = spelled && context.columns.some((c) => c.name === spelled) ? spelled : null;
      return invalidValue(
        named ?? soleColumnOf(rule, context),
        'it breaks a rule (CHECK constraint) of the table',
      );
    }
    case 'mismatch':
      return invalidValue(null, 'not a value its type can hold');
    default:
      return null;
  }
}

type Kind = 'unique' | 'notnull' | 'foreignkey' | 'check' | 'mismatch' | null;

function kindOf(code: string | undefined, message: string): Kind {
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return 'unique';
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return 'notnull';
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return 'foreignkey';
    case 'SQLITE_CONSTRAINT_CHECK':
      return 'check';
    case 'SQLITE_MISMATCH':
    case 'SQLITE_TOOBIG':
      return 'mismatch';
    case 'SQLITE_CONSTRAINT':
      if (message.startsWith('UNIQUE constraint failed')) return 'unique';
      if (message.startsWith('NOT NULL constraint failed')) return 'notnull';
      if (message.startsWith('FOREIGN KEY constraint failed')) return 'foreignkey';
      if (message.startsWith('CHECK constraint failed')) return 'check';
      return null;
    default:
      return null;
  }
}

function foreignKeyMessage(context: WriteContext): string {
  switch (context.operation) {
    case 'delete':
      return 'This row cannot be deleted: other rows refer to it';
    case 'insert':
      return 'This row refers to a row that does not exist';
    default:
      // An update may point a reference nowhere or change a key other rows use; SQLite does not say which.
      return 'This row would refer to a row that does not exist, or other rows refer to it';
  }
}

/**
 * The columns after `constraint failed: ` when every item is `<written table>.<column>` and a
 * column of the context; null otherwise (an expression index is reported as `index 'name'`).
 */
function listedColumns(message: string, context: WriteContext): string[] | null {
  const list = /constraint failed: (.+)$/.exec(message)?.[1];
  if (!list) return null;
  const prefix = `${context.table.name}.`;
  const names: string[] = [];
  for (const item of list.split(', ')) {
    if (!item.startsWith(prefix)) return null;
    const name = item.slice(prefix.length);
    if (context.columns.length > 0 && !context.columns.some((c) => c.name === name)) return null;
    names.push(name);
  }
  return names.length ? names : null;
}
