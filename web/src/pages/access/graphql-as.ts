import { ApiError } from '../../shared/api';

/**
 * "View as" (issue 27 item 4): a GraphQL request to an app's endpoint as one of its users,
 * sent by the signed-in builder's cookie with `x-view-as-user: <user id>`. The service runs it as
 * that user's own call (main version, the app users' schema, their roles' row rules) and lets it
 * read only (README "App users and row rules").
 */

/** A GraphQL answer: data, or errors with messages. */
interface Answer<T> {
  data?: T;
  errors?: { message: string }[];
}

/**
 * Sends `query` to `/api/graphql/<address>` as app user `userId` and answers its `data`.
 * @throws ApiError with the service's message for a refusal (any status ≥ 400) or an answer with
 * errors (every message listed).
 */
export async function queryAs<T>(address: string, userId: string, query: string): Promise<T> {
  const res = await fetch(`/api/graphql/${encodeURIComponent(address)}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-view-as-user': userId,
    },
    body: JSON.stringify({ query }),
  });
  let body: Answer<T> & { message?: string };
  try {
    body = (await res.json()) as Answer<T> & { message?: string };
  } catch {
    throw new ApiError(res.status, `The GraphQL endpoint answered ${res.status}`);
  }
  const messages = body.errors?.map((e) => e.message) ?? [];
  if (!res.ok || messages.length > 0 || body.data === undefined)
    throw new ApiError(
      res.status,
      messages[0] ?? `The GraphQL endpoint answered ${res.status}`,
      messages.slice(1),
    );
  return body.data;
}

/** A GraphQL type reference as introspection answers it. */
export interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

/** The named type under NON_NULL and LIST wrappers. */
export function namedType(ref: TypeRef): TypeRef {
  return ref.ofType ? namedType(ref.ofType) : ref;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

/** The user's `get<Base>` operations: the query root fields named `get…`, with their row type. */
export async function readOperationsAs(
  address: string,
  userId: string,
): Promise<{ name: string; rowType: string; hasCount: boolean }[]> {
  const data = await queryAs<{
    __schema: { queryType: { fields: { name: string; type: TypeRef }[] } | null };
  }>(address, userId, `{ __schema { queryType { fields { name type { ${TYPE_REF} } } } } }`);
  const fields = data.__schema.queryType?.fields ?? [];
  const names = new Set(fields.map((f) => f.name));
  return fields
    .filter((f) => /^get[A-Z_]/.test(f.name))
    .map((f) => ({
      name: f.name,
      rowType: namedType(f.type).name ?? '',
      hasCount: names.has(`count${f.name.slice(3)}`),
    }));
}

/** The columns (scalar and enum fields) of a row type, as the user's schema has them. */
export async function readColumnsAs(
  address: string,
  userId: string,
  rowType: string,
): Promise<string[]> {
  const data = await queryAs<{ __type: { fields: { name: string; type: TypeRef }[] } | null }>(
    address,
    userId,
    `{ __type(name: ${JSON.stringify(rowType)}) { fields { name type { ${TYPE_REF} } } } }`,
  );
  return (data.__type?.fields ?? [])
    .filter((f) => ['SCALAR', 'ENUM'].includes(namedType(f.type).kind))
    .map((f) => f.name);
}
