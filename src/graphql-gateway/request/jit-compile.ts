import {
  DocumentNode,
  GraphQLScalarType,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  TypeNode,
  VariableDefinitionNode,
} from 'graphql';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';

/**
 * The type every variable of a compiled operation is given in graphql-jit's copy of the document:
 * a scalar whose `parseValue` is the identity. graphql-jit generates each variable's parsing by
 * inlining its input type, and never stops on a type that refers to itself (`<Base>Filter` through
 * `and`/`or`): graphql-jit issues 81 and 175, the heap grows until the process dies. graphql-js's
 * `getVariableValues` has already coerced the variables once per request
 * (`coerceRequestVariables`), so graphql-jit only passes them on. `__` names are reserved to
 * GraphQL (spec §4.1), so no type of a valid schema can clash with this one.
 */
const COERCED_VARIABLE = new GraphQLScalarType({
  name: '__CoercedVariable',
  description: 'A variable graphql-js coerced already; graphql-jit passes it on unchanged.',
});

/**
 * The schema graphql-jit compiles against: the request's schema (the same type objects, so the
 * same resolvers) plus {@link COERCED_VARIABLE}. Made once per schema; never served, validated or
 * introspected.
 */
const jitSchemas = new WeakMap<GraphQLSchema, GraphQLSchema>();

function jitSchemaOf(schema: GraphQLSchema): GraphQLSchema {
  let jitSchema = jitSchemas.get(schema);
  if (!jitSchema) {
    const config = schema.toConfig();
    jitSchema = new GraphQLSchema({
      ...config,
      types: [...config.types, COERCED_VARIABLE],
      assumeValid: true,
    });
    jitSchemas.set(schema, jitSchema);
  }
  return jitSchema;
}

/**
 * `Boolean` and `Boolean!` keep their type: graphql-jit reads the declared type of a variable an
 * `@skip`/`@include` uses (and refuses any other), and parsing a coerced Boolean again is the
 * identity.
 */
function isBoolean(type: TypeNode): boolean {
  const named = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  return named.kind === Kind.NAMED_TYPE && named.name.value === 'Boolean';
}

function passedThrough(definition: VariableDefinitionNode): VariableDefinitionNode {
  if (isBoolean(definition.type)) return definition;
  return {
    ...definition,
    type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: COERCED_VARIABLE.name } },
    // graphql-js applied the default already: a coerced value is present or was never sent.
    defaultValue: undefined,
  };
}

/**
 * The operation nodes of graphql-jit's private copies ({@link compileWithJit}), which its compiled
 * queries hand resolvers as `info.operation`. graphql-jit gives every execution of a compiled
 * operation the same `fieldNodes` array per field occurrence (graphql-js's `execute` makes new
 * ones), so a resolver may remember per occurrence only under one of these.
 */
const COMPILED_OPERATIONS = new WeakSet<OperationDefinitionNode>();

/**
 * Whether `operation` (a resolver's `info.operation`) is run by a graphql-jit compiled query: its
 * field occurrences' `fieldNodes` arrays are then the same in every execution.
 */
export function isCompiledOperation(operation: OperationDefinitionNode): boolean {
  return COMPILED_OPERATIONS.has(operation);
}

/** graphql-jit's output for one operation, with the size of the code it generated. */
export interface JitCompilation {
  query: CompiledQuery;
  /**
   * Characters of JavaScript graphql-jit generated (the operation's function body); undefined
   * when a graphql-jit version no longer reports it.
   */
  codeCharacters: number | undefined;
}

/**
 * The property graphql-jit's `debug` option fills with the generated function body: the only
 * measure of what a compilation made. Read once, then deleted so the text is not kept twice.
 */
const GENERATED_BODY = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';

/**
 * Compiles one operation of a validated, coerced document with graphql-jit (ADR 0010), so that
 * graphql-jit never generates variable parsing: every variable but a Boolean is declared
 * {@link COERCED_VARIABLE} in a private copy of the document, and the compiled query must be
 * called with the variables as graphql-js's `getVariableValues` coerced them (their `coerced`).
 * The copy is private also because graphql-jit writes its `@skip`/`@include` bookkeeping into the
 * AST; path-based `@skip`/`@include` is the option its default gets wrong for a fragment spread
 * twice under different directives. The work is bounded by the operation's expanded fields (the
 * caller limits them) and its variable definitions (one constant step each).
 * @param document the coerced document the operation belongs to (not modified).
 * @param operation the operation to compile, one of `document`'s.
 * @returns the compiled query and its code size, or null when graphql-jit refused the operation
 * (or `operation` is not one of `document`'s own nodes).
 */
export function compileWithJit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): JitCompilation | null {
  const index = document.definitions.indexOf(operation);
  if (index < 0) return null;
  const copy = structuredClone(document) as DocumentNode;
  let compiledOperation: OperationDefinitionNode | undefined;
  const definitions = copy.definitions.map((definition, i) => {
    if (i !== index || definition.kind !== Kind.OPERATION_DEFINITION) return definition;
    compiledOperation = {
      ...definition,
      variableDefinitions: definition.variableDefinitions?.map(passedThrough),
    };
    return compiledOperation;
  });
  const compiled = compileQuery(
    jitSchemaOf(schema),
    { ...copy, definitions },
    operation.name?.value,
    {
      useExperimentalPathBasedSkipInclude: true,
      disablingCapturingStackErrors: true,
      // Not in graphql-jit's typings: fills GENERATED_BODY with the code it generated.
      ...({ debug: true } as object),
    },
  );
  if (!isCompiledQuery(compiled)) return null;
  if (compiledOperation) COMPILED_OPERATIONS.add(compiledOperation);
  const generated = compiled as CompiledQuery & Record<string, unknown>;
  const body = generated[GENERATED_BODY];
  delete generated[GENERATED_BODY];
  return { query: compiled, codeCharacters: typeof body === 'string' ? body.length : undefined };
}
