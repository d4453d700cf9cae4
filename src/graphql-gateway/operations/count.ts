import { type FieldNode, type GraphQLFieldResolver, GraphQLInt, GraphQLNonNull } from 'graphql';
import type { ModelTable } from '../../platform/version-definition';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { ConsultedScopes, type FilterInput, planWhere, tableRef } from '../query-planner';
import { withGraphQLArguments } from './arguments';
import type { OperationKind } from './operation-kind';
import { tableRowEstimate } from '../request/operation-cost';
import { type PlannedRead, plannedRead } from './planned-read';

/** `count<Base>`: one `SELECT COUNT(*)` with the same filter as `get<Base>`, planned as a get is. */
export function countResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, { where?: FilterInput | null }> {
  const kept = new WeakMap<readonly FieldNode[], PlannedRead>();
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const { query } = plannedRead(
      kept,
      info,
      scope,
      () => {
        const related = new ConsultedScopes(ctx.scopes);
        const where = planWhere(node, args.where, conn.dialect, related);
        const query = conn.dialect.compileCount({ table: tableRef(node.table), where, scope });
        return { query, columns: [], related: related.tables };
      },
      (table: ModelTable) => ctx.scopes.of(table, conn.dialect),
    );
    const { rows } = await conn.run(query!);
    return Number(rows[0]?.count ?? 0);
  });
}

/** `count<Base>(where): Int!`, offered with `get<Base>` by the select action (CONTRACT.md §6). */
export const count: OperationKind = {
  action: 'select',
  root: 'query',
  rootFieldName: (base) => `count${base}`,
  offered: (api) => api.actions.select,
  field: ({ node, types }) => ({
    type: new GraphQLNonNull(GraphQLInt),
    args: { where: { type: types.filter(node) } },
    resolve: countResolver(node) as never,
    extensions: tableRowEstimate(node.table),
  }),
};
