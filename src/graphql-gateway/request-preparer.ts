import { DocumentNode, GraphQLSchema, Kind, parse, print } from 'graphql';
import { LRUCache } from 'lru-cache';
import { coerceRequest } from './input-coercion';

/** The GraphQL body of a request, as sent. */
export interface GraphQLBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  [other: string]: unknown;
}

interface PreparedDocument {
  /** The query text Apollo runs: the sent text, or the coerced document printed. */
  query: string;
  /** The coerced document (its literals need no more coercion). */
  document: DocumentNode;
  declaresVariables: boolean;
}

/** Distinct documents remembered per schema. */
const MAX_DOCUMENTS = 1000;

/**
 * Request step 6's first part (docs/architecture.md): the contract's input coercion
 * (CONTRACT.md §6 Values) applied before Apollo validates. Literal coercion runs once per distinct
 * query text and schema (cached); variables are coerced per request, only when the operation
 * declares any. A body that is not a parseable query passes unchanged, for Apollo to refuse.
 */
export class RequestPreparer {
  private readonly documents = new LRUCache<string, PreparedDocument>({ max: MAX_DOCUMENTS });

  constructor(private readonly schema: GraphQLSchema) {}

  /** The body with coerced query text and variables. */
  prepare(body: GraphQLBody): GraphQLBody {
    if (!body || typeof body.query !== 'string') return body;
    const prepared = this.document(body.query);
    if (!prepared) return body;
    const variables =
      body.variables && typeof body.variables === 'object'
        ? (body.variables as Record<string, unknown>)
        : undefined;
    if (!prepared.declaresVariables || !variables)
      return prepared.query === body.query ? body : { ...body, query: prepared.query };
    const operationName = typeof body.operationName === 'string' ? body.operationName : null;
    const coerced = coerceRequest(this.schema, prepared.document, variables, operationName);
    return { ...body, query: prepared.query, variables: coerced.variables };
  }

  private document(query: string): PreparedDocument | null {
    let prepared = this.documents.get(query);
    if (!prepared) {
      let document: DocumentNode;
      try {
        document = parse(query);
      } catch {
        return null;
      }
      const coerced = coerceRequest(this.schema, document, undefined);
      prepared = {
        query: coerced.changed ? print(coerced.document) : query,
        document: coerced.document,
        declaresVariables: coerced.document.definitions.some(
          (d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0,
        ),
      };
      this.documents.set(query, prepared);
    }
    return prepared;
  }
}
