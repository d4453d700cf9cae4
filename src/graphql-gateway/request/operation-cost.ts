import {
  FieldNode,
  FragmentDefinitionNode,
  getArgumentValues,
  getNamedType,
  getNullableType,
  GraphQLField,
  GraphQLInputObjectType,
  GraphQLObjectType,
  GraphQLSchema,
  isInputObjectType,
  isListType,
  isObjectType,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { DomainError, ErrorCode, invalidInput } from '../../common/domain-error';
import type { NavigationNode } from '../api-tree';
import { TAKE_LIMIT } from '../query-planner';
import type { ModelTable } from '../../platform/version-definition';

/**
 * One field of an operation with fragments expanded and fields of the same response name merged,
 * as the executor will run it: what the cost estimate and the argument ceilings read.
 */
export interface PlannedField {
  responseKey: string;
  definition: GraphQLField<unknown, unknown>;
  /** The field's AST nodes (several when fragments select it more than once); arguments are read from the first. */
  nodes: FieldNode[];
  /** Returns a list of rows (`get<Base>`, one-to-many): its `take` multiplies the rows below. */
  list: boolean;
  /** Returns rows (object types); counts and scalars return none. */
  rows: boolean;
  children: PlannedField[];
}

/** The ceilings checked per request (CONTRACT.md §6 Limits; `AppConfig.limits`). */
export interface CostLimits {
  rows: number;
  statements: number;
  skip: number;
  inList: number;
  booleanItems: number;
  /** `LIMIT_SCANNED_ROWS`: rows the request's counts may scan, summed ({@link checkRequestCost}). */
  scannedRows: number;
  /**
   * `LIMIT_RELATION_FILTERS`: relation filters (correlated subqueries) in one request. PostgreSQL
   * plans them as semi-joins and its planning time grows faster than their number: measured on
   * PostgreSQL 15 (one table filtered through N many-to-one keys) 3 ms at 4, 48 ms at 6, 116 ms at
   * 8, 523 ms at 20, and the 5 s statement deadline near 50 (README "Limits"); the default is 8.
   */
  relationFilters: number;
  /** `LIMIT_BULK_ROWS`: rows one `rows` list argument (`addMany<Base>`) may carry. */
  bulkRows: number;
}

/** What the per-request check found, within every ceiling. */
export interface RequestCost {
  /** Estimated rows read, summed over every field (fragments expanded). */
  rows: number;
  /** SQL statements the request runs: one per root field and one per navigation occurrence. */
  statements: number;
  /** Estimated rows the request's counts scan, summed. */
  scanned: number;
}

/**
 * What the model's statistics say of the rows an output field reads, kept in the field's
 * `extensions.rowEstimate` by the schema (set once per schema build, so the cost walk reads no
 * database): on `get<Base>` and `count<Base>` the table's `estimatedRows`, on a one-to-many
 * navigation its foreign key's `fanOut` (rows per parent). `rows` is null when the statistics say
 * nothing (never analyzed, a definition saved before statistics were read): the walk then counts
 * the worst case.
 */
export interface RowEstimateMark {
  rows: number | null;
  /**
   * The parent field's argument that bounds the rows instead, when the request gives it as a
   * number: `atMost` for the `rows` of `updateMany<Base>`, which answers at most that many.
   */
  parentArgument?: string;
}

/** The `extensions` of a root `get`/`count` field: its table's estimated rows ({@link RowEstimateMark}). */
export function tableRowEstimate(table: ModelTable): { rowEstimate: RowEstimateMark } {
  return { rowEstimate: { rows: table.estimatedRows ?? null } };
}

/**
 * The `extensions` of a navigation field ({@link RowEstimateMark}): for a one-to-many navigation
 * the `fanOut` of the child table's foreign key on the navigation's column (`toColumn`) that
 * references the parent's table; none for a many-to-one navigation, which reads one row per
 * parent.
 */
export function navigationRowEstimate(
  nav: NavigationNode,
): { rowEstimate: RowEstimateMark } | undefined {
  if (nav.navigation.kind !== 'oneToMany') return undefined;
  const fk = nav.node.table.foreignKeys.find(
    (k) => k.columns.length === 1 && k.columns[0] === nav.navigation.toColumn,
  );
  return { rowEstimate: { rows: fk?.fanOut ?? null } };
}

/** The estimate a field carries: a number, or null when unknown or absent. */
function estimateOf(field: PlannedField): number | null {
  return scanEstimate(field.definition.extensions?.rowEstimate as RowEstimateMark | undefined);
}

/** A mark's rows: a number, or null when unknown or absent. */
function scanEstimate(mark: RowEstimateMark | undefined): number | null {
  return typeof mark?.rows === 'number' && Number.isFinite(mark.rows) && mark.rows >= 0
    ? mark.rows
    : null;
}

/**
 * The statements an operation runs (CONTRACT.md §6 Limits: "root fields × navigation levels,
 * fragments expanded"): every root field is one statement (a count reads no rows but still holds
 * a connection while it scans) and every navigation field below it one more, since a navigation
 * occurrence is loaded for all its parents in one batched statement (ADR 0011). Independent of
 * variables, so computed once per compiled document.
 */
export function countStatements(fields: readonly PlannedField[]): number {
  const below = (level: readonly PlannedField[]): number =>
    level.reduce((sum, field) => (field.rows ? sum + 1 + below(field.children) : sum), 0);
  return fields.reduce((sum, field) => sum + 1 + below(field.children), 0);
}

/**
 * @throws DomainError QUERY_TOO_COMPLEX when the operation runs more statements than the ceiling
 * (CONTRACT.md §6 Limits, `LIMIT_STATEMENTS`).
 */
export function checkStatementCount(statements: number, limit: number): void {
  if (statements <= limit) return;
  throw new DomainError(
    ErrorCode.QueryTooComplex,
    `The request runs ${statements.toLocaleString('en-US')} SQL statements (one per root field and one per navigation field, fragments expanded); the limit is ${limit.toLocaleString('en-US')}. Send fewer aliases or nested levels, or split the request`,
  );
}

/**
 * Builds the field tree of an operation: fragments (named and inline) expanded, fields merged by
 * response key, each with its schema definition. Introspection fields are leaves (they read the
 * schema, not rows; graphql-js's MaxIntrospectionDepthRule bounds them). Call only on a document
 * that validated and whose expanded shape is within the field ceiling (the tree is as large as
 * that shape).
 */
export function planOperationFields(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): PlannedField[] {
  const root =
    operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return [];
  return collect(root, [operation.selectionSet], fragments);
}

function collect(
  parent: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  fragments: Map<string, FragmentDefinitionNode>,
): PlannedField[] {
  const groups = new Map<string, FieldNode[]>();
  const gather = (set: SelectionSetNode, seen: Set<string>) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        const group = groups.get(key);
        if (group) group.push(s);
        else groups.set(key, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        gather(s.selectionSet, seen);
      } else if (!seen.has(s.name.value)) {
        // Like graphql-js's collectFields: one fragment's fields are collected once per selection set.
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) gather(fragment.selectionSet, seen);
      }
    }
  };
  const seen = new Set<string>();
  for (const set of sets) gather(set, seen);

  const out: PlannedField[] = [];
  for (const [responseKey, nodes] of groups) {
    const name = nodes[0].name.value;
    if (name.startsWith('__')) continue;
    const definition = parent.getFields()[name];
    if (!definition) continue;
    const named = getNamedType(definition.type);
    // A part of an aggregate group (`key`, `sum`, …) is read by its group's statement: no rows.
    const rows = isObjectType(named) && definition.extensions?.aggregatePart !== true;
    const children = rows
      ? collect(
          named,
          nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : [])),
          fragments,
        )
      : [];
    out.push({
      responseKey,
      definition: definition as GraphQLField<unknown, unknown>,
      nodes,
      list: isListType(getNullableType(definition.type)),
      rows,
      children,
    });
  }
  return out;
}

interface Tally {
  booleanItems: number;
  relationFilters: number;
}

/**
 * How a filter input field is a relation filter (`schema-builder.ts` sets it in the field's
 * `extensions.relationFilter`): `counts` when it is one correlated subquery (a many-to-one key, or
 * `some`/`none`/`every`), which counts as one and/or item; a one-to-many key holds the quantifiers.
 */
export interface RelationFilterMark {
  counts: boolean;
}

/**
 * Counts `and`/`or` items and relation filters (each many-to-one key and each `some`/`none`/
 * `every`: one subquery, one item, so nested relation filters cannot multiply past the ceiling)
 * and checks `in`/`nin` lengths of a coerced `where` value, inside relation filters too. `type` is
 * the value's input type, which tells relation keys from columns.
 */
function checkFilter(
  value: unknown,
  limits: CostLimits,
  tally: Tally,
  field: string,
  type: GraphQLInputObjectType | null,
): void {
  if (!value || typeof value !== 'object') return;
  const count = (items: number) => {
    tally.booleanItems += items;
    if (tally.booleanItems > limits.booleanItems) {
      throw invalidInput(
        `The request has more than ${limits.booleanItems} and/or items and relation filters; the limit is ${limits.booleanItems}: combine conditions with in lists or split the request`,
      );
    }
  };
  const countRelation = () => {
    count(1);
    countRelationFilter(limits, tally);
  };
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const definition = type?.getFields()[key];
    const mark = definition?.extensions?.relationFilter as RelationFilterMark | undefined;
    if ((key === 'and' || key === 'or') && Array.isArray(inner)) {
      count(inner.length);
      for (const item of inner) checkFilter(item, limits, tally, field, type);
    } else if ((mark || definition?.extensions?.havingPart === true) && definition) {
      // A relation filter, or a part of an aggregate's `having` (`sum: {total: {in: […]}}`).
      if (inner === null || inner === undefined) continue;
      if (mark?.counts) countRelation();
      const named = getNamedType(definition.type);
      checkFilter(inner, limits, tally, field, isInputObjectType(named) ? named : null);
    } else if (inner && typeof inner === 'object') {
      for (const [op, operand] of Object.entries(inner as Record<string, unknown>)) {
        if (
          (op === 'in' || op === 'nin') &&
          Array.isArray(operand) &&
          operand.length > limits.inList
        ) {
          throw invalidInput(
            `${field}: the ${op} list of ${key} has ${operand.length} items; the limit is ${limits.inList.toLocaleString('en-US')}`,
          );
        }
      }
    }
  }
}

/**
 * Counts one correlated subquery against `LIMIT_RELATION_FILTERS` (README "Limits"): a relation
 * filter, or a relation an order element names.
 * @throws DomainError INVALID_INPUT past the limit.
 */
function countRelationFilter(limits: CostLimits, tally: Tally): void {
  const limit = limits.relationFilters;
  tally.relationFilters += 1;
  if (tally.relationFilters > limit) {
    throw invalidInput(
      `The request has more than ${limit} relation filters (many-to-one keys, some/none/every, and relations named in an order); the limit is ${limit}: filter on the foreign key column with in, order by fewer relations, or split the request`,
    );
  }
}

/**
 * Counts the relations a coerced `order` value names (`schema-builder.ts` marks an order's
 * navigation keys with `extensions.relationOrder`): each is one correlated scalar subquery, so
 * one relation filter against `LIMIT_RELATION_FILTERS` (README "Order and pages"); nested ones
 * count each (`{customer: {orders: {count: DESC}}}` is two). Not and/or items. `type` is the
 * value's input type (`<Row>Order`), which tells relation keys from columns.
 * @throws DomainError INVALID_INPUT past the limit.
 */
function checkOrder(
  value: unknown,
  limits: CostLimits,
  tally: Tally,
  type: GraphQLInputObjectType | null,
): void {
  if (Array.isArray(value)) {
    for (const element of value) checkOrder(element, limits, tally, type);
    return;
  }
  if (!value || typeof value !== 'object' || !type) return;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const definition = type.getFields()[key];
    if (!definition?.extensions?.relationOrder || inner === null || inner === undefined) continue;
    countRelationFilter(limits, tally);
    const named = getNamedType(definition.type);
    checkOrder(inner, limits, tally, isInputObjectType(named) ? named : null);
  }
}

/**
 * Rows written by a list of row arguments: each object one row, plus the rows of every list of
 * objects it holds (nested one-to-many children, README "Writing rows"), however deep.
 * Iterative: a hostile value may nest deeper than the stack (variables are depth-bounded anyway).
 */
export function writtenRows(rows: readonly unknown[]): number {
  let count = 0;
  const stack: unknown[] = [...rows];
  while (stack.length) {
    const row = stack.pop();
    if (!row || typeof row !== 'object' || Array.isArray(row)) continue;
    count++;
    for (const value of Object.values(row as Record<string, unknown>)) {
      if (Array.isArray(value)) stack.push(...value.filter((v) => v && typeof v === 'object'));
    }
  }
  return count;
}

/** A page argument as a number, or the default when absent or null. */
function pageValue(args: Record<string, unknown>, name: string, fallback: number): number {
  const value = args[name];
  return typeof value === 'number' ? value : fallback;
}

/**
 * Request step 7 (DESIGN.md): with the request's coerced variables, checks every field's `take`
 * (0 to 10,000), `skip` (0 to the skip ceiling), `in`/`nin` list lengths and the request's
 * `and`/`or` items, then estimates the rows (CONTRACT.md §6 Limits, README "Limits"): along each
 * path the product of each level's rows, summed over every field, fragments expanded. A list
 * level's rows are its `take` when given, else what the statistics in the model expect
 * ({@link RowEstimateMark}: the table's estimated rows at the root, the foreign key's average
 * fan-out below; the `rows` of `updateMany<Base>` its `atMost`), never more than 10,000, and
 * 10,000 when the statistics are unknown; a single row (many-to-one) is 1 per parent. A level's total is rounded up to a whole row. Each
 * `count<Base>` and `aggregate<Base>` is charged the rows it scans, its table's estimated rows
 * uncapped (10,000 when unknown), and each `<navigation>Aggregate` its foreign key's fan-out per
 * parent (`extensions.scanEstimate`), summed over the request against `limits.scannedRows`. Counts the statements
 * ({@link countStatements}). Runs before any SQL and queries no database; linear in the field
 * tree. The request budget (`request-budget.ts`) stays the hard bound while executing.
 * @throws DomainError INVALID_INPUT naming the field and the limit; QUERY_TOO_COMPLEX naming the
 * estimate, the scanned rows or the statements, and the ceiling.
 */
export function checkRequestCost(
  fields: readonly PlannedField[],
  variableValues: Record<string, unknown>,
  limits: CostLimits,
): RequestCost {
  const tally: Tally = { booleanItems: 0, relationFilters: 0 };
  let scanned = 0;
  const walk = (
    level: readonly PlannedField[],
    multiplier: number,
    parentArgs: Record<string, unknown> = {},
  ): number => {
    let total = 0;
    for (const field of level) {
      const args = getArgumentValues(field.definition, field.nodes[0], variableValues);
      const label = field.nodes[0].name.value;
      if (field.definition.extensions?.writesRows === true) {
        // The rows an add writes: its own (or each of `rows`) and their nested children.
        const written = writtenRows(Array.isArray(args.rows) ? args.rows : [args]);
        if (written > limits.bulkRows) {
          const most = limits.bulkRows.toLocaleString('en-US');
          throw invalidInput(
            `${label}: writes ${written.toLocaleString('en-US')} rows with their nested rows; the limit is ${most}: send them in several requests`,
          );
        }
        // Each row written counts as a row (README "Cost budgets"), whatever the answer selects.
        total = Math.min(total + written, Number.MAX_SAFE_INTEGER);
      }
      // An order through relations: one correlated subquery per relation it names.
      const orderArg = field.definition.args.find((a) => a.name === 'order')?.type;
      const orderType = orderArg ? getNamedType(orderArg) : null;
      checkOrder(args.order, limits, tally, isInputObjectType(orderType) ? orderType : null);
      // `when`: the filter of an upsert on the existing row (operations/upsert.ts).
      for (const name of ['where', 'having', 'when']) {
        const argType = field.definition.args.find((a) => a.name === name)?.type;
        const filterType = argType ? getNamedType(argType) : null;
        checkFilter(
          args[name],
          limits,
          tally,
          label,
          isInputObjectType(filterType) ? filterType : null,
        );
      }
      const scans = field.definition.extensions?.scanEstimate as RowEstimateMark | undefined;
      if (scans) {
        // An aggregate groups every row its filter leaves, whatever `take` says: its table (or,
        // under a navigation, each parent's children) is the bound.
        const each = scanEstimate(scans) ?? TAKE_LIMIT;
        scanned = Math.min(scanned + multiplier * each, Number.MAX_SAFE_INTEGER);
      }
      if (!field.rows) {
        // A count scans what its filter leaves of its table; the table is the bound.
        if (field.definition.extensions?.rowEstimate) {
          scanned = Math.min(scanned + (estimateOf(field) ?? TAKE_LIMIT), Number.MAX_SAFE_INTEGER);
        }
        continue;
      }
      let rows = multiplier;
      if (field.list) {
        const mark = field.definition.extensions?.rowEstimate as RowEstimateMark | undefined;
        const bound = mark?.parentArgument ? parentArgs[mark.parentArgument] : undefined;
        const expected = Math.min(
          typeof bound === 'number' && bound >= 0 ? bound : (estimateOf(field) ?? TAKE_LIMIT),
          TAKE_LIMIT,
        );
        const take = pageValue(args, 'take', expected);
        const skip = pageValue(args, 'skip', 0);
        if (take < 0) throw invalidInput(`${label}: take must be 0 or more`);
        if (take > TAKE_LIMIT) {
          throw invalidInput(
            `${label}: take exceeds the limit of ${TAKE_LIMIT.toLocaleString('en-US')} rows`,
          );
        }
        if (skip < 0) throw invalidInput(`${label}: skip must be 0 or more`);
        if (skip > limits.skip) {
          throw invalidInput(
            `${label}: skip exceeds the limit of ${limits.skip.toLocaleString('en-US')} rows; page with a filter on the order column instead`,
          );
        }
        rows = Math.min(Math.ceil(multiplier * take), Number.MAX_SAFE_INTEGER);
      }
      total = Math.min(total + rows + walk(field.children, rows, args), Number.MAX_SAFE_INTEGER);
    }
    return total;
  };
  const statements = countStatements(fields);
  checkStatementCount(statements, limits.statements);
  const rows = walk(fields, 1);
  if (rows > limits.rows) {
    throw new DomainError(
      ErrorCode.QueryTooComplex,
      `The request may read up to ${rows.toLocaleString('en-US')} rows; the limit is ${limits.rows.toLocaleString('en-US')}. Give smaller take values (without take a level counts the rows the database's statistics expect, at most 10,000) or select fewer nested levels`,
    );
  }
  const scannedLimit = limits.scannedRows;
  if (scanned > scannedLimit) {
    throw new DomainError(
      ErrorCode.QueryTooComplex,
      `The request's counts and aggregates may scan ${scanned.toLocaleString('en-US')} rows (the tables' estimated rows); the limit is ${scannedLimit.toLocaleString('en-US')}. Count or aggregate fewer or smaller tables, or split the request`,
    );
  }
  return { rows, statements, scanned };
}
