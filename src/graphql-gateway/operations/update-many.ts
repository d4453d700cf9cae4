import { changesAfter, changesBefore } from '../../webhooks/change-capture';
import {
  type GraphQLFieldResolver,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
} from 'graphql';
import { invalidInput } from '../../common/domain-error';
import {
  ALL_ROWS,
  type Capabilities,
  type Condition,
  type Dialect,
} from '../../datasources/core/dialect';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import {
  columnKinds,
  columnModels,
  type FilterInput,
  planOrder,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import { planValues, type Reference, referencesOf, writableColumns } from '../write-planner';
import { fieldsNamed } from './add-many';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import {
  byColumn,
  guardedReferences,
  outsideRule,
  refuseHiddenReferences,
  type Run,
  runWrite,
} from './writes';
import {
  AT_MOST_ARG,
  AT_MOST_LIMIT,
  byPrimaryKey,
  checkAtMost,
  keySlices,
  keysFirst,
  mustGoByKey,
  tooManyRows,
} from './write-many';

/** Arguments of `updateMany<Base>`. */
interface UpdateManyArgs {
  where: FilterInput;
  set: Record<string, unknown>;
  atMost: number;
}

/** The columns `set` offers: those `update<Base>` writes, but the primary key (it addresses rows). */
function setColumns(node: RowNode) {
  const key = new Set(node.table.primaryKey);
  return writableColumns(node, 'update').filter((c) => !key.has(c.name));
}

/**
 * `updateMany<Base>(where, set, atMost)` (issue 24 item 3, README "Writing rows"): sets the
 * columns `set` gives (null empties one) on every row `where` matches inside the caller's row
 * rule, in the request's transaction. Answers `{affected, rows}`: rows found (MySQL counts rows
 * found, not only changed, thanks to `FOUND_ROWS`) and, where the database returns updated rows in
 * the same statement (`updateReturning`: PostgreSQL, SQLite, SQL Server), those rows ordered by
 * primary key with the requested columns; `rows: null` on MySQL/MariaDB.
 *
 * Without a row rule on the table it is one `UPDATE … WHERE <where>`; when it found more than
 * `atMost` rows it throws TOO_MANY_ROWS naming the count, and the request's transaction rolls the
 * statement (and the request's other writes) back. Under a row rule it reads the keys of the rows
 * first (at most `atMost + 1`, so a refusal for too many rows writes nothing and counts them with
 * `SELECT COUNT(*)`), updates those rows by key and `where` inside the rule (never a row outside
 * it), then counts the updated rows that left the rule (`untrue` of the rule): any → FORBIDDEN
 * ({@link outsideRule}), rolled back with the request. On MySQL/MariaDB a `where` or rule that
 * reads the table itself through a relation filter (`employees` by `manager`) goes by key alone
 * ({@link mustGoByKey}; {@link keysFirst} reads and locks the keys first), since MySQL refuses
 * such an UPDATE (error 1093), then the same rule check. A foreign key `set` points at a row the
 * caller's rule of the referenced table hides is refused first (FOREIGN_KEY_VIOLATION, as
 * `update<Base>`); `set` must give every column of such a key. Rows found are charged to the
 * request's row budget.
 * @throws DomainError INVALID_INPUT for an `atMost` outside 1..10,000, an empty `set`, or a part
 * of a composite foreign key under a rule; DatabaseRefusalError for a refused write or
 * TOO_MANY_ROWS.
 */
export function updateManyResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[],
): GraphQLFieldResolver<unknown, GatewayContext, UpdateManyArgs> {
  const columns = setColumns(node);
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const label = info.fieldName;
    const atMost = checkAtMost(label, args.atMost);
    const conn = await ctx.connection(node.table.datasourceId);
    const { dialect } = conn;
    const set = planValues(node, columns, args.set ?? {}, dialect);
    if (set.length === 0) {
      throw invalidInput(`${label}: set gives no column; give at least one column to change`);
    }
    const where = planWhere(node, args.where, dialect, ctx.scopes);
    const scope = ctx.scopes.of(node.table, dialect);
    const underRule = !admitsEveryRow(scope);
    const rowsField = fieldsNamed('rows', info.fieldNodes, info.fragments);
    const returning =
      capabilities.updateReturning && rowsField.length
        ? selectColumns(node, rowsField, info.fragments)
        : [];
    const table = tableRef(node.table);
    const kinds = columnKinds(node.table);
    const model = columnModels(node.table);
    const sent = byColumn(set);
    const guarded = guardedReferences(references, set, ctx.scopes, dialect);
    const partial = guarded.find((r) => !r.columns.every((c) => c in sent));
    if (partial) {
      throw invalidInput(
        `${label}: set gives part of the foreign key (${partial.columns.join(', ')}); set all of its columns together`,
      );
    }
    await refuseHiddenReferences(conn.run, dialect, guarded, sent);
    const seen = await changesBefore(ctx, conn, node.table, 'updated', where, scope, atMost + 1);

    let affected = 0;
    const answered: Record<string, unknown>[] = [];
    // MySQL cannot UPDATE a table a subquery of the same statement reads: go by key.
    const byKey = mustGoByKey(node, dialect, where, scope);
    if (byKey) {
      const slices = await keysFirst(conn.run, node, dialect, where, scope, atMost, 'change');
      for (const slice of slices) {
        const update = dialect.compileUpdate({
          table,
          set,
          where: slice,
          scope: ALL_ROWS,
          returning,
          kinds,
          model,
        });
        const result = await runWrite(conn.run, dialect, node, 'update', update, set, underRule);
        affected += result.affected ?? result.rows.length;
        answered.push(...result.rows);
      }
      if (underRule) await refuseLeftRule(conn.run, node, dialect, slices, scope);
    } else if (!underRule) {
      const update = dialect.compileUpdate({ table, set, where, scope, returning, kinds, model });
      const result = await runWrite(conn.run, dialect, node, 'update', update, set);
      affected = result.affected ?? result.rows.length;
      if (affected > atMost) throw tooManyRows(affected, atMost, 'change');
      answered.push(...result.rows);
    } else {
      const { rows: keys } = await conn.run(
        dialect.compileSelect({
          table,
          columns: node.table.primaryKey,
          kinds,
          where,
          scope,
          order: planOrder(node, null),
          take: atMost + 1,
          skip: 0,
        }),
      );
      if (keys.length > atMost) {
        const { rows } = await conn.run(dialect.compileCount({ table, where, scope }));
        throw tooManyRows(Number(rows[0]?.count ?? keys.length), atMost, 'change');
      }
      const slices = keySlices(node, keys, dialect);
      for (const slice of slices) {
        const update = dialect.compileUpdate({
          table,
          set,
          where: { kind: 'and', items: [slice, where] },
          scope,
          returning,
          kinds,
          model,
        });
        const result = await runWrite(conn.run, dialect, node, 'update', update, set, true);
        affected += result.affected ?? result.rows.length;
        answered.push(...result.rows);
      }
      await refuseLeftRule(conn.run, node, dialect, slices, scope);
    }
    // Rows read back were charged as they arrived; the rest of the rows found are charged here.
    ctx.budget.chargeRows(Math.max(0, affected - answered.length), 0);
    const rows = capabilities.updateReturning
      ? shapeRows(node.table, returning, byPrimaryKey(node, answered), dialect)
      : null;
    await changesAfter(ctx, conn, seen, 'updated');
    return { affected, rows };
  });
}

/**
 * Refuses (FORBIDDEN, {@link outsideRule}) when any updated row, by the key `slices`, now fails
 * the caller's rule `scope`: every updated row must still be inside the rule (CONTRACT.md §4).
 */
async function refuseLeftRule(
  run: Run,
  node: RowNode,
  dialect: Dialect,
  slices: readonly Condition[],
  scope: Condition,
): Promise<void> {
  for (const slice of slices) {
    const { rows } = await run(
      dialect.compileCount({
        table: tableRef(node.table),
        where: { kind: 'and', items: [slice, { kind: 'untrue', item: scope }] },
        scope: ALL_ROWS,
      }),
    );
    if (Number(rows[0]?.count ?? 0) > 0) throw outsideRule(node.table.name);
  }
}

/**
 * `<Base>Set` (the columns `update<Base>` changes but the key, all optional, typed as there) and
 * `<Base>UpdateManyResult` `{affected: Int!, rows: [<Base>!]}`, each claimed like every
 * generated name (a clash is refused, 409).
 */
function updateManyTypes(
  node: RowNode,
  types: OperationTypes,
  capabilities: Capabilities,
): { set: GraphQLInputObjectType; result: GraphQLObjectType } {
  const base = node.typeName;
  const owner = `updateMany ${node.shape}`;
  const claim = (suffix: string) => {
    const name = `${base}${suffix}`;
    types.claim(name, owner, `the updateMany types of ${node.table.name} (${base})`);
    return name;
  };
  const set = new GraphQLInputObjectType({
    name: claim('Set'),
    description: `The columns updateMany sets on every matching row of ${node.table.name}; null empties one. At least one.`,
    fields: () =>
      Object.fromEntries(setColumns(node).map((c) => [c.name, { type: types.column(node, c) }])),
  });
  const result = new GraphQLObjectType({
    name: claim('UpdateManyResult'),
    description: 'What updateMany changed.',
    fields: () => ({
      affected: {
        type: new GraphQLNonNull(GraphQLInt),
        description: 'Rows the where matched inside your rule, all updated.',
      },
      rows: {
        type: new GraphQLList(new GraphQLNonNull(types.row(node))),
        description: capabilities.updateReturning
          ? 'The updated rows as they are now, ordered by primary key.'
          : 'null: this database cannot return updated rows in the same statement.',
        // Read by the UPDATE itself: at most the request's atMost rows (the cost walk reads it).
        extensions: { rowEstimate: { rows: AT_MOST_LIMIT, parentArgument: 'atMost' } },
      },
    }),
  });
  return { set, result };
}

/**
 * `updateMany<Base>(where: <Base>Filter!, set: <Base>Set!, atMost: Int!): <Base>UpdateManyResult!`,
 * offered by the update action on a table with a primary key (issue 24 item 3).
 */
export const updateMany: OperationKind = {
  action: 'update',
  root: 'mutation',
  rootFieldName: (base) => `updateMany${base}`,
  offered: (api, node) =>
    api.actions.update && node.table.primaryKey.length > 0 && setColumns(node).length > 0,
  field: ({ node, types, capabilities, tables }) => {
    const { set, result } = updateManyTypes(node, types, capabilities);
    return {
      type: new GraphQLNonNull(result),
      args: {
        where: {
          type: new GraphQLNonNull(types.filter(node)),
          description: 'The rows to change; {} is every row (atMost still bounds them).',
        },
        set: { type: new GraphQLNonNull(set), description: 'The columns to set.' },
        atMost: AT_MOST_ARG,
      },
      resolve: updateManyResolver(node, capabilities, referencesOf(tables, node.table)) as never,
    };
  },
};
