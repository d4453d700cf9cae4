/**
 * The pages' one way to call the service's REST (CONTRACT.md §2): same-origin `fetch` with the
 * session cookie, JSON both ways. Every state-changing request carries
 * `content-type: application/json` and a JSON body, and the browser adds the page's `Origin`,
 * which the service's cross-site check requires of cookie sessions.
 */

/** A refusal of the REST: its status, message and listed problems (`{message, details}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Called when the session is gone (401 on a route that needs one); set by the app shell. */
let onSignedOut: (() => void) | null = null;

/** Registers what to do when a request finds no valid session (e.g. go to sign-in). */
export function whenSignedOut(handler: (() => void) | null): void {
  onSignedOut = handler;
}

/**
 * Sends a request and answers the parsed JSON body (undefined for `204`).
 * @throws ApiError for any status ≥ 400, with the service's message and details.
 */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', headers };
  if (method !== 'GET' && method !== 'HEAD') {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.ok) return json as T;
  const error = (json ?? {}) as { message?: unknown; details?: unknown };
  const message =
    typeof error.message === 'string' ? error.message : `Request failed (${res.status})`;
  const details = Array.isArray(error.details) ? error.details.map(String) : [];
  if (res.status === 401 && path !== '/api/auth/login') onSignedOut?.();
  throw new ApiError(res.status, message, details);
}

/** `GET` shorthand. */
export const get = <T>(path: string) => request<T>('GET', path);
/** `POST` shorthand (JSON body, `{}` when none). */
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body);
/** `PATCH` shorthand. */
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);

/** Message and details of any error, for showing. */
export function describeError(error: unknown): { message: string; details: string[] } {
  if (error instanceof ApiError) return { message: error.message, details: error.details };
  if (error instanceof Error) return { message: error.message, details: [] };
  return { message: 'Something went wrong', details: [] };
}

/** A path segment, encoded. */
export const seg = (value: string) => encodeURIComponent(value);
