import { serverAudits } from 'graphql-http';
import { seedDemo } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/app-config';
import { RunningApp, startApp } from '../support/app-harness';

/**
 * Issue 13, item 1: the endpoint follows the GraphQL-over-HTTP specification, with the
 * `graphql-http` package's server audits as the yardstick, run over HTTP against the demo app.
 * Every MUST and SHOULD passes but the three SHOULDs listed below, which the contract decides
 * otherwise (README, "GraphQL over HTTP").
 */

/**
 * Audits the contract overrides: under `accept: application/json` a document that does not parse
 * or validate, or variables that do not coerce, answer 400 as Apollo Server does (CONTRACT.md §6
 * gives the specification's status codes to `application/graphql-response+json`).
 */
const CONTRACT_OVERRIDES = new Set([
  'SHOULD use 200 status code on document parsing failure when accepting application/json',
  'SHOULD use 200 status code on document validation failure when accepting application/json',
  'SHOULD use a status code of 200 on variable coercion failure when accepting application/json',
]);

describe('GraphQL over HTTP (graphql-http server audits)', () => {
  let run: RunningApp;
  let key: string;
  let url: string;

  beforeAll(async () => {
    run = await startApp();
    const config = loadConfig(
      { DATA_DIR: run.dataDir, PLATFORM_SECRET: 'e2e-platform-secret-0123456789-abcdefghij' },
      { demo: true },
    );
    key = (await seedDemo(run.app, config))!.key;
    url = `${run.baseUrl}/api/graphql/demo`;
  });
  afterAll(() => run?.close());

  /** fetch with the demo key in its header (keys never travel in URLs). */
  const withKey: typeof fetch = (input, init = {}) =>
    fetch(input, { ...init, headers: { ...(init.headers as object), 'x-api-key': key } });

  it('passes every MUST and every SHOULD the contract does not override', async () => {
    const failed: string[] = [];
    const overridden: string[] = [];
    for (const audit of serverAudits({ url, fetchFn: withKey })) {
      const result = await audit.fn();
      if (result.status === 'ok') continue;
      if (CONTRACT_OVERRIDES.has(audit.name)) overridden.push(audit.name);
      else failed.push(`${audit.name}: ${result.status}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
    // The overrides are real departures from the specification, not stale entries.
    expect(overridden.sort()).toEqual([...CONTRACT_OVERRIDES].sort());
  });

  it('serves a query over GET with variables, in the media type asked for', async () => {
    const query = 'query One($take: Int) { getOrders(take: $take) { id } }';
    const search = new URLSearchParams({ query, variables: JSON.stringify({ take: 2 }) });
    const res = await withKey(`${url}?${search}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/graphql-response+json; charset=utf-8',
    );
    expect(((await res.json()) as any).data.getOrders).toHaveLength(2);
  });

  it('refuses a mutation over GET with 405 and allow: POST, running nothing', async () => {
    const before = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': key },
      body: { query: '{ countOrders }' },
    });
    const mutation = 'mutation { deleteOrders(id: 1) }';
    const res = await withKey(`${url}?${new URLSearchParams({ query: mutation })}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as any).errors[0].message).toBe(
      'Mutations are sent with POST, never GET',
    );
    const after = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': key },
      body: { query: '{ countOrders }' },
    });
    expect(after.body.data).toEqual(before.body.data);
  });

  it('refuses extensions that are not an object with 400, saying so', async () => {
    const res = await run.http('POST', '/api/graphql/demo', {
      headers: { 'x-api-key': key },
      body: { query: '{ countOrders }', extensions: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('`extensions` must be a JSON object');
  });
});
