import { ApiError, describeError, get } from '../../shared/api';

/**
 * The row browser's one way to the GraphQL endpoint (issue 27 item 6): `POST
 * /api/graphql/<app address>` with the signed-in builder's session cookie, as the GraphiQL test tab
 * sends it (`credentials: 'same-origin'`, no key), so every call reaches the builder's working
 * version and its draft APIs (CONTRACT.md §6 "builder", §7). Every value travels in `variables`;
 * the query text holds only GraphQL names read from the schema (checked by {@link graphqlName}).
 */

/** One GraphQL error as the endpoint answers it (CONTRACT.md §6 "Error codes"). */
export interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; field?: string | null };
}

/**
 * A refused GraphQL request: the first error's message, every other message in `details`, and
 * the first error's `extensions.code` and `extensions.field` (the column a database refusal
 * names, e.g. `email` for a duplicate, CONTRACT.md §6 "Database refusals").
 */
export class GraphQLRequestError extends ApiError {
  constructor(
    status: number,
    message: string,
    details: string[],
    readonly code: string | null,
    readonly field: string | null,
  ) {
    super(status, message, details);
    this.name = 'GraphQLRequestError';
  }
}

/**
 * Sends `query` with `variables` to the app at `address` as the signed-in builder and answers
 * `data`. A refusal after the session ended leads to sign-in, as any REST call of the pages does.
 * @throws GraphQLRequestError for an answer with errors (any data in it is dropped: a write
 *   either happened whole or not at all, CONTRACT.md §6) or a status ≥ 400.
 */
export async function sendGraphQL<T>(
  address: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const res = await fetch(`/api/graphql/${encodeURIComponent(address)}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  let body: { data?: T | null; errors?: GraphQLErrorBody[]; message?: string };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new GraphQLRequestError(
      res.status,
      `The GraphQL endpoint answered ${res.status}`,
      [],
      null,
      null,
    );
  }
  // Without a session the endpoint answers as to an anonymous caller (401 "Invalid API key", or
  // 400 for an operation the anonymous schema lacks): on a refusal, a REST call finds out whether
  // the session is gone, and then the pages go to sign-in (api.ts).
  if (!res.ok) await get('/api/apps').catch(() => undefined);
  const errors = body.errors ?? [];
  if (errors.length > 0 || !res.ok || body.data == null) {
    const first = errors[0];
    throw new GraphQLRequestError(
      res.status,
      first?.message ?? body.message ?? `The GraphQL endpoint answered ${res.status}`,
      errors.slice(1).map((e) => e.message),
      first?.extensions?.code ?? null,
      first?.extensions?.field ?? null,
    );
  }
  return body.data;
}

/** A GraphQL name (`[_A-Za-z][_0-9A-Za-z]*`, the GraphQL specification's Name). */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * `name` when it is a GraphQL name, for writing into query text.
 * @throws Error otherwise (a name read from introspection always is one; this keeps anything else
 *   out of the query text).
 */
export function graphqlName(name: string): string {
  if (!NAME.test(name)) throw new Error(`Not a GraphQL name: ${JSON.stringify(name)}`);
  return name;
}

/** An error to show, with the column it names when the service named one. */
export interface Problem {
  message: string;
  details: string[];
  field?: string | null;
}

/** An error for showing, keeping the field a GraphQL refusal names (`extensions.field`). */
export function problemOf(error: unknown): Problem {
  return {
    ...describeError(error),
    field: error instanceof GraphQLRequestError ? error.field : null,
  };
}
