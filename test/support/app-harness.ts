import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { argumentsAsVariables, graphqlForm, GraphQLParams, requestSchema } from './graphql-form';

/** The first administrator every harness creates. */
export const ADMIN = { email: 'admin@e2e.test', password: 'e2e-admin-password' };

/** An HTTP answer: status, parsed JSON body (or text), headers. */
export interface HttpAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The real service, started in process and listening on a free loopback port. */
export interface RunningApp {
  app: NestExpressApplication;
  baseUrl: string;
  dataDir: string;
  /** A JSON request; `token` goes as `Authorization: Bearer`. */
  http<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<HttpAnswer<T>>;
  /** The administrator's session token. */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the service as `main.ts` does (same bootstrap), on embedded SQLite metadata in a temp
 * folder unless `databaseUrl` is given. No demo; logs off.
 */
export async function startApp(
  options: { databaseUrl?: string; env?: Record<string, string> } = {},
): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-e2e-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      DATABASE_URL: options.databaseUrl ?? `sqlite:${join(dataDir, 'platform.db')}`,
      ...options.env,
    },
    { demo: false },
  );
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  let token: string | null = null;

  const http: RunningApp['http'] = async (method, pathAsWritten, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const sent =
      graphqlForm() === 'variables'
        ? await inVariablesForm(app, method, pathAsWritten, opts.body, headers)
        : { path: pathAsWritten, body: opts.body };
    const res = await fetch(baseUrl + sent.path, {
      method,
      headers,
      body: sent.body === undefined ? undefined : JSON.stringify(sent.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: body as any, headers: res.headers };
  };

  return {
    app,
    baseUrl,
    dataDir,
    http,
    async adminToken() {
      if (!token) {
        const res = await http('POST', '/api/auth/login', { body: ADMIN });
        if (res.status !== 200)
          throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
        token = res.body.token as string;
      }
      return token;
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A GraphQL request to the app's endpoint in the `variables` form (see `graphqlForm()`): the
 * `query` of a JSON body, or of a GET's query string, with its argument literals sent as
 * variables, typed by the schema the service would answer with. Anything else passes unchanged.
 */
async function inVariablesForm(
  app: NestExpressApplication,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ path: string; body: unknown }> {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  if (method === 'POST' && body && typeof (body as GraphQLParams).query === 'string') {
    const schema = await requestSchema(app, path, lower);
    return { path, body: schema ? argumentsAsVariables(schema, body as GraphQLParams) : body };
  }
  const url = new URL(path, 'http://harness');
  const query = url.searchParams.get('query');
  if (method === 'GET' && query !== null) {
    const schema = await requestSchema(app, path, lower);
    if (!schema) return { path, body };
    let sent: Record<string, unknown> | undefined;
    try {
      const variables = url.searchParams.get('variables');
      sent = variables ? JSON.parse(variables) : undefined;
    } catch {
      return { path, body }; // variables the service must refuse as sent
    }
    const lifted = argumentsAsVariables(schema, { query, variables: sent });
    url.searchParams.set('query', lifted.query);
    if (lifted.variables) url.searchParams.set('variables', JSON.stringify(lifted.variables));
    return { path: url.pathname + url.search, body };
  }
  return { path, body };
}
