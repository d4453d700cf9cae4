import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { DomainError } from '../../common/domain-error';
import type {
  Capabilities,
  ColumnValue,
  CompiledQuery,
  Condition,
  Dialect,
} from '../../datasources/core/dialect';
import { PARAMETER_LIMITS } from '../../datasources/core/sql-compiler';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError } from '../graphql-errors';
import { columnKinds, selectColumns, shapeRows, tableRef } from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import { planValues, type Reference, referencesOf, writableColumns } from '../write-planner';
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

/** `rows[i]: …`, naming the row (and the field, `rows[i].email`) a refusal is about. */
function ofRow(index: number, error: unknown): unknown {
  if (error instanceof DatabaseRefusalError) {
    const { field } = error.refusal;
    return new DatabaseRefusalError({
      ...error.refusal,
      field: field === null ? `rows[${index}]` : `rows[${index}].${field}`,
      message: `rows[${index}]: ${error.refusal.message}`,
    });
  }
  if (error instanceof DomainError) {
    return new DomainError(error.code, `rows[${index}]: ${error.message}`, error.details);
  }
  return error;
}

/** The fields named `name` in the selection sets of `nodes`, fragments expanded. */
function fieldsNamed(
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
  if (group.columns.length === 0) {
    return group.indices.map((index) => ({
      query: dialect.compileInsert({ table, values: [], returning, kinds }),
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

/**
 * `addMany<Base>(rows)`: the rows in as few statements as the database allows, one multi-row
 * `INSERT … VALUES (…), (…)` per set of columns the rows set (README "Writing rows"), inside the
 * request's transaction, so a refused row leaves nothing written. Each row is checked as
 * `add<Base>` checks its arguments; a refusal names the row (`rows[3].email`) when it is known
 * before SQL (the database does not say which row of a statement it refused: then the field alone).
 * Under a row rule, a foreign key set to a row the caller cannot see is refused per row before
 * the INSERT, and every written row must be inside the rule (read back by its key), else nothing
 * is written. Answers `{affected, rows}`: `rows` in the order sent, with the requested columns,
 * where the database returns inserted rows (`RETURNING`/`OUTPUT`); `null` on MySQL/MariaDB < 10.5.
 */
export function addManyResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[],
): GraphQLFieldResolver<unknown, GatewayContext, AddManyArgs> {
  const columns = writableColumns(node, 'insert');
  const key = node.table.primaryKey;
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const planned = args.rows.map((row, index) => {
      try {
        return planValues(node, columns, row, conn.dialect);
      } catch (error) {
        throw ofRow(index, error);
      }
    });
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const checked = !admitsEveryRow(scope);
    const rowsField = fieldsNamed('rows', info.fieldNodes, info.fragments);
    const requested =
      capabilities.insertReturning && rowsField.length
        ? selectColumns(node, rowsField, info.fragments)
        : [];
    const readsKey = checked && capabilities.insertReturning;
    const returning = readsKey ? [...new Set([...requested, ...key])] : requested;
    // A foreign key to a row the caller cannot see is refused before anything is written.
    for (const [index, values] of planned.entries()) {
      const guarded = guardedReferences(references, values, ctx.scopes, conn.dialect);
      const sent = byColumn(values);
      const complete = guarded.filter((r) => r.columns.every((c) => c in sent));
      try {
        await refuseHiddenReferences(conn.run, conn.dialect, complete, sent);
      } catch (error) {
        throw ofRow(index, error);
      }
    }
    const answered: (Record<string, unknown> | undefined)[] = new Array(planned.length);
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
        );
        affected += result.affected ?? indices.length;
        result.rows.forEach((row, i) => (answered[indices[i]] = row));
      }
    }
    if (checked) {
      if (!readsKey || answered.some((row) => !row || key.some((c) => row[c] == null))) {
        // A row that cannot be read back cannot be checked: refused (fails closed).
        throw outsideRule(node.table.name);
      }
      // Every written row must be visible under the rule: counted by key, in slices that keep
      // the key values within the database's bound-parameter limit.
      const written = answered as Record<string, unknown>[];
      const slice = Math.max(
        1,
        Math.floor(PARAMETER_LIMITS[conn.dialect.type].max / (2 * key.length)),
      );
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
    const rows = capabilities.insertReturning
      ? shapeRows(node.table, requested, answered as Record<string, unknown>[], conn.dialect)
      : null;
    return { affected, rows };
  });
}

/**
 * `<Base>AddInput` (one row of `addMany<Base>`: the columns `add<Base>` takes, as it types them)
 * and `<Base>AddManyResult` `{affected: Int!, rows: [<Base>!]}`, each claimed like every
 * generated name.
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
  const input = new GraphQLInputObjectType({
    name: claim('AddInput'),
    description: `One row to add to ${node.table.name}.`,
    fields: () => addArgs(types, node) as never,
  });
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
      resolve: addManyResolver(node, capabilities, referencesOf(tables, node.table)) as never,
    };
  },
};
