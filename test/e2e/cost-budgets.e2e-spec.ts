import { RunningApp, startApp } from '../support/app-harness';
import { CUSTOMERS } from '../support/sales-fixture';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';
import { SERVICE_URLS, serviceAvailable } from '../support/services';
import { createAppKey, publishTableApis } from '../support/table-apis';

/**
 * Issue 28 item 4, CONTRACT.md §11 "Cost budgets" (README "Cost budgets"): a key's requests spend
 * cost points, `max(1, ⌈rows / 100 + scanned / 10,000⌉ + 10 × mutation fields)`, charged from the
 * estimate before any SQL and settled from the rows really read; every answer to a key carries
 * `extensions.cost`; a request the minute's budget cannot pay is refused 429 `Cost budget
 * exceeded` with `retry-after`, changes nothing and costs nothing. Requests are sent with
 * variables, as clients send them. Counted in Redis when it runs here, as deployed.
 */
const GET = 'query Page($take: Int) { getCustomers(take: $take, order: { id: ASC }) { id } }';
const ADD =
  'mutation Add($id: ID!, $name: String!, $email: String!) { addCustomers(id: $id, name: $name, email: $email) { name } }';

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Cost budgets on ${dialect.type}`, () => {
    let run: RunningApp;
    let token: string;
    let appId: string;
    let cleanup: () => Promise<void>;
    const address = `cost-budgets-${dialect.type}`;
    const call = (key: string, query: string, variables: Record<string, unknown>) =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query, variables },
        headers: { 'x-api-key': key },
      });

    beforeAll(async () => {
      run = await startApp({
        env: serviceAvailable('redis') ? { REDIS_URL: SERVICE_URLS.redis } : {},
      });
      token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      const app = await run.http('POST', '/api/apps', { token, body: { name: 'Cost', address } });
      expect(app.status).toBe(201);
      appId = app.body.id as string;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      await publishTableApis(run, token, appId, [
        {
          name: 'customers',
          table: 'customers',
          actions: { select: true, insert: true, update: false, delete: false },
        },
      ]);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('gives a key the default budget and reports the cost of each answer in extensions.cost', async () => {
      const key = await createAppKey(run, token, appId, 'default budget');
      const listed = await run.http('GET', '/api/admin/api-keys', { token });
      const view = (listed.body as { name: string; pointsPerMinute: number }[]).find(
        (k) => k.name === 'default budget',
      );
      expect(view?.pointsPerMinute).toBe(10_000);
      const answer = await call(key, GET, { take: 3 });
      expect(answer.status).toBe(200);
      expect(answer.body.data.getCustomers).toEqual([{ id: '1' }, { id: '2' }, { id: '3' }]);
      expect(answer.body.extensions.cost).toMatchObject({
        requested: 1,
        actual: 1,
        limit: 10_000,
        remaining: 9_999,
      });
      const resetAt = Date.parse(answer.body.extensions.cost.resetAt as string);
      expect(resetAt).toBeGreaterThan(Date.now());
      // Within the minute's window (given to the second, so up to half a second past it).
      expect(resetAt).toBeLessThanOrEqual(Date.now() + 60_500);
    });

    it('charges the estimate, refunds what was not read, and refuses what the rest of the minute cannot pay', async () => {
      const key = await createAppKey(run, token, appId, 'small budget', { pointsPerMinute: 30 });
      // take 2,000 is estimated at 20 points; the table has a handful of rows: 1 point is kept.
      const wide = await call(key, GET, { take: 2_000 });
      expect(wide.status).toBe(200);
      expect(wide.body.data.getCustomers).toHaveLength(CUSTOMERS.length);
      expect(wide.body.extensions.cost).toMatchObject({
        requested: 20,
        actual: 1,
        limit: 30,
        remaining: 29,
      });
      // 5,000 rows would cost 50 points: more than the budget has, so it is refused unrun.
      const refused = await call(key, GET, { take: 5_000 });
      expect(refused.status).toBe(429);
      expect(refused.body.errors).toEqual([
        { message: 'Cost budget exceeded', extensions: { code: 'RATE_LIMITED' } },
      ]);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.extensions.cost).toMatchObject({
        requested: 50,
        actual: null,
        remaining: 29,
        limit: 30,
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-limit')).toBe('30');
      expect(refused.headers.get('ratelimit-remaining')).toBe('29');
      // The refusal cost nothing: a request the rest pays for still runs.
      const after = await call(key, GET, { take: 10 });
      expect(after.status).toBe(200);
      expect(after.body.extensions.cost.remaining).toBe(28);
    });

    it('charges a mutation field 10 points plus its rows, and a refused mutation writes nothing', async () => {
      const key = await createAppKey(run, token, appId, 'writer', { pointsPerMinute: 15 });
      const row = { id: 900, name: 'Budget Buyer', email: 'budget@example.com' };
      const added = await call(key, ADD, row);
      expect(added.status).toBe(200);
      expect(added.body.errors).toBeUndefined();
      expect(added.body.data.addCustomers).toEqual({ name: 'Budget Buyer' });
      expect(added.body.extensions.cost).toMatchObject({ requested: 11, actual: 11, remaining: 4 });
      const again = await call(key, ADD, { ...row, id: 901, email: 'again@example.com' });
      expect(again.status).toBe(429);
      const builder = await run.http('POST', `/api/graphql/${address}`, {
        token,
        body: {
          query: 'query One($id: ID!) { getCustomers(where: { id: { eq: $id } }) { id } }',
          variables: { id: 901 },
        },
      });
      expect(builder.body.data.getCustomers).toEqual([]);
      // Builders have no cost budget: their answers carry none.
      expect(builder.body.extensions).toBeUndefined();
    });
  });
}
