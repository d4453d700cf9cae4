import { FieldNode, FragmentDefinitionNode, Kind, SelectionSetNode } from 'graphql';
import { DomainError, ErrorCode, invalidInput } from '../common/domain-error';
import type {
  ColumnKind,
  CompareOp,
  Condition,
  DatasourceType,
  Dialect,
  ModelColumn,
  OrderTerm,
  RelatedValue,
  TableRef,
} from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import { arrayElement, UnreadableValue } from '../datasources/core/dialect';
import type { RowNode } from './api-tree';
import { DatabaseRefusalError } from './graphql-errors';
import { outsideRange } from './value-ranges';

/** `take` default and ceiling (CONTRACT.md §6 Limits). */
export const TAKE_LIMIT = 10_000;

/** A `<Base>Filter` value after GraphQL coercion. */
export interface FilterInput {
  and?: FilterInput[] | null;
  or?: FilterInput[] | null;
  [column: string]: unknown;
}

const COMPARE_OPS = new Set<string>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);
const LIKE_OPS = new Set<string>(['contains', 'startsWith', 'endsWith']);

/** The table's place in its database. */
export function tableRef(table: ModelTable): TableRef {
  return { schema: table.schema, name: table.dbName };
}

/**
 * A key value as the database compares it. Integer keys take integer text or numbers; anything
 * else is refused here rather than left to fail in the database.
 * @throws DomainError INVALID_INPUT naming the column.
 */
function keyValue(column: ModelColumn, value: unknown): unknown {
  if (column.kind === 'int' || column.kind === 'bigint') {
    const text = String(value);
    if (!/^-?\d+$/.test(text))
      throw invalidInput(`"${text}" is not a valid ${column.name}: it takes whole numbers`);
    // Beyond 2^53 a JS number would round: keep such keys as exact text (SQLite rowids are 64-bit).
    return column.kind === 'int' && Number.isSafeInteger(Number(text)) ? Number(text) : text;
  }
  if (
    column.kind === 'uuid' &&
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(value))
  ) {
    throw invalidInput(`"${String(value)}" is not a valid ${column.name}: it takes a UUID`);
  }
  return value;
}

/** A filter or write value as the dialect binds it: keys checked ({@link keyValue}), then `bindValue`. */
export function columnValue(
  node: Pick<RowNode, 'isKey'>,
  column: ModelColumn,
  value: unknown,
  dialect: Dialect,
): unknown {
  if (value === null || value === undefined) return null;
  return dialect.bindValue(column, node.isKey(column.name) ? keyValue(column, value) : value);
}

/**
 * `column op value` with the value bound for the dialect ({@link columnValue}); a timestamp
 * compares as the whole millisecond it reads as ({@link millisecondSpan}). The one comparison of
 * filters and of the keys of `update`/`delete`.
 * @throws DomainError INVALID_INPUT for an invalid key value.
 */
export function comparison(
  node: Pick<RowNode, 'isKey'>,
  column: ModelColumn,
  op: CompareOp,
  value: unknown,
  dialect: Dialect,
): Condition {
  const bind = (v: unknown) => columnValue(node, column, v, dialect);
  const span = millisecondSpan(dialect.type, column, value);
  // A value standing for a whole millisecond is compared as a time (Condition's `timestamp`); one
  // with finer fractions compares exactly, as sent.
  if (span) return markTimestamp(spanCondition(column.name, op, bind(span.from), bind(span.to)));
  return { kind: 'compare', column: column.name, op, value: bind(value) };
}

/** The comparisons of `condition` marked as of date-and-time values (see `Condition`). */
function markTimestamp(condition: Condition): Condition {
  if (condition.kind === 'compare' || condition.kind === 'in')
    return { ...condition, timestamp: true };
  if (condition.kind === 'and' || condition.kind === 'or')
    return { ...condition, items: condition.items.map(markTimestamp) };
  return condition;
}

/**
 * An `in`/`nin` list, its values bound by `bind`. Of a timestamp column, the values standing for
 * a whole millisecond ({@link millisecondSpan}) compare as times, the others exactly, as sent: two
 * lists, joined by OR for `in` and AND for `nin`, when both kinds are sent.
 */
function inList(
  column: ModelColumn,
  values: unknown[],
  negated: boolean,
  dialect: Dialect,
  bind: (value: unknown) => unknown,
): Condition {
  const list = (items: unknown[]): Condition => ({
    kind: 'in',
    column: column.name,
    values: items.map(bind),
    negated,
  });
  const asTime = (v: unknown) => millisecondSpan(dialect.type, column, v) !== null;
  const times = values.filter(asTime);
  if (times.length === 0) return list(values);
  const exact = values.filter((v) => !asTime(v));
  const marked = markTimestamp(list(times));
  return exact.length === 0
    ? marked
    : { kind: negated ? 'and' : 'or', items: [marked, list(exact)] };
}

/** What a column compared only with null holds, for the refusal of another comparison. */
function holds(column: ModelColumn): string {
  if (column.kind === 'json') return 'JSON';
  if (column.kind === 'array') return `an array (${column.declaredType ?? 'ARRAY'})`;
  return column.dbType;
}

/**
 * Whether a list for an `array` column holds an element outside its element type's integer range
 * (`smallint[]` and 40000): the column cannot hold that list, so no row does.
 */
function listOutsideRange(type: DatasourceType, column: ModelColumn, value: unknown): boolean {
  const element = arrayElement(column);
  return (
    element !== null &&
    Array.isArray(value) &&
    value.some((v) => v !== null && v !== undefined && outsideRange(type, element, v) !== null)
  );
}

/**
 * The equality conditions of a column of kind `other` (a type read as its text form) or `array`
 * (a list), compared as the dialect's `comparedAs` says (README "Values"): `eq`, `neq`, `in`,
 * `nin` with values as read; a list holding an element its type cannot hold matches no row.
 * @throws DomainError INVALID_INPUT for an ordering or text operator (no schema offers one).
 */
function typedCondition(
  column: ModelColumn,
  op: string,
  value: unknown,
  typed: string,
  dialect: Dialect,
  bind: (value: unknown) => unknown,
): Condition {
  const fits = (v: unknown) => v !== null && !listOutsideRange(dialect.type, column, v);
  if (op === 'eq' || op === 'neq') {
    if (!fits(value)) return outOfRangeCondition(column.name, op, 'above');
    return { kind: 'compare', column: column.name, op, value: bind(value), typed };
  }
  if (op === 'in' || op === 'nin') {
    const sent = value as unknown[];
    const values = sent.filter(fits);
    if (op === 'nin' && values.length === 0 && sent.length > 0) {
      return { kind: 'null', column: column.name, negated: true };
    }
    return {
      kind: 'in',
      column: column.name,
      values: values.map(bind),
      negated: op === 'nin',
      typed,
    };
  }
  throw invalidInput(
    `${column.name} holds ${holds(column)}: it can only be compared for equality (eq, neq, in, nin)`,
  );
}

function columnCondition(
  node: RowNode,
  column: ModelColumn,
  ops: Record<string, unknown>,
  dialect: Dialect,
): Condition[] {
  const bind = (v: unknown) => columnValue(node, column, v, dialect);
  const typed =
    column.kind === 'other' || column.kind === 'array'
      ? (dialect.comparedAs?.(column) ?? null)
      : null;
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (value === undefined) continue;
    const outside = value === null ? null : outsideRange(dialect.type, column, value);
    if (outside) {
      // No row holds a value the column cannot hold: decided here, the same on every database
      // (PostgreSQL would refuse the statement, MariaDB and SQLite answer by arithmetic).
      out.push(outOfRangeCondition(column.name, op, outside));
      continue;
    }
    if ((op === 'eq' || op === 'neq') && value === null) {
      // eq: null matches empty fields, neq: null filled ones (CONTRACT.md §6).
      out.push({ kind: 'null', column: column.name, negated: op === 'neq' });
    } else if (typed !== null) {
      // A comparison with null is never true (below), whatever the column holds.
      out.push(
        value === null
          ? { kind: 'or', items: [] }
          : typedCondition(column, op, value, typed, dialect, bind),
      );
    } else if (column.kind === 'json' || column.kind === 'other' || column.kind === 'array') {
      throw invalidInput(
        `${column.name} holds ${holds(column)}: it can only be compared with null (eq: null finds empty fields, neq: null filled ones)`,
      );
    } else if (value === null) {
      // Other operators follow SQL: a comparison with null is never true (CONTRACT.md §6).
      out.push({ kind: 'or', items: [] });
    } else if (COMPARE_OPS.has(op)) {
      out.push(comparison(node, column, op as CompareOp, value, dialect));
    } else if (op === 'in' || op === 'nin') {
      const sent = value as unknown[];
      // A value the column cannot hold matches no row: it leaves the list.
      const values = sent.filter((v) => v === null || !outsideRange(dialect.type, column, v));
      if (op === 'nin' && values.length === 0 && sent.length > 0) {
        // Every value was out of range: "none of them" is every filled field, never an empty one
        // (CONTRACT.md §6), where `nin: []` would be every row.
        out.push({ kind: 'null', column: column.name, negated: true });
      } else {
        out.push(inList(column, values, op === 'nin', dialect, bind));
      }
    } else if (LIKE_OPS.has(op)) {
      out.push({ kind: 'like', column: column.name, mode: op as 'contains', value: String(value) });
    }
  }
  return out;
}

/**
 * The millisecond a timestamp value stands for, `[from, to)` with `to` one millisecond later, or
 * null when it is compared as it is. Timestamps are read with at most milliseconds (CONTRACT.md
 * value formats: `YYYY-MM-DDTHH:mm:ss.sssZ`, `…[.fff]`), while PostgreSQL, SQLite text, MySQL
 * `DATETIME(4..6)` and SQL Server `datetime2`/`datetimeoffset` may hold microseconds: so that a
 * value read finds its row (issue 11), a value of at most three fraction digits compares as the
 * whole millisecond it reads as. A range of two bound parameters, so an index still serves it.
 * Not for SQL Server `datetime`/`smalldatetime` (which would round the upper bound and hold no
 * microseconds anyway), MySQL columns of three digits or fewer, a value with more digits (compared
 * exactly, as sent), or text that is no date.
 */
export function millisecondSpan(
  dialect: DatasourceType,
  column: ModelColumn,
  value: unknown,
): { from: string; to: string } | null {
  if (typeof value !== 'string' || !holdsMicroseconds(dialect, column)) return null;
  const fraction = /:\d{2}\.(\d+)/.exec(value)?.[1] ?? '';
  if (fraction.length > 3) return null;
  const local = column.kind === 'timestamp';
  const ms = Date.parse(local ? `${value.replace(' ', 'T')}Z` : value.replace(' ', 'T'));
  if (Number.isNaN(ms)) return null;
  const to = new Date(ms + 1).toISOString();
  if (!/^\d{4}-/.test(to)) return null;
  return { from: value, to: local ? to.slice(0, 23) : to };
}

/** Whether a timestamp column of this database can hold fractions finer than a millisecond. */
function holdsMicroseconds(dialect: DatasourceType, column: ModelColumn): boolean {
  if (column.kind !== 'timestamp' && column.kind !== 'timestamptz') return false;
  if (dialect === 'mssql') return !/^(small)?datetime$/i.test(column.dbType);
  if (dialect === 'mysql') return Number(/\((\d+)\)/.exec(column.dbType)?.[1] ?? 0) > 3;
  return true;
}

/**
 * A comparison with the millisecond `[from, to)` as a whole: `eq` is inside it, `neq` outside,
 * `gt` from `to` on, `gte` from `from` on, `lt` before `from`, `lte` before `to`.
 */
export function spanCondition(
  column: string,
  op: CompareOp,
  from: unknown,
  to: unknown,
): Condition {
  const at = (o: CompareOp, value: unknown): Condition => ({
    kind: 'compare',
    column,
    op: o,
    value,
  });
  if (op === 'eq') return { kind: 'and', items: [at('gte', from), at('lt', to)] };
  if (op === 'neq') return { kind: 'or', items: [at('lt', from), at('gte', to)] };
  if (op === 'gt') return at('gte', to);
  if (op === 'gte') return at('gte', from);
  if (op === 'lt') return at('lt', from);
  return at('lt', to);
}

/**
 * A comparison with a whole number outside the column's range, decided without the database:
 * `eq`, and the bounds on the far side, match nothing; `neq`, and the bounds on the near side,
 * match every filled field.
 */
function outOfRangeCondition(column: string, op: string, side: 'below' | 'above'): Condition {
  const nothing: Condition = { kind: 'or', items: [] };
  const filled: Condition = { kind: 'null', column, negated: true };
  if (op === 'neq') return filled;
  if (op === 'gt' || op === 'gte') return side === 'above' ? nothing : filled;
  if (op === 'lt' || op === 'lte') return side === 'below' ? nothing : filled;
  return nothing;
}

/**
 * The caller's row rule of a table (`RowScopes.of`, CONTRACT.md §4), as relation filters apply it
 * inside each subquery.
 */
export interface RelationScopes {
  of(table: ModelTable, dialect: Dialect): Condition;
}

/**
 * {@link RelationScopes} that notes every table whose scope was asked for: a planned read that
 * applied a related table's scope may be kept for another caller only when that scope admits
 * every row for that caller too (`plannedRead`).
 */
export class ConsultedScopes implements RelationScopes {
  readonly tables = new Set<ModelTable>();
  constructor(private readonly scopes: RelationScopes) {}

  /** The inner scopes' answer for `table`, noting the table. */
  of(table: ModelTable, dialect: Dialect): Condition {
    this.tables.add(table);
    return this.scopes.of(table, dialect);
  }
}

/** The one-to-many quantifiers of a relation filter (README "Relation filters"). */
const QUANTIFIERS = ['some', 'none', 'every'] as const;

/**
 * Relation filters one `where` may nest, one in another: the contract's nesting limit of
 * relations (12, `NESTING_LIMIT` of `document-shape.ts`), as selections have.
 */
export const RELATION_FILTER_DEPTH = 12;

/**
 * The relation filter of navigation `nav` of `node` (README "Relation filters"): a correlated
 * EXISTS over the related table, inside the caller's row rule of that table (failing closed: with
 * no `scopes`, the filter is refused). Many-to-one: the related row exists, is visible and
 * matches. One-to-many `{some, none, every}`: `some` a visible child matches, `none` no visible
 * child matches, `every` no visible child fails, a child whose condition is unknown (NULL)
 * counting as failing; the quantifiers given combine with AND.
 */
function relationCondition(
  nav: RowNode['navigations'][number],
  value: Record<string, unknown>,
  dialect: Dialect,
  scopes: RelationScopes | undefined,
  depth: number,
): Condition {
  const { navigation, node: sub } = nav;
  if (!scopes) {
    throw new DomainError(
      ErrorCode.Forbidden,
      `${navigation.name} cannot be filtered here: the caller's row rules of ${sub.table.name} are unknown`,
    );
  }
  if (depth >= RELATION_FILTER_DEPTH) {
    throw invalidInput(
      `Nesting limit exceeded: the filter nests more than ${RELATION_FILTER_DEPTH} relations; the limit is ${RELATION_FILTER_DEPTH}`,
    );
  }
  const scope = scopes.of(sub.table, dialect);
  const exists = (where: Condition, negated: boolean): Condition => ({
    kind: 'exists',
    table: tableRef(sub.table),
    on: [{ inner: navigation.toColumn, outer: navigation.fromColumn }],
    scope,
    where,
    negated,
  });
  const inner = (filter: unknown) =>
    planWhere(sub, filter as FilterInput, dialect, scopes, depth + 1);
  if (navigation.kind === 'manyToOne') return exists(inner(value), false);
  const items: Condition[] = [];
  for (const quantifier of QUANTIFIERS) {
    const filter = value[quantifier];
    if (filter === undefined || filter === null) continue;
    const condition = inner(filter);
    if (quantifier === 'some') items.push(exists(condition, false));
    else if (quantifier === 'none') items.push(exists(condition, true));
    else if (!isEveryRow(condition)) items.push(exists({ kind: 'untrue', item: condition }, true));
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

const isEveryRow = (c: Condition) => c.kind === 'and' && c.items.length === 0;

/**
 * Turns a `<Base>Filter` into a {@link Condition}: keys at one level combine with AND; `and: []`
 * is true and `or: []` false (CONTRACT.md §6). Values are converted for the dialect's binding.
 * A navigation key is a relation filter (see `relationCondition`): a correlated EXISTS inside the
 * caller's row rule of the related table, taken from `scopes`; only the navigation's subtree's
 * columns and navigations can be named (the schema's `<Row>Filter` of that subtree).
 * @param scopes the caller's row rules; without them a relation filter is refused (Forbidden).
 * @param depth relation filters already around this one (at most {@link RELATION_FILTER_DEPTH}).
 * @throws DomainError INVALID_INPUT for an invalid key value, or relation filters nested past the
 * limit; FORBIDDEN for a relation filter without `scopes`.
 */
export function planWhere(
  node: RowNode,
  where: FilterInput | null | undefined,
  dialect: Dialect,
  scopes?: RelationScopes,
  depth = 0,
): Condition {
  const items: Condition[] = [];
  if (where) {
    for (const [key, value] of Object.entries(where)) {
      if (value === undefined || value === null) continue;
      if (key === 'and' || key === 'or') {
        const parts = (value as FilterInput[]).map((f) =>
          planWhere(node, f, dialect, scopes, depth),
        );
        items.push({ kind: key, items: parts });
        continue;
      }
      const column = node.columns.find((c) => c.name === key);
      if (column) {
        items.push(...columnCondition(node, column, value as Record<string, unknown>, dialect));
        continue;
      }
      const nav = node.navigations.find((n) => n.navigation.name === key);
      if (nav) {
        const relation = value as Record<string, unknown>;
        items.push(relationCondition(nav, relation, dialect, scopes, depth));
      }
    }
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/** One element of an `order` argument (`<Row>Order`) after GraphQL coercion. */
export type OrderInput = Readonly<Record<string, unknown>>;

/** What one order element sorts by, before it becomes an {@link OrderTerm}. */
type OrderLeaf =
  | { kind: 'column'; column: string; nullable: boolean; direction: 'ASC' | 'DESC' }
  | { kind: 'related'; related: RelatedValue; count: boolean; direction: 'ASC' | 'DESC' };

/** The keys of an order value that are given (not null). */
function givenKeys(value: OrderInput): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
}

/** The names an order element gives, outermost first (`{customer: {name: ASC}}`: customer, name). */
function givenPath(value: OrderInput): string[] {
  const path: string[] = [];
  let at: unknown = value;
  while (at && typeof at === 'object') {
    const entry = givenKeys(at as OrderInput)[0];
    if (!entry) break;
    path.push(entry[0]);
    at = entry[1];
  }
  return path;
}

/** `customer.name` for the message of an element that names `name` under `customer`. */
const pathText = (path: string[]) => path.join('.');

/** The element naming `leaf` at `path`, for messages: `{customer: {country: <leaf>}}`. */
const nested = (path: string[], leaf: string) =>
  path.reduceRight((inner, key) => `{${key}: ${inner}}`, leaf);

/**
 * The leaf of one order element at `node` (README "Order and pages"): a column of the node, or a
 * navigation of it: many-to-one with the related row's order value, one-to-many with
 * `{count: ASC|DESC}`. A navigation's subquery carries the caller's row rule of its table from
 * `scopes` (failing closed as `RowScopes.of` does). `path` names the keys above, for messages.
 * @throws DomainError INVALID_INPUT for a value naming other than exactly one thing, or a name the
 * API does not include at that path; FORBIDDEN for a relation without `scopes`.
 */
function orderLeaf(
  node: RowNode,
  value: OrderInput,
  path: string[],
  dialect: Dialect | undefined,
  scopes: RelationScopes | undefined,
): OrderLeaf {
  const entries = givenKeys(value);
  if (entries.length !== 1) {
    const given = entries.length ? ` (this one names ${entries.map(([k]) => k).join(', ')})` : '';
    throw invalidInput(
      path.length === 0
        ? `Each order element names exactly one column, or one relation with one column of it or its count, e.g. [{name: ASC}, {customer: {name: DESC}}, {order_lines: {count: DESC}}]${given}: give each its own element`
        : `${pathText(path)}: an order through a relation names exactly one column of the related row, or one relation of it, e.g. ${nested(path, '{<column>: ASC}')}${given}: give each its own element`,
    );
  }
  const [name, inner] = entries[0];
  const at = [...path, name];
  // Ordering reads: only the API's own columns and navigations at this path may be named.
  const column = node.columns.find((c) => c.name === name);
  if (column) {
    if (inner !== 'ASC' && inner !== 'DESC')
      throw invalidInput(`${pathText(at)} takes ASC or DESC, e.g. {${name}: ASC}`);
    return { kind: 'column', column: name, nullable: column.nullable, direction: inner };
  }
  const nav = node.navigations.find((n) => n.navigation.name === name);
  if (!nav)
    throw invalidInput(`${pathText(at)} cannot be ordered by here: the API does not include it`);
  const { navigation, node: sub } = nav;
  if (!scopes || !dialect) {
    throw new DomainError(
      ErrorCode.Forbidden,
      `${navigation.name} cannot be ordered by here: the caller's row rules of ${sub.table.name} are unknown`,
    );
  }
  if (at.length > RELATION_FILTER_DEPTH) {
    throw invalidInput(
      `Nesting limit exceeded: the order nests more than ${RELATION_FILTER_DEPTH} relations; the limit is ${RELATION_FILTER_DEPTH}`,
    );
  }
  const example = nested(at, navigation.kind === 'manyToOne' ? '{<column>: ASC}' : '{count: DESC}');
  if (!inner || typeof inner !== 'object' || Array.isArray(inner))
    throw invalidInput(`${pathText(at)} is a relation: order by it as ${example}`);
  const base = {
    table: tableRef(sub.table),
    on: [{ inner: navigation.toColumn, outer: navigation.fromColumn }],
    scope: scopes.of(sub.table, dialect),
  };
  if (navigation.kind === 'oneToMany') {
    const given = givenKeys(inner as OrderInput);
    const direction = given[0]?.[1];
    if (
      given.length !== 1 ||
      given[0][0] !== 'count' ||
      (direction !== 'ASC' && direction !== 'DESC')
    )
      throw invalidInput(
        `${pathText(at)} is a one-to-many relation: order by the number of its rows the caller can see, as ${example}`,
      );
    return {
      kind: 'related',
      related: { ...base, value: { kind: 'count' } },
      count: true,
      direction,
    };
  }
  const leaf = orderLeaf(sub, inner as OrderInput, at, dialect, scopes);
  const selected: RelatedValue['value'] =
    leaf.kind === 'column'
      ? { kind: 'column', column: leaf.column }
      : { kind: 'related', related: leaf.related };
  return {
    kind: 'related',
    related: { ...base, value: selected },
    count: false,
    direction: leaf.direction,
  };
}

/**
 * Turns `order` into sort terms, completed with the primary key so pages never overlap
 * (CONTRACT.md §6). With no `order`, rows come by primary key ascending. An element names one
 * column, or one navigation with exactly one leaf (README "Order and pages"): a many-to-one
 * navigation sorts by a column of the related row (or of a row further along many-to-one
 * navigations), NULL when the foreign key is empty or the related row is hidden by the caller's
 * row rule; a one-to-many navigation by `{count}`, the number of related rows the caller can see.
 * Each becomes a correlated scalar subquery ({@link RelatedValue}) inside the caller's row rule of
 * its table, taken from `scopes` (pass a `ConsultedScopes` where the plan may be kept). Only the
 * columns and navigations the API includes at that path can be named (ordering is reading).
 * @param dialect and `scopes`: needed only for an order through a relation.
 * @throws DomainError INVALID_INPUT when an element names other than one thing, or a name the API
 * does not include there; FORBIDDEN for an order through a relation without `scopes`.
 */
export function planOrder(
  node: RowNode,
  order: readonly OrderInput[] | null | undefined,
  dialect?: Dialect,
  scopes?: RelationScopes,
): OrderTerm[] {
  const terms: OrderTerm[] = [];
  const related = new Set<string>();
  for (const element of order ?? []) {
    const leaf = orderLeaf(node, element, [], dialect, scopes);
    if (leaf.kind === 'column') {
      if (!terms.some((t) => t.column === leaf.column)) {
        terms.push({ column: leaf.column, direction: leaf.direction, nullable: leaf.nullable });
      }
      continue;
    }
    // The first of two elements naming the same value decides, as for columns.
    const key = JSON.stringify(givenPath(element));
    if (related.has(key)) continue;
    related.add(key);
    // A count is never NULL; a related column is NULL when no visible related row exists.
    terms.push({ related: leaf.related, direction: leaf.direction, nullable: !leaf.count });
  }
  // Without a primary key every column completes the order: rows that still tie are identical.
  const key = node.table.primaryKey.length
    ? node.table.primaryKey
    : node.table.columns.filter((c) => c.kind !== 'json').map((c) => c.name);
  for (const column of key) {
    if (terms.some((t) => t.column === column)) continue;
    const nullable = node.table.columns.find((c) => c.name === column)?.nullable ?? true;
    // A declared primary key is never empty; a key the builder chose (a view's) may be.
    const declared = node.table.primaryKey.includes(column) && !node.table.primaryKeyChosen;
    terms.push({ column, direction: 'ASC', nullable: declared ? false : nullable, tiebreak: true });
  }
  return terms;
}

/**
 * `take` and `skip` checked against CONTRACT.md §6: `take` defaults to and may not exceed 10,000;
 * negative values are refused.
 * @throws DomainError INVALID_INPUT naming the limit.
 */
export function planPage(
  take: number | null | undefined,
  skip: number | null | undefined,
): { take: number; skip: number } {
  const t = take ?? TAKE_LIMIT;
  const s = skip ?? 0;
  if (t < 0) throw invalidInput('take must be 0 or more');
  if (t > TAKE_LIMIT)
    throw invalidInput(`take exceeds the limit of ${TAKE_LIMIT.toLocaleString('en-US')} rows`);
  if (s < 0) throw invalidInput('skip must be 0 or more');
  return { take: t, skip: s };
}

function collectFieldNames(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  into: Set<string>,
  seen: Set<string>,
): void {
  for (const selection of set?.selections ?? []) {
    if (selection.kind === Kind.FIELD) into.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      collectFieldNames(selection.selectionSet, fragments, into, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      collectFieldNames(fragments[selection.name.value]?.selectionSet, fragments, into, seen);
    }
  }
}

/**
 * The columns a resolver reads: the requested ones, the keys requested navigation fields need,
 * the primary key (stable order, identity) and any `extra` (a batch's partition column).
 * Directives are not evaluated: a skipped field costs a column, never a query.
 */
export function selectColumns(
  node: RowNode,
  fieldNodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
  extra: string[] = [],
): string[] {
  const requested = new Set<string>();
  for (const field of fieldNodes)
    collectFieldNames(field.selectionSet, fragments, requested, new Set());
  const wanted = new Set<string>([...node.table.primaryKey, ...extra]);
  for (const column of node.columns) if (requested.has(column.name)) wanted.add(column.name);
  for (const { navigation } of node.navigations)
    if (requested.has(navigation.name)) wanted.add(navigation.fromColumn);
  if (wanted.size === 0 && node.table.columns.length) wanted.add(node.table.columns[0].name);
  return node.table.columns.filter((c) => wanted.has(c.name)).map((c) => c.name);
}

/**
 * Result rows in the contract's output form, keyed by column name (each value through the
 * dialect's `formatValue`). A value the column's GraphQL type cannot show (`UnreadableValue`, e.g.
 * a two-dimensional value in a one-dimensional PostgreSQL array column) becomes a
 * `DatabaseRefusalError` `INVALID_VALUE` naming the column, left in the row: graphql-js throws an
 * `Error` it finds as a field's value (GraphQL spec, "Handling Field Errors"), so only that field
 * fails.
 */
export function shapeRows(
  table: ModelTable,
  columns: string[],
  rows: Record<string, unknown>[],
  dialect: Dialect,
): Record<string, unknown>[] {
  const byName = indexOf(table).byName;
  const models = columns.map((name) => byName.get(name)!);
  return rows.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const column of models) {
      const value = dialect.formatValue(column, raw[column.name]);
      row[column.name] =
        value instanceof UnreadableValue
          ? new DatabaseRefusalError({
              code: 'INVALID_VALUE',
              field: column.name,
              message: value.message,
            })
          : value;
    }
    return row;
  });
}

/** What the request path looks up by column name in a model table, built once per table. */
interface ColumnIndex {
  byName: Map<string, ModelColumn>;
  /** Every column's kind, for `SelectPlan.kinds` and the write plans (they read their own). */
  kinds: Record<string, ColumnKind>;
  /** Every column by name, for the write plans' `model`. */
  models: Record<string, ModelColumn>;
}

/** Model tables live as long as their schema: indexed once, not per request. */
const INDEXES = new WeakMap<ModelTable, ColumnIndex>();

function indexOf(table: ModelTable): ColumnIndex {
  let index = INDEXES.get(table);
  if (!index) {
    index = {
      byName: new Map(table.columns.map((c) => [c.name, c])),
      kinds: Object.fromEntries(table.columns.map((c) => [c.name, c.kind])),
      models: Object.fromEntries(table.columns.map((c) => [c.name, c])),
    };
    INDEXES.set(table, index);
  }
  return index;
}

/**
 * The kinds of a table's columns by name, for `SelectPlan.kinds` and the write plans: every
 * column, since a plan reads the kinds of the columns it names only. Shared: never mutate.
 */
export function columnKinds(table: ModelTable): Readonly<Record<string, ColumnKind>> {
  return indexOf(table).kinds;
}

/**
 * A table's model columns by name, for the write plans' `model` (SQL Server declares the table
 * variable of a write's `OUTPUT … INTO` from it). Shared: never mutate.
 */
export function columnModels(table: ModelTable): Readonly<Record<string, ModelColumn>> {
  return indexOf(table).models;
}
