import { type GraphQLFieldResolver, GraphQLInt, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { type FilterInput, planWhere, tableRef } from '../query-planner';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import { runWrite } from './writes';
import { AT_MOST_ARG, checkAtMost, tooManyRows } from './write-many';

/** Arguments of `deleteMany<Base>`. */
interface DeleteManyArgs {
  where: FilterInput;
  atMost: number;
}

/**
 * `deleteMany<Base>(where, atMost)` (issue 24 item 3, README "Writing rows"): one `DELETE …
 * WHERE <where> AND <row rule>` in the request's transaction, so a row outside the caller's rule
 * is never deleted. Answers `{affected}`, the rows deleted (no rows: the same answer on every
 * database; read them with `get<Base>` first when needed). When it deleted more than `atMost`
 * rows it throws TOO_MANY_ROWS naming the count, and the request's transaction rolls the
 * statement (and the request's other writes) back, so nothing is deleted. Rows other rows refer
 * to refuse the whole statement (FOREIGN_KEY_VIOLATION). Deleted rows are charged to the
 * request's row budget.
 * @throws DomainError INVALID_INPUT for an `atMost` outside 1..10,000; DatabaseRefusalError for a
 * refused delete or TOO_MANY_ROWS.
 */
export function deleteManyResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, DeleteManyArgs> {
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const atMost = checkAtMost(info.fieldName, args.atMost);
    const conn = await ctx.connection(node.table.datasourceId);
    const where = planWhere(node, args.where, conn.dialect, ctx.scopes);
    const query = conn.dialect.compileDelete({
      table: tableRef(node.table),
      where,
      scope: ctx.scopes.of(node.table, conn.dialect),
    });
    const { affected = 0 } = await runWrite(conn.run, conn.dialect, node, 'delete', query);
    if (affected > atMost) throw tooManyRows(affected, atMost, 'delete');
    ctx.budget.chargeRows(affected, 0);
    return { affected };
  });
}

/** `<Base>DeleteManyResult` `{affected: Int!}`, claimed like every generated name. */
function deleteManyResult(node: RowNode, types: OperationTypes): GraphQLObjectType {
  const name = `${node.typeName}DeleteManyResult`;
  types.claim(
    name,
    `deleteMany ${node.shape}`,
    `the deleteMany result of ${node.table.name} (${node.typeName})`,
  );
  return new GraphQLObjectType({
    name,
    description: 'What deleteMany deleted.',
    fields: {
      affected: {
        type: new GraphQLNonNull(GraphQLInt),
        description: 'Rows deleted: those the where matched inside your rule.',
      },
    },
  });
}

/**
 * `deleteMany<Base>(where: <Base>Filter!, atMost: Int!): <Base>DeleteManyResult!`, offered by the
 * delete action on a table with a primary key, as `delete<Base>` (issue 24 item 3).
 */
export const deleteMany: OperationKind = {
  action: 'delete',
  root: 'mutation',
  rootFieldName: (base) => `deleteMany${base}`,
  offered: (api, node) => api.actions.delete && node.table.primaryKey.length > 0,
  field: ({ node, types }) => ({
    type: new GraphQLNonNull(deleteManyResult(node, types)),
    args: {
      where: {
        type: new GraphQLNonNull(types.filter(node)),
        description: 'The rows to delete; {} is every row (atMost still bounds them).',
      },
      atMost: AT_MOST_ARG,
    },
    resolve: deleteManyResolver(node) as never,
  }),
};
