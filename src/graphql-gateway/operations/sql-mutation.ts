import type { GraphQLFieldResolver } from 'graphql';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError } from '../graphql-errors';
import { bindArguments, shapeSqlRows, type SqlApiPlan } from '../sql-api-values';
import { sqlApiCalled } from '../../webhooks/change-capture';
import { withGraphQLArguments } from './arguments';

/** What a mutation-kind SQL API answers: `<Name>Result`. */
export interface SqlMutationResult {
  /** Rows the statement inserted, updated or deleted, as the database counts them. */
  affected: number;
  /** The rows it returned (RETURNING, OUTPUT), in the contract's value formats. */
  rows: Record<string, unknown>[];
}

/**
 * The resolver of a mutation-kind SQL API `<name>(args…): <Name>Result` (README "SQL APIs",
 * issue 26 item 3): the statement as saved, its parameters bound, run as one statement of the
 * request's transaction (`request-transaction.ts`: every mutation field of a request is written
 * together or not at all; the schema wraps this resolver so a later failure rolls it back).
 * @throws DomainError FORBIDDEN (an implicit `:user_…` the caller lacks); DatabaseRefusalError
 * INVALID_VALUE (a NULL in a returned column confirmed non-null) or what the dialect's
 * `translateError` reads in the database's refusal (UNIQUE_VIOLATION, FOREIGN_KEY_VIOLATION, …);
 * else the driver's error (an internal error, logged by code only). A call that ran is recorded
 * for webhooks (`sqlApiCalled`), delivered only if the request commits.
 */
export function sqlMutationResolver(
  plan: SqlApiPlan,
): GraphQLFieldResolver<unknown, GatewayContext, Record<string, unknown>> {
  return withGraphQLArguments(async (_source, args, ctx): Promise<SqlMutationResult> => {
    const conn = await ctx.connection(plan.api.datasourceId);
    const statement = plan.statementFor(conn.dialect.type);
    const params = bindArguments(plan, statement, args, ctx.caller, conn.dialect);
    const result = await conn.run({ sql: statement.sql, params }).catch((error: unknown) => {
      // A duplicate key, a missing reference, an empty required column: said as for Table APIs.
      const refusal = conn.dialect.translateError(error, {
        table: { schema: null, name: plan.api.name },
        columns: [],
        operation: 'insert',
      });
      throw refusal ? new DatabaseRefusalError(refusal, error) : error;
    });
    const answer = {
      affected: result.affected ?? result.rows.length,
      rows: shapeSqlRows(plan, result.rows, conn.dialect),
    };
    // For the webhooks naming this SQL API, sent once the request committed (README "Webhooks").
    sqlApiCalled(ctx, {
      apiId: plan.api.id,
      arguments: Object.fromEntries(plan.arguments.map((a) => [a.name, args[a.name] ?? null])),
      ...answer,
    });
    return answer;
  });
}
