import { connect, Socket } from 'node:net';
import type { Server } from 'node:http';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { ADMIN, RunningApp, startApp } from '../support/app-harness';

/**
 * Issue 22 items 7, 11 and 12 over HTTP: connection limits of the Node server, the cross-site rule
 * whenever the cookie authenticates, no `X-Powered-By`, Swagger UI's CSP and its production
 * default, anonymous buckets by IPv6 /64, and app users throttled per user.
 */

const SECRET = 'e2e-platform-secret-0123456789-abcdefghij';

/** Opens a raw socket to the service; resolves once connected. */
function openSocket(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Whether the server closes `socket` within `ms` without being sent anything. */
function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('connection limits (issue 22 item 7)', () => {
  let run: RunningApp;
  beforeAll(async () => {
    run = await startApp({
      env: {
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4',
        HTTP_MAX_CONNECTIONS: '50',
        HTTP_HEADERS_TIMEOUT_MS: '4000',
        HTTP_REQUEST_TIMEOUT_MS: '9000',
      },
    });
  });
  afterAll(() => run?.close());

  it("sets the server's headers and request timeouts and its connection ceiling", () => {
    const server = run.app.getHttpServer() as Server;
    expect(server.headersTimeout).toBe(4000);
    expect(server.requestTimeout).toBe(9000);
    expect(server.maxConnections).toBe(50);
  });

  it('answers 408 and closes a socket whose headers stop arriving about when its headers timeout ends, not at the next 30 s check', async () => {
    const socket = await openSocket(run.baseUrl);
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Half: ');
    // HTTP_HEADERS_TIMEOUT_MS is 4 s; Node's default check every 30 s closed it after up to 34 s.
    expect(await closedWithin(socket, 4000 + 2500)).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes the sockets of one address beyond its cap at once, and serves again when they go', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => openSocket(run.baseUrl)));
    const extra = await openSocket(run.baseUrl);
    expect(await closedWithin(extra, 2000)).toBe(true);
    expect(await closedWithin(held[0], 300)).toBe(false);
    for (const socket of held) socket.destroy();
    await new Promise((done) => setTimeout(done, 100));
    expect((await run.http('GET', '/health')).status).toBe(200);
  });
});

describe('cross-site rule whenever the cookie authenticates (issue 22 item 11)', () => {
  let run: RunningApp;
  let cookie: string;
  beforeAll(async () => {
    run = await startApp();
    await seedDemo(
      run.app,
      loadConfig({ DATA_DIR: run.dataDir, PLATFORM_SECRET: SECRET }, { demo: true }),
    );
    const res = await fetch(`${run.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    cookie = res.headers.get('set-cookie')!.split(';')[0];
  });
  afterAll(() => run?.close());

  const crossSite = (extra: Record<string, string>) => ({
    cookie,
    origin: 'https://evil.example',
    ...extra,
  });

  it.each<Record<string, string>>([{ 'x-api-key': '' }, { authorization: 'Basic YTpi' }])(
    'refuses a cross-site REST write with %j beside the cookie',
    async (extra) => {
      const res = await run.http('POST', '/api/apps', {
        headers: crossSite(extra),
        body: { name: 'Evil', address: 'evil-app' },
      });
      expect(res.status).toBe(403);
      expect((await run.http('GET', '/api/apps', { headers: { cookie } })).body).not.toContainEqual(
        expect.objectContaining({ address: 'evil-app' }),
      );
    },
  );

  it.each<Record<string, string>>([{ 'x-api-key': '' }, { authorization: 'Basic YTpi' }])(
    'refuses a cross-site GraphQL write with %j beside the cookie',
    async (extra) => {
      const res = await run.http('POST', '/api/graphql/demo', {
        headers: crossSite(extra),
        body: { query: '{ countOrders }' },
      });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].message).toBe('Cross-site request refused');
    },
  );
});

describe('headers, OpenAPI, IPv6 buckets and app-user throttle (issue 22 item 12)', () => {
  let run: RunningApp;
  let appId: string;
  beforeAll(async () => {
    run = await startApp({
      env: {
        TRUST_PROXY: '1',
        ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2',
        APP_USER_RATE_LIMIT_PER_MINUTE: '2',
        METRICS_TOKEN: 'http-hardening-metrics-token-0123456789',
      },
    });
    await seedDemo(
      run.app,
      loadConfig({ DATA_DIR: run.dataDir, PLATFORM_SECRET: SECRET }, { demo: true }),
    );
    const token = await run.adminToken();
    appId = (await run.http('GET', '/api/apps', { token })).body.find(
      (app: { address: string }) => app.address === 'demo',
    ).id;
  });
  afterAll(() => run?.close());

  it('sends no X-Powered-By', async () => {
    const res = await run.http('GET', '/api/apps');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect((await run.http('GET', '/health')).headers.get('x-powered-by')).toBeNull();
  });

  it('serves Swagger UI with a CSP that forbids framing', async () => {
    for (const path of ['/api/docs', '/api/docs/openapi.json']) {
      const res = await fetch(`${run.baseUrl}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('counts anonymous callers of one IPv6 /64 together', async () => {
    const anonymous = (address: string) =>
      run.http('POST', '/api/graphql/demo', {
        headers: { 'x-forwarded-for': address },
        body: { query: '{ __typename }' },
      });
    expect((await anonymous('2001:db8:1:2::1')).status).toBe(200);
    expect((await anonymous('2001:db8:1:2::2')).status).toBe(200);
    const third = await anonymous('2001:db8:1:2:ffff::3');
    expect(third.status).toBe(429);
    expect(third.body.errors[0].message).toBe('Rate limit exceeded');
    expect((await anonymous('2001:db8:1:3::1')).status).toBe(200);
  });

  it('throttles an app user per user on the GraphQL endpoint', async () => {
    const token = await run.adminToken();
    const created = await run.http('POST', `/api/apps/${appId}/users`, {
      token,
      body: { email: 'busy@example.com', password: 'busy-password', roles: ['reader'] },
    });
    expect(created.status).toBe(201);
    const login = await run.http('POST', `/api/apps/${appId}/auth/login`, {
      body: { email: 'busy@example.com', password: 'busy-password' },
    });
    const call = () =>
      run.http('POST', '/api/graphql/demo', {
        token: login.body.token,
        headers: { 'x-forwarded-for': '198.51.100.7' },
        body: { query: '{ __typename }' },
      });
    const first = await call();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect((await call()).status).toBe(200);
    const third = await call();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Counted like every 429, under its own caller label.
    const metrics = await run.http('GET', '/metrics', {
      token: 'http-hardening-metrics-token-0123456789',
    });
    expect(metrics.body).toMatch(/^tablegraph_rate_limited_total\{caller="app-user"\} 1$/m);
  });
});

describe('OpenAPI in production (issue 22 item 12)', () => {
  const production = { NODE_ENV: 'production' };

  it('is not served by default', async () => {
    const run = await startApp({ env: production });
    try {
      expect((await fetch(`${run.baseUrl}/api/docs`)).status).toBe(404);
      expect((await fetch(`${run.baseUrl}/api/docs/openapi.json`)).status).toBe(404);
    } finally {
      await run.close();
    }
  });

  it('is served with OPENAPI_PUBLIC=1', async () => {
    const run = await startApp({ env: { ...production, OPENAPI_PUBLIC: '1' } });
    try {
      expect((await fetch(`${run.baseUrl}/api/docs/openapi.json`)).status).toBe(200);
    } finally {
      await run.close();
    }
  });
});
