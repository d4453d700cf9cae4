import type { DatabaseRefusal, WriteContext } from './dialect';

/**
 * Small helpers the adapters' error translators share (`*-errors.ts`): reading driver error
 * objects safely and naming fields in plain words.
 */

/** `name` when it is a column of the written table (or when the context lists no columns), else null. */
export function knownColumn(name: string | undefined, context: WriteContext): string | null {
  if (!name) return null;
  if (context.columns.length === 0) return name;
  return context.columns.some((c) => c.name === name) ? name : null;
}

/** `a`, `a and b`, `a, b and c`. */
export function wordList(words: string[]): string {
  return words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Whether a value is a non-null object (a driver error or one of its parts). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The value when it is non-empty text, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The INVALID_VALUE refusal (CONTRACT.md §6): a value its column cannot hold. `reason` is plain
 * words (`out of range`), never the driver's text. With a field: `qty cannot hold this value: it
 * breaks a rule of the table`; without: `A value does not fit its column: …`.
 */
export function invalidValue(field: string | null, reason: string): DatabaseRefusal {
  return {
    code: 'INVALID_VALUE',
    field,
    message: field
      ? `${field} cannot hold this value: ${reason}`
      : `A value does not fit its column: ${reason}`,
  };
}

/**
 * The same INVALID_VALUE refusal naming `field`, where the database named none but the write tells
 * which column it was (`runWrite`: the one column it set). Other refusals are returned unchanged.
 */
export function nameInvalidValue(refusal: DatabaseRefusal, field: string): DatabaseRefusal {
  if (refusal.code !== 'INVALID_VALUE' || refusal.field !== null) return refusal;
  const prefix = 'A value does not fit its column: ';
  const reason = refusal.message.startsWith(prefix)
    ? refusal.message.slice(prefix.length)
    : 'it does not fit the column';
  return invalidValue(field, reason);
}

/** The columns of `context` whose name is `name`, case-insensitively when no exact match exists. */
export function columnNamed(name: string | undefined, context: WriteContext): string | null {
  if (!name) return null;
  if (context.columns.some((c) => c.name === name)) return name;
  const folded = context.columns.filter((c) => c.name.toLowerCase() === name.toLowerCase());
  return folded.length === 1 ? folded[0].name : null;
}

/**
 * The one column of `context` that an SQL expression mentions as a whole word (`qty > 0` → qty,
 * `"Unit Price" >= 0` → Unit Price), or null when it mentions none or several. For a CHECK
 * constraint's text, which names no column directly.
 */
export function soleColumnOf(expression: string, context: WriteContext): string | null {
  const found = new Set<string>();
  for (const m of expression.matchAll(
    /"((?:[^"]|"")+)"|`((?:[^`]|``)+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_$]*)/g,
  )) {
    const name = m[1]?.replace(/""/g, '"') ?? m[2]?.replace(/``/g, '`') ?? m[3] ?? m[4];
    const column = columnNamed(name, context);
    if (column) found.add(column);
  }
  return found.size === 1 ? [...found][0] : null;
}

/**
 * The TRANSACTION_CONFLICT refusal (README "Writing rows", issue 24): the database chose this
 * request's transaction as the victim of a deadlock, or a lock wait ran out. The request's
 * transaction is rolled back, so nothing was written, and sending it again may succeed. Field null.
 */
export function transactionConflict(): DatabaseRefusal {
  return {
    code: 'TRANSACTION_CONFLICT',
    field: null,
    message: 'The request conflicted with a concurrent write and was rolled back; send it again',
  };
}

/**
 * The UNIQUE_VIOLATION refusal (CONTRACT.md §6): a row with the same key exists. With the key's
 * columns (as the table names them): field the first, `A row with this email already exists`
 * (`a and b` for several); without (a key the database did not name, or not of the written
 * table): field null, `A row with these values already exists`.
 */
export function uniqueRefusal(columns: string[] | null): DatabaseRefusal {
  if (!columns || columns.length === 0)
    return {
      code: 'UNIQUE_VIOLATION',
      field: null,
      message: 'A row with these values already exists',
    };
  return {
    code: 'UNIQUE_VIOLATION',
    field: columns[0],
    message: `A row with this ${wordList(columns)} already exists`,
  };
}

/**
 * The FOREIGN_KEY_VIOLATION refusal of a row other rows refer to (CONTRACT.md §6): deleting it,
 * or changing its referenced `field` (null when the database did not say which).
 * `referencingTable` names where the referring rows are, when the database said so.
 * Delete: `This row cannot be deleted: rows in orders refer to it`; update:
 * `id cannot be changed: rows in orders refer to this row`, or without a field `This row cannot
 * be changed: other rows refer to it`.
 */
export function referencedRowRefusal(
  operation: WriteContext['operation'],
  field: string | null,
  referencingTable: string | undefined,
): DatabaseRefusal {
  const others = referencingTable ? `rows in ${referencingTable}` : 'other rows';
  if (operation === 'delete')
    return {
      code: 'FOREIGN_KEY_VIOLATION',
      field,
      message: `This row cannot be deleted: ${others} refer to it`,
    };
  return {
    code: 'FOREIGN_KEY_VIOLATION',
    field,
    message: field
      ? `${field} cannot be changed: ${others} refer to this row`
      : `This row cannot be changed: ${others} refer to it`,
  };
}
