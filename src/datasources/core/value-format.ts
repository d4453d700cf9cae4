import { arrayElement, UnreadableValue, type ModelColumn } from './dialect';

/**
 * Value formatting shared by the adapters (CONTRACT.md §6 Values). Each takes the text a driver
 * returns with its date parsing switched off, so no process or session time zone is involved.
 */

const LOCAL = /^(\d{4,}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?(?:\.(\d+))?$/;

/** Fraction of a second as `.fff` (milliseconds), or '' when there is none or it is zero-length. */
function millis(fraction: string | undefined): string {
  return fraction ? '.' + fraction.padEnd(3, '0').slice(0, 3) : '';
}

/**
 * A timestamp without time zone as stored: `YYYY-MM-DDTHH:mm:ss[.fff]`, no offset.
 * Text it does not recognise (e.g. `infinity`) is returned unchanged.
 */
export function formatLocalTimestamp(text: string): string {
  const m = LOCAL.exec(text.trim());
  return m ? `${m[1]}T${m[2]}${m[3] ?? ':00'}${millis(m[4])}` : text;
}

/** `YYYY-MM-DD HH:mm:ss[.f…]+00` (or `Z`): the shape of an instant already in UTC. */
const UTC_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:\+00(?::?00)?|Z)$/;

/** The two ASCII digits at `at` as a number (the text's shape was already tested). */
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month of the proleptic Gregorian calendar (JavaScript's and PostgreSQL's). */
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/**
 * An instant as `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC). Accepts a Date or text with an offset such as
 * `2024-01-02 03:04:05.123456+05:30`, `…+00`, `…Z`, a time without seconds (`2024-01-02T03:04+02:00`,
 * as the `DateTime` scalar takes it), or PostgreSQL's local-mean-time offsets with
 * seconds (`-03:06:28`, for dates before a zone adopted standard time). Text it does not
 * recognise is returned unchanged.
 */
export function formatInstant(value: string | Date): string {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  // Fast path (profiled: ~1 µs per value with a capturing regex, the largest cost of a page of
  // timestamps): text already in UTC, as PostgreSQL sends it in a UTC session, holding a valid
  // date and time of a year from 100 on. Only the separator, the milliseconds and the `Z`
  // change; the result is the general path's. Anything else takes the general path below, which
  // normalises or refuses it as before.
  if (UTC_TEXT.test(value)) {
    const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
    const month = twoDigits(value, 5);
    const day = twoDigits(value, 8);
    if (
      year >= 100 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= daysInMonth(year, month) &&
      twoDigits(value, 11) < 24 &&
      twoDigits(value, 14) < 60 &&
      twoDigits(value, 17) < 60
    ) {
      let end = 20;
      while (end < 23 && value.charCodeAt(end) >= 48 && value.charCodeAt(end) <= 57) end++;
      const fraction = value.charCodeAt(19) === 46 ? value.slice(20, end) : '';
      return `${value.slice(0, 10)}T${value.slice(11, 19)}${millis(fraction) || '.000'}Z`;
    }
  }
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/.exec(
      value.trim(),
    );
  if (!m) return value;
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const local = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    ms,
  );
  const offsetSeconds = m[9]
    ? (m[9] === '-' ? -1 : 1) *
      (Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60 + Number(m[12] ?? 0))
    : 0;
  const date = new Date(local - offsetSeconds * 1000);
  if (Number(m[1]) < 100) date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** A date as `YYYY-MM-DD` (the date part of whatever the driver gave). */
export function formatDate(value: string | Date): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const m = /^(\d{4,}-\d{2}-\d{2})/.exec(value);
  return m ? m[1] : value;
}

/** A 64-bit integer or decimal as exact decimal text (never through a float). */
export function formatExactNumber(value: unknown): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}

/**
 * A JSON column's value: every adapter reads the database's JSON text (PostgreSQL and mysql2
 * parsers switched off), parsed here once; text that is not JSON (SQLite stores what it is
 * given) stays text.
 */
export function parseJsonText(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A JSON column's input value as the JSON text every database stores. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * Bytes as standard base64 (RFC 4648 §4, with padding). A Uint8Array is what a Buffer becomes
 * when it crosses from a worker thread; text in a binary column (SQLite stores what it is given)
 * is its UTF-8 bytes.
 */
export function bytesToBase64(raw: unknown): string {
  if (raw instanceof Uint8Array) {
    return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
  }
  return Buffer.from(String(raw), 'utf8').toString('base64');
}

/**
 * An array column's elements in the contract's output form (README "Values": arrays are lists of
 * the element's scalar): `elements` as an array parser gives them (element text, `null` for a
 * NULL element, a nested array for a further dimension), each formatted as a plain column of the
 * element kind would be ({@link formatCommon} on {@link arrayElement}), NULL elements kept. A
 * value with more than one dimension cannot be a list of scalars: it is an
 * {@link UnreadableValue} naming the column, returned so only that field fails.
 * @param column an `array` column with a known element kind.
 */
export function formatArrayElements(
  column: ModelColumn,
  elements: readonly unknown[],
): unknown[] | UnreadableValue {
  const element = arrayElement(column);
  if (!element) return elements.map((e) => (e === null ? null : String(e)));
  if (elements.some((e) => Array.isArray(e))) {
    return new UnreadableValue(
      `${column.name} holds an array of more than one dimension, which its list type cannot show`,
    );
  }
  return elements.map((e) => (e === null || e === undefined ? null : formatCommon(element, e)));
}

/**
 * Formatting shared by the adapters once the driver's value is in hand (CONTRACT.md §6 Values):
 * dates and times from text, 64-bit integers and decimals as exact text, booleans from 0/1.
 */
export function formatCommon(column: ModelColumn, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (column.kind) {
    case 'timestamp':
      return typeof raw === 'string' ? formatLocalTimestamp(raw) : String(raw);
    case 'timestamptz':
      return typeof raw === 'string' || raw instanceof Date ? formatInstant(raw) : String(raw);
    case 'date':
      return typeof raw === 'string' || raw instanceof Date ? formatDate(raw) : String(raw);
    case 'bigint':
    case 'decimal':
      return formatExactNumber(raw);
    case 'int':
      // A 64-bit value beyond 2^53 (an SQLite INTEGER rowid) stays exact text: as ID it is
      // shown whole, as Int GraphQL refuses it loudly instead of rounding it.
      if (typeof raw === 'bigint')
        return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw.toString();
      return typeof raw === 'number' ? raw : Number(raw);
    case 'float':
      return typeof raw === 'number' ? raw : Number(raw);
    case 'boolean':
      return (
        raw === true || raw === 1 || raw === 1n || raw === '1' || raw === 't' || raw === 'true'
      );
    case 'json':
      return parseJsonText(raw);
    case 'binary':
      return bytesToBase64(raw);
    default:
      if (Buffer.isBuffer(raw)) return raw.toString('base64');
      if (typeof raw === 'object') return JSON.stringify(raw);
      return String(raw);
  }
}
