import { types as pgTypes } from 'pg';
import { arrayElement, type ModelColumn } from '../core/dialect';
import { formatArrayElements, formatCommon, jsonText } from '../core/value-format';

/**
 * OIDs pg parses for us: booleans, integers, floats, bytes (PostgreSQL `pg_type`). Every other
 * type stays the text PostgreSQL prints, which is also what it accepts back (issue "every value
 * it stores": intervals, points, arrays … round-trip as their text form).
 */
const PARSED_OIDS = new Set([16 /* bool */, 17 /* bytea */, 20, 21, 23, 26 /* oid */, 700, 701]);

/** Per-pool type parsers: everything but {@link PARSED_OIDS} stays text (dates too, so no time zone applies). */
export const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (!PARSED_OIDS.has(oid)) return (text: string) => text;
    return pgTypes.getTypeParser(oid, format as 'text');
  },
};

/**
 * PostgreSQL's array text (`{a,"b c",NULL}`, `[0:1]={1,2}`, `{{1,2},{3,4}}`) as element texts,
 * `null` for NULL elements and nested arrays for further dimensions: node-postgres' own parser of
 * `text[]` (OID 1009, pg-types over `postgres-array`), which takes the element texts as they are.
 * Taken once, when this module loads: the pool keeps every array type as text
 * ({@link PARSED_OIDS}), and only the model (`kind: 'array'`) decides to read one as a list.
 */
const parseArrayText = (
  pgTypes.getTypeParser as (oid: number, format: 'text') => (text: string) => unknown[] | null
)(1009 /* text[] */, 'text');

/**
 * How `eq`/`neq` (and `in`/`nin`) compare a column PostgreSQL reads as its text form (kind
 * `other`) or as a list (kind `array`), by type (README "Values", "Text forms and arrays in
 * filters"). Keyed by `information_schema.columns.data_type` (a domain reads as its base type) or,
 * for an array, by its element's `typname` and `[]`; `cast` is the SQL type the bound parameter
 * is cast to, from this table only (never from the model), so text the type refuses is refused
 * by the type's own input function (`INVALID_VALUE` naming the field, `invalidValueField`).
 * - `equal`: the type's own `=` (a btree equality, which an index on the column serves):
 *   `col = $1::interval`. Equal values may print differently (`'1 day'` equals `'24:00:00'`,
 *   `10.0.0.1` equals `10.0.0.1/32`, a range `[1,5)` equals `[1,4]`): `eq` finds them all.
 *   `bit(n)` compares through `varbit`, since `$1::bit` would be `bit(1)` and cut the text.
 * - `text`: types with no `=`, or whose `=` is not equality (geometric types: `box`, `circle`
 *   compare areas, `path` its number of points, `point` and `polygon` have only `~=`; `xml` has
 *   none): the column's text form equals the parameter's after a round through the type,
 *   `col::text = $1::point::text`, so `"(1, 2)"` finds `(1,2)` and `"(1,x)"` is refused.
 * Any other type read as text form (arrays of other elements or of several dimensions, `txid_snapshot`, …) compares its text form
 * exactly as read: `col::text = $1`; text it would not accept finds nothing.
 */
export const TYPED_COMPARISONS: ReadonlyMap<string, { cast: string; text: boolean }> = (() => {
  const table = new Map<string, { cast: string; text: boolean }>();
  const equal = (types: string[], cast?: string) => {
    for (const t of types) table.set(t, { cast: cast ?? t, text: false });
  };
  equal(['interval', 'inet', 'cidr', 'macaddr', 'macaddr8', 'money', 'pg_lsn']);
  equal(['tsvector', 'tsquery']);
  equal(['bit', 'bit varying'], 'varbit');
  equal(['int4range', 'int8range', 'numrange', 'tsrange', 'tstzrange', 'daterange']);
  equal(['int4multirange', 'int8multirange', 'nummultirange']);
  equal(['tsmultirange', 'tstzmultirange', 'datemultirange']);
  for (const t of ['xml', 'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle']) {
    table.set(t, { cast: t, text: true });
  }
  // One-dimensional arrays read as lists (`postgresArrayElement`): the element type's `typname`.
  for (const element of [
    'text',
    'varchar',
    'bpchar',
    'name',
    'int2',
    'int4',
    'int8',
    'numeric',
    'float4',
    'float8',
    'bool',
    'uuid',
    'date',
    'timestamp',
    'timestamptz',
    'time',
    'timetz',
  ]) {
    table.set(`${element}[]`, { cast: `${element}[]`, text: false });
  }
  return table;
})();

/** The {@link TYPED_COMPARISONS} key of a type it has no entry for: its text form, as read. */
export const TEXT_AS_READ = 'text as read';

/** The key of a list whose element type the table does not know: the parameter as the column's type. */
export const LIST_AS_COLUMN = 'list as column';

/**
 * JSON as its text (pg would send a JS array as a PostgreSQL array). An `array` column's list is
 * bound as it is, one parameter: node-postgres writes a JS array as PostgreSQL array text
 * (`prepareValue`/`arrayString`: every element quoted and escaped, `null` as `NULL`), which the
 * server reads as the column's type (PostgreSQL docs, "Arrays", 8.15.2). Its elements are what
 * the scalars parsed: numbers (`Int`, `Float`), booleans, and text (`BigInt`, `Decimal`, dates,
 * times, UUIDs), so no digit and no time zone is lost on the way.
 */
export function postgresBindValue(column: ModelColumn, value: unknown): unknown {
  return column.kind === 'json' && value !== null ? jsonText(value) : value;
}

/**
 * The {@link TYPED_COMPARISONS} key of an `other` or `array` column: its element type's with
 * `[]` for a list, else its type's; {@link TEXT_AS_READ} for a type the table does not know.
 * Every such column compares (null for columns of other kinds, which compare as they are).
 */
export function postgresComparedAs(column: ModelColumn): string | null {
  const element = arrayElement(column);
  if (element) {
    const key = `${String(column.elementType).toLowerCase()}[]`;
    // A list is bound as one array parameter (`bindValue`); an element type the table does not
    // know (a definition edited by hand) leaves its type to PostgreSQL: `col = $1` reads the
    // parameter as the column's type (PostgreSQL docs, "Operators", type resolution).
    return TYPED_COMPARISONS.has(key) ? key : LIST_AS_COLUMN;
  }
  if (column.kind !== 'other' && column.kind !== 'array') return null;
  const key = column.dbType.toLowerCase();
  return TYPED_COMPARISONS.has(key) ? key : TEXT_AS_READ;
}

/**
 * {@link formatCommon}, and for an `array` column with a known element kind its text parsed by
 * node-postgres' array parser into a list of elements each formatted as its kind
 * (`formatArrayElements`: `"9000000000"` for `bigint[]`, `2024-02-29T13:45:00.000Z` for
 * `timestamptz[]`, `null` for NULL elements). A value of several dimensions is an
 * `UnreadableValue` for that field.
 */
export function formatPostgresValue(column: ModelColumn, raw: unknown): unknown {
  if (column.kind === 'array' && typeof raw === 'string' && arrayElement(column)) {
    return formatArrayElements(column, parseArrayText(raw) ?? []);
  }
  return formatCommon(column, raw);
}
