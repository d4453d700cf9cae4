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
import type { CompiledQuery } from 'graphql-jit';
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
import { compileWithJit } from './jit-compile';
import { variablesKey } from './value-key';

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

let nextOperationId = 0;

/**
 * Costs of operations with variables (`CompiledOperation.cost`), by operation and `variablesKey`:
 * the answer, or the refusal, `checkRequestCost` gave for those values under those limits. Shared
 * by every operation and bounded by bytes (the key, two bytes a character, and the entry); an
 * evicted document's entries go as the least recently used.
 */
const VARIABLE_COSTS = new LRUCache<string, { limits: CostLimits; cost: RequestCost | Error }>({
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (_value, key) => key.length * 2 + 256,
});

/** One operation of a compiled document: everything that does not depend on variable values. */
export class CompiledOperation {
  /**
   * A number naming this operation in the caches of what its variables give (its costs,
   * {@link VARIABLE_COSTS}; its coerced variables, `coerceRequestVariables`), never reused.
   */
  readonly id = nextOperationId++;
  /** Root field names the operation selects, fragments expanded (the endpoint-scope step reads them). */
  readonly rootFieldNames: string[];
  private staticCost: RequestCost | Error | undefined;
  /** The graphql-jit compilation once made; `null` when graphql-jit refused the operation. */
  private jit: CompiledQuery | null | undefined;
  /** Heap held by graphql-jit's code for this operation, in bytes (0 until compiled). */
  codeBytes = 0;

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

  /**
   * Whether graphql-jit compiles this operation when it first runs (see {@link compiledQuery}):
   * at most {@link JIT_MAX_FIELDS} expanded fields, and no introspection of the schema
   * (`__schema`, `__type`). graphql-jit runs against a compile-only copy of the schema that holds
   * one more type (`compileWithJit`), which introspection would list; it is rare (GraphiQL,
   * codegen) and runs with graphql-js on the schema itself.
   */
  get jitEligible(): boolean {
    return (
      this.expandedFields <= JIT_MAX_FIELDS &&
      !this.rootFieldNames.some((name) => INTROSPECTION_ROOT_FIELDS.has(name))
    );
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
   * The request's cost within every ceiling (see `checkRequestCost`, a function of the operation's
   * field plan, the coerced variables and the limits alone). An operation without variables has
   * the same answer every time, so it is computed once; one with variables once per distinct
   * variable values, remembered in {@link VARIABLE_COSTS} by their `variablesKey` (values without
   * a key are checked every time).
   * @throws DomainError as `checkRequestCost` does.
   */
  cost(variableValues: Record<string, unknown>, limits: CostLimits): RequestCost {
    if (this.declaresVariables) {
      const values = variablesKey(variableValues);
      if (values === undefined) return checkRequestCost(this.fields, variableValues, limits);
      const key = `${this.id}\n${values}`;
      let known = VARIABLE_COSTS.get(key);
      if (known?.limits !== limits) {
        let cost: RequestCost | Error;
        try {
          cost = checkRequestCost(this.fields, variableValues, limits);
        } catch (error) {
          cost = error as Error;
        }
        known = { limits, cost };
        VARIABLE_COSTS.set(key, known);
      }
      if (known.cost instanceof Error) throw known.cost;
      return known.cost;
    }
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
   * it. Compiled at the operation's first execution (a document refused by the per-request checks
   * never pays for it), only when at most {@link JIT_MAX_FIELDS} expanded fields, and kept with the
   * operation, so with the cached document. Call the result with the variables graphql-js coerced
   * (`coerceRequestVariables().values`): graphql-jit parses no variable (`compileWithJit`).
   * Prefer `CompiledDocument.compiledQuery`, which charges the code to the document's bytes.
   * @param document the coerced document this operation belongs to.
   * @returns the compiled query, or null: too large, or refused by graphql-jit ({@link jitRefused}).
   */
  compiledQuery(schema: GraphQLSchema, document: DocumentNode): CompiledQuery | null {
    if (this.jit !== undefined) return this.jit;
    if (!this.jitEligible) return null;
    const compiled = compileWithJit(schema, document, this.node);
    this.jit = compiled?.query ?? null;
    if (compiled) {
      this.codeBytes =
        compiled.codeCharacters === undefined
          ? this.expandedFields * JIT_BYTES_PER_EXPANDED_FIELD
          : compiled.codeCharacters * JIT_BYTES_PER_CODE_CHARACTER;
    } else {
      // Once per cached operation: it keeps running with graphql-js.
      jitLogger.warn('graphql-jit could not compile an operation; it runs with graphql-js');
    }
    return this.jit;
  }
}

/** The root fields that read the schema itself (GraphQL spec §4.2); `__typename` does not. */
const INTROSPECTION_ROOT_FIELDS = new Set(['__schema', '__type']);

/**
 * The largest operation graphql-jit compiles, in expanded fields: ~30–100 ms of compiling and
 * ~2 MB of code at most (measured, ~30–100 µs and ~1.8 KB per field). Larger operations, which
 * the token ceiling allows up to 10,000 fields, run with graphql-js: their cost is their rows, not
 * the executor.
 */
export const JIT_MAX_FIELDS = 1_000;

/**
 * Heap held per character of the code graphql-jit generates for an operation (its source text and
 * what V8 compiles from it once run): measured 0.2–2.0 bytes (200 small to 10 large operations
 * compiled and run once, heap after a full collection), charged at 3.
 */
const JIT_BYTES_PER_CODE_CHARACTER = 3;
/** The charge per expanded field when graphql-jit does not report its code size (measured ≤ 1.8 KB). */
const JIT_BYTES_PER_EXPANDED_FIELD = 4096;

const jitLogger = new Logger('GraphQL');

/**
 * A query text parsed, coerced, validated and planned once for one schema, with the memory it
 * holds: charged when it is made (its text, AST and field plans) and again as graphql-jit compiles
 * each of its operations, so the document cache's bound counts what is really held.
 */
export class CompiledDocument {
  /** Told when the bytes grow: the cache holding the document weighs it again. */
  private onGrowth: (() => void) | undefined;

  /**
   * @param document the coerced document graphql-js and graphql-jit execute.
   * @param planBytes the memory held before any operation is compiled to code (see
   * {@link documentBytes}).
   */
  constructor(
    readonly document: DocumentNode,
    readonly operations: CompiledOperation[],
    private readonly planBytes: number,
  ) {}

  /** Memory held by this entry, in bytes (the document cache's size measure). */
  get bytes(): number {
    let bytes = this.planBytes;
    for (const operation of this.operations) bytes += operation.codeBytes;
    return bytes;
  }

  /** Called by the cache that keeps this document: `weigh` runs whenever {@link bytes} grows. */
  heldBy(weigh: () => void): void {
    this.onGrowth = weigh;
  }

  /**
   * One operation's graphql-jit compilation (`CompiledOperation.compiledQuery`), its code charged
   * to this document as it is made.
   */
  compiledQuery(schema: GraphQLSchema, operation: CompiledOperation): CompiledQuery | null {
    const before = operation.codeBytes;
    const query = operation.compiledQuery(schema, this.document);
    if (operation.codeBytes !== before) this.onGrowth?.();
    return query;
  }
}

/**
 * The memory a compiled document holds before graphql-jit compiles any of its operations, in
 * bytes: its AST without locations, the coerced copy and the field plans. Measured (heap delta
 * per cached document, 100 documents each, bench-style schema): 12–270 KB for 120–4,200
 * characters and 11–760 expanded fields, bounded by 32 per character + 256 per field + 8 KB.
 */
const BYTES_PER_TEXT_CHARACTER = 32;
const BYTES_PER_EXPANDED_FIELD = 256;
const ENTRY_OVERHEAD_BYTES = 8192;

/** The plan bytes of a compiled document of `text` with these operations (see above). */
function documentBytes(text: string, operations: CompiledOperation[]): number {
  let bytes = ENTRY_OVERHEAD_BYTES + text.length * BYTES_PER_TEXT_CHARACTER;
  for (const operation of operations) bytes += operation.expandedFields * BYTES_PER_EXPANDED_FIELD;
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
 * Deepest nesting of a literal value in a query text: objects and lists, the argument list (or
 * variable definitions) the value stands in counting as one level, as the variables object does
 * for a variable, so a value is refused, or not, the same in both forms (`MAX_VARIABLE_DEPTH` of
 * `execute-operation.ts`, equal by test). graphql-js parses, coerces and validates values
 * recursively: `{and: [` written 1,000 times exhausts the stack in `parse` itself.
 */
export const MAX_LITERAL_DEPTH = 256;

/**
 * Deepest nesting of selection sets in a query text (the operation's own braces count), far
 * beyond the nesting limit of relations (12) and of introspection; parsed recursively too.
 */
export const MAX_SELECTION_DEPTH = 256;

/**
 * The first nesting of a query text beyond {@link MAX_LITERAL_DEPTH} (brackets and braces from
 * the outermost open `(`, which counts as one) or {@link MAX_SELECTION_DEPTH} (braces and brackets
 * outside parentheses), found in one pass over the characters, without recursion and before
 * anything parses: strings, block strings and comments are skipped. Unbalanced text is counted as
 * it comes (its parse fails anyway); the open brackets never exceed the two limits together.
 * @returns the refusal's message, naming the limit, or null when the text nests within both.
 */
export function textNestingProblem(
  text: string,
  valueLimit = MAX_LITERAL_DEPTH,
  selectionLimit = MAX_SELECTION_DEPTH,
): string | null {
  const n = text.length;
  let open = 0;
  // How many brackets were open when the outermost open `(` opened; -1 outside arguments.
  let argumentsAt = -1;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
      continue;
    }
    if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        // A block string; its only escape is a backslash before """.
        i += 3;
        while (i < n && !text.startsWith('"""', i)) i += text.startsWith('\\"""', i) ? 4 : 1;
        i += 3;
      } else {
        // A string ends at its closing quote or, unterminated, at the end of its line.
        i++;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d === 0x22 || d === 0x0a || d === 0x0d) break;
          i += d === 0x5c /* backslash */ ? 2 : 1;
        }
        i++;
      }
      continue;
    }
    if (c === 0x28 /* ( */ || c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (c === 0x28 && argumentsAt < 0) argumentsAt = open;
      open++;
      if (argumentsAt >= 0) {
        if (open - argumentsAt > valueLimit) {
          return `A value in the query text nests objects and lists more than ${valueLimit} levels deep; the limit is ${valueLimit}`;
        }
      } else if (open > selectionLimit) {
        return `Selection sets in the query text nest more than ${selectionLimit} levels deep; the limit is ${selectionLimit}`;
      }
    } else if (c === 0x29 /* ) */ || c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (open > 0) open--;
      if (open <= argumentsAt) argumentsAt = -1;
    }
    i++;
  }
  return null;
}

/**
 * Request step 6 (DESIGN.md): turns a query text into a {@link CompiledDocument} or refuses it.
 * In order, each bounded before it is paid: the text's size (bytes), the nesting of its values
 * and selection sets ({@link textNestingProblem}, before anything recursive), parsing without
 * locations under the token ceiling, the document's shape with fragments expanded (spreads,
 * aliases, nesting, fields; linear), literal coercion (CONTRACT.md §6 Values), graphql-js
 * validation (its specified rules, including MaxIntrospectionDepthRule), and each operation's
 * field plan.
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
  // Before anything recursive: graphql-js's parser recurses per level of nesting.
  const nesting = textNestingProblem(text);
  if (nesting) throw validationRefusal([nesting]);
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
  return new CompiledDocument(document, operations, documentBytes(text, operations));
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
      const made = compile();
      entry = made;
      if (made.bytes <= this.entries.maxSize) {
        this.entries.set(key, made);
        // Set again to be weighed again (lru-cache weighs a value only when it is new for the key);
        // the least recently used make room, and an entry now over the whole bound is dropped.
        made.heldBy(() => {
          if (this.entries.peek(key) !== made) return;
          this.entries.delete(key);
          if (made.bytes <= this.entries.maxSize) this.entries.set(key, made);
        });
      }
    }
    return entry;
  }

  /** Drops every entry of a schema (it left the schema cache). */
  dropSchema(schemaKey: string): void {
    const prefix = `${schemaKey}\n`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
