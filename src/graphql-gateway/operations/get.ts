import { type FieldNode, type GraphQLFieldResolver, GraphQLList, GraphQLNonNull } from 'graphql';
import type { ModelTable } from '../../platform/version-definition';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import {
  columnKinds,
  ConsultedScopes,
  planOrder,
  planPage,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from '../query-planner';
import { type ListArgs, withGraphQLArguments } from './arguments';
import type { OperationKind } from './operation-kind';
import { tableRowEstimate } from '../request/operation-cost';
import { type PlannedRead, plannedRead } from './planned-read';

/** `get<Base>`: one SELECT with the filter, order and page, reading only the requested columns. */
export function getResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, ListArgs> {
  const kept = new WeakMap<readonly FieldNode[], PlannedRead>();
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const page = planPage(args.take, args.skip);
    const conn = await ctx.connection(node.table.datasourceId);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const scopeOf = (table: ModelTable) => ctx.scopes.of(table, conn.dialect);
    const { query, columns } = plannedRead(
      kept,
      info,
      scope,
      () => {
        const related = new ConsultedScopes(ctx.scopes);
        const where = planWhere(node, args.where, conn.dialect, related);
        if (page.take === 0) return { query: null, columns: [] };
        const columns = selectColumns(node, info.fieldNodes, info.fragments);
        const query = conn.dialect.compileSelect({
          table: tableRef(node.table),
          columns,
          kinds: columnKinds(node.table),
          where,
          scope,
          order: planOrder(node, args.order, conn.dialect, related),
          ...page,
        });
        return { query, columns, related: related.tables };
      },
      scopeOf,
    );
    if (!query) return [];
    return shapeRows(node.table, columns, (await conn.run(query)).rows, conn.dialect);
  });
}

/**
 * `get<Base>(where, order, take, skip): [<Base>!]!`, offered by the select action
 * (CONTRACT.md §6).
 */
export const get: OperationKind = {
  action: 'select',
  root: 'query',
  rootFieldName: (base) => `get${base}`,
  offered: (api) => api.actions.select,
  field: ({ node, types }) => ({
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.row(node)))),
    args: types.listArgs(node),
    resolve: getResolver(node) as never,
    extensions: tableRowEstimate(node.table),
  }),
};
