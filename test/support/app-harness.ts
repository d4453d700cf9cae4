import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';

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

  const http: RunningApp['http'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
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
