import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  ValueNode,
  valueFromASTUntyped,
} from 'graphql';
import type { ColumnKind } from '../datasources/core/dialect';

/**
 * A scalar whose values travel as text of a given shape. Output is the adapter's formatted text;
 * input must match `pattern` (`numeric`: also a JSON number, CONTRACT.md §6 "take numbers or
 * numeric text as input").
 */
function textScalar(
  name: string,
  description: string,
  pattern: RegExp,
  numeric = false,
): GraphQLScalarType {
  const parse = (value: unknown): string => {
    if (numeric && typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'string' && pattern.test(value)) return value;
    throw new GraphQLError(`${name} cannot represent ${JSON.stringify(value)}: ${description}`);
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => (typeof value === 'bigint' ? value.toString() : String(value)),
    parseValue: parse,
    parseLiteral(ast: ValueNode) {
      if (
        ast.kind === Kind.STRING ||
        (numeric && (ast.kind === Kind.INT || ast.kind === Kind.FLOAT))
      )
        return parse(ast.kind === Kind.STRING ? ast.value : Number(ast.value));
      throw new GraphQLError(
        `${name} cannot represent a non-${numeric ? 'numeric' : 'text'} value`,
      );
    },
  });
}

/** 64-bit integer as decimal text: never loses digits (CONTRACT.md §6; README "Values"). */
export const BigIntScalar = textScalar(
  'BigInt',
  'A 64-bit integer, as decimal text (e.g. "9007199254740993").',
  /^-?\d+$/,
  true,
);
/** Exact decimal as text (e.g. `"12.50"`). */
export const DecimalScalar = textScalar(
  'Decimal',
  'An exact decimal number, as text (e.g. "12.50").',
  /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/,
  true,
);
/** `YYYY-MM-DD`. */
export const DateScalar = textScalar('Date', 'A calendar date, YYYY-MM-DD.', /^\d{4}-\d{2}-\d{2}$/);
/** An instant, `YYYY-MM-DDTHH:mm:ss.sssZ`; input takes any ISO-8601 offset. */
export const DateTimeScalar = textScalar(
  'DateTime',
  'An instant, YYYY-MM-DDTHH:mm:ss.sssZ (input: ISO-8601 with an offset).',
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/,
);
/** A timestamp without time zone, as stored: `YYYY-MM-DDTHH:mm:ss[.fff]`. */
export const LocalDateTimeScalar = textScalar(
  'LocalDateTime',
  'A date and time without time zone, as stored: YYYY-MM-DDTHH:mm:ss[.fff].',
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/,
);
/** A time of day, `HH:mm:ss[.fff]`. */
export const TimeScalar = textScalar(
  'Time',
  'A time of day, HH:mm:ss[.fff].',
  /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}(:?\d{2})?)?$/,
);
/**
 * A MySQL/MariaDB `TIME` (README "Values"): a signed span of time as `[-]HH[H]:MM[:SS[.ffffff]]`
 * (`-01:30:00`, `100:00:00`, `13:45:00.25`), output as the driver reads it. Input takes one to
 * three hour digits and at most six fraction digits; the column's range, -838:59:59.000000 to
 * 838:59:59.000000, is checked where the column is known (`outsideRange`), so a value beyond it is
 * `INVALID_VALUE` naming the field.
 */
export const DurationScalar = textScalar(
  'Duration',
  'A span of time (MySQL/MariaDB TIME), [-]HH[H]:MM:SS[.ffffff], from -838:59:59 to 838:59:59 (e.g. "-01:30:00", "100:00:00").',
  /^-?\d{1,3}:[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/,
);

/**
 * Any JSON value both ways (issue "every value it stores": `json`/`jsonb`, MySQL `JSON`, SQLite
 * `JSON`, SQL Server `json`). Output: the value the adapter parsed from the database's JSON text;
 * input: any value (a literal in the query is read as JSON), stored as its JSON text.
 */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value: object, array, string, number, boolean.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

/** Standard base64 (RFC 4648 §4) with padding; empty text is zero bytes. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Bytes as standard base64 text both ways (issue "every value it stores": binary columns round
 * trip). Output: the adapter's base64 text; input: base64 text, parsed to a Buffer so every
 * driver binds it as bytes (never as the text's own bytes).
 */
export const Base64Scalar = new GraphQLScalarType({
  name: 'Base64',
  description: 'Bytes as standard base64 text with padding (RFC 4648 §4), e.g. "3q2+7w==".',
  // Rows reach the schema already formatted (`formatCommon`: bytes → base64 text).
  serialize: (value) => String(value),
  parseValue: (value) => parseBase64(value),
  parseLiteral(ast: ValueNode) {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError('Base64 cannot represent a non-text value');
    return parseBase64(ast.value);
  },
});

function parseBase64(value: unknown): Buffer {
  if (typeof value === 'string' && BASE64.test(value)) return Buffer.from(value, 'base64');
  throw new GraphQLError(
    `Base64 cannot represent ${JSON.stringify(value)?.slice(0, 40)}: send standard base64 with padding (A–Z, a–z, 0–9, +, /, =)`,
  );
}

/**
 * Whether every supported database can sort a column of this kind: JSON has no order on
 * PostgreSQL (`json`) or SQL Server, and bytes are left out of orders (issue "every value it
 * stores": offer an order only where every database runs it). Text forms (`other`) and
 * PostgreSQL arrays (`array`, which only PostgreSQL has, comparing element by element) are never
 * ordered either.
 */
export function isOrderable(kind: ColumnKind): boolean {
  return kind !== 'json' && kind !== 'binary' && kind !== 'other' && kind !== 'array';
}

/** `ASC | DESC` (CONTRACT.md §6 `<Base>Order`). */
export const SortDirection = new GraphQLEnumType({
  name: 'SortDirection',
  description: 'Empty values sort first under ASC and last under DESC.',
  values: { ASC: { value: 'ASC' }, DESC: { value: 'DESC' } },
});

/**
 * The buckets a `date` column groups by in `aggregate<Base>(buckets:)` (README "Aggregates"):
 * each group's key is the bucket's first day.
 */
export const DateBucketEnum = new GraphQLEnumType({
  name: 'DateBucket',
  description: 'Groups dates by the year, month or day they fall in; the key is its first day.',
  values: { YEAR: { value: 'YEAR' }, MONTH: { value: 'MONTH' }, DAY: { value: 'DAY' } },
});

/**
 * The buckets a date-and-time column groups by (README "Aggregates"): each group's key is the
 * bucket's start, in UTC for a column with a zone.
 */
export const DateTimeBucketEnum = new GraphQLEnumType({
  name: 'DateTimeBucket',
  description:
    'Groups date-times by the year, month, day or hour they fall in (UTC for zoned values); the key is its start.',
  values: {
    YEAR: { value: 'YEAR' },
    MONTH: { value: 'MONTH' },
    DAY: { value: 'DAY' },
    HOUR: { value: 'HOUR' },
  },
});

/** Operator sets per column type (CONTRACT.md §6). */
const TEXT_OPS = [
  'eq',
  'neq',
  'contains',
  'startsWith',
  'endsWith',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
] as const;
const NUMBER_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'] as const;
const LIKE_OPS = new Set(['contains', 'startsWith', 'endsWith']);
const BOOLEAN_OPS = ['eq', 'neq'] as const;
const ID_OPS = ['eq', 'neq', 'in', 'nin'] as const;
/**
 * A database enum column: equality and lists in the enum's own type, and literal text matching.
 * No `gt`/`lt`: PostgreSQL compares enum values by their declared order, MySQL by their text, so
 * no bound means the same on both.
 */
const ENUM_OPS = ['eq', 'neq', 'contains', 'startsWith', 'endsWith', 'in', 'nin'] as const;

/** Every operator name a filter may carry. */
export type FilterOp = (typeof TEXT_OPS)[number];

function operatorInput(
  name: string,
  scalar: GraphQLInputType,
  ops: readonly string[],
  description = `Conditions on one ${scalar.toString()} column; several combine with AND.`,
): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    description,
    fields: () =>
      Object.fromEntries(
        ops.map((op) => [
          op,
          op === 'in' || op === 'nin'
            ? { type: new GraphQLList(new GraphQLNonNull(scalar)) }
            : LIKE_OPS.has(op)
              ? { type: GraphQLString, description: 'literal text, ignoring case' }
              : {
                  type: scalar,
                  description:
                    op === 'eq'
                      ? 'null matches empty fields'
                      : op === 'neq'
                        ? 'null matches filled fields'
                        : undefined,
                },
        ]),
      ),
  });
}

/**
 * The output/input type of a PostgreSQL array column (README "Values"): `[Element]`, a list of the
 * element kind's scalar ({@link scalarOf}), elements nullable since PostgreSQL array elements may
 * be NULL (PostgreSQL docs, "Arrays", 8.15.2). Lists are unnamed wrappers, so each call may make
 * its own.
 */
export function listOf(elementKind: ColumnKind): GraphQLList<GraphQLScalarType> {
  return new GraphQLList(scalarOf(elementKind));
}

/**
 * The output/input scalar of a column kind (keys are `ID`, decided by the caller); `array`
 * columns are lists ({@link listOf}), never a scalar, and the text form here.
 */
export function scalarOf(kind: ColumnKind): GraphQLScalarType {
  switch (kind) {
    case 'int':
      return GraphQLInt;
    case 'float':
      return GraphQLFloat;
    case 'bigint':
      return BigIntScalar;
    case 'decimal':
      return DecimalScalar;
    case 'boolean':
      return GraphQLBoolean;
    case 'date':
      return DateScalar;
    case 'timestamptz':
      return DateTimeScalar;
    case 'timestamp':
      return LocalDateTimeScalar;
    case 'time':
      return TimeScalar;
    case 'duration':
      return DurationScalar;
    case 'binary':
      return Base64Scalar;
    case 'json':
      return JSONScalar;
    default:
      return GraphQLString;
  }
}

const FILTERS = {
  ID: operatorInput('IDFilter', GraphQLID, ID_OPS),
  String: operatorInput('StringFilter', GraphQLString, TEXT_OPS),
  Int: operatorInput('IntFilter', GraphQLInt, NUMBER_OPS),
  Float: operatorInput('FloatFilter', GraphQLFloat, NUMBER_OPS),
  BigInt: operatorInput('BigIntFilter', BigIntScalar, NUMBER_OPS),
  Decimal: operatorInput('DecimalFilter', DecimalScalar, NUMBER_OPS),
  Boolean: operatorInput('BooleanFilter', GraphQLBoolean, BOOLEAN_OPS),
  Date: operatorInput('DateFilter', DateScalar, TEXT_OPS),
  DateTime: operatorInput('DateTimeFilter', DateTimeScalar, TEXT_OPS),
  LocalDateTime: operatorInput('LocalDateTimeFilter', LocalDateTimeScalar, TEXT_OPS),
  Time: operatorInput('TimeFilter', TimeScalar, TEXT_OPS),
  Duration: operatorInput('DurationFilter', DurationScalar, TEXT_OPS),
  // Bytes compare as bytes on every database: equality and lists only.
  Base64: operatorInput('Base64Filter', Base64Scalar, ID_OPS),
  // No database compares JSON the same way: only empty or filled (`eq: null`, `neq: null`).
  JSON: operatorInput('JSONFilter', JSONScalar, BOOLEAN_OPS),
  // A database text form (interval, point, …): equality only, with the value as read (the
  // dialect's `comparedAs`; README "Values"). No order: it differs per type, and per database.
  Other: operatorInput(
    'TextFormFilter',
    GraphQLString,
    BOOLEAN_OPS,
    'Conditions on one column read as its database text form: eq and neq with a value as read (or null).',
  ),
} as const;

/**
 * The operator inputs of PostgreSQL array columns, one per element scalar (`IntListFilter`, …):
 * `eq`/`neq` take a list of the element's scalar, as the column's field and arguments do, and
 * compare the whole array (README "Values"). No order and no `in`: PostgreSQL compares arrays
 * element by element, which no other database shares.
 */
const LIST_FILTERS = new Map<string, GraphQLInputObjectType>(
  (
    [
      GraphQLString,
      GraphQLInt,
      GraphQLFloat,
      BigIntScalar,
      DecimalScalar,
      GraphQLBoolean,
      DateScalar,
      DateTimeScalar,
      LocalDateTimeScalar,
      TimeScalar,
    ] as GraphQLScalarType[]
  ).map((scalar) => [
    scalar.name,
    operatorInput(
      `${scalar.name}ListFilter`,
      new GraphQLList(scalar),
      BOOLEAN_OPS,
      `Conditions on one [${scalar.name}] array column: eq and neq with the whole list (or null).`,
    ),
  ]),
);

/**
 * The operator input of a column: shared by every schema (GraphQL types may be shared). Columns
 * with an app enum filter as text (CONTRACT.md §6); a column typed by a database enum takes its
 * enum's own input instead ({@link enumFilterInput}, chosen by the schema builder).
 */
export function filterInputOf(
  kind: ColumnKind,
  isKey: boolean,
  elementKind?: ColumnKind,
): GraphQLInputObjectType {
  if (isKey) return FILTERS.ID;
  if (kind === 'other') return FILTERS.Other;
  if (kind === 'array') {
    return LIST_FILTERS.get(scalarOf(elementKind ?? 'text').name) ?? FILTERS.Other;
  }
  const name = scalarOf(kind).name as keyof typeof FILTERS;
  return FILTERS[name] ?? FILTERS.String;
}

/**
 * The operator input `<name>` of a database enum column (README "Filters"): `eq`, `neq`, `in`,
 * `nin` take values of `type` (so a value outside the database type is a validation error, and
 * the planner receives the stored text), `eq: null`/`neq: null` match empty/filled fields, and
 * `contains`/`startsWith`/`endsWith` match the stored text literally, ignoring case, as on text
 * columns. One per enum type of a version (the schema builder names it `<Enum>Filter`).
 */
export function enumFilterInput(name: string, type: GraphQLEnumType): GraphQLInputObjectType {
  return operatorInput(name, type, ENUM_OPS);
}

/**
 * Names of the module-level types above (scalars, `SortDirection`, column operator inputs), which
 * any schema may hold: a nested row type is never named like one of them (`api-tree.ts`).
 */
export const SHARED_TYPE_NAMES: readonly string[] = [
  BigIntScalar,
  DecimalScalar,
  DateScalar,
  DateTimeScalar,
  LocalDateTimeScalar,
  TimeScalar,
  DurationScalar,
  JSONScalar,
  Base64Scalar,
  SortDirection,
  DateBucketEnum,
  DateTimeBucketEnum,
  ...Object.values(FILTERS),
  ...LIST_FILTERS.values(),
].map((t) => t.name);
