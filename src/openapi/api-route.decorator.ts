import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { schemaRef } from './schemas';

/** The security scheme names of the OpenAPI document (see `openapi.ts`). */
export const SESSION_COOKIE_SCHEME = 'session-cookie';
export const SESSION_BEARER_SCHEME = 'session-bearer';

/** What each REST error status means, the same on every route (CONTRACT.md §2, §3). */
const ERROR_MEANING: Record<number, string> = {
  400: 'The body, a parameter or the query is invalid: `details` lists every problem',
  401: 'No valid platform session: sign in (cookie `tg_session` or `Authorization: Bearer <token>`)',
  403: 'Signed in without the role this route needs, or a cookie request from another origin',
  404: 'No such app, or no such resource in it',
  409: 'Conflicts with the current state; the message says with what and how to go on',
  415: 'The body is not `application/json`',
  429: 'Too many attempts: wait the `retry-after` seconds',
};

/** One route's documentation. */
export interface ApiRouteDoc {
  /** One line, shown in the route list. */
  summary: string;
  description?: string;
  /** The success answer: status (default 200), what it is, and its schema's name (`[name]`: a list). */
  ok: { status?: number; description: string; schema?: string | [string] };
  /**
   * Error statuses besides the ones the access adds (401 and 403 for signed-in routes), answered
   * with the shared error body; or a status with its own description and schema.
   */
  errors: (number | { status: number; description: string; schema: string })[];
  /** Who may call it (as `@Access`): `public`, or a platform session (default `builder`). */
  access?: 'public' | 'builder' | 'admin';
}

/**
 * Documents a REST route for the OpenAPI document (`/api/docs`): summary, success answer, every
 * error status with the shared error body, and the platform-session security schemes unless the
 * route is public. Documentation only: access is enforced by `@Access` and the guard.
 */
export function ApiRoute(doc: ApiRouteDoc): MethodDecorator {
  const signedIn = doc.access !== 'public';
  const statuses = doc.errors.filter((e): e is number => typeof e === 'number');
  const errors = [...new Set([...statuses, ...(signedIn ? [401, 403] : [])])].sort();
  const ownErrors = doc.errors.filter((e) => typeof e !== 'number');
  return applyDecorators(
    ApiOperation({
      summary: doc.summary,
      description:
        doc.access === 'admin'
          ? `${doc.description ?? ''}\n\nAdministrators only.`.trim()
          : doc.description,
    }),
    ApiResponse({
      status: doc.ok.status ?? 200,
      description: doc.ok.description,
      ...(doc.ok.schema ? { schema: schemaRef(doc.ok.schema) } : {}),
    }),
    ...errors.map((status) =>
      ApiResponse({ status, description: ERROR_MEANING[status], schema: schemaRef('Error') }),
    ),
    ...ownErrors.map((e) =>
      ApiResponse({ status: e.status, description: e.description, schema: schemaRef(e.schema) }),
    ),
    ...(signedIn
      ? [ApiCookieAuth(SESSION_COOKIE_SCHEME), ApiBearerAuth(SESSION_BEARER_SCHEME)]
      : []),
  );
}
