import type { ModelColumn } from '../core/dialect';
import { formatCommon, formatInstant, jsonText } from '../core/value-format';
import { MysqlDecimal } from './pool';

/**
 * Spatial columns (kind `other`, the only ones here) compare their WKT as read, `eq`/`neq`
 * included (README "Values"): `ST_AsText(col) = ?`. Text that is not the column's WKT finds
 * nothing; no index serves it.
 */
export function mysqlComparedAs(column: ModelColumn): string | null {
  return column.kind === 'other' ? 'wkt' : null;
}

/**
 * A value as the pool binds it (see `toMysqlParameter` in mysql-pool.ts):
 * - booleans → 1/0 (`tinyint(1)`/`bit(1)` hold numbers);
 * - int/bigint: integer text → BigInt, bound as a 64-bit integer (exact beyond 2^53);
 * - decimal: a number or numeric text → {@link MysqlDecimal}, bound as DECIMAL (exact);
 * - timestamptz (TIMESTAMP): text with an offset or `Z` → the UTC instant as
 *   `YYYY-MM-DD HH:MM:SS.fff` (sessions run in UTC), a Date likewise;
 * - timestamp (DATETIME): `T` → space, the form MySQL prints and compares as text;
 * - json: any value → its JSON text (a string too: `"abc"`).
 * - float (FLOAT, single precision): the number rounded to single precision as storing it would
 *   ({@link singlePrecision}), so a filter compares what the column holds: MariaDB compares a
 *   FLOAT column as the double it widens to (`0.10000000149011612`), which `0.1`, the value a
 *   read shows, does not equal (`eq` found nothing, `gt` found the row).
 */
export function mysqlBindValue(column: ModelColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.kind === 'json') return jsonText(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  switch (column.kind) {
    case 'int':
    case 'bigint':
      return typeof value === 'string' && /^-?\d+$/.test(value.trim())
        ? BigInt(value.trim())
        : value;
    case 'decimal':
      if (typeof value === 'number' && Number.isFinite(value))
        return new MysqlDecimal(String(value));
      if (typeof value === 'bigint') return new MysqlDecimal(value.toString());
      return typeof value === 'string' &&
        /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)
        ? new MysqlDecimal(value.trim())
        : value;
    case 'timestamptz':
      if (value instanceof Date) return utcText(formatInstant(value));
      if (
        typeof value === 'string' &&
        /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value.trim()) &&
        /[ T]\d{2}:\d{2}/.test(value)
      ) {
        return utcText(formatInstant(value.trim().replace(/z$/, 'Z')));
      }
      return typeof value === 'string' ? value.replace('T', ' ') : value;
    case 'timestamp':
      return typeof value === 'string' ? value.replace('T', ' ') : value;
    case 'float':
      return /^float\b/i.test(column.dbType) ? singlePrecision(value) : value;
    default:
      return value;
  }
}

/**
 * The contract's form of a driver value (CONTRACT.md §6 Values). The pool reads dates as text,
 * so: DATETIME `YYYY-MM-DDTHH:mm:ss[.fff]` as stored; TIMESTAMP (read in the UTC session)
 * `YYYY-MM-DDTHH:mm:ss.sssZ`; DATE `YYYY-MM-DD`; an all-zero date (`0000-00-00`, which MySQL
 * stores for invalid dates outside strict mode) → null. Booleans: `tinyint(1)` is true when
 * not 0, `bit(1)` arrives as a one-byte Buffer; a wider `bit(n)` as its integer text.
 * FLOAT (single precision) is shown with the fewest digits that round-trip to the stored value
 * (`1.1`, not `1.100000023841858`); BIGINT and DECIMAL stay exact text.
 */
export function formatMysqlValue(column: ModelColumn, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (column.kind) {
    case 'timestamp':
    case 'timestamptz':
    case 'date':
      if (typeof raw === 'string' && /^0000-00-00/.test(raw)) return null;
      return formatCommon(column, raw);
    case 'boolean':
      if (Buffer.isBuffer(raw)) return raw.some((b) => b !== 0);
      if (typeof raw === 'number') return raw !== 0;
      if (typeof raw === 'bigint') return raw !== 0n;
      return formatCommon(column, raw);
    case 'bigint':
    case 'int':
      if (Buffer.isBuffer(raw)) return bitsToText(raw, column.kind);
      return formatCommon(column, raw);
    case 'float':
      if (typeof raw === 'number' && /^float\b/i.test(column.dbType)) return shortestFloat32(raw);
      return formatCommon(column, raw);
    default:
      return formatCommon(column, raw);
  }
}

/** `2024-01-02T03:04:05.678Z` → `2024-01-02 03:04:05.678` (the text of a UTC instant for a UTC session). */
function utcText(iso: string): string {
  const m = /^(\d{4,}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** A BIT(n) value (big-endian bytes) as an integer: a number for kind int, exact text for bigint. */
function bitsToText(raw: Buffer, kind: 'int' | 'bigint'): string | number {
  let n = 0n;
  for (const byte of raw) n = (n << 8n) | BigInt(byte);
  return kind === 'int' ? Number(n) : n.toString();
}

/**
 * A number (or numeric text) rounded to the nearest single-precision float, as a double that is
 * that float exactly: what a FLOAT column stores for it. Bound so, it compares equal to the
 * column's value widened to DOUBLE. A number beyond single precision's range is left as it is
 * (no FLOAT holds it: it compares as beyond every stored value); anything else too.
 */
export function singlePrecision(value: unknown): unknown {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(n)) return value;
  const single = Math.fround(n);
  return Number.isFinite(single) ? single : value;
}

/** The shortest decimal that rounds to the same single-precision float as `value`. */
function shortestFloat32(value: number): number {
  if (!Number.isFinite(value)) return value;
  const target = Math.fround(value);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === target) return candidate;
  }
  return value;
}
