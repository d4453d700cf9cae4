import {
  type FieldNode,
  getArgumentValues,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  Kind,
  type ValueNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { GatewayContext } from '../gateway-context';
import type { FilterInput } from '../query-planner';
import { isCompiledOperation } from '../request/jit-compile';
import { sameVariablesAs, variablesKey } from '../request/value-key';

/*
 * Reading a field's arguments, shared by every operation kind and navigation field: once per field
 * occurrence when they read no variable, else once per occurrence and distinct variable values
 * (remembered in a bounded cache), else once per occurrence and request.
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
 * A number per field occurrence (its `fieldNodes` array), never reused: it names the occurrence
 * in the caches below, which outlive no document by design but may hold a dropped document's
 * entries until they are evicted, so a new occurrence never meets an old one's.
 */
const OCCURRENCES = new WeakMap<readonly FieldNode[], number>();
let nextOccurrence = 0;

function occurrenceOf(fieldNodes: readonly FieldNode[]): number {
  let id = OCCURRENCES.get(fieldNodes);
  if (id === undefined) OCCURRENCES.set(fieldNodes, (id = nextOccurrence++));
  return id;
}

/**
 * The key of a field occurrence that reads variables, under this request's variable values:
 * `<occurrence>\n<variablesKey>`. The occurrence's arguments, and whatever is planned from them
 * alone, are the same for every request with the same key: graphql-js's `getArgumentValues` reads
 * only the field node, which the occurrence fixes, and the coerced variables, which the key
 * identifies exactly (`valueKey`). Undefined for an occurrence whose arguments read no variable
 * (they never change: see `hasLiteralArguments`), for an operation graphql-jit does not run
 * (`isCompiledOperation`), and when the variables have no key (over `MAX_VALUE_KEY_CHARS`, or a
 * value `valueKey` does not recognise): then nothing is remembered.
 */
export function variableArgumentsKey(info: GraphQLResolveInfo): string | undefined {
  if (literalArguments(info) !== PER_REQUEST) return undefined;
  // graphql-js's `execute` makes new field nodes arrays each time: remembering per occurrence
  // there would only fill the caches with entries never read again.
  if (!isCompiledOperation(info.operation)) return undefined;
  const variables = variablesKey(info.variableValues as Record<string, unknown>);
  return variables === undefined ? undefined : `${occurrenceOf(info.fieldNodes)}\n${variables}`;
}

/**
 * Arguments read from variables, by {@link variableArgumentsKey}: a client sends the same
 * operation with the same variables again and again (a page, a filter), and reading them is
 * graphql-js's `getArgumentValues` walking the field's argument definitions and values each time.
 * Bounded by bytes: the key (at most `MAX_VALUE_KEY_CHARS`) and the arguments read from those
 * variables (a part of them, charged as much again), two bytes a character, plus the entry.
 */
const VARIABLE_ARGUMENTS = new LRUCache<string, Record<string, unknown>>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_args, key) => key.length * 4 + 256,
});

/**
 * A field's arguments as graphql-js's `getArgumentValues` reads them from the field node and the
 * request's coerced variables, whichever executor called the resolver. graphql-jit builds them
 * otherwise: it writes literal values into generated code as JSON (a `Base64` literal's Buffer
 * arrives as `{type, data}`) and gives a variable left out inside a literal object or list
 * `null` where graphql-js leaves the field out. Arguments that read no variable are read once per
 * field occurrence ({@link LITERAL_ARGUMENTS}); others once per field occurrence and distinct
 * variable values ({@link VARIABLE_ARGUMENTS}), at least once per request, so every parent row of
 * a navigation field, and every request with the same variables, shares one object: resolvers
 * never change their arguments.
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
    const key = variableArgumentsKey(info);
    args = key === undefined ? undefined : VARIABLE_ARGUMENTS.get(key);
    if (!args) {
      args = readArguments(info);
      if (key !== undefined) VARIABLE_ARGUMENTS.set(key, args);
    }
    byField.set(info.fieldNodes, args);
  }
  return args;
}

/** The coerced variables each request's execution was called with, by its context. */
const EXECUTED_WITH = new WeakMap<object, Readonly<Record<string, unknown>>>();

/**
 * Notes that the request of `context` runs with these coerced variables
 * (`coerceRequestVariables().values`), so the variables its resolvers see (graphql-jit's copy of
 * them) take their key without another walk (`sameVariablesAs`).
 */
export function executesWith(context: object, values: Readonly<Record<string, unknown>>): void {
  EXECUTED_WITH.set(context, values);
}

/** `resolve` called with {@link argumentsOf} in place of the executor's arguments. */
export function withGraphQLArguments<S, A>(
  resolve: GraphQLFieldResolver<S, GatewayContext, A>,
): GraphQLFieldResolver<S, GatewayContext, A> {
  return (source, _args, ctx, info) => {
    const values = EXECUTED_WITH.get(ctx);
    if (values && info.variableValues) sameVariablesAs(info.variableValues, values);
    return resolve(source, argumentsOf(info) as A, ctx, info);
  };
}
