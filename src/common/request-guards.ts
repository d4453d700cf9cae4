import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { SESSION_COOKIE } from '../platform/sessions.service';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request is addressed to the GraphQL endpoint (its refusals are GraphQL-shaped). */
function isGraphqlEndpoint(req: Request): boolean {
  return req.path === '/api/graphql' || req.path.startsWith('/api/graphql/');
}

/** A refusal in the shape of the endpoint it answers: GraphQL errors, or the REST error body. */
function refuse(req: Request, res: Response, status: number, code: string, message: string): void {
  if (isGraphqlEndpoint(req)) {
    res.status(status).json({
      errors: [{ message, extensions: { code: status === 415 ? 'BAD_REQUEST' : 'FORBIDDEN' } }],
    });
  } else {
    res.status(status).json({ statusCode: status, code, message });
  }
}

/**
 * Express middleware (CONTRACT.md §2): every request body on `/api/**`, the GraphQL endpoint
 * included, is `application/json` (a charset parameter allowed); anything else answers 415 before
 * it is parsed, so a cross-site form or `text/plain` post reaches no route.
 */
export function jsonBodiesOnly(req: Request, res: Response, next: NextFunction): void {
  if (req.path.startsWith('/api/') && hasBodyOtherThanJson(req)) {
    refuse(req, res, 415, 'UNSUPPORTED_MEDIA_TYPE', MEDIA_TYPE_MESSAGE);
    return;
  }
  next();
}

/** The message of the 415 answer (CONTRACT.md §2). */
export const MEDIA_TYPE_MESSAGE = 'Send the body as application/json';

/**
 * Whether a request carries a body (any method but GET/HEAD/OPTIONS, with a length or chunked)
 * whose media type is not `application/json` (a charset parameter allowed): the 415 rule of
 * CONTRACT.md §2, shared by {@link jsonBodiesOnly} and the GraphQL endpoint.
 */
export function hasBodyOtherThanJson(req: IncomingMessage): boolean {
  const hasBody =
    !SAFE_METHODS.has(req.method ?? '') &&
    (req.headers['transfer-encoding'] !== undefined ||
      Number(req.headers['content-length'] ?? 0) > 0);
  if (!hasBody) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type !== 'application/json';
}

/** The host (with port) an `Origin` or `Referer` URL names, or null. */
function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Express middleware (CONTRACT.md §2): a state-changing request authenticated by the session
 * cookie (the cookie is there and no `Authorization: Bearer` header authenticates it) must
 * come from the service's own pages: its `Origin` (or, without one, its `Referer`) must name the
 * host the request was sent to. Else 403 `Cross-site request refused`. Integrations send bearer
 * tokens or keys and are not affected.
 */
export function sameOriginForCookieSessions(req: Request, res: Response, next: NextFunction): void {
  if (isCrossSiteCookieWrite(req)) {
    refuse(req, res, 403, 'FORBIDDEN', CROSS_SITE_MESSAGE);
    return;
  }
  next();
}

/** The message of the cross-site 403 answer. */
export const CROSS_SITE_MESSAGE = 'Cross-site request refused';

/**
 * Whether a request is a write (not GET/HEAD/OPTIONS) authenticated by the session cookie whose
 * `Origin` (else `Referer`) host is missing or not the request's own `Host`: the cross-site rule
 * shared by {@link sameOriginForCookieSessions} and the GraphQL endpoint.
 *
 * The cookie authenticates whenever it is there and nothing read ahead of it is: an
 * `Authorization: Bearer …` header (read first by `readPlatformSession`, valid or not) and, where
 * keys are accepted (`acceptsKeys`, the GraphQL endpoint), a non-empty `x-api-key`. An empty key or
 * a non-Bearer `Authorization` leaves the cookie authenticating, so the rule still applies.
 */
export function isCrossSiteCookieWrite(req: IncomingMessage, acceptsKeys = false): boolean {
  if (SAFE_METHODS.has(req.method ?? '')) return false;
  // Names compared trimmed, as cookie-parser reads them (`tg_session =…` is the session too).
  const cookie = (req.headers.cookie ?? '')
    .split(';')
    .some((c) => c.includes('=') && c.slice(0, c.indexOf('=')).trim() === SESSION_COOKIE);
  if (!cookie || !cookieAuthenticates(req, acceptsKeys)) return false;
  const origin = hostOf(req.headers.origin) ?? hostOf(req.headers.referer);
  const own = (req.headers.host ?? '').toLowerCase();
  return !origin || origin !== own;
}

/** Whether a present session cookie is what authenticates the request (see above). */
function cookieAuthenticates(req: IncomingMessage, acceptsKeys: boolean): boolean {
  if (req.headers.authorization?.startsWith('Bearer ')) return false;
  const key = req.headers['x-api-key'];
  return !(acceptsKeys && typeof key === 'string' && key.length > 0);
}
