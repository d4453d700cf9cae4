import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { RunningApp, startApp } from '../support/app-harness';

/**
 * Issue 13, item 2: `/api/docs` (Swagger UI from the package) and `/api/docs/openapi.json` list
 * every builder and admin REST route Nest serves, each with a summary, its error answers and
 * security, and every request body with its fields. The routes are read from Nest's own
 * controller metadata, so a new route without documentation fails here.
 */

/**
 * Controllers documented elsewhere: Prometheus text, and the MCP endpoint, which speaks JSON-RPC
 * (README "Agents (MCP)"; the GraphQL endpoint is no controller).
 */
const UNDOCUMENTED = new Set(['MetricsController', 'McpController']);
/** Routes anyone may call (no platform session). */
const PUBLIC = new Set([
  'post /api/auth/login',
  'post /api/auth/logout',
  'post /api/apps/{appId}/auth/login',
  'get /health',
]);

interface ServedRoute {
  method: string;
  path: string;
  controller: string;
  hasBody: boolean;
}

/** Every route of every controller, from Nest's decorator metadata. */
function servedRoutes(run: RunningApp): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const module of run.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as any;
      if (!type || UNDOCUMENTED.has(type.name)) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = type.prototype[name];
        const sub = Reflect.getMetadata(PATH_METADATA, handler);
        if (sub === undefined || name === 'constructor') continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler)].toLowerCase();
        const path = `/${[base, String(sub)].filter((p) => p && p !== '/').join('/')}`
          .replace(/\/+/g, '/')
          .replace(/:(\w+)/g, '{$1}');
        const args = Reflect.getMetadata('__routeArguments__', type, name) ?? {};
        const hasBody = Object.keys(args).some((key) => key.startsWith('3:'));
        routes.push({ method, path, controller: type.name, hasBody });
      }
    }
  }
  return routes;
}

describe('OpenAPI document and UI', () => {
  let run: RunningApp;
  let doc: any;

  beforeAll(async () => {
    run = await startApp();
    const res = await run.http('GET', '/api/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => run?.close());

  /** Resolves a `#/components/schemas/X` reference; fails on a dangling one. */
  const resolve = (schema: any): any => {
    if (!schema?.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    expect(doc.components.schemas).toHaveProperty(name);
    return doc.components.schemas[name];
  };

  it('documents every served REST route with a summary, its errors and its security', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const routes = servedRoutes(run);
    expect(routes.length).toBeGreaterThan(35);
    const problems: string[] = [];
    for (const route of routes) {
      const id = `${route.method} ${route.path}`;
      const operation = doc.paths[route.path]?.[route.method];
      if (!operation) {
        problems.push(`${id}: not in the document`);
        continue;
      }
      if (!operation.summary) problems.push(`${id}: no summary`);
      const statuses = Object.keys(operation.responses ?? {}).map(Number);
      if (!statuses.some((s) => s >= 200 && s < 300)) problems.push(`${id}: no success answer`);
      const errors = statuses.filter((s) => s >= 400);
      if (!errors.length) problems.push(`${id}: no documented error answer`);
      for (const status of errors) {
        const schema = resolve(operation.responses[status].content?.['application/json']?.schema);
        if (!schema?.properties) problems.push(`${id}: ${status} without a body schema`);
      }
      if (PUBLIC.has(id)) {
        if (operation.security?.length) problems.push(`${id}: public but asks for a session`);
      } else {
        const schemes = (operation.security ?? []).flatMap((s: object) => Object.keys(s));
        if (!schemes.includes('session-cookie') || !schemes.includes('session-bearer'))
          problems.push(`${id}: no session security scheme`);
        if (!errors.includes(401) || !errors.includes(403)) problems.push(`${id}: no 401/403`);
      }
      if (route.hasBody) {
        const body = resolve(operation.requestBody?.content?.['application/json']?.schema);
        if (!body?.properties || !Object.keys(body.properties).length)
          problems.push(`${id}: request body without fields`);
      }
    }
    expect(problems).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'session-bearer',
      'session-cookie',
    ]);
    expect(doc.paths['/api/graphql/{address}']).toBeUndefined();
  });

  it('describes request fields with their rules, and answers with their shapes', () => {
    const createKey = resolve(
      doc.paths['/api/admin/api-keys'].post.requestBody.content['application/json'].schema,
    );
    expect(Object.keys(createKey.properties)).toEqual(
      expect.arrayContaining(['name', 'scope', 'rateLimitPerMinute', 'expiresAt']),
    );
    for (const property of Object.values<any>(createKey.properties)) {
      expect(property.description).toBeTruthy();
    }
    const created = doc.paths['/api/admin/api-keys'].post.responses['201'];
    expect(created.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/CreatedApiKey',
    );
    expect(doc.components.schemas.TableApi.properties.fields.description).toContain(
      'Included-fields tree',
    );
    const removal = doc.paths['/api/apps/{appId}/datasources/{dsId}'].delete;
    expect(removal.parameters.map((p: any) => p.name).sort()).toEqual(['appId', 'dsId', 'force']);
  });

  it('serves Swagger UI from the package, with no asset from another host', async () => {
    const page = await fetch(`${run.baseUrl}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)=["']https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)=["']([^"']+\.(?:js|css))["']/g)].map(
      (m) => m[1],
    );
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const url = new URL(asset, `${run.baseUrl}/api/docs/`);
      const res = await fetch(url);
      expect([url.pathname, res.status]).toEqual([url.pathname, 200]);
    }
  });
});
