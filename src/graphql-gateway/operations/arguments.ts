import {
  type FieldNode,
  getArgumentValues,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  Kind,
  type ValueNode,
} from 'graphql';
import type { GatewayContext } from '../gateway-context';
import type { FilterInput } from '../query-planner';

/*
 * Reading a field's arguments, shared by every operation kind and navigation field: once per field
 * occurrence when they read no variable, else once per occurrence and request.
 */

/** Arguments of `get<Base>` and of one-to-many navigation fields. */
export interface ListArgs {
  where?: FilterInput | null;
  order?: Record<string, 'ASC' | 'DESC'>[] | null;
  take?: number | null;
  skip?: number | null;
}

/** Arguments of a write (`add`, `update`, `delete`): column name to value as sent. */
export type Args = Record<string, unknown>;

/** Arguments read per request (its variable values) and field occurrence (its field nodes). */
const ARGUMENTS = new WeakMap<object, WeakMap<readonly FieldNode[], Record<string, unknown>>>();

/** Marks a field occurrence whose arguments read variables, so are read per request. */
const PER_REQUEST = Symbol('arguments read per request');

/**
 * Arguments of field occurrences that read no variable: the same in every request, so read once
 * per occurrence of a cached operation (graphql-jit hands every request the `fieldNodes` array it
 * compiled the occurrence with; graphql-js makes new ones per execution, which then only miss).
 */
const LITERAL_ARGUMENTS = new WeakMap<
  readonly FieldNode[],
  Record<string, unknown> | typeof PER_REQUEST
>();

/**
 * Whether a value node is or holds a variable. Recursive: the document passed validation, whose
 * rules recurse through the same literals (a literal too deep for them was refused at compile).
 */
function readsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(readsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => readsVariable(f.value));
  return false;
}

/** Whether a field occurrence's arguments are all literals (they then never change). */
export function hasLiteralArguments(info: GraphQLResolveInfo): boolean {
  return literalArguments(info) !== PER_REQUEST;
}

function literalArguments(info: GraphQLResolveInfo): Record<string, unknown> | typeof PER_REQUEST {
  let args = LITERAL_ARGUMENTS.get(info.fieldNodes);
  if (args === undefined) {
    const node = info.fieldNodes[0];
    const variables = (node.arguments ?? []).some((a) => readsVariable(a.value));
    args = variables ? PER_REQUEST : readArguments(info);
    LITERAL_ARGUMENTS.set(info.fieldNodes, args);
  }
  return args;
}

function readArguments(info: GraphQLResolveInfo): Record<string, unknown> {
  const field = info.parentType.getFields()[info.fieldName];
  return getArgumentValues(field, info.fieldNodes[0], info.variableValues);
}

/**
 * A field's arguments as graphql-js's `getArgumentValues` reads them from the field node and the
 * request's coerced variables, whichever executor called the resolver. graphql-jit builds them
 * otherwise: it writes literal values into generated code as JSON (a `Base64` literal's Buffer
 * arrives as `{type, data}`) and gives a variable left out inside a literal object or list
 * `null` where graphql-js leaves the field out. Arguments that read no variable are read once per
 * field occurrence ({@link LITERAL_ARGUMENTS}); others once per field occurrence and request, so
 * every parent row of a navigation field shares one object: resolvers never change their
 * arguments.
 * @throws GraphQLError as `getArgumentValues` does (a non-null argument given a null variable).
 */
function argumentsOf(info: GraphQLResolveInfo): Record<string, unknown> {
  const literal = literalArguments(info);
  if (literal !== PER_REQUEST) return literal;
  const variables = (info.variableValues ?? {}) as object;
  let byField = ARGUMENTS.get(variables);
  if (!byField) ARGUMENTS.set(variables, (byField = new WeakMap()));
  let args = byField.get(info.fieldNodes);
  if (!args) {
    args = readArguments(info);
    byField.set(info.fieldNodes, args);
  }
  return args;
}

/** `resolve` called with {@link argumentsOf} in place of the executor's arguments. */
export function withGraphQLArguments<S, A>(
  resolve: GraphQLFieldResolver<S, GatewayContext, A>,
): GraphQLFieldResolver<S, GatewayContext, A> {
  return (source, _args, ctx, info) => resolve(source, argumentsOf(info) as A, ctx, info);
}
