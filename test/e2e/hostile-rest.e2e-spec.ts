import { connect } from 'node:net';
import { RunningApp, startApp, ADMIN } from '../support/app-harness';

/**
 * Issue 7 part 7 over HTTP (CONTRACT.md §2): REST and the GraphQL endpoint take JSON bodies only,
 * cookie-authenticated writes must come from the service's own origin, the session cookie is
 * Secure in production, and sign-in is throttled per account and per client address.
 */

/** A raw request: the harness always sends JSON, these attacks do not. */
async function raw(
  run: RunningApp,
  method: string,
  path: string,
  body: string,
  headers: Record<string, string>,
) {
  const res = await fetch(run.baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

describe('Hostile REST requests', () => {
  let run: RunningApp;
  let cookie: string;

  beforeAll(async () => {
    run = await startApp();
    const login = await fetch(`${run.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/^tg_session=/);
  });

  afterAll(async () => run?.close());

  const keysCount = async () =>
    (await run.http('GET', '/api/admin/api-keys', { token: await run.adminToken() })).body.length;

  it('refuses form-encoded and text bodies with 415 and creates nothing', async () => {
    const before = (await run.http('GET', '/api/apps', { token: await run.adminToken() })).body
      .length;
    const keys = await keysCount();
    const form = await raw(run, 'POST', '/api/apps', 'name=x&address=evil', {
      'content-type': 'application/x-www-form-urlencoded',
      cookie,
      origin: 'https://evil.example',
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const text = await raw(
      run,
      'POST',
      '/api/admin/api-keys',
      JSON.stringify({ name: 'k', scope: [] }),
      {
        'content-type': 'text/plain',
        cookie,
      },
    );
    expect(text.status).toBe(415);
    const login = await raw(
      run,
      'POST',
      '/api/auth/login',
      `email=${ADMIN.email}&password=${ADMIN.password}`,
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(login.status).toBe(415);
    const graphql = await raw(run, 'POST', '/api/graphql/nowhere', '{"query":"{ __typename }"}', {
      'content-type': 'text/plain',
    });
    expect(graphql.status).toBe(415);
    expect(graphql.body.errors[0].message).toBe('Send the body as application/json');
    expect(
      (await run.http('GET', '/api/apps', { token: await run.adminToken() })).body.length,
    ).toBe(before);
    expect(await keysCount()).toBe(keys);
  });

  it('refuses a cookie-authenticated write from another origin, and takes it from its own', async () => {
    const body = JSON.stringify({ name: 'Cookie app', address: 'cookie-app' });
    const json = { 'content-type': 'application/json', cookie };
    const foreign = await raw(run, 'POST', '/api/apps', body, {
      ...json,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe('Cross-site request refused');
    const none = await raw(run, 'POST', '/api/apps', body, json);
    expect(none.status).toBe(403);
    const host = new URL(run.baseUrl).host;
    const own = await raw(run, 'POST', '/api/apps', body, { ...json, origin: `http://${host}` });
    expect(own.status).toBe(201);
    // Integrations authenticate with a bearer token and send no Origin.
    const bearer = await run.http('POST', '/api/apps', {
      token: await run.adminToken(),
      body: { name: 'Bearer app', address: 'bearer-app' },
    });
    expect(bearer.status).toBe(201);
  });

  it('applies the same HTTP rules on the GraphQL endpoint, which answers them as GraphQL errors', async () => {
    const body = '{"query":"{ __typename }"}';
    const json = { 'content-type': 'application/json', cookie };
    const foreign = await raw(run, 'POST', '/api/graphql/nowhere', body, {
      ...json,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0]).toEqual({
      message: 'Cross-site request refused',
      extensions: { code: 'FORBIDDEN' },
    });
    // Same origin: the request goes on and meets the next step (no such app).
    const host = new URL(run.baseUrl).host;
    const own = await raw(run, 'POST', '/api/graphql/nowhere', body, {
      ...json,
      origin: `http://${host}`,
    });
    expect(own.status).toBe(404);
    expect(own.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const malformed = await raw(run, 'POST', '/api/graphql/nowhere', '{"query": SECRETVALUE', {
      'content-type': 'application/json',
      'x-request-id': 'hostile-graphql-1',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toBe('hostile-graphql-1');
    expect(malformed.body.errors[0].message).toBe('The request body is not valid JSON');
    expect(JSON.stringify(malformed.body)).not.toContain('SECRET');
    // Paths match as Express routes do (any case, a trailing slash); an address that is not
    // percent-encoding names no app; other methods and deeper paths are no route.
    const plain = { 'content-type': 'application/json' };
    const upper = await raw(run, 'POST', '/API/GraphQL/nowhere/', body, plain);
    expect(upper.status).toBe(404);
    expect(upper.body.errors[0]).toEqual({
      message: 'App not found',
      extensions: { code: 'NOT_FOUND' },
    });
    const badEncoding = await raw(run, 'POST', '/api/graphql/%E0%A4%A', body, plain);
    expect(badEncoding.body.errors[0].message).toBe('App not found');
    // Other methods: 405 naming the two it takes, after the key-in-URL refusal.
    const put = await raw(run, 'PUT', '/api/graphql/nowhere', body, plain);
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST']);
    const putKey = await raw(run, 'PUT', '/api/graphql/nowhere?api_key=tgk_SECRET', body, plain);
    expect(putKey.status).toBe(400);
    expect(JSON.stringify(putKey.body)).not.toContain('SECRET');
    // Deeper paths are no route, and the router's 404 never echoes the query string.
    const deeper = await raw(run, 'POST', '/api/graphql/a/b?api_key=tgk_SECRET', body, plain);
    expect(deeper.status).toBe(404);
    expect(deeper.body.errors[0].message).toBe('Cannot POST /api/graphql/a/b');
    // A charset body-parser cannot read is the same 415 as any other media type.
    const latin = await raw(run, 'POST', '/api/graphql/nowhere', body, {
      'content-type': 'application/json; charset=latin1',
    });
    expect([latin.status, latin.body.errors[0].message]).toEqual([
      415,
      'Send the body as application/json',
    ]);
    // A session cookie named with a space is still a session cookie for the cross-site rule.
    const spaced = await raw(run, 'POST', '/api/graphql/nowhere', body, {
      'content-type': 'application/json',
      cookie: cookie.replace('tg_session=', 'tg_session ='),
      origin: 'https://evil.example',
    });
    expect(spaced.status).toBe(403);
  });

  it('serves absolute-form request targets and HEAD as Express would, over a raw socket', async () => {
    const { port } = new URL(run.baseUrl);
    const send = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
        let answer = '';
        socket.on('data', (d) => (answer += String(d)));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    const absolute = await send(
      `GET http://127.0.0.1:${port}/api/graphql/nowhere?api_key=tgk_SECRET HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    // The endpoint's own refusal of a key in the URL, not the router's 404 echoing it.
    expect(absolute).toMatch(/^HTTP\/1\.1 400 /);
    expect(absolute).not.toContain('SECRET');
    const head = await send(
      `HEAD /api/graphql/nowhere?query=%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    // Read as a GET (no such app), with no body written.
    expect(head).toMatch(/^HTTP\/1\.1 404 /);
    expect(head.split('\r\n\r\n')[1]).toBe('');
  });

  it('throttles sign-in per account, with retry-after, while another account still signs in', async () => {
    const attempt = (email: string, password = 'wrong-password') =>
      run.http('POST', '/api/auth/login', { body: { email, password } });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await attempt('target@example.com')).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const refused = await attempt('target@example.com');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.message).toMatch(/Too many sign-in attempts/);
    expect((await attempt(ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it('answers malformed and oversized JSON without quoting the body', async () => {
    const malformed = await raw(
      run,
      'POST',
      '/api/auth/login',
      '{"email": "a@b.c", "password": SECRETVALUE',
      {
        'content-type': 'application/json',
      },
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('The request body is not valid JSON');
    expect(JSON.stringify(malformed.body)).not.toContain('SECRET');
    const big = await raw(
      run,
      'POST',
      '/api/graphql/nowhere',
      JSON.stringify({ query: 'x'.repeat(3_000_000) }),
      {
        'content-type': 'application/json',
      },
    );
    expect(big.status).toBe(413);
    expect(big.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('logs out by clearing the cookie', async () => {
    const res = await raw(run, 'POST', '/api/auth/logout', '', { cookie, origin: run.baseUrl });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie') ?? '').toMatch(/tg_session=;/);
  });
});

describe('The session cookie in production', () => {
  it('is Secure, HttpOnly and SameSite=Strict', async () => {
    const run = await startApp({ env: { NODE_ENV: 'production' } });
    try {
      const login = await fetch(`${run.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      const cookie = login.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/Secure/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
    } finally {
      await run.close();
    }
  });
});
