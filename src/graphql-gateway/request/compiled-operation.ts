import { ApolloServerErrorCode } from '@apollo/server/errors';
import { Logger } from '@nestjs/common';
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
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { coerceDocument } from '../input-coercion';
import {
  checkRequestCost,
  CostLimits,
  PlannedField,
  planOperationFields,
  RequestCost,
} from './operation-cost';
import { operationShapes, shapeViolations } from './document-shape';

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
  /** The graphql-jit compilation once made; `null` when graphql-jit refused the operation. */
  private jit: CompiledQuery | null | undefined;

  /**
   * @param expandedFields the fields the operation selects with fragments expanded
   * (`operationShapes()`), which graphql-jit's compile time and code size grow with.
   */
  constructor(
    readonly node: OperationDefinitionNode,
    readonly fields: PlannedField[],
    rootFieldNames: string[],
    readonly expandedFields: number,
  ) {
    this.rootFieldNames = rootFieldNames;
  }

  /** Whether graphql-jit compiles this operation when it first runs (see {@link compiledQuery}). */
  get jitEligible(): boolean {
    return this.expandedFields <= JIT_MAX_FIELDS;
  }

  /** Whether graphql-jit was asked and could not compile the operation (logged when it refused). */
  get jitRefused(): boolean {
    return this.jit === null;
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

  /**
   * The operation compiled to JavaScript by graphql-jit, or null when graphql-js's `execute` runs
   * it. graphql-jit compiles an operation at its first execution (a document refused by the
   * per-request checks never pays for it) and only one of at most {@link JIT_MAX_FIELDS} expanded
   * fields (compiling costs ~30 µs and ~4 KB per expanded field, measured); the compilation is
   * kept with the operation, so with the cached document. graphql-jit writes its
   * `@skip`/`@include` bookkeeping into the AST nodes it compiles, so it compiles a private copy of
   * `document`: another operation of the same document (sharing its fragments) is compiled apart.
   * Path-based `@skip`/`@include` (the option graphql-jit's default gets wrong for a fragment
   * spread twice under different directives).
   * @param document the coerced document this operation belongs to.
   * @returns the compiled query, or null: too large, or refused by graphql-jit ({@link jitRefused}).
   */
  compiledQuery(schema: GraphQLSchema, document: DocumentNode): CompiledQuery | null {
    if (this.jit !== undefined) return this.jit;
    if (!this.jitEligible) return null;
    const compiled = compileQuery(schema, structuredClone(document), this.node.name?.value, {
      useExperimentalPathBasedSkipInclude: true,
      disablingCapturingStackErrors: true,
    });
    this.jit = isCompiledQuery(compiled) ? compiled : null;
    // Once per cached operation: it keeps running with graphql-js.
    if (!this.jit)
      jitLogger.warn('graphql-jit could not compile an operation; it runs with graphql-js');
    return this.jit;
  }
}

/**
 * The largest operation graphql-jit compiles, in expanded fields: ~30 ms of compiling and ~4 MB of
 * code at most (measured, ~30 µs and ~3.7 KB per field). Larger operations, which the token
 * ceiling allows up to 10,000 fields, run with graphql-js: their cost is their rows, not the executor.
 */
export const JIT_MAX_FIELDS = 1_000;

const jitLogger = new Logger('GraphQL');

/** A query text parsed, coerced, validated and planned once for one schema. */
export interface CompiledDocument {
  /** The coerced document graphql-js executes. */
  document: DocumentNode;
  operations: CompiledOperation[];
  /** Estimated memory held by this entry, in bytes (the cache's size measure). */
  bytes: number;
}

/**
 * The memory a cached document holds, in bytes: its AST without locations, the coerced copy, the
 * field plans, and graphql-jit's code for each operation it may compile. Charged when the document
 * is cached (before graphql-jit compiles), so the cache's bound holds whatever runs later. Measured
 * (heap delta per cached document, 100 documents each, bench-style schema): graphql-js's share
 * 12–270 KB for 120–4,200 characters and 11–760 expanded fields, bounded by
 * {@link documentBytes}' 32 per character + 256 per field + 8 KB; graphql-jit's ~2.9–3.7 KB per
 * expanded field, bounded by 4 KB per field.
 */
const BYTES_PER_TEXT_CHARACTER = 32;
const BYTES_PER_EXPANDED_FIELD = 256;
const JIT_BYTES_PER_EXPANDED_FIELD = 4096;
const ENTRY_OVERHEAD_BYTES = 8192;

/** The cache size of a compiled document of `text` with these operations (see above). */
function documentBytes(text: string, operations: CompiledOperation[]): number {
  let bytes = ENTRY_OVERHEAD_BYTES + text.length * BYTES_PER_TEXT_CHARACTER;
  for (const operation of operations) {
    bytes += operation.expandedFields * BYTES_PER_EXPANDED_FIELD;
    if (operation.jitEligible) bytes += operation.expandedFields * JIT_BYTES_PER_EXPANDED_FIELD;
  }
  return bytes;
}

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
  const shapes = operationShapes(parsed);
  const problems = shapeViolations(parsed, limits, shapes);
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
      const expanded = shapes.get(node.name?.value ?? '')?.fields ?? 0;
      return new CompiledOperation(node, fields, rootNames, expanded);
    });
  return { document, operations, bytes: documentBytes(text, operations) };
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
