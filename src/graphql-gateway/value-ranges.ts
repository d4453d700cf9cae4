import type { DatasourceType, ModelColumn } from '../datasources/dialect';

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
 * Where a whole-number value lies against its column's range: `below`, `above`, or null when it
 * fits (or is not a whole number, or the column has no known range: the database decides then).
 */
export function outsideRange(
  type: DatasourceType,
  column: ModelColumn,
  value: unknown,
): 'below' | 'above' | null {
  const range = integerRange(type, column);
  if (!range) return null;
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (typeof text !== 'string' || !/^\s*-?\d+\s*$/.test(text)) return null;
  const n = BigInt(text.trim());
  if (n < range.min) return 'below';
  if (n > range.max) return 'above';
  return null;
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
