import type { DatasourceType, ModelColumn } from '../datasources/core/dialect';

/** The whole numbers a column can hold, both ends included. */
export interface IntegerRange {
  min: bigint;
  max: bigint;
}

const signed = (bits: number): IntegerRange => ({
  min: -(2n ** BigInt(bits - 1)),
  max: 2n ** BigInt(bits - 1) - 1n,
});
const unsigned = (bits: number): IntegerRange => ({ min: 0n, max: 2n ** BigInt(bits) - 1n });

/** Integer widths by type name, as each database's documentation gives them. */
const WIDTHS: Record<string, number> = {
  tinyint: 8,
  smallint: 16,
  int2: 16,
  mediumint: 24,
  int: 32,
  integer: 32,
  int4: 32,
  bigint: 64,
  int8: 64,
};

/**
 * The range of an integer column, from its database type (PostgreSQL "Numeric Types"; MySQL
 * "Integer Types" incl. `UNSIGNED` and `YEAR` 1901–2155 or 0; SQL Server "int, bigint, smallint,
 * and tinyint", its `tinyint` being 0–255; SQLite integers are 64-bit), or null when the column
 * is not an integer column or its type is not one of these.
 */
export function integerRange(type: DatasourceType, column: ModelColumn): IntegerRange | null {
  // Model columns live as long as their schema: the range is read from the type once.
  let range = RANGES.get(column);
  if (range === undefined) {
    range = rangeOfType(type, column);
    RANGES.set(column, range);
  }
  return range;
}

/** Ranges per model column (a column belongs to one datasource, so to one database type). */
const RANGES = new WeakMap<ModelColumn, IntegerRange | null>();

function rangeOfType(type: DatasourceType, column: ModelColumn): IntegerRange | null {
  if (column.kind !== 'int' && column.kind !== 'bigint') return null;
  if (type === 'sqlite') return signed(64);
  const dbType = column.dbType.toLowerCase();
  const name = /^[a-z0-9]+/.exec(dbType)?.[0] ?? '';
  if (type === 'mysql' && name === 'year') return { min: 0n, max: 2155n };
  if (type === 'mysql' && name === 'bit') {
    const bits = Number(/\((\d+)\)/.exec(dbType)?.[1] ?? 1);
    return unsigned(bits);
  }
  if (type === 'mssql' && name === 'tinyint') return unsigned(8);
  const bits = WIDTHS[name];
  if (!bits) return null;
  return type === 'mysql' && /\bunsigned\b/.test(dbType) ? unsigned(bits) : signed(bits);
}

/**
 * Where a value lies against its column's range: `below`, `above`, or null when it fits (or is
 * not a whole number, or the column has no known range: the database decides then). Whole numbers
 * of integer columns, and the durations of MySQL/MariaDB `TIME` columns ({@link outsideDuration}).
 */
export function outsideRange(
  type: DatasourceType,
  column: ModelColumn,
  value: unknown,
): 'below' | 'above' | null {
  if (column.kind === 'duration') return outsideDuration(value);
  const range = integerRange(type, column);
  if (!range) return null;
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (typeof text !== 'string' || !/^\s*-?\d+\s*$/.test(text)) return null;
  const n = BigInt(text.trim());
  if (n < range.min) return 'below';
  if (n > range.max) return 'above';
  return null;
}

/** The largest MySQL/MariaDB `TIME`, 838:59:59.000000, in microseconds (MySQL "The TIME Type"). */
const DURATION_MAX_MICROS = ((838 * 60 + 59) * 60 + 59) * 1_000_000;

/** What a duration column holds, for messages. */
export const DURATION_RANGE = 'from -838:59:59 to 838:59:59';

/**
 * Where a duration (`[-]H[HH]:MM[:SS[.ffffff]]`, the `Duration` scalar's text) lies against a
 * MySQL/MariaDB `TIME`'s range, -838:59:59.000000 to 838:59:59.000000: `below`, `above`, or null
 * when it fits or is not such text (the database decides then). `839:00:00` is above, and so is
 * `838:59:59.5`, which MariaDB would otherwise clip to 838:59:59 without a word.
 */
export function outsideDuration(value: unknown): 'below' | 'above' | null {
  if (typeof value !== 'string') return null;
  const m = /^(-)?(\d{1,3}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(value);
  if (!m) return null;
  const seconds = (Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0);
  const micros = seconds * 1_000_000 + Number((m[5] ?? '').padEnd(6, '0'));
  if (micros <= DURATION_MAX_MICROS) return null;
  return m[1] ? 'below' : 'above';
}

/** The text of a range for messages: `from -32768 to 32767`. */
export function describeRange(range: IntegerRange): string {
  return `from ${range.min} to ${range.max}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is UUID text (8-4-4-4-12 hexadecimal digits, RFC 9562 §4). */
export function isUuidText(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Whether a written value lies outside its column's database enum type (PostgreSQL "Enumerated
 * Types": labels are case-sensitive; MySQL "The ENUM Type": a value is matched under the column's
 * collation, case-insensitively under the usual `_ci` ones, so it is compared ignoring case there
 * and the database decides the rest). False when the column has no database enum, or for null.
 * A column typed by its database enum cannot receive such a value through GraphQL; one with an
 * app enum assigned (which wins) can.
 */
export function outsideEnum(type: DatasourceType, column: ModelColumn, value: unknown): boolean {
  const values = column.dbEnum?.values;
  if (!Array.isArray(values) || values.length === 0 || typeof value !== 'string') return false;
  if (type === 'mysql') {
    const folded = value.toLowerCase();
    return !values.some((v) => typeof v === 'string' && v.toLowerCase() === folded);
  }
  return !values.includes(value);
}

/** The digits a decimal column holds: `precision` in all, `scale` of them after the point. */
export interface DecimalShape {
  precision: number;
  scale: number;
}

/**
 * The precision and scale of a fixed-point column from its full type (`declaredType`, else
 * `dbType`): `numeric(5,2)`, `decimal(10)` (scale 0), MySQL's `decimal(5,2) unsigned`. Null for a
 * column that is not `decimal`, for an unbounded `numeric`, for a domain (its name hides the
 * type), and on SQLite, whose declared `numeric(p,s)` is only an affinity and holds any number
 * (sqlite.org/datatype3.html §3.1). PostgreSQL "Arbitrary Precision Numbers", MySQL "Fixed-Point
 * Types", SQL Server "decimal and numeric".
 */
export function decimalShape(type: DatasourceType, column: ModelColumn): DecimalShape | null {
  // Read from the type once per model column, as integer ranges are.
  let shape = SHAPES.get(column);
  if (shape === undefined) {
    shape = shapeOfType(type, column);
    SHAPES.set(column, shape);
  }
  return shape;
}

/** Decimal shapes per model column (a column belongs to one datasource, so one database type). */
const SHAPES = new WeakMap<ModelColumn, DecimalShape | null>();

function shapeOfType(type: DatasourceType, column: ModelColumn): DecimalShape | null {
  if (column.kind !== 'decimal' || type === 'sqlite') return null;
  const full = (column.declaredType ?? column.dbType).toLowerCase();
  const m = /^(?:numeric|decimal|dec|fixed)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(full);
  if (!m) return null;
  const precision = Number(m[1]);
  const scale = Number(m[2] ?? 0);
  return precision > 0 && scale <= precision ? { precision, scale } : null;
}

/**
 * Whether a decimal value has more whole digits than its column holds, once rounded to the
 * column's scale (half away from zero, as PostgreSQL, MariaDB and SQL Server round extra
 * decimals: PostgreSQL "Arbitrary Precision Numbers" — `numeric(5,2)` must round to an absolute
 * value below 10^3; MySQL "Fixed-Point Types": strict mode refuses it, error 1264). Extra
 * decimals alone are no overflow: every one of these databases rounds them. False for a value
 * that is not decimal text or a finite number (the scalar refused those already).
 */
export function decimalOverflows(shape: DecimalShape, value: unknown): boolean {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof text !== 'string') return false;
  const m = /^\s*[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*$/.exec(text);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return false;
  const digits = BigInt(`${m[1]}${m[2] ?? ''}` || '0');
  const exponent = Number(m[3] ?? 0) - (m[2] ?? '').length;
  // A decimal exponent far outside any column's digits: a non-zero value certainly overflows.
  if (exponent + shape.scale > 1000) return digits !== 0n;
  let scaled: bigint;
  if (exponent + shape.scale >= 0) {
    scaled = digits * 10n ** BigInt(exponent + shape.scale);
  } else {
    const shift = -(exponent + shape.scale);
    if (shift > 1000) return false;
    const divisor = 10n ** BigInt(shift);
    scaled = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) scaled += 1n;
  }
  return scaled >= 10n ** BigInt(shape.precision);
}

/**
 * Whether date or date-time text names a day that does not exist (`2024-02-30`, month 13) or a
 * time of day past any database's range (hour above 24, minute above 59, second above 60).
 * PostgreSQL ("Date/Time Input": 22008 `date/time field value out of range`), MariaDB (strict
 * mode: 1292 `Incorrect date value`) and SQL Server (241/242) all refuse these; SQLite stores any
 * text, so checking it first makes every database answer alike. Only the `YYYY-MM-DD` start and
 * an `HH:MM[:SS]` after it are read; anything else is left to the scalar and the database.
 */
export function impossibleDateTime(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return true;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day > days) return true;
  if (m[4] === undefined) return false;
  return Number(m[4]) > 24 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 60;
}
