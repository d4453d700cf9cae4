import type { GraphQLFieldResolver } from 'graphql';
import { ALL_ROWS, type ColumnOrderTerm } from '../../datasources/core/dialect';
import type { GatewayContext } from '../gateway-context';
import { planOrder, planPage, planWhere } from '../query-planner';
import { bindArguments, shapeSqlRows, type SqlApiPlan } from '../sql-api-values';
import { type ListArgs, withGraphQLArguments } from './arguments';

/**
 * The resolver of a query-kind SQL API `<name>(args…, take[, where, order, skip]): [<Name>Row!]!`
 * (README "SQL APIs", issue 26 items 3–4): the statement as a subquery with the filter, order and
 * page around it (`Dialect.compileStatementSelect`), run in a read-only transaction that is
 * always rolled back (`readOnly` of the request's connection: the request's deadline,
 * cancellation, row budget and pool share apply as to every statement). `take` defaults to and
 * may not exceed 10,000 (CONTRACT.md §6). Rows come back in the contract's value formats
 * (`shapeSqlRows`).
 * @throws DomainError INVALID_INPUT (page), FORBIDDEN (an implicit `:user_…` the caller lacks);
 * DatabaseRefusalError INVALID_VALUE (a NULL in a column confirmed non-null); what the database
 * refuses (a write inside the read).
 */
export function sqlQueryResolver(
  plan: SqlApiPlan,
): GraphQLFieldResolver<unknown, GatewayContext, ListArgs & Record<string, unknown>> {
  return withGraphQLArguments(async (_source, args, ctx) => {
    const page = planPage(args.take, plan.api.filterable ? args.skip : 0);
    const conn = await ctx.connection(plan.api.datasourceId);
    const dialect = conn.dialect;
    const statement = plan.statementFor(dialect.type);
    const params = bindArguments(plan, statement, args, ctx.caller, dialect);
    const where = plan.api.filterable ? planWhere(plan.node, args.where, dialect) : ALL_ROWS;
    const order = plan.api.filterable ? planOrder(plan.node, args.order, dialect) : [];
    if (page.take === 0) return [];
    const query = dialect.compileStatementSelect({
      statement,
      params,
      columns: plan.columns,
      where,
      // Only columns: a row node of an SQL API has no navigation to order through.
      order: order.filter((t): t is ColumnOrderTerm => 'column' in t),
      ...page,
    });
    const result = await conn.readOnly((run) => run(query));
    return shapeSqlRows(plan, result.rows, dialect);
  });
}
