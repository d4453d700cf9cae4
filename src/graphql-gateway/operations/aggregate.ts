import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLEnumType,
  GraphQLFloat,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { invalidInput } from '../../common/domain-error';
import {
  type AggregateItem,
  type ColumnKind,
  type CompareOp,
  type DateBucket,
  type Dialect,
  effectiveKind,
  type GroupCondition,
  type GroupKey,
  type GroupMeasure,
  type GroupOrderTerm,
  type ModelColumn,
  UnreadableValue,
} from '../../datasources/core/dialect';
import type { ModelTable } from '../../platform/version-definition';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError } from '../graphql-errors';
import {
  columnValue,
  ConsultedScopes,
  type FilterInput,
  planPage,
  planWhere,
  tableRef,
} from '../query-planner';
import {
  BigIntScalar,
  DateBucketEnum,
  DateTimeBucketEnum,
  DecimalScalar,
  filterInputOf,
  isOrderable,
  SortDirection,
} from '../scalars';
import { tableRowEstimate } from '../request/operation-cost';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import { type PlannedRead, plannedRead } from './planned-read';

/** Groups `aggregate<Base>` answers without `take` (DAB's default; PEERS.md §A5). */
export const AGGREGATE_DEFAULT_TAKE = 100;

/** The parts of a group a `having` or an `order` names per column. */
type ColumnPart = 'countDistinct' | 'sum' | 'avg' | 'min' | 'max';

/** `<Base>Having`: `count`, a part's per-column operators, `and`/`or`. */
export interface HavingInput {
  count?: Record<string, unknown> | null;
  countDistinct?: Record<string, Record<string, unknown> | null> | null;
  sum?: Record<string, Record<string, unknown> | null> | null;
  avg?: Record<string, Record<string, unknown> | null> | null;
  min?: Record<string, Record<string, unknown> | null> | null;
  max?: Record<string, Record<string, unknown> | null> | null;
  and?: HavingInput[] | null;
  or?: HavingInput[] | null;
}

type Direction = 'ASC' | 'DESC';

/** One element of `order: [<Base>GroupOrder!]`: names one thing. */
export type GroupOrderInput = Record<string, Direction | Record<string, Direction | null> | null>;

/** Arguments of `aggregate<Base>`. */
interface AggregateArgs {
  where?: FilterInput | null;
  groupBy?: string[] | null;
  buckets?: Record<string, DateBucket | null> | null;
  having?: HavingInput | null;
  order?: GroupOrderInput[] | null;
  take?: number | null;
  skip?: number | null;
}

/** Operators `having` takes: the comparisons and lists of numbers (README "Aggregates"). */
const HAVING_OPS: ReadonlySet<string> = new Set([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
]);

/**
 * One measure's operators as group conditions: comparisons as in filters (`eq: null`/`neq: null`
 * match an empty/filled aggregate, another comparison with null holds for no group), `in` as OR
 * of equalities (`in: []` holds for no group), `nin` as AND of inequalities (`nin: []` for every
 * group). `bind` turns a sent value into the value bound for the database.
 * @throws DomainError INVALID_INPUT for a text operator (`contains`, …), naming the path.
 */
function measureConditions(
  measure: GroupMeasure,
  ops: Record<string, unknown>,
  bind: (value: unknown) => unknown,
  path: string,
): GroupCondition[] {
  const out: GroupCondition[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (value === undefined) continue;
    if (!HAVING_OPS.has(op)) {
      throw invalidInput(
        `having.${path}: ${op} does not apply to aggregates; use eq, neq, gt, gte, lt, lte, in or nin`,
      );
    }
    const compare = (cmp: CompareOp, v: unknown): GroupCondition => ({
      kind: 'compare',
      measure,
      op: cmp,
      value: v === null ? null : bind(v),
    });
    if (op === 'in' || op === 'nin') {
      const items = (value as unknown[]).map((v) => compare(op === 'in' ? 'eq' : 'neq', v));
      out.push({ kind: op === 'in' ? 'or' : 'and', items });
    } else if (value === null && op !== 'eq' && op !== 'neq') {
      out.push({ kind: 'or', items: [] });
    } else {
      out.push(compare(op as CompareOp, value));
    }
  }
  return out;
}

/**
 * `having` as a {@link GroupCondition} over the groups of `node` (README "Aggregates"): keys at one
 * level combine with AND; `count`/`countDistinct`/`avg` compare numbers, `sum` the sum's scalar
 * (BigInt or Decimal text, Float), `min`/`max` values of the column's type, bound as the
 * column's values are. The schema offers only the columns each part takes.
 * @throws DomainError INVALID_INPUT for a text operator.
 */
export function planHaving(node: RowNode, having: HavingInput, dialect: Dialect): GroupCondition {
  const items: GroupCondition[] = [];
  const same = (v: unknown) => v;
  for (const [key, value] of Object.entries(having)) {
    if (value === null || value === undefined) continue;
    if (key === 'and' || key === 'or') {
      const inner = (value as HavingInput[]).map((h) => planHaving(node, h, dialect));
      items.push({ kind: key, items: inner });
    } else if (key === 'count') {
      items.push(
        ...measureConditions({ fn: 'count' }, value as Record<string, unknown>, same, key),
      );
    } else {
      const fn = key as ColumnPart;
      for (const [name, ops] of Object.entries(value as Record<string, unknown>)) {
        if (ops === null || ops === undefined) continue;
        const column = node.columns.find((c) => c.name === name)!;
        const measure: GroupMeasure = { fn, column: name, kind: effectiveKind(column) };
        const bind =
          fn === 'min' || fn === 'max'
            ? (v: unknown) => columnValue(node, column, v, dialect)
            : same;
        items.push(
          ...measureConditions(measure, ops as Record<string, unknown>, bind, `${key}.${name}`),
        );
      }
    }
  }
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/**
 * `order` as sort terms over groups (README "Aggregates"): each element names exactly one thing,
 * `{count: DESC}`, `{key: {customer_id: ASC}}` (a grouped column) or `{sum: {total: DESC}}`; the
 * grouped columns ascending complete it. Empty aggregates (a sum over no value) sort as empty
 * values do (first under ASC, last under DESC).
 * @throws DomainError INVALID_INPUT for an element naming other than one thing, or a key column
 * not grouped.
 */
export function planGroupOrder(
  node: RowNode,
  order: readonly GroupOrderInput[],
  grouped: readonly GroupKey[],
): GroupOrderTerm[] {
  const oneOf = (value: Record<string, unknown>) =>
    Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
  const example = 'e.g. [{sum: {total: DESC}}, {count: DESC}, {key: {customer_id: ASC}}]';
  return order.map((element) => {
    const entries = oneOf(element);
    if (entries.length !== 1) {
      throw invalidInput(`Each order element of an aggregate names exactly one thing, ${example}`);
    }
    const [part, value] = entries[0];
    if (part === 'count') {
      return { measure: { fn: 'count' }, direction: value as Direction, nullable: false };
    }
    const leaves = oneOf(value as Record<string, unknown>);
    if (leaves.length !== 1) {
      throw invalidInput(`order: ${part} must name exactly one column, ${example}`);
    }
    const [name, direction] = leaves[0] as [string, Direction];
    if (part === 'key') {
      const index = grouped.findIndex((g) => g.column === name);
      if (index < 0) {
        throw invalidInput(
          `order: key.${name} is not grouped; add ${name} to groupBy to order by it`,
        );
      }
      return { measure: { fn: 'key', index }, direction, nullable: grouped[index].nullable };
    }
    const column = node.columns.find((c) => c.name === name)!;
    const fn = part as ColumnPart;
    return {
      measure: { fn, column: name, kind: effectiveKind(column) },
      direction,
      nullable: fn !== 'countDistinct',
    };
  });
}

/** Kinds whose equality every database runs: what may be grouped and counted distinct. */
const COMPARABLE: ReadonlySet<ColumnKind> = new Set<ColumnKind>([
  'text',
  'int',
  'float',
  'bigint',
  'decimal',
  'boolean',
  'date',
  'time',
  'duration',
  'timestamp',
  'timestamptz',
  'uuid',
]);

/** Kinds `sum` and `avg` take. */
const NUMERIC: ReadonlySet<ColumnKind> = new Set<ColumnKind>(['int', 'bigint', 'decimal', 'float']);

/**
 * Kinds `min`/`max` take: the orderable ones ({@link isOrderable}) less booleans (SQL Server has
 * no `MIN` of `bit`, PostgreSQL none of `boolean`) and uuids (PostgreSQL has no `min(uuid)`).
 */
const EXTREMES = (kind: ColumnKind) => isOrderable(kind) && kind !== 'boolean' && kind !== 'uuid';

/** GraphQL enum value names a column may not take (GraphQL spec, "Enum Value"). */
const RESERVED_ENUM_VALUES = new Set(['true', 'false', 'null']);

/**
 * The columns of the API's root row an aggregate may touch, per role: only included columns
 * (`node.columns`, "aggregating a column is reading it", PEERS.md §A5), never a database enum's
 * order (PostgreSQL sorts an enum by declaration, MySQL by text) for `min`/`max`.
 */
export function aggregateColumns(node: RowNode): {
  groupable: ModelColumn[];
  numeric: ModelColumn[];
  extremes: ModelColumn[];
} {
  const kind = (c: ModelColumn) => effectiveKind(c);
  return {
    groupable: node.columns.filter(
      (c) => COMPARABLE.has(kind(c)) && !RESERVED_ENUM_VALUES.has(c.name),
    ),
    numeric: node.columns.filter((c) => NUMERIC.has(kind(c))),
    extremes: node.columns.filter((c) => EXTREMES(kind(c)) && !c.dbEnum),
  };
}

/** The type of a column's sum: integers as `BigInt` text (may pass 2^53), decimals as `Decimal`. */
function sumType(kind: ColumnKind): GraphQLOutputType {
  if (kind === 'int' || kind === 'bigint') return BigIntScalar;
  return kind === 'decimal' ? DecimalScalar : GraphQLFloat;
}

/** The parts of `<Base>Group` a request selected: top-level names, and columns per part. */
export interface Selection {
  top: Set<string>;
  columns: Map<string, Set<string>>;
}

function collect(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  visit: (field: FieldNode) => void,
  seen = new Set<string>(),
): void {
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) visit(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) collect(s.selectionSet, fragments, visit, seen);
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      collect(fragments[s.name.value]?.selectionSet, fragments, visit, seen);
    }
  }
}

/**
 * Adds to `shape` the aggregates a group selection reads: always `count`, then each selected
 * column of `countDistinct`, `sum`, `min`, `max`, and per `avg` column its exact sum and its count
 * of values (the average is divided in the service, {@link shapeGroup}). Aliases `__tg_a<n>`.
 */
export function addSelectedAggregates(
  shape: GroupShape,
  selection: Selection,
  byName: ReadonlyMap<string, ModelColumn>,
): void {
  const add = (fn: AggregateItem['fn'], column?: ModelColumn) => {
    const item: AggregateItem = { fn, alias: `__tg_a${shape.items.length}` };
    if (column) Object.assign(item, { column: column.name, kind: effectiveKind(column) });
    shape.items.push({ item, column });
    return item.alias;
  };
  add('count');
  const part = (name: string) => [...(selection.columns.get(name) ?? [])];
  for (const name of part('countDistinct')) add('countDistinct', byName.get(name));
  for (const name of part('sum')) add('sum', byName.get(name));
  for (const fn of ['min', 'max'] as const) {
    for (const name of part(fn)) add(fn, byName.get(name));
  }
  for (const name of part('avg')) {
    const column = byName.get(name)!;
    shape.avgs.push({ column: name, sum: add('sum', column), values: add('countValues', column) });
  }
}

/** The parts and columns the field nodes of a group select, fragments expanded. */
export function selectionOf(
  nodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): Selection {
  const selection: Selection = { top: new Set(), columns: new Map() };
  for (const node of nodes) {
    collect(node.selectionSet, fragments, (field) => {
      const name = field.name.value;
      selection.top.add(name);
      let columns = selection.columns.get(name);
      if (!columns) selection.columns.set(name, (columns = new Set()));
      collect(field.selectionSet, fragments, (sub) => columns.add(sub.name.value));
    });
  }
  return selection;
}

/** How one answered row's aliases become a group. */
export interface GroupShape {
  keys: { alias: string; column: ModelColumn }[];
  items: { item: AggregateItem; column?: ModelColumn }[];
  /** Per avg column: the aliases of its exact sum and of its count of values. */
  avgs: { column: string; sum: string; values: string }[];
}

/**
 * An exact sum as canonical decimal text: the database's text, bigint or number without a
 * trailing fractional zero (`"71.00"` → `"71"`), so the four databases answer alike (PostgreSQL
 * and MySQL keep the column's scale, SQLite sums decimals as REAL).
 */
export function sumText(raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  let text = typeof raw === 'bigint' ? raw.toString() : String(raw).trim();
  if (typeof raw === 'number' && !Number.isFinite(raw)) return text;
  if (/^-?\d+\.\d*$/.test(text)) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}

function formatted(dialect: Dialect, column: ModelColumn, raw: unknown): unknown {
  const value = dialect.formatValue(column, raw);
  return value instanceof UnreadableValue
    ? new DatabaseRefusalError({
        code: 'INVALID_VALUE',
        field: column.name,
        message: value.message,
      })
    : value;
}

/** A Float the response can carry: NaN and infinities (a PostgreSQL float sum) are refused. */
function finite(column: string, value: number | null): number | null | DatabaseRefusalError {
  if (value === null || Number.isFinite(value)) return value;
  return new DatabaseRefusalError({
    code: 'INVALID_VALUE',
    field: column,
    message: `the aggregate of ${column} is ${value}, which a GraphQL Float cannot carry`,
  });
}

/**
 * One answered row as a `<Base>Group` value: keys formatted as the columns' values, `count`,
 * exact sums as canonical text, averages divided here, min/max formatted; a value the response
 * cannot carry (a NaN float sum) becomes an INVALID_VALUE error of that field.
 */
export function shapeGroup(
  row: Record<string, unknown>,
  shape: GroupShape,
  dialect: Dialect,
): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const { alias, column } of shape.keys)
    key[column.name] = formatted(dialect, column, row[alias]);
  const parts: Record<'countDistinct' | 'sum' | 'avg' | 'min' | 'max', Record<string, unknown>> = {
    countDistinct: {},
    sum: {},
    avg: {},
    min: {},
    max: {},
  };
  let count = 0;
  for (const { item, column } of shape.items) {
    const raw = row[item.alias];
    const name = column?.name ?? '';
    if (item.fn === 'count') count = Number(raw ?? 0);
    else if (item.fn === 'countDistinct') parts.countDistinct[name] = Number(raw ?? 0);
    else if (item.fn === 'sum') {
      const text = sumText(raw);
      parts.sum[name] =
        item.kind === 'float' ? finite(name, text === null ? null : Number(text)) : text;
    } else if (item.fn === 'min' || item.fn === 'max') {
      parts[item.fn][name] = raw === null ? null : formatted(dialect, column!, raw);
    }
  }
  for (const avg of shape.avgs) {
    const values = Number(row[avg.values] ?? 0);
    const sum = sumText(row[avg.sum]);
    parts.avg[avg.column] =
      values === 0 || sum === null ? null : finite(avg.column, Number(sum) / values);
  }
  return { key, count, ...parts };
}

/**
 * `aggregate<Base>`: one grouped SELECT (`AggregatePlan`) inside the caller's row rule of the
 * table (`RowScopes`, as `get<Base>`: the aggregate sees only the rows the caller may read, and a
 * role without a rule reads nothing, failing closed), reading only the aggregates the request
 * selects. `avg` is the exact sum divided by the count of values, in the service, so no database
 * divides integers (SQL Server's `AVG` of `int` does, PEERS.md §A2) and every database answers
 * the same Float.
 * @throws DomainError INVALID_INPUT for a negative `take`/`skip` or `take` beyond 10,000.
 */
export function aggregateResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, AggregateArgs> {
  const kept = new WeakMap<readonly FieldNode[], PlannedRead & { shape?: GroupShape }>();
  const byName = new Map(node.columns.map((c) => [c.name, c]));
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const page = planPage(args.take ?? AGGREGATE_DEFAULT_TAKE, args.skip);
    const grouped = [...new Set(args.groupBy ?? [])];
    const conn = await ctx.connection(node.table.datasourceId);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const read = plannedRead(
      kept,
      info,
      scope,
      () => {
        const related = new ConsultedScopes(ctx.scopes);
        const where = planWhere(node, args.where, conn.dialect, related);
        if (page.take === 0 && grouped.length) return { query: null, columns: [] };
        const selection = selectionOf(info.fieldNodes, info.fragments);
        const shape: GroupShape = { keys: [], items: [], avgs: [] };
        const buckets = args.buckets ?? {};
        for (const [name, bucket] of Object.entries(buckets)) {
          if (bucket && !grouped.includes(name)) {
            throw invalidInput(`buckets.${name}: ${name} is not grouped; add it to groupBy`);
          }
        }
        const groupBy = grouped.map((name, i): GroupKey => {
          const column = byName.get(name)!;
          const alias = `__tg_k${i}`;
          shape.keys.push({ alias, column });
          const key = {
            column: name,
            kind: effectiveKind(column),
            nullable: column.nullable,
            alias,
          };
          const bucket = buckets[name];
          return bucket ? { ...key, bucket } : key;
        });
        if (args.having && !grouped.length) {
          throw invalidInput(
            'having filters groups: add groupBy, or filter the rows with where (without groupBy the answer is one group)',
          );
        }
        const having = args.having ? planHaving(node, args.having, conn.dialect) : undefined;
        // Without groupBy there is one group: an order has nothing to sort.
        const order = grouped.length ? planGroupOrder(node, args.order ?? [], groupBy) : [];
        addSelectedAggregates(shape, selection, byName);
        const query = conn.dialect.compileAggregate({
          table: tableRef(node.table),
          where,
          scope,
          groupBy,
          aggregates: shape.items.map((i) => i.item),
          ...(having && { having }),
          ...(order.length && { order }),
          ...(groupBy.length ? page : { take: null, skip: 0 }),
        });
        return { query, columns: [], related: related.tables, shape };
      },
      (table: ModelTable) => ctx.scopes.of(table, conn.dialect),
    ) as PlannedRead & { shape?: GroupShape };
    if (!read.query) return [];
    const { rows } = await conn.run(read.query);
    const groups = rows.map((row) => shapeGroup(row, read.shape!, conn.dialect));
    // Without groupBy the one group is the whole filtered set: paged here.
    return grouped.length ? groups : groups.slice(page.skip, page.skip + page.take);
  });
}

/** Aggregate types already built, per type factory and row type name (one type per name). */
const BUILT = new WeakMap<OperationTypes, Map<string, AggregateTypes>>();

/** The types {@link aggregateTypes} gives. */
export interface AggregateTypes {
  group: GraphQLObjectType;
  column: GraphQLEnumType | null;
  inputs: GroupInputs | null;
}

/**
 * {@link buildAggregateTypes} once per row type name of one schema build: `aggregate<Base>` and
 * `<navigation>Aggregate` fields of nodes sharing a type name share the types.
 */
export function aggregateTypes(node: RowNode, types: OperationTypes): AggregateTypes {
  let built = BUILT.get(types);
  if (!built) BUILT.set(types, (built = new Map()));
  let found = built.get(node.typeName);
  if (!found) built.set(node.typeName, (found = buildAggregateTypes(node, types)));
  return found;
}

/**
 * The output and argument types of `aggregate<Base>` (README "Aggregates"): `<Base>GroupColumn`
 * (an enum of the groupable columns), `<Base>Group` { key: `<Base>GroupKey`, count,
 * countDistinct: `<Base>GroupCounts`, sum: `<Base>GroupSums`, avg: `<Base>GroupAverages`, min and
 * max: `<Base>GroupValues` }, each part present only when some included column fits it. Each
 * name is claimed against every other generated name (a clash is refused, 409).
 */
function buildAggregateTypes(node: RowNode, types: OperationTypes): AggregateTypes {
  const base = node.typeName;
  const { groupable, numeric, extremes } = aggregateColumns(node);
  const owner = `aggregate ${node.shape}`;
  const object = (
    suffix: string,
    description: string,
    fields: GraphQLFieldConfigMap<unknown, unknown>,
  ) => {
    const name = `${base}${suffix}`;
    types.claim(name, owner, `the aggregate types of ${node.table.name} (${base})`);
    return new GraphQLObjectType({ name, description, fields });
  };
  const typed = (columns: ModelColumn[], type: (c: ModelColumn) => GraphQLOutputType) =>
    Object.fromEntries(columns.map((c) => [c.name, { type: type(c) }]));
  // A part present only when a column fits it; the field is marked as read by its group's statement.
  const part = { extensions: { aggregatePart: true } };
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  let column: GraphQLEnumType | null = null;
  if (groupable.length) {
    const name = `${base}GroupColumn`;
    types.claim(name, owner, `the aggregate types of ${node.table.name} (${base})`);
    column = new GraphQLEnumType({
      name,
      description: `A column of ${base} to group by.`,
      values: Object.fromEntries(groupable.map((c) => [c.name, { value: c.name }])),
    });
    fields.key = {
      ...part,
      type: object(
        'GroupKey',
        "The grouped columns' values; null for a column not grouped.",
        typed(groupable, (c) => types.column(node, c)),
      ),
    };
  }
  fields.count = { type: new GraphQLNonNull(GraphQLInt), description: 'Rows in the group.' };
  if (groupable.length) {
    fields.countDistinct = {
      ...part,
      type: object(
        'GroupCounts',
        'Distinct non-empty values per column.',
        typed(groupable, () => new GraphQLNonNull(GraphQLInt)),
      ),
    };
  }
  if (numeric.length) {
    fields.sum = {
      ...part,
      type: object(
        'GroupSums',
        'Sums of non-empty values; null over none.',
        typed(numeric, (c) => sumType(effectiveKind(c))),
      ),
    };
    fields.avg = {
      ...part,
      type: object(
        'GroupAverages',
        'Averages of non-empty values (never integer division); null over none.',
        typed(numeric, () => GraphQLFloat),
      ),
    };
  }
  if (extremes.length) {
    const values = object(
      'GroupValues',
      'Smallest or largest non-empty value per column; null over none.',
      typed(extremes, (c) => types.column(node, c)),
    );
    fields.min = { ...part, type: values };
    fields.max = { ...part, type: values };
  }
  const group = object('Group', `One group of ${base} rows and its aggregates.`, fields);
  return { group, column, inputs: column && groupInputs(node, types) };
}

/** The input types of `buckets`, `having` and `order`, offered with `groupBy`. */
interface GroupInputs {
  buckets: GraphQLInputObjectType | null;
  having: GraphQLInputObjectType;
  order: GraphQLInputObjectType;
}

/**
 * `<Base>GroupBuckets` (a date/time bucket per groupable date or date-time column), `<Base>Having`
 * (count, and per part its columns' operators, reusing the column operator inputs: `IntFilter` for
 * counts, the sum's scalar's, `FloatFilter` for averages, the column's own for min/max) and
 * `<Base>GroupOrder` (count, key, and per part its columns), each claimed like every generated
 * name. A part's fields carry `extensions.havingPart`, so the cost check reads their lists
 * (`operation-cost.ts`).
 */
function groupInputs(node: RowNode, types: OperationTypes): GroupInputs {
  const base = node.typeName;
  const { groupable, numeric, extremes } = aggregateColumns(node);
  const input = (suffix: string, description: string, fields: () => GraphQLInputFieldConfigMap) => {
    const name = `${base}${suffix}`;
    types.claim(
      name,
      `aggregate ${node.shape}`,
      `the aggregate inputs of ${node.table.name} (${base})`,
    );
    return new GraphQLInputObjectType({ name, description, fields });
  };
  const each = (columns: ModelColumn[], type: (c: ModelColumn) => GraphQLInputType) =>
    Object.fromEntries(columns.map((c) => [c.name, { type: type(c) }]));
  const kindOf = (c: ModelColumn) => effectiveKind(c);
  const dated = groupable.filter((c) => ['date', 'timestamp', 'timestamptz'].includes(kindOf(c)));
  const buckets = dated.length
    ? input(
        'GroupBuckets',
        'Per grouped date or date-time column, the bucket to group it by.',
        () => each(dated, (c) => (kindOf(c) === 'date' ? DateBucketEnum : DateTimeBucketEnum)),
      )
    : null;
  const int = filterInputOf('int', false);
  const havingPart = { extensions: { havingPart: true } };
  const sumFilter = (c: ModelColumn) => {
    const kind = kindOf(c);
    return filterInputOf(kind === 'int' ? 'bigint' : kind, false);
  };
  const having: GraphQLInputObjectType = input(
    'Having',
    'Conditions on groups (eq, neq, gt, gte, lt, lte, in, nin); keys at one level combine with AND.',
    () => {
      const fields: GraphQLInputFieldConfigMap = {
        count: { type: int },
        countDistinct: {
          ...havingPart,
          type: input('HavingCounts', 'Distinct non-empty values per column.', () =>
            each(groupable, () => int),
          ),
        },
      };
      if (numeric.length) {
        fields.sum = {
          ...havingPart,
          type: input('HavingSums', 'Sums per column.', () => each(numeric, sumFilter)),
        };
        fields.avg = {
          ...havingPart,
          type: input('HavingAverages', 'Averages per column.', () =>
            each(numeric, () => filterInputOf('float', false)),
          ),
        };
      }
      if (extremes.length) {
        const values = input('HavingValues', 'Smallest or largest value per column.', () =>
          each(extremes, (c) => filterInputOf(kindOf(c), node.isKey(c.name))),
        );
        fields.min = { ...havingPart, type: values };
        fields.max = { ...havingPart, type: values };
      }
      fields.and = {
        type: new GraphQLList(new GraphQLNonNull(having)),
        description: 'All must hold.',
      };
      fields.or = {
        type: new GraphQLList(new GraphQLNonNull(having)),
        description: 'One must hold.',
      };
      return fields;
    },
  );
  const directions = (suffix: string, columns: ModelColumn[]) =>
    input(suffix, 'Names one column.', () => each(columns, () => SortDirection));
  const columnsOrder = directions('GroupColumnsOrder', groupable);
  const order = input(
    'GroupOrder',
    'Names one thing per list element; the grouped columns ascending complete every order.',
    () => {
      const fields: GraphQLInputFieldConfigMap = {
        key: { type: columnsOrder, description: 'A grouped column.' },
        count: { type: SortDirection },
        countDistinct: { type: columnsOrder },
      };
      if (numeric.length) {
        const numbers = directions('GroupNumbersOrder', numeric);
        fields.sum = { type: numbers };
        fields.avg = { type: numbers };
      }
      if (extremes.length) {
        const values = directions('GroupValuesOrder', extremes);
        fields.min = { type: values };
        fields.max = { type: values };
      }
      return fields;
    },
  );
  return { buckets, having, order };
}

/**
 * `aggregate<Base>(where, groupBy, take, skip): [<Base>Group!]!`, offered by the `aggregate`
 * action (off by default, issue 23 item 2; PEERS.md §A5): groups ordered by the grouped columns
 * ascending (NULL first), `take` 100 groups by default and at most 10,000; without `groupBy` one
 * group, the whole filtered set (count 0 and null sums over no row). The cost walk counts `take`
 * groups (`rowEstimate`), one statement.
 */
export const aggregate: OperationKind = {
  action: 'aggregate',
  root: 'query',
  rootFieldName: (base) => `aggregate${base}`,
  offered: (api) => api.actions.aggregate === true,
  field: ({ node, types }) => {
    const { group, column, inputs } = aggregateTypes(node, types);
    return {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(group))),
      args: {
        where: { type: types.filter(node) },
        ...(column && {
          groupBy: {
            type: new GraphQLList(new GraphQLNonNull(column)),
            description: 'Columns to group by; none: one group of every matching row.',
          },
        }),
        ...(inputs?.buckets && {
          buckets: {
            type: inputs.buckets,
            description: 'Groups a grouped date or date-time column by year, month, day or hour.',
          },
        }),
        ...(inputs && {
          having: { type: inputs.having, description: 'Conditions on the groups.' },
          order: {
            type: new GraphQLList(new GraphQLNonNull(inputs.order)),
            description: 'Sorts the groups; the grouped columns ascending complete every order.',
          },
        }),
        take: { type: GraphQLInt, description: 'At most 10,000 groups; default 100.' },
        skip: { type: GraphQLInt, description: 'Groups to skip; default 0.' },
      },
      resolve: aggregateResolver(node) as never,
      extensions: {
        rowEstimate: { rows: AGGREGATE_DEFAULT_TAKE },
        // Grouping reads every row the filter leaves: charged the table's rows (LIMIT_SCANNED_ROWS).
        scanEstimate: tableRowEstimate(node.table).rowEstimate,
      },
    };
  },
};
