import type { ColumnKind, DatasourceType, Dialect, ModelColumn } from '../datasources/core/dialect';
import { UnreadableValue } from '../datasources/core/dialect';
import {
  bindNamedValues,
  parseNamedStatement,
  type ParsedStatement,
} from '../datasources/core/sql-statement';
import { formatInstant } from '../datasources/core/value-format';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { ModelTable, SqlApiDefinition } from '../platform/version-definition';
import { implicitUserValue } from '../sql-apis/sql-api-rules';
import type { RowNode } from './api-tree';
import type { Caller } from './gateway-context';
import { DatabaseRefusalError } from './graphql-errors';

/*
 * What the two SQL API operation kinds (`operations/sql-query.ts`, `sql-mutation.ts`) share:
 * the API as model columns, the statement parsed once per database type, the binding of its
 * arguments (implicit `:user_…` ones read from the caller), and the shaping of result rows in the
 * contract's value formats (README "SQL APIs").
 */

/** An SQL API ready to serve: its columns and arguments as model columns, its row node. */
export interface SqlApiPlan {
  api: SqlApiDefinition;
  /** The result columns as model columns (kind and nullability as confirmed). */
  columns: ModelColumn[];
  /** Arguments the GraphQL field takes (the implicit `:user_…` ones left out). */
  arguments: ModelColumn[];
  /** Every statement parameter as a model column, by name (for binding). */
  parameters: Map<string, ModelColumn>;
  /** The row node of `<Name>Row` (no key, no navigation). */
  node: RowNode;
  /** IANA zone a date and time without zone is read in when its column is a zoned instant. */
  timeZone: string;
  /** The statement parsed for a database type (once per type). */
  statementFor(type: DatasourceType): ParsedStatement;
}

/** An argument's or column's kind and facts as a model column (`kind` `text` when unknown). */
function modelColumn(
  name: string,
  kind: ColumnKind | null,
  nullable: boolean,
  enumName: string | undefined,
  databaseType: string | null,
): ModelColumn {
  const k = kind ?? 'text';
  return {
    name,
    dbType: databaseType ?? k,
    kind: k,
    nullable,
    hasDefault: false,
    generated: false,
    maxLength: null,
    ...(enumName !== undefined && { enum: enumName }),
  };
}

/**
 * The plan of an SQL API whose arguments and columns all have a type (`typingProblems` empty).
 * @param typeName `<Name>Row`.
 */
export function sqlApiPlan(api: SqlApiDefinition, typeName: string, timeZone: string): SqlApiPlan {
  const columns = api.columns.map((c) =>
    modelColumn(c.name, c.kind, c.nullable, c.enum, c.proposed.databaseType),
  );
  const parameters = new Map(
    api.arguments.map((a) => [
      a.name,
      modelColumn(a.name, a.type, a.nullable, a.enum, a.proposed.databaseType),
    ]),
  );
  const table: ModelTable = {
    name: api.name,
    datasourceId: api.datasourceId,
    active: true,
    schema: null,
    dbName: api.name,
    columns,
    primaryKey: [],
    foreignKeys: [],
    comment: `A row of the SQL API ${api.name}`,
  };
  const node: RowNode = {
    typeName,
    shape: `sql:${JSON.stringify(api.id)}`,
    table,
    columns,
    navigations: [],
    isKey: () => false,
    aggregates: false,
  };
  const parsed = new Map<DatasourceType, ParsedStatement>();
  return {
    api,
    columns,
    arguments: [...parameters.values()].filter((p) => !implicitUserValue(p.name)),
    parameters,
    node,
    timeZone,
    statementFor(type) {
      let statement = parsed.get(type);
      if (!statement) {
        statement = parseNamedStatement(api.statement, type);
        parsed.set(type, statement);
      }
      return statement;
    },
  };
}

/**
 * The value of an implicit parameter (`:user_id`, `:user_<attr>`) for the caller: only app users
 * have them, and a user without the attribute fails, as a row rule's `$user` value does (fails
 * closed, README "SQL APIs").
 * @throws DomainError FORBIDDEN naming the parameter.
 */
function userValue(caller: Caller, name: string, attribute: string | null): unknown {
  if (caller.kind !== 'app-user') {
    throw new DomainError(
      ErrorCode.Forbidden,
      `This SQL API reads :${name}, which only a signed-in app user has`,
    );
  }
  if (attribute === null) return caller.user.userId;
  const attributes = caller.user.attributes;
  const value = Object.prototype.hasOwnProperty.call(attributes, attribute)
    ? attributes[attribute]
    : undefined;
  if (value === undefined || value === null) {
    throw new DomainError(
      ErrorCode.Forbidden,
      `This SQL API reads :${name}, and your user has no attribute ${attribute}`,
    );
  }
  return value;
}

/**
 * The statement's parameters in placeholder order (`bindNamedValues`): each GraphQL argument as
 * the dialect binds a value of its kind (`Dialect.bindValue`; an enum argument is its stored
 * value), an argument left out as NULL, the implicit ones from the caller.
 * @throws DomainError FORBIDDEN for an implicit parameter the caller lacks.
 */
export function bindArguments(
  plan: SqlApiPlan,
  statement: ParsedStatement,
  args: Record<string, unknown>,
  caller: Caller,
  dialect: Dialect,
): unknown[] {
  const values: Record<string, unknown> = {};
  for (const name of statement.names) {
    const column = plan.parameters.get(name);
    const implicit = implicitUserValue(name);
    const value = implicit ? userValue(caller, name, implicit.attribute) : args[name];
    if (value === null || value === undefined) values[name] = null;
    else values[name] = column ? dialect.bindValue(column, value) : value;
  }
  return bindNamedValues(statement, values);
}

const DAY = 86_400_000;

const LOCAL_DATE_TIME = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

/** One `Intl.DateTimeFormat` per zone (each costs a few µs to make). */
const ZONE_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The offset of `zone` from UTC at the instant `ms`, in milliseconds (whole seconds). */
function zoneOffset(ms: number, zone: string): number {
  let format = ZONE_FORMATS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    ZONE_FORMATS.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(new Date(ms))) parts[p.type] = p.value;
  const year =
    parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
  return wall.getTime() - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * A date and time without zone, read as a wall-clock time in the IANA `zone`, as an instant
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (README "SQL APIs": never the server's zone). A time a change of
 * offset skips or repeats takes the offset before the change. Null when `text` is no such value.
 */
export function wallTimeToInstant(text: string, zone: string): string | null {
  const m = LOCAL_DATE_TIME.exec(text.trim());
  if (!m) return null;
  const wall = new Date(0);
  wall.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  wall.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), ms);
  const guess = wall.getTime();
  if (Number.isNaN(guess)) return null;
  // The offsets a day before and after: a zone changes its offset at most once in two days.
  const before = zoneOffset(guess - DAY, zone);
  const after = zoneOffset(guess + DAY, zone);
  const fits = (offset: number) => zoneOffset(guess - offset, zone) === offset;
  // A repeated time (both fit) and a skipped one (neither) take the offset before the change.
  const instant = fits(before) || !fits(after) ? guess - before : guess - after;
  return new Date(instant).toISOString();
}

/**
 * A zoned instant column's value as `YYYY-MM-DDTHH:mm:ss.sssZ`, whatever the database returned:
 * text with an offset (or a Date) as that instant, text without one as a wall-clock time in
 * `zone`. Anything else is left to the dialect's formatting.
 */
function zonedInstant(raw: unknown, zone: string): unknown {
  if (raw instanceof Date) return formatInstant(raw);
  if (typeof raw !== 'string') return undefined;
  const local = wallTimeToInstant(raw, zone);
  if (local !== null) return local;
  const formatted = formatInstant(raw);
  return formatted === raw ? undefined : formatted;
}

/**
 * Result rows in the contract's value formats (README "SQL APIs"): each column through the
 * dialect's `formatValue` with its confirmed kind; a zoned instant always `…Z` with milliseconds
 * (`zonedInstant`); a value the type cannot show an `INVALID_VALUE` for that field.
 * @throws DatabaseRefusalError INVALID_VALUE naming the column when a column confirmed non-null
 * holds NULL: the whole field fails, never a partial row.
 */
export function shapeSqlRows(
  plan: SqlApiPlan,
  rows: readonly Record<string, unknown>[],
  dialect: Dialect,
): Record<string, unknown>[] {
  return rows.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const column of plan.columns) {
      const value = raw[column.name];
      if (value === null || value === undefined) {
        if (!column.nullable) {
          throw new DatabaseRefusalError({
            code: 'INVALID_VALUE',
            field: column.name,
            message: `${column.name} is empty (NULL) in a row of ${plan.api.name}, which declares it never empty; confirm it nullable or change the statement`,
          });
        }
        row[column.name] = null;
        continue;
      }
      const zoned = column.kind === 'timestamptz' ? zonedInstant(value, plan.timeZone) : undefined;
      const formatted = zoned !== undefined ? zoned : dialect.formatValue(column, value);
      row[column.name] =
        formatted instanceof UnreadableValue
          ? new DatabaseRefusalError({
              code: 'INVALID_VALUE',
              field: column.name,
              message: formatted.message,
            })
          : formatted;
    }
    return row;
  });
}
