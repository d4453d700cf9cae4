import type { Column } from './row-schema';

/**
 * Values of the row browser (issue 27 items 6 and 8): shown to the reader in their own language
 * and time zone (`Intl`, no locale given), edited in native controls, and sent back in the
 * contract's formats (CONTRACT.md §6 "Values"):
 *
 * - `DateTime` (an instant, `YYYY-MM-DDTHH:mm:ss.sssZ`): shown and edited in the reader's zone,
 *   sent as UTC ISO-8601 (`Date.toISOString`).
 * - `LocalDateTime` (no zone, `YYYY-MM-DDTHH:mm:ss[.fff]`) and `Date` (`YYYY-MM-DD`): shown in the
 *   reader's language as stored, never moved to another zone; sent as typed.
 * - `Int`, `Float`: JSON numbers; `BigInt`, `Decimal`: decimal text (never loses digits);
 *   `Boolean`: true/false; enums: one of their values; `JSON` and lists: JSON text, sent parsed.
 * - Anything else (`String`, `ID`, `Time`, `Duration`, `Base64`, text forms): text as typed.
 */

/** How a value of a column is typed in: which native control. */
export type InputKind =
  'text' | 'integer' | 'number' | 'date' | 'datetime' | 'boolean' | 'enum' | 'json';

/** The control for a column's values. */
export function inputKindOf(column: Column): InputKind {
  if (column.list) return 'json';
  if (column.isEnum) return 'enum';
  switch (column.type) {
    case 'Int':
      return 'integer';
    case 'Float':
      return 'number';
    case 'Boolean':
      return 'boolean';
    case 'Date':
      return 'date';
    case 'DateTime':
    case 'LocalDateTime':
      return 'datetime';
    case 'JSON':
      return 'json';
    default:
      return 'text';
  }
}

/** What a reader is told to type, for controls that do not show it themselves. */
export function formatHint(column: Column): string | null {
  if (column.list) return 'a JSON list, e.g. ["a", "b"]';
  switch (column.type) {
    case 'JSON':
      return 'JSON, e.g. {"a": 1}';
    case 'BigInt':
      return 'a whole number';
    case 'Decimal':
      return 'a decimal number, e.g. 12.50';
    case 'Time':
      return 'HH:mm:ss';
    case 'Duration':
      return '[-]HH:MM:SS';
    case 'Base64':
      return 'base64 text';
    case 'DateTime':
      return `in your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone})`;
    case 'LocalDateTime':
      return 'as stored, no time zone';
    default:
      return null;
  }
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const STORED_DATE_TIME = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'medium',
  timeZone: 'UTC',
});
const STORED_DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** `YYYY-MM-DD[THH:mm[:ss[.fff]]]` read as UTC parts (a value without a zone, as stored). */
function storedAsUtc(text: string): Date | null {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0'] = m;
  const date = new Date(Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +s, +ms.padEnd(3, '0')));
  // Years 0–99 are not shifted to 1900–1999.
  date.setUTCFullYear(+y!);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * A value as the grid shows it: dates and times in the reader's language (and, for instants,
 * zone); JSON and lists as JSON; others as the API answered them. `null` for an empty value,
 * which the grid marks as empty.
 */
export function displayValue(column: Column, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (column.list || column.type === 'JSON') return JSON.stringify(value);
  if (typeof value !== 'string') return String(value);
  if (column.type === 'DateTime') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : DATE_TIME.format(date);
  }
  if (column.type === 'LocalDateTime' || column.type === 'Date') {
    const date = storedAsUtc(value);
    if (!date) return value;
    return (column.type === 'Date' ? STORED_DATE : STORED_DATE_TIME).format(date);
  }
  return value;
}

const two = (n: number) => String(n).padStart(2, '0');

/** A value as its control holds it (the reverse of {@link parseValue}). */
export function editText(column: Column, value: unknown): string {
  if (value === null || value === undefined) return '';
  const kind = inputKindOf(column);
  if (kind === 'json') return JSON.stringify(value);
  const text = String(value);
  if (column.type === 'DateTime') {
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return text;
    return (
      `${String(date.getFullYear()).padStart(4, '0')}-${two(date.getMonth() + 1)}-${two(date.getDate())}` +
      `T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
    );
  }
  if (column.type === 'LocalDateTime') return text.replace(' ', 'T').slice(0, 19);
  return text;
}

/** A value the reader typed that the column cannot take, with what to change. */
export class ValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValueError';
  }
}

/**
 * What the reader typed in a column's control, in the contract's format for `variables`:
 * `undefined` is never answered; empty text is `null` (empty) for a column that may be empty,
 * and `""` for a text column that may not.
 * @throws ValueError naming the column when the text is not a value of its type.
 */
export function parseValue(column: Column, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' && (column.nullable || inputKindOf(column) !== 'text')) {
    if (column.nullable) return null;
    throw new ValueError(`${column.name} may not be empty`);
  }
  switch (inputKindOf(column)) {
    case 'integer': {
      const n = Number(trimmed);
      if (!Number.isInteger(n)) throw new ValueError(`${column.name} takes a whole number`);
      return n;
    }
    case 'number': {
      const n = Number(trimmed);
      if (!Number.isFinite(n)) throw new ValueError(`${column.name} takes a number`);
      return n;
    }
    case 'boolean':
      if (trimmed !== 'true' && trimmed !== 'false')
        throw new ValueError(`${column.name} takes true or false`);
      return trimmed === 'true';
    case 'json':
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        throw new ValueError(`${column.name} takes JSON (${formatHint(column)})`);
      }
    case 'datetime': {
      // datetime-local leaves out seconds when they are zero.
      const local = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(trimmed) ? `${trimmed}:00` : trimmed;
      if (column.type === 'LocalDateTime') return local;
      // A date-time without an offset is the reader's local time (ECMAScript Date Time String).
      const date = new Date(local);
      if (Number.isNaN(date.getTime()))
        throw new ValueError(`${column.name} takes a date and time`);
      return date.toISOString();
    }
    default:
      return column.type === 'BigInt' || column.type === 'Decimal' ? trimmed : text;
  }
}
