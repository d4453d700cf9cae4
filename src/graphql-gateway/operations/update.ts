import { changesAfter, changesBefore } from '../../webhooks/change-capture';
import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldResolver,
  GraphQLNonNull,
} from 'graphql';
import type { Capabilities } from '../../datasources/core/dialect';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import {
  columnKinds,
  columnModels,
  planOrder,
  selectColumns,
  shapeRows,
  tableRef,
} from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import {
  planValues,
  primaryKeyCondition,
  type Reference,
  referencesOf,
  writableColumns,
} from '../write-planner';
import { type Args, withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import {
  byColumn,
  guardedReferences,
  outsideRule,
  readRow,
  refuseHiddenReferences,
  runWrite,
} from './writes';

/**
 * `update<Base>`: changes only the columns sent (null empties one) of the row with the given
 * primary key; the row, or null when no row has that key or the row is outside the caller's
 * rule (CONTRACT.md §6, §4). A change that would move the row outside the rule is rolled back.
 * Where the database has no `UPDATE … RETURNING` (MySQL, MariaDB) the UPDATE and the read-back
 * by key run in one transaction. A foreign key set to a row outside the caller's rule on the
 * referenced table is refused in that transaction before the UPDATE
 * ({@link refuseHiddenReferences}; the other columns of a composite key it sets only partly are
 * the row's own, read first).
 * @param references the table's foreign keys to model tables (`referencesOf`).
 */
export function updateResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[] = [],
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const key = new Set(node.table.primaryKey);
  const columns = writableColumns(node, 'update').filter((c) => !key.has(c.name));
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const set = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const returning = selectColumns(node, info.fieldNodes, info.fragments);
    const table = tableRef(node.table);
    const kinds = columnKinds(node.table);
    const readBack = conn.dialect.compileSelect({
      table,
      columns: returning,
      kinds,
      where,
      scope,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    });
    const underRule = !admitsEveryRow(scope);
    const guarded = guardedReferences(references, set, ctx.scopes, conn.dialect);
    const seen = await changesBefore(ctx, conn, node.table, 'updated', where, scope, 1);
    let rows: Record<string, unknown>[];
    if (set.length === 0) {
      rows = (await conn.run(readBack)).rows;
    } else if (capabilities.updateReturning && !underRule && guarded.length === 0) {
      const model = columnModels(node.table);
      const update = conn.dialect.compileUpdate({
        table,
        set,
        where,
        scope,
        returning,
        kinds,
        model,
      });
      rows = (await runWrite(conn.run, conn.dialect, node, 'update', update, set)).rows;
    } else {
      // The UPDATE (of a row inside the rule) and the read-back under the rule in one
      // transaction: a row the change moved outside the rule is no row to return, so the change
      // is rolled back. The key never changes, so the row is read back by it.
      rows = await conn.transaction(async (run) => {
        const sent = byColumn(set);
        const kept = guarded.flatMap((r) => r.columns).filter((c) => !(c in sent));
        const row =
          kept.length > 0 ? await readRow(run, conn.dialect, node, where, kept, scope) : {};
        // No row inside the rule has that key: the UPDATE changes nothing, there is nothing to check.
        if (!row) return [];
        await refuseHiddenReferences(run, conn.dialect, guarded, { ...row, ...sent });
        const update = conn.dialect.compileUpdate({
          table,
          set,
          where,
          scope,
          returning: [],
          kinds,
        });
        const { affected } = await runWrite(
          run,
          conn.dialect,
          node,
          'update',
          update,
          set,
          underRule,
        );
        if ((affected ?? 0) === 0) return [];
        const back = (await run(readBack)).rows;
        if (back.length === 0) throw outsideRule(node.table.name);
        return back;
      });
    }
    await changesAfter(ctx, conn, seen, 'updated');
    return shapeRows(node.table, returning, rows, conn.dialect)[0] ?? null;
  });
}

/**
 * Arguments of `update<Base>`: its writable columns (`writableColumns`, the primary key
 * included), the primary key non-null, the rest optional.
 */
export function updateArgs(types: OperationTypes, node: RowNode): GraphQLFieldConfigArgumentMap {
  const key = new Set(node.table.primaryKey);
  return Object.fromEntries(
    writableColumns(node, 'update').map((c) => {
      const type = types.column(node, c);
      return [c.name, { type: key.has(c.name) ? new GraphQLNonNull(type) : type }];
    }),
  );
}

/**
 * `update<Base>(<key>, <columns>): <Base>`, offered by the update action on a table with a
 * primary key (it addresses one row by it; CONTRACT.md §6).
 */
export const update: OperationKind = {
  action: 'update',
  root: 'mutation',
  rootFieldName: (base) => `update${base}`,
  offered: (api, node) => api.actions.update && node.table.primaryKey.length > 0,
  field: ({ node, types, capabilities, tables }) => ({
    type: types.row(node),
    args: updateArgs(types, node),
    resolve: updateResolver(node, capabilities, referencesOf(tables, node.table)) as never,
  }),
};
