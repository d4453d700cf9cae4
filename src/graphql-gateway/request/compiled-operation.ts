import { ApolloServerErrorCode } from '@apollo/server/errors';
import {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { coerceDocument } from '../input-coercion';
import {
  checkRequestCost,
  CostLimits,
  PlannedField,
  planOperationFields,
  RequestCost,
} from './operation-cost';
import { shapeViolations } from './document-shape';

/** A refusal of the whole request before execution: HTTP status and GraphQL errors (no `data`). */
export class RequestRefusal extends Error {
  constructor(
    readonly status: number,
    readonly errors: GraphQLFormattedError[],
  ) {
    super(errors[0]?.message ?? 'Request refused');
    this.name = 'RequestRefusal';
  }

  /** One error with an `extensions.code`. */
  static of(status: number, code: string, message: string): RequestRefusal {
    return new RequestRefusal(status, [{ message, extensions: { code } }]);
  }
}

/** Ceilings the compiler checks (a subset of `AppConfig.limits`). */
export interface CompileLimits extends CostLimits {
  queryBytes: number;
  queryTokens: number;
  fragmentSpreads: number;
}

/** One operation of a compiled document: everything that does not depend on variable values. */
export class CompiledOperation {
  /** Root field names the operation selects, fragments expanded (the endpoint-scope step reads them). */
  readonly rootFieldNames: string[];
  private staticCost: RequestCost | Error | undefined;

  constructor(
    readonly node: OperationDefinitionNode,
    readonly fields: PlannedField[],
    rootFieldNames: string[],
  ) {
    this.rootFieldNames = rootFieldNames;
  }

  get kind(): 'query' | 'mutation' | 'subscription' {
    return this.node.operation;
  }

  get declaresVariables(): boolean {
    return (this.node.variableDefinitions?.length ?? 0) > 0;
  }

  /**
   * The request's cost within every ceiling (see `checkRequestCost`). An operation without
   * variables has the same answer every time, so it is computed once.
   * @throws DomainError as `checkRequestCost` does.
   */
  cost(variableValues: Record<string, unknown>, limits: CostLimits): RequestCost {
    if (this.declaresVariables) return checkRequestCost(this.fields, variableValues, limits);
    if (this.staticCost === undefined) {
      try {
        this.staticCost = checkRequestCost(this.fields, {}, limits);
      } catch (error) {
        this.staticCost = error as Error;
      }
    }
    if (this.staticCost instanceof Error) throw this.staticCost;
    return this.staticCost;
  }
}

/** A query text parsed, coerced, validated and planned once for one schema. */
export interface CompiledDocument {
  /** The coerced document graphql-js executes. */
  document: DocumentNode;
  operations: CompiledOperation[];
  /** Estimated memory held by this entry, in bytes (the cache's size measure). */
  bytes: number;
}

/**
 * Memory an entry holds per character of query text: the AST without locations, the coerced
 * copy and the field plan. Measured on this project's documents (heap delta per text byte ≈ 10–14);
 * rounded up so the cache's bound is a bound.
 */
const BYTES_PER_TEXT_CHARACTER = 16;
const ENTRY_OVERHEAD_BYTES = 2048;

/** Drops " Did you mean …?" from a validation message: no names outside the caller's view leak. */
function withoutSuggestions(message: string): string {
  return message.replace(/ Did you mean .*\?$/s, '');
}

function validationRefusal(messages: string[]): RequestRefusal {
  return new RequestRefusal(
    400,
    messages.map((message) => ({
      message,
      extensions: { code: ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED },
    })),
  );
}

/**
 * Request step 6 (DESIGN.md): turns a query text into a {@link CompiledDocument} or refuses it.
 * In order, each bounded before it is paid: the text's size (bytes), parsing without locations
 * under the token ceiling, the document's shape with fragments expanded (spreads, aliases,
 * nesting, fields; linear), literal coercion (CONTRACT.md §6 Values), graphql-js validation
 * (its specified rules, including MaxIntrospectionDepthRule), and each operation's field plan.
 * @param suggestions whether validation messages may suggest names ("Did you mean …"): only for
 * the builder, who sees every name anyway (CONTRACT.md §6 "never suggest names outside them").
 * @throws RequestRefusal 400 with `GRAPHQL_PARSE_FAILED` or `GRAPHQL_VALIDATION_FAILED`.
 */
export function compileDocument(
  schema: GraphQLSchema,
  text: string,
  limits: CompileLimits,
  suggestions: boolean,
): CompiledDocument {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.queryBytes) {
    throw RequestRefusal.of(
      400,
      ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
      `The query text has ${bytes} bytes; the limit is ${limits.queryBytes}`,
    );
  }
  let parsed: DocumentNode;
  try {
    parsed = parse(text, { noLocation: true, maxTokens: limits.queryTokens });
  } catch (error) {
    const message = (error as GraphQLError).message ?? 'Syntax error';
    // graphql-js words the token ceiling "Document contains more that N tokens. Parsing aborted."
    const tokens = / tokens\. Parsing aborted\.$/.test(message)
      ? `The query text has more than ${limits.queryTokens} tokens; the token limit of ${limits.queryTokens} counts every name, punctuator and value`
      : message;
    throw RequestRefusal.of(400, ApolloServerErrorCode.GRAPHQL_PARSE_FAILED, tokens);
  }
  const problems = shapeViolations(parsed, limits);
  if (problems.length) throw validationRefusal(problems);
  let document: DocumentNode;
  let errors: readonly GraphQLError[];
  try {
    document = coerceDocument(schema, parsed).document;
    errors = validate(schema, document, specifiedRules, { maxErrors: 20 });
  } catch (error) {
    // A literal nested deeper than graphql-js's recursive checks can follow.
    if (error instanceof RangeError) {
      throw validationRefusal([
        'The document nests values too deeply; flatten its literals or send them as variables',
      ]);
    }
    throw error;
  }
  if (errors.length) {
    throw validationRefusal(
      errors.map((e) => (suggestions ? e.message : withoutSuggestions(e.message))),
    );
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const operations = document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((node) => {
      const fields = planOperationFields(schema, node, fragments);
      const rootNames = rootFieldNamesOf(node, fragments);
      return new CompiledOperation(node, fields, rootNames);
    });
  return {
    document,
    operations,
    bytes: text.length * BYTES_PER_TEXT_CHARACTER + ENTRY_OVERHEAD_BYTES,
  };
}

/** Every root field name an operation selects, fragments expanded, introspection included. */
function rootFieldNamesOf(
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): string[] {
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (selections: OperationDefinitionNode['selectionSet']['selections']) => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) names.add(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet.selections);
      }
    }
  };
  walk(operation.selectionSet.selections);
  return [...names];
}

/**
 * The operation a request runs: the one named `operationName`, or the only one.
 * @throws RequestRefusal 400 as graphql-js words it.
 */
export function selectOperation(
  compiled: CompiledDocument,
  operationName: string | undefined,
): CompiledOperation {
  if (operationName !== undefined) {
    const named = compiled.operations.find((o) => o.node.name?.value === operationName);
    if (!named) {
      throw RequestRefusal.of(
        400,
        'OPERATION_RESOLUTION_FAILURE',
        `Unknown operation named "${operationName}".`,
      );
    }
    return named;
  }
  if (compiled.operations.length !== 1) {
    throw RequestRefusal.of(
      400,
      'OPERATION_RESOLUTION_FAILURE',
      'Must provide operation name if query contains multiple operations.',
    );
  }
  return compiled.operations[0];
}

/**
 * Compiled documents of every schema, in one cache bounded by bytes (`DOCUMENT_CACHE_BYTES`,
 * CONTRACT.md §6 "no document is kept in memory unless it validated"): only documents that
 * compiled are kept, keyed by schema and query text; the least recently used go first.
 */
export class DocumentCache {
  private readonly entries: LRUCache<string, CompiledDocument>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, CompiledDocument>({
      maxSize: Math.max(maxBytes, 1),
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
    });
  }

  /** Compiled documents held (the e2e suites read it to prove refused documents are not kept). */
  get size(): number {
    return this.entries.size;
  }

  /** The cached compilation of `text` for the schema named `schemaKey`, compiling it on a miss. */
  compile(schemaKey: string, compile: () => CompiledDocument, text: string): CompiledDocument {
    const key = `${schemaKey}\n${text}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = compile();
      if (entry.bytes <= this.entries.maxSize) this.entries.set(key, entry);
    }
    return entry;
  }

  /** Drops every entry of a schema (it left the schema cache). */
  dropSchema(schemaKey: string): void {
    const prefix = `${schemaKey}\n`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
