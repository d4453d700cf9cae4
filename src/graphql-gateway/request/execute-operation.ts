import { ClientDisconnected } from '../../common/cancellation';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  execute,
  ExecutionResult,
  getVariableValues,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  isNonNullType,
} from 'graphql';
import { DomainError } from '../../common/domain-error';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError, GRAPHQL_CODE_OF } from '../graphql-errors';
import { coerceVariables } from '../input-coercion';
import { executesWith } from '../operations/arguments';
import { CompiledDocument, CompiledOperation, RequestRefusal } from './compiled-operation';
import { NotRun, ROLLED_BACK, rolledBackAnswer } from './request-transaction';
import { valueKey } from './value-key';

const logger = new Logger('GraphQL');

/** The JSON answer of an executed operation. */
export interface GraphQLResponse {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
  /** A key's `cost` (README "Cost budgets"), added by the endpoint after execution. */
  extensions?: Record<string, unknown>;
}

/**
 * Deepest nesting of objects and lists in variables: enough for 100 `and`/`or` items nested in
 * one another (two levels each) and the filter values inside them, and far below what the
 * recursive coercion of graphql-js can take before the stack runs out.
 */
export const MAX_VARIABLE_DEPTH = 256;

/**
 * How deep `value` nests objects and lists, counted without recursion (a hostile value may be
 * deeper than the stack); stops counting past `limit`.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current as Record<string, unknown>))
      stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Coerces the request's variables against the operation's variable definitions, once (issue 25):
 * graphql-js's `getVariableValues` (defaults applied, so a default `take` counts like a sent one)
 * on the JSON values as sent. Only when it refuses them does the contract's input coercion
 * (CONTRACT.md §6 Values: `"42"` for an `Int`, `42` for a `String`, `"true"` for a `Boolean`, a
 * database enum's stored text, a date alone for a `DateTime`; `coerceVariables`) rewrite them, and
 * graphql-js coerces the rewritten values. The answer is the same as coercing every request both
 * ways: the contract rewrites only values graphql-js refuses (a text where a number, Boolean or
 * enum value is expected, a number where a text is, a text no enum value names, a date without a
 * time, which the `DateTime`/`LocalDateTime` scalars refuse), so on values graphql-js takes it
 * changes nothing. What clients send is typed already, and pays for one walk over its values;
 * values an operation was sent before are found coerced ({@link COERCED_VARIABLES}). Bounded as
 * before: the nesting is measured without recursion first, and graphql-js stops at 20 errors.
 * @returns `inputs`, what graphql-js's `execute` takes, and `values`, the coerced values the
 * per-request checks and graphql-jit's compiled queries read.
 * @throws RequestRefusal 400 `BAD_USER_INPUT` with every problem, or when the variables nest
 * deeper than `maxDepth`.
 */
export function coerceRequestVariables(
  schema: GraphQLSchema,
  operation: CompiledOperation,
  variables: Record<string, unknown>,
  maxDepth = MAX_VARIABLE_DEPTH,
): RequestVariables {
  const depth = nestingDepth(variables, maxDepth);
  if (depth > maxDepth) {
    throw RequestRefusal.of(
      400,
      ApolloServerErrorCode.BAD_USER_INPUT,
      `Variables nest more than ${maxDepth} levels deep; the limit is ${maxDepth}`,
    );
  }
  // Variables an operation does not declare are never read (graphql-js ignores them too).
  if (!operation.declaresVariables) return { inputs: {}, values: {} };
  const sent = valueKey(variables);
  const key = sent === undefined ? undefined : `${operation.id}\n${sent}`;
  const known = key === undefined ? undefined : COERCED_VARIABLES.get(key);
  if (known?.schema === schema) return known.variables;
  const definitions = operation.node.variableDefinitions ?? [];
  const coerce = (inputs: Record<string, unknown>) =>
    getVariableValues(schema, definitions, inputs, { maxErrors: 20 });
  let inputs = variables;
  let coerced = coerce(inputs);
  if (coerced.errors) {
    const rewritten = coerceVariables(schema, operation.node, variables);
    if (rewritten !== variables) {
      inputs = rewritten;
      coerced = coerce(inputs);
    }
  }
  if (coerced.errors) {
    throw new RequestRefusal(
      400,
      coerced.errors.map((e) => ({
        message: e.message,
        extensions: { code: ApolloServerErrorCode.BAD_USER_INPUT },
      })),
    );
  }
  const result = { inputs, values: coerced.coerced };
  if (key !== undefined) COERCED_VARIABLES.set(key, { schema, variables: result });
  return result;
}

/**
 * Variables coerced by an operation (`CompiledOperation.id`) for the values as sent (`valueKey`
 * of the JSON variables, at most `MAX_VALUE_KEY_CHARS`): the same operation and values coerce to
 * the same values (graphql-js's coercion reads only the variable definitions, the schema's types
 * and the values), so a client repeating its variables pays for one walk over them, to key them.
 * Refusals are not kept. The coerced objects are shared by the requests that find them, as
 * literal arguments are: nothing changes them. Bounded by bytes: the key and both objects (each
 * at most as large as the key), two bytes a character, plus the entry.
 */
const COERCED_VARIABLES = new LRUCache<
  string,
  { schema: GraphQLSchema; variables: RequestVariables }
>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_value, key) => key.length * 6 + 512,
});

/**
 * graphql-js's `execute` reports a null in a non-null field with a plain `Error` (graphql 16,
 * `completeValue`), where graphql-jit gives a `GraphQLError`; its message names only the type and
 * field, so it is answered as graphql-jit answers it.
 */
function isNullInNonNullField(error: Error): boolean {
  return (
    error.constructor === Error &&
    error.message.startsWith('Cannot return null for non-nullable field ')
  );
}

/**
 * One execution error as the caller sees it (CONTRACT.md §6 Error codes): a domain error keeps its
 * message with its code; a database refusal its code and field; GraphQL's own errors pass;
 * anything else is a bug of the service, logged by name and driver code only (never a caller's
 * values) and answered `Internal server error`.
 */
export function formatExecutionError(error: GraphQLError): GraphQLFormattedError {
  const original = error.originalError;
  const path = error.path;
  if (original instanceof DomainError) {
    return {
      message: original.message,
      path,
      extensions: { code: GRAPHQL_CODE_OF[original.code] },
    };
  }
  if (original instanceof DatabaseRefusalError) {
    const { code, field } = original.refusal;
    return { message: original.message, path, extensions: { code, field } };
  }
  if (!original || original instanceof GraphQLError || isNullInNonNullField(original)) {
    const formatted = error.toJSON();
    // graphql-jit gives `locations: []` where graphql-js gives none (documents carry no locations).
    if (formatted.locations?.length === 0) delete (formatted as { locations?: unknown }).locations;
    return formatted;
  }
  if (original instanceof NotRun) {
    return { message: original.message, path, extensions: { code: ROLLED_BACK } };
  }
  if (original instanceof ClientDisconnected) {
    // Nobody reads this answer; the client leaving is no failure of ours (not logged as one).
    return {
      message: 'The client closed the connection',
      path,
      extensions: { code: 'CLIENT_CLOSED_REQUEST' },
    };
  }
  const e = original as Error & { code?: unknown };
  const driverCode = typeof e.code === 'string' || typeof e.code === 'number' ? ` (${e.code})` : '';
  // Driver messages may quote the caller's values: the message is logged only for our own bugs.
  const detail = driverCode ? '' : `: ${e.message}`;
  logger.error(`Resolver failed: ${e.name ?? 'Error'}${driverCode}${detail}`);
  return {
    message: 'Internal server error',
    path,
    extensions: { code: ApolloServerErrorCode.INTERNAL_SERVER_ERROR },
  };
}

/** The request's variables as `coerceRequestVariables` returned them. */
export interface RequestVariables {
  /** After the contract's coercion, before GraphQL's: what graphql-js's `execute` takes. */
  inputs: Record<string, unknown>;
  /** Coerced by graphql-js (`getVariableValues`): what graphql-jit's compiled queries take. */
  values: Record<string, unknown>;
}

/**
 * Request step 8: runs a compiled operation and shapes the answer. The operation runs as
 * graphql-jit compiled it (once per cached operation, see `CompiledDocument.compiledQuery`), with
 * the variables graphql-js coerced: graphql-jit parses none itself (ADR 0010). One over
 * `JIT_MAX_FIELDS` expanded fields, or one graphql-jit cannot compile, runs with graphql-js's
 * `execute` on the cached document. Neither parses or validates again. When the request's budget
 * ran out, the answer is that one refusal (the cancelled statements' errors say nothing more).
 */
export async function executeOperation(
  schema: GraphQLSchema,
  compiled: CompiledDocument,
  operation: CompiledOperation,
  variables: RequestVariables,
  context: GatewayContext,
): Promise<GraphQLResponse> {
  const jit = compiled.compiledQuery(schema, operation);
  if (jit) executesWith(context, variables.values);
  let result: ExecutionResult;
  try {
    result = (
      jit
        ? await jit.query(undefined, context, variables.values)
        : await execute({
            schema,
            document: compiled.document,
            operationName: operation.node.name?.value,
            variableValues: variables.inputs,
            contextValue: context,
          })
    ) as ExecutionResult;
  } catch (error) {
    // Never leave a request's transaction (and its connection) open.
    await context.transaction?.end(false).catch(() => undefined);
    throw error;
  }
  const exceeded = context.budget.exceeded;
  const errors = result.errors?.map(formatExecutionError) ?? [];
  const transaction = context.transaction;
  if (transaction) {
    // A mutation request is written whole or not at all (README "Writing rows").
    // Every root field's response key (its alias), also when a non-null field nulled the data.
    const rootKeys = operation.fields.map((f) => ({
      key: f.responseKey,
      nonNull: isNonNullType(f.definition.type),
    }));
    if (exceeded || errors.length) {
      await transaction.end(false);
      const causes = exceeded
        ? [{ message: exceeded.message, extensions: { code: GRAPHQL_CODE_OF[exceeded.code] } }]
        : errors;
      return rolledBackAnswer(rootKeys, causes);
    }
    try {
      await transaction.end(true);
    } catch (error) {
      return rolledBackAnswer(rootKeys, [
        formatExecutionError(new GraphQLError('commit failed', { originalError: error as Error })),
      ]);
    }
    // Committed: the webhooks' outbox rows (README "Webhooks").
    await context.changes?.committed();
  } else if (exceeded) {
    return {
      errors: [{ message: exceeded.message, extensions: { code: GRAPHQL_CODE_OF[exceeded.code] } }],
      data: null,
    };
  }
  const response: GraphQLResponse = {};
  if (errors.length) response.errors = errors;
  response.data = (result.data as Record<string, unknown> | null | undefined) ?? null;
  return response;
}
