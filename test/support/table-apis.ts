import type { RunningApp } from './app-harness';

/** Every action off but select: the read-only Table API most suites publish. */
export const SELECT_ONLY = { select: true, insert: false, update: false, delete: false };

/**
 * Creates each Table API through the builder REST API, publishes it, then publishes the working
 * version over main, so keys, app users and anonymous callers reach them; expects `201` for each
 * creation and `200` for each publication.
 * @param bodies `POST /api/apps/:appId/apis` bodies (`name`, `table`, `actions`, `fields`, `public`).
 * @returns the APIs' ids, in order.
 */
export async function publishTableApis(
  run: RunningApp,
  token: string,
  appId: string,
  bodies: readonly Record<string, unknown>[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const body of bodies) {
    const api = await run.http('POST', `/api/apps/${appId}/apis`, { token, body });
    expect(api.status).toBe(201);
    const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
      token,
    });
    expect(published.status).toBe(200);
    ids.push(api.body.id as string);
  }
  const version = await run.http('POST', `/api/apps/${appId}/versions/publish`, { token });
  expect(version.status).toBe(200);
  return ids;
}

/**
 * Creates a platform API key scoped to every endpoint of one app (`POST /api/admin/api-keys`).
 * @returns the key's text, shown only in this create response.
 */
export async function createAppKey(
  run: RunningApp,
  token: string,
  appId: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await run.http('POST', '/api/admin/api-keys', {
    token,
    body: { name, scope: [{ appId, endpoints: 'all' }], ...extra },
  });
  expect(created.status).toBe(201);
  return created.body.key as string;
}
