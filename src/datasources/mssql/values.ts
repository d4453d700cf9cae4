import type { ModelColumn } from '../core/dialect';
import { formatCommon, jsonText } from '../core/value-format';

/**
 * Values as `mssql` binds them well: 64-bit integer text becomes a JS bigint (bound as `bigint`,
 * exact); timestamp text gets the ISO `T` (`2024-01-02T03:04:05`, date-only text midnight), the
 * form SQL Server reads the same under every DATEFORMAT and language (docs, "datetime", ISO 8601
 * format). Booleans bind as bit; decimal text stays text (converted by the server to the column's
 * type); everything else as given.
 */
export function mssqlBindValue(column: ModelColumn, value: unknown): unknown {
  if (column.kind === 'json' && value !== null && value !== undefined) return jsonText(value);
  if (column.kind === 'bigint' && typeof value === 'string' && /^-?\d{1,19}$/.test(value)) {
    const n = BigInt(value);
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return n;
  }
  if (column.kind === 'timestamp' && typeof value === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?$/.exec(value.trim());
    if (m) return `${m[1]}T${m[2] ?? '00:00:00'}`;
  }
  return value;
}

/**
 * The contract's output form (CONTRACT.md §6 Values) of a tedious value: timestamp Dates as
 * `YYYY-MM-DDTHH:mm:ss[.fff]` from their UTC fields (the stored value under `useUTC`), time Dates
 * as `HH:mm:ss[.fff]`, uuids lower-cased; the rest as every adapter formats it (datetimeoffset
 * `…sssZ`, date `YYYY-MM-DD`, bigint/decimal exact text, bit boolean, binary base64).
 */
export function formatMssqlValue(column: ModelColumn, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date && !Number.isNaN(raw.getTime())) {
    if (column.kind === 'timestamp') return utcTimestamp(raw);
    if (column.kind === 'time') return utcTime(raw);
  }
  if (column.kind === 'uuid' && typeof raw === 'string') return raw.toLowerCase();
  return formatCommon(column, raw);
}

/** `YYYY-MM-DDTHH:mm:ss[.fff]` from a Date's UTC fields (`.fff` only when not zero). */
function utcTimestamp(date: Date): string {
  const iso = date.toISOString();
  const ms = date.getUTCMilliseconds();
  // toISOString gives `+YYYYYY-…` only beyond year 9999, which SQL Server cannot store.
  return ms ? iso.slice(0, 23) : iso.slice(0, 19);
}

/** `HH:mm:ss[.fff]` from a Date's UTC fields. */
function utcTime(date: Date): string {
  const iso = date.toISOString();
  return date.getUTCMilliseconds() ? iso.slice(11, 23) : iso.slice(11, 19);
}
