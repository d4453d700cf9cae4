import { changesAfter, changesBefore } from '../../webhooks/change-capture';
import { type GraphQLFieldResolver, GraphQLInt, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import { ALL_ROWS } from '../../datasources/core/dialect';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { type FilterInput, planWhere, tableRef } from '../query-planner';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import { runWrite } from './writes';
import { AT_MOST_ARG, checkAtMost, keysFirst, mustGoByKey, tooManyRows } from './write-many';

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
 * statement (and the request's other writes) back, so nothing is deleted. On MySQL/MariaDB a
 * `where` or rule that reads the table itself through a relation filter goes by key
 * ({@link mustGoByKey}, {@link keysFirst}: keys read and locked first, at most `atMost + 1`),
 * since MySQL refuses such a DELETE (error 1093). Rows other rows refer to refuse the whole
 * statement (FOREIGN_KEY_VIOLATION). Deleted rows are charged to the
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
    const { dialect } = conn;
    const table = tableRef(node.table);
    const where = planWhere(node, args.where, dialect, ctx.scopes);
    const scope = ctx.scopes.of(node.table, dialect);
    const seen = await changesBefore(ctx, conn, node.table, 'deleted', where, scope, atMost + 1);
    let affected = 0;
    if (mustGoByKey(node, dialect, where, scope)) {
      // MySQL cannot DELETE from a table a subquery of the same statement reads: go by key.
      for (const slice of await keysFirst(
        conn.run,
        node,
        dialect,
        where,
        scope,
        atMost,
        'delete',
      )) {
        const query = dialect.compileDelete({ table, where: slice, scope: ALL_ROWS });
        affected += (await runWrite(conn.run, dialect, node, 'delete', query)).affected ?? 0;
      }
    } else {
      const query = dialect.compileDelete({ table, where, scope });
      affected = (await runWrite(conn.run, dialect, node, 'delete', query)).affected ?? 0;
    }
    if (affected > atMost) throw tooManyRows(affected, atMost, 'delete');
    ctx.budget.chargeRows(affected, 0);
    await changesAfter(ctx, conn, seen, 'deleted');
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
