import type { ParsedRequest } from '../../common/http-request';
import { DomainError, ErrorCode } from '../../common/domain-error';
import { RequestRefusal } from './compiled-operation';

/** What a GraphQL request asks for, read from a POST body or a GET query string. */
export interface GraphQLParams {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/** Query-string names that would carry a key (compared lower-cased, `[…]` suffixes removed). */
const KEY_PARAM_NAMES = new Set(['api_key', 'apikey', 'x-api-key', 'x_api_key']);

/**
 * Refuses a request whose URL carries an API key, in any letter case or array form
 * (`?API_KEY=…`, `?api_key[]=…`, `?x-api-key=…`), on any method (CONTRACT.md §6: keys travel in
 * headers only). The value is never echoed.
 * @throws DomainError INVALID_INPUT (400).
 */
export function refuseKeyInUrl(req: ParsedRequest): void {
  const url = req.originalUrl ?? req.url ?? '';
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return;
  for (const name of new URLSearchParams(url.slice(queryStart + 1)).keys()) {
    const bare = name.toLowerCase().replace(/\[.*$/, '');
    if (KEY_PARAM_NAMES.has(bare)) {
      throw new DomainError(
        ErrorCode.InvalidInput,
        'API keys travel in the x-api-key header only, never in the URL',
      );
    }
  }
}

function badRequest(message: string): RequestRefusal {
  return RequestRefusal.of(400, 'BAD_REQUEST', message);
}

function variablesOf(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('`variables` must be a JSON object');
  }
  return raw as Record<string, unknown>;
}

function operationNameOf(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') throw badRequest('`operationName` must be a string');
  return raw;
}

function extensionsOf(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('`extensions` must be a JSON object');
  }
}

function queryOf(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw badRequest('GraphQL operations must contain a non-empty `query`');
  }
  return raw;
}

/**
 * The GraphQL parameters of a request (GraphQL over HTTP): a JSON body `{query, variables?,
 * operationName?, extensions?}` on POST, or `query`, `variables` and `extensions` (JSON text) and
 * `operationName` in the query string on GET. `extensions` is checked (an object or absent) and
 * otherwise ignored.
 * @throws RequestRefusal 400 `BAD_REQUEST` saying which parameter is wrong.
 */
export function readGraphQLParams(req: ParsedRequest): GraphQLParams {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const url = req.originalUrl ?? req.url ?? '';
    const search = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    let variables: unknown;
    const rawVariables = search.get('variables');
    if (rawVariables) {
      try {
        variables = JSON.parse(rawVariables);
      } catch {
        throw badRequest('`variables` must be JSON text');
      }
    }
    const rawExtensions = search.get('extensions');
    if (rawExtensions) {
      try {
        extensionsOf(JSON.parse(rawExtensions));
      } catch (error) {
        if (error instanceof RequestRefusal) throw error;
        throw badRequest('`extensions` must be JSON text');
      }
    }
    return {
      query: queryOf(search.get('query') ?? undefined),
      variables: variablesOf(variables),
      operationName: operationNameOf(search.get('operationName') ?? undefined),
    };
  }
  const body: unknown = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('The body must be a JSON object {query, variables?, operationName?}');
  }
  const params = body as Record<string, unknown>;
  extensionsOf(params.extensions);
  return {
    query: queryOf(params.query),
    variables: variablesOf(params.variables),
    operationName: operationNameOf(params.operationName),
  };
}
