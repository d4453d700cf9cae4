import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { DomainError, invalidInput } from '../../common/domain-error';
import type {
  DatabaseRefusal,
  Capabilities,
  ColumnValue,
  CompiledQuery,
  Condition,
  Dialect,
} from '../../datasources/core/dialect';
import { rowsInserted } from '../../webhooks/change-capture';
import { PARAMETER_LIMITS } from '../../datasources/core/sql-compiler';
import type { DatasourceConnection } from '../../datasources/datasource-pools.service';
import type { ModelTable } from '../../platform/version-definition';
import { baseName, type NavigationNode, type RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError } from '../graphql-errors';
import { columnKinds, columnModels, selectColumns, shapeRows, tableRef } from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import { planValues, referencesOf, writableColumns } from '../write-planner';
import { addArgs } from './add';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import {
  byColumn,
  guardedReferences,
  outsideRule,
  refuseHiddenReferences,
  runWrite,
} from './writes';

/** SQL Server takes at most 1,000 row value expressions in one INSERT (Microsoft docs, "Table Value Constructor"). */
const ROWS_PER_INSERT = 1_000;

/** Arguments of `addMany<Base>`. */
interface AddManyArgs {
  rows: Record<string, unknown>[];
}

/** `<path>: …`, naming the row (and the field, `rows[1].email`) a refusal is about. */
export function ofRow(path: string, error: unknown): unknown {
  if (error instanceof DatabaseRefusalError) {
    const { field } = error.refusal;
    return new DatabaseRefusalError({
      ...withoutValue(error.refusal),
      field: field === null ? path : `${path}.${field}`,
      message: `${path}: ${error.refusal.message}`,
    });
  }
  if (error instanceof DomainError) {
    return new DomainError(error.code, `${path}: ${error.message}`, error.details);
  }
  return error;
}

/**
 * A database refusal of one INSERT named by the row it is about (`rows[3].email`, issue 24 item 6)
 * when the database gave the refused value of a one-column key (PostgreSQL, MySQL/MariaDB: see
 * {@link DatabaseRefusal.value}): the first row of the statement (`indices` into `planned`) whose
 * value of that column has the same text. Otherwise (SQLite, SQL Server, a value no row holds as
 * such) the refusal names the field only, as the database did; the value is never passed on.
 */
function namingRow(
  error: unknown,
  indices: readonly number[],
  planned: readonly ColumnValue[][],
  pathOf: (index: number) => string,
): unknown {
  if (!(error instanceof DatabaseRefusalError)) return error;
  const { value, field } = error.refusal;
  if (value === undefined || field === null) return error;
  const index = indices.find((i) =>
    planned[i].some((v) => v.column === field && textOf(v.value) === value),
  );
  if (index === undefined) return new DatabaseRefusalError(withoutValue(error.refusal));
  return ofRow(pathOf(index), error);
}

/** The refusal without the database's value, which is never passed on. */
function withoutValue(refusal: DatabaseRefusal): DatabaseRefusal {
  const copy = { ...refusal };
  delete copy.value;
  return copy;
}

/** A bound value as the database's error text writes it: strings, numbers and bigints; else undefined. */
function textOf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    default:
      return undefined;
  }
}

/** The fields named `name` in the selection sets of `nodes`, fragments expanded. */
export function fieldsNamed(
  name: string,
  nodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): FieldNode[] {
  const out: FieldNode[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === name) out.push(s);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        visit(fragments[s.name.value]?.selectionSet);
      }
    }
  };
  for (const node of nodes) visit(node.selectionSet);
  return out;
}

/** Rows that set the same columns, in the order given, with their indices in `rows`. */
interface RowGroup {
  columns: string[];
  indices: number[];
  values: ColumnValue[][];
}

/** The rows grouped by the columns they set (first appearance first): one INSERT per group. */
function groupByColumns(planned: ColumnValue[][]): RowGroup[] {
  const groups = new Map<string, RowGroup>();
  planned.forEach((values, index) => {
    const columns = values.map((v) => v.column);
    const key = columns.join('\u0000');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { columns, indices: [], values: [] }));
    group.indices.push(index);
    group.values.push(values);
  });
  return [...groups.values()];
}

/**
 * The statements of one group: multi-row INSERTs of at most as many rows as the database's
 * bound-parameter limit allows (and 1,000, SQL Server's row values), or, for rows that set no
 * column, one `DEFAULT VALUES` INSERT per row.
 */
function insertStatements(
  dialect: Dialect,
  node: RowNode,
  group: RowGroup,
  returning: string[],
): { query: CompiledQuery; indices: number[] }[] {
  const table = tableRef(node.table);
  const kinds = columnKinds(node.table);
  const model = columnModels(node.table);
  if (group.columns.length === 0) {
    return group.indices.map((index) => ({
      query: dialect.compileInsert({ table, values: [], returning, kinds, model }),
      indices: [index],
    }));
  }
  const perStatement = Math.min(
    ROWS_PER_INSERT,
    Math.max(1, Math.floor(PARAMETER_LIMITS[dialect.type].max / group.columns.length)),
  );
  const out: { query: CompiledQuery; indices: number[] }[] = [];
  for (let start = 0; start < group.values.length; start += perStatement) {
    const rows = group.values.slice(start, start + perStatement);
    out.push({
      query: dialect.compileInsertMany({
        table,
        columns: group.columns,
        rows: rows.map((values) => values.map((v) => v.value)),
        returning,
        kinds,
        model,
      }),
      indices: group.indices.slice(start, start + perStatement),
    });
  }
  return out;
}

/** The rows of `node`'s table with these primary keys, within `scope`, read in the write's transaction. */
function keysCondition(node: RowNode, keys: Record<string, unknown>[]): Condition {
  return {
    kind: 'or',
    items: keys.map((key) => ({
      kind: 'and',
      items: node.table.primaryKey.map((column) => ({
        kind: 'compare',
        column,
        op: 'eq',
        value: key[column],
      })),
    })),
  };
}

/** What {@link insertRows} needs besides the rows: the request, its connection, the model. */
export interface InsertContext {
  ctx: GatewayContext;
  conn: DatasourceConnection;
  /** Every model table of the version: where foreign keys lead (`referencesOf`). */
  tables: readonly ModelTable[];
  /** Whether the database returns inserted rows (`RETURNING`/`OUTPUT`). */
  returnsRows: boolean;
}

/**
 * Inserts `rows` (GraphQL argument objects) into `node`'s table inside the request's
 * transaction (README "Writing rows", "Add many rows"), then their one-to-many children
 * ({@link insertChildren}): each row is planned as `add<Base>` plans its arguments, refusals named
 * by `pathOf(index)` (`rows[3]`, `order_lines[1]`) when known before SQL; one multi-row INSERT per
 * set of columns; under a row rule a foreign key to a hidden row is refused per row and every
 * written row must be inside the rule (read back by key), else the refusal rolls the request back.
 * `parentKey` names the foreign key a child row's parent fills ({@link insertChildren}).
 * @returns the rows inserted and each row's answered columns (`requested`, the primary key where
 * checked, and the keys children refer to), in the order given; answered rows are empty objects
 * where the database returns none.
 * @throws DatabaseRefusalError or DomainError naming the row; FORBIDDEN outside the rule.
 */
export async function insertRows(
  at: InsertContext,
  node: RowNode,
  rows: readonly Record<string, unknown>[],
  requested: readonly string[],
  pathOf: (index: number) => string,
  parentKey?: string,
): Promise<{ affected: number; answered: Record<string, unknown>[] }> {
  const { ctx, conn } = at;
  const key = node.table.primaryKey;
  const columns = writableColumns(node, 'insert');
  // A child's foreign key is written from its parent even where its fields tree leaves it out.
  const fk = node.table.columns.find((c) => c.name === parentKey);
  if (fk && !columns.includes(fk)) columns.push(fk);
  const planned = rows.map((row, index) => {
    try {
      return planValues(node, columns, row, conn.dialect);
    } catch (error) {
      throw ofRow(pathOf(index), error);
    }
  });
  const scope = ctx.scopes.of(node.table, conn.dialect);
  const checked = !admitsEveryRow(scope);
  const parents = childNavigations(node, rows).map((n) => n.navigation.fromColumn);
  if (parents.length && !at.returnsRows) {
    throw invalidInput(
      `${pathOf(0)}: nested rows need the parent's key back from the INSERT, which this database cannot return; add the children with their own add`,
    );
  }
  // Webhooks read the inserted rows again by key (README "Webhooks").
  const watching = (await ctx.changes?.watches(node.table, 'inserted')) ?? false;
  const returning = at.returnsRows
    ? [...new Set([...requested, ...(checked || watching ? key : []), ...parents])]
    : [...requested];
  // A foreign key to a row the caller cannot see is refused before anything is written.
  const references = referencesOf(at.tables, node.table).filter(
    (r) => !admitsEveryRow(ctx.scopes.of(r.table, conn.dialect)),
  );
  // Without a rule on any referenced table there is nothing to check, row by row.
  for (const [index, values] of references.length ? planned.entries() : []) {
    const guarded = guardedReferences(references, values, ctx.scopes, conn.dialect);
    const sent = byColumn(values);
    const complete = guarded.filter((r) => r.columns.every((c) => c in sent));
    try {
      await refuseHiddenReferences(conn.run, conn.dialect, complete, sent);
    } catch (error) {
      throw ofRow(pathOf(index), error);
    }
  }
  const answered: Record<string, unknown>[] = planned.map(() => ({}));
  let affected = 0;
  for (const group of groupByColumns(planned)) {
    for (const { query, indices } of insertStatements(conn.dialect, node, group, returning)) {
      const values = indices.length === 1 ? planned[indices[0]] : [];
      const result = await runWrite(
        conn.run,
        conn.dialect,
        node,
        'insert',
        query,
        values,
        checked,
      ).catch((error: unknown) => {
        throw namingRow(error, indices, planned, pathOf);
      });
      // Every row written counts once against the request's rows (and its cost): as a row the
      // INSERT answered, else here (README "Cost budgets").
      ctx.budget.chargeRows(Math.max(0, indices.length - result.rows.length), 0);
      affected += result.affected ?? indices.length;
      result.rows.forEach((row, i) => (answered[indices[i]] = row));
    }
  }
  if (checked) await refuseOutsideRule(conn, node, answered, scope, at.returnsRows);
  if (watching) {
    const known = answered.map((row, i) => ({ ...byColumn(planned[i]), ...row }));
    await rowsInserted(ctx, conn, node.table, known);
  }
  await insertChildren(at, node, rows, answered, pathOf);
  return { affected, answered };
}

/**
 * Refuses (FORBIDDEN, CONTRACT.md §4) unless every written row is visible under `scope`:
 * counted by primary key, in slices that keep the key values within the database's
 * bound-parameter limit. A row whose key did not come back cannot be checked: refused.
 */
async function refuseOutsideRule(
  conn: DatasourceConnection,
  node: RowNode,
  written: readonly Record<string, unknown>[],
  scope: Condition,
  returnsRows: boolean,
): Promise<void> {
  const key = node.table.primaryKey;
  if (!returnsRows || !key.length || written.some((row) => key.some((c) => row[c] == null))) {
    throw outsideRule(node.table.name);
  }
  const slice = Math.max(1, Math.floor(PARAMETER_LIMITS[conn.dialect.type].max / (2 * key.length)));
  for (let start = 0; start < written.length; start += slice) {
    const keys = written.slice(start, start + slice);
    const { rows: visible } = await conn.run(
      conn.dialect.compileCount({
        table: tableRef(node.table),
        where: keysCondition(node, keys),
        scope,
      }),
    );
    if (Number(visible[0]?.count ?? 0) !== keys.length) throw outsideRule(node.table.name);
  }
}

/** The one-to-many navigations of `node` some of `rows` give children for. */
function childNavigations(
  node: RowNode,
  rows: readonly Record<string, unknown>[],
): NavigationNode[] {
  return node.navigations.filter(
    (n) =>
      n.navigation.kind === 'oneToMany' &&
      rows.some((row) => Array.isArray(row[n.navigation.name])),
  );
}

/**
 * The one-to-many children of inserted rows (README "Writing rows", nested rows): per navigation,
 * every parent's children in one {@link insertRows} (one multi-row INSERT per set of columns,
 * then their own children), each child's foreign key filled from its parent's answered key
 * (`navigation.fromColumn`, returned by the parent's INSERT).
 */
export async function insertChildren(
  at: InsertContext,
  node: RowNode,
  rows: readonly Record<string, unknown>[],
  answered: readonly Record<string, unknown>[],
  pathOf: (index: number) => string,
): Promise<void> {
  for (const nav of childNavigations(node, rows)) {
    const { name, fromColumn, toColumn } = nav.navigation;
    const children: Record<string, unknown>[] = [];
    const paths: string[] = [];
    rows.forEach((row, index) => {
      const list = row[name];
      if (!Array.isArray(list)) return;
      const parentKey = answered[index]?.[fromColumn];
      list.forEach((child: Record<string, unknown>, j) => {
        children.push({ ...child, [toColumn]: parentKey });
        const parent = pathOf(index);
        paths.push(parent ? `${parent}.${name}[${j}]` : `${name}[${j}]`);
      });
    });
    if (children.length) {
      await insertRows(at, nav.node, children, [], (i) => paths[i], toColumn);
    }
  }
}

/**
 * `addMany<Base>(rows)`: the rows in as few statements as the database allows ({@link insertRows}),
 * with their nested children, inside the request's transaction, so a refused row leaves nothing
 * written. Answers `{affected, rows}`: `rows` in the order sent, with the requested columns, where
 * the database returns inserted rows (`RETURNING`/`OUTPUT`); `null` on MySQL/MariaDB < 10.5.
 * `affected` counts the rows of `node`'s table.
 */
export function addManyResolver(
  node: RowNode,
  capabilities: Capabilities,
  tables: readonly ModelTable[],
): GraphQLFieldResolver<unknown, GatewayContext, AddManyArgs> {
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const returnsRows = capabilities.insertReturning;
    const rowsField = fieldsNamed('rows', info.fieldNodes, info.fragments);
    const requested =
      returnsRows && rowsField.length ? selectColumns(node, rowsField, info.fragments) : [];
    const at = { ctx, conn, tables, returnsRows };
    const { affected, answered } = await insertRows(
      at,
      node,
      args.rows,
      requested,
      (i) => `rows[${i}]`,
    );
    const rows = returnsRows ? shapeRows(node.table, requested, answered, conn.dialect) : null;
    return { affected, rows };
  });
}

/** Nested-row input types already built, per type factory and name (one type per name). */
const NESTED_INPUTS = new WeakMap<OperationTypes, Map<string, GraphQLInputObjectType>>();

/**
 * The arguments (or input fields) that add one-to-many children with a row of `node`
 * (README "Writing rows", nested rows): per one-to-many navigation of the fields tree whose level
 * has a column to write besides the foreign key, `<navigation>: [<Type><Navigation>AddInput!]`,
 * the child's `add` arguments without that foreign key (filled from the parent), nesting further.
 * Each input type is claimed like every generated name.
 */
export function nestedRowArgs(types: OperationTypes, node: RowNode): GraphQLInputFieldConfigMap {
  let built = NESTED_INPUTS.get(types);
  if (!built) NESTED_INPUTS.set(types, (built = new Map()));
  const fields: GraphQLInputFieldConfigMap = {};
  for (const nav of node.navigations) {
    if (nav.navigation.kind !== 'oneToMany') continue;
    const child = nav.node;
    const own = Object.entries(addArgs(types, child)).filter(
      ([c]) => c !== nav.navigation.toColumn,
    );
    if (!own.length) continue;
    const name = `${node.typeName}${baseName(nav.navigation.name)}AddInput`;
    let input = built.get(name);
    if (!input) {
      types.claim(
        name,
        `nested ${node.shape} ${nav.navigation.name}`,
        `the nested rows of ${node.table.name}.${nav.navigation.name}`,
      );
      input = new GraphQLInputObjectType({
        name,
        description: `A ${child.table.name} row added with its parent; ${nav.navigation.toColumn} comes from the parent.`,
        fields: () => ({ ...Object.fromEntries(own), ...nestedRowArgs(types, child) }) as never,
      });
      built.set(name, input);
    }
    fields[nav.navigation.name] = {
      type: new GraphQLList(new GraphQLNonNull(input)),
      description: `${child.table.name} rows to add with this one.`,
    };
  }
  return fields;
}

/** `<Base>AddInput` per version's types and row type name: one object per name in a schema. */
const ADD_INPUTS = new WeakMap<OperationTypes, Map<string, GraphQLInputObjectType>>();

/**
 * `<Base>AddInput`: one row to add (the columns `add<Base>` takes, as it types them, and its
 * nested one-to-many rows), the row type of `addMany<Base>` and of `upsert<Base>`/
 * `upsertMany<Base>`; built once per version's types and claimed by `addMany` like every
 * generated name (a clash is refused, 409).
 */
export function addInputType(node: RowNode, types: OperationTypes): GraphQLInputObjectType {
  let inputs = ADD_INPUTS.get(types);
  if (!inputs) ADD_INPUTS.set(types, (inputs = new Map()));
  let input = inputs.get(node.typeName);
  if (!input) {
    const name = `${node.typeName}AddInput`;
    const label = `the addMany types of ${node.table.name} (${node.typeName})`;
    types.claim(name, `addMany ${node.shape}`, label);
    input = new GraphQLInputObjectType({
      name,
      description: `One row to add to ${node.table.name}.`,
      fields: () => ({ ...addArgs(types, node), ...nestedRowArgs(types, node) }) as never,
    });
    inputs.set(node.typeName, input);
  }
  return input;
}

/**
 * `<Base>AddInput` ({@link addInputType}) and `<Base>AddManyResult` `{affected: Int!, rows:
 * [<Base>!]}`, each claimed like every generated name.
 */
function addManyTypes(
  node: RowNode,
  types: OperationTypes,
  capabilities: Capabilities,
): { input: GraphQLInputObjectType; result: GraphQLObjectType } {
  const base = node.typeName;
  const owner = `addMany ${node.shape}`;
  const claim = (suffix: string) => {
    const name = `${base}${suffix}`;
    types.claim(name, owner, `the addMany types of ${node.table.name} (${base})`);
    return name;
  };
  const input = addInputType(node, types);
  const result = new GraphQLObjectType({
    name: claim('AddManyResult'),
    description: 'What addMany wrote.',
    fields: () => ({
      affected: { type: new GraphQLNonNull(GraphQLInt), description: 'Rows inserted.' },
      rows: {
        type: new GraphQLList(new GraphQLNonNull(types.row(node))),
        description: capabilities.insertReturning
          ? 'The inserted rows, in the order sent.'
          : 'null: this database cannot return inserted rows.',
        // Read by the INSERT itself: at most LIMIT_BULK_ROWS, no statement of its own.
        extensions: { rowEstimate: { rows: 1_000 } },
      },
    }),
  });
  return { input, result };
}

/**
 * `addMany<Base>(rows: [<Base>AddInput!]!): <Base>AddManyResult!`, offered by the insert action
 * (issue 24 item 1): at most `LIMIT_BULK_ROWS` rows (1,000), refused before SQL beyond.
 */
export const addMany: OperationKind = {
  action: 'insert',
  root: 'mutation',
  rootFieldName: (base) => `addMany${base}`,
  offered: (api) => api.actions.insert,
  field: ({ node, types, capabilities, tables }) => {
    const { input, result } = addManyTypes(node, types, capabilities);
    return {
      type: new GraphQLNonNull(result),
      args: {
        rows: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(input))),
          description: 'The rows to add; at most 1,000 (LIMIT_BULK_ROWS).',
        },
      },
      resolve: addManyResolver(node, capabilities, tables) as never,
      // Its rows and nested rows count against LIMIT_BULK_ROWS (`operation-cost.ts`).
      extensions: { writesRows: true },
    };
  },
};
