import { changesAfter, changesBefore } from '../../webhooks/change-capture';
import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldResolver,
  GraphQLBoolean,
  GraphQLID,
  GraphQLNonNull,
} from 'graphql';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { tableRef } from '../query-planner';
import { primaryKeyCondition } from '../write-planner';
import { type Args, withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import { runWrite } from './writes';

/**
 * `delete<Base>`: true when a row with that primary key, inside the caller's rule, was deleted;
 * false when none was (CONTRACT.md §6, §4).
 */
export function deleteResolver(node: RowNode): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  return withGraphQLArguments(async (_source, args, ctx) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const seen = await changesBefore(ctx, conn, node.table, 'deleted', where, scope, 1);
    const { affected } = await runWrite(
      conn.run,
      conn.dialect,
      node,
      'delete',
      conn.dialect.compileDelete({
        table: tableRef(node.table),
        where,
        scope,
      }),
    );
    await changesAfter(ctx, conn, seen, 'deleted');
    return (affected ?? 0) > 0;
  });
}

/**
 * Arguments of `delete<Base>`: the primary key columns, non-null, typed as `update<Base>` types
 * them (`OperationTypes.column`): `ID` for a key of whole numbers, UUIDs or text, else the column's
 * own scalar (a `date` of a partitioned table's key is `Date!`; CONTRACT.md §6 Values).
 */
export function keyArgs(types: OperationTypes, node: RowNode): GraphQLFieldConfigArgumentMap {
  return Object.fromEntries(
    node.table.primaryKey.map((name) => {
      const c = node.table.columns.find((column) => column.name === name);
      const type = c ? types.column(node, c) : GraphQLID;
      return [name, { type: new GraphQLNonNull(type) }];
    }),
  );
}

/**
 * `delete<Base>(<key>): Boolean!`, offered by the delete action on a table with a primary key
 * (it addresses one row by it; CONTRACT.md §6).
 */
export const del: OperationKind = {
  action: 'delete',
  root: 'mutation',
  rootFieldName: (base) => `delete${base}`,
  offered: (api, node) => api.actions.delete && node.table.primaryKey.length > 0,
  field: ({ node, types }) => ({
    type: new GraphQLNonNull(GraphQLBoolean),
    args: keyArgs(types, node),
    resolve: deleteResolver(node) as never,
  }),
};
