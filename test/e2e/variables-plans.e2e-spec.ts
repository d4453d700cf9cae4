import { RunningApp, startApp } from '../support/app-harness';
import { registerSalesDatabase, SALES_DIALECTS } from '../support/sales-dialects';
import { ORDERS } from '../support/sales-fixture';

/**
 * Issue 25 item 3: a root read whose arguments come from variables keeps its planned statement
 * per distinct variable values, as a literal one keeps it per text. A variable that changes the
 * statement (a filter key present, absent or null, a list's length, an order, a page) must never
 * find another values' statement: one operation text is sent with many variables, each twice in
 * turn, and every answer must equal the same arguments written as literals (sent as written,
 * whichever form the suite runs in), on PostgreSQL, MariaDB and SQLite.
 *
 * Data: the sales fixture's 12 orders (status PAID/PENDING/SHIPPED, total i × 10 + 0.50,
 * ship_date empty on every fourth).
 */

const OPERATION = `query Orders($where: OrdersFilter, $order: [OrdersOrder!], $take: Int, $skip: Int) {
  getOrders(where: $where, order: $order, take: $take, skip: $skip) { id status total ship_date }
  countOrders(where: $where)
}`;

/** The operation with the same arguments written in the document. */
const literalOperation = (where: string, page: string) =>
  `{ getOrders${page ? `(${[where && `where: ${where}`, page].filter(Boolean).join(', ')})` : where ? `(where: ${where})` : ''} { id status total ship_date } countOrders${where ? `(where: ${where})` : ''} }`;

/** Variables, the same arguments as literals (`where`, then the page and order), and the ids expected. */
const CASES: { variables: Record<string, unknown>; where: string; page: string; ids: number[] }[] =
  [
    { variables: {}, where: '', page: '', ids: ORDERS.map((o) => o.id) },
    { variables: { where: null }, where: 'null', page: '', ids: ORDERS.map((o) => o.id) },
    { variables: { where: {} }, where: '{}', page: '', ids: ORDERS.map((o) => o.id) },
    {
      variables: { where: { status: { eq: 'PAID' } } },
      where: '{status: {eq: "PAID"}}',
      page: '',
      ids: [3, 6, 9, 12],
    },
    {
      variables: { where: { status: { eq: null } } },
      where: '{status: {eq: null}}',
      page: '',
      ids: [],
    },
    {
      variables: { where: { status: null } },
      where: '{status: null}',
      page: '',
      ids: ORDERS.map((o) => o.id),
    },
    {
      variables: { where: { ship_date: { eq: null } } },
      where: '{ship_date: {eq: null}}',
      page: '',
      ids: [4, 8, 12],
    },
    {
      variables: { where: { ship_date: { neq: null } } },
      where: '{ship_date: {neq: null}}',
      page: '',
      ids: [1, 2, 3, 5, 6, 7, 9, 10, 11],
    },
    {
      variables: { where: { status: { eq: 'PAID' }, ship_date: { eq: null } } },
      where: '{status: {eq: "PAID"}, ship_date: {eq: null}}',
      page: '',
      ids: [12],
    },
    { variables: { where: { id: { in: ['2'] } } }, where: '{id: {in: ["2"]}}', page: '', ids: [2] },
    {
      variables: { where: { id: { in: ['2', '5'] } } },
      where: '{id: {in: ["2", "5"]}}',
      page: '',
      ids: [2, 5],
    },
    {
      variables: { where: { id: { in: ['2', '5', '7'] } } },
      where: '{id: {in: ["2", "5", "7"]}}',
      page: '',
      ids: [2, 5, 7],
    },
    { variables: { where: { id: { in: [] } } }, where: '{id: {in: []}}', page: '', ids: [] },
    {
      variables: { where: { id: { nin: ['1', '2', '3', '4', '5', '6', '7', '8'] } } },
      where: '{id: {nin: ["1", "2", "3", "4", "5", "6", "7", "8"]}}',
      page: '',
      ids: [9, 10, 11, 12],
    },
    {
      variables: { where: { or: [{ status: { eq: 'PENDING' } }, { total: { gt: 100 } }] } },
      where: '{or: [{status: {eq: "PENDING"}}, {total: {gt: 100}}]}',
      page: '',
      ids: [1, 4, 7, 10, 11, 12],
    },
    {
      variables: { where: { or: [] } },
      where: '{or: []}',
      page: '',
      ids: [],
    },
    {
      variables: { where: { status: { eq: 'SHIPPED' } }, take: 2 },
      where: '{status: {eq: "SHIPPED"}}',
      page: 'take: 2',
      ids: [2, 5],
    },
    {
      variables: { where: { status: { eq: 'SHIPPED' } }, take: 2, skip: 1 },
      where: '{status: {eq: "SHIPPED"}}',
      page: 'take: 2, skip: 1',
      ids: [5, 8],
    },
    {
      variables: { order: [{ total: 'DESC' }], take: 3 },
      where: '',
      page: 'order: [{total: DESC}], take: 3',
      ids: [12, 11, 10],
    },
    {
      variables: { order: [{ ship_date: 'ASC' }], take: 4 },
      where: '',
      page: 'order: [{ship_date: ASC}], take: 4',
      ids: [4, 8, 12, 1],
    },
    {
      variables: {
        order: [{ ship_date: 'DESC' }],
        take: 4,
        where: { id: { in: ['4', '5', '8'] } },
      },
      where: '{id: {in: ["4", "5", "8"]}}',
      page: 'order: [{ship_date: DESC}], take: 4',
      ids: [5, 4, 8],
    },
    { variables: { take: 0 }, where: '', page: 'take: 0', ids: [] },
  ];

for (const dialect of SALES_DIALECTS) {
  dialect.describe(`Variables keep their planned reads apart on ${dialect.type} (issue 25)`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    const address = `variables-plans-${dialect.type}`;

    /** A GraphQL request sent as given: never rewritten by the harness's variables form. */
    async function send(body: { query: string; variables?: Record<string, unknown> }) {
      const res = await fetch(`${run.baseUrl}/api/graphql/${address}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { data?: unknown; errors?: unknown[] };
      expect(answer.errors).toBeUndefined();
      return answer.data as { getOrders: { id: string }[]; countOrders: number };
    }

    beforeAll(async () => {
      run = await startApp();
      const token = await run.adminToken();
      const db = await dialect.create(run.dataDir);
      cleanup = db.cleanup;
      const appId = (await run.http('POST', '/api/apps', { token, body: { name: 'V', address } }))
        .body.id;
      await registerSalesDatabase(run, token, appId, dialect.type, db);
      const select = { select: true, insert: false, update: false, delete: false };
      const api = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: {
          name: 'orders',
          table: 'orders',
          actions: select,
          public: select,
          fields: { id: true, status: true, total: true, ship_date: true },
        },
      });
      expect(api.status).toBe(201);
      const published = await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, {
        token,
      });
      expect(published.status).toBe(200);
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('answers one operation sent with many variables, each twice in turn, as the literal form does', async () => {
      for (const round of [1, 2]) {
        for (const c of CASES) {
          const label = `${JSON.stringify(c.variables)} (round ${round})`;
          const ours = await send({ query: OPERATION, variables: c.variables });
          const literal = await send({ query: literalOperation(c.where, c.page) });
          expect({ label, answer: ours }).toEqual({ label, answer: literal });
          expect({ label, ids: ours.getOrders.map((o) => Number(o.id)) }).toEqual({
            label,
            ids: c.ids,
          });
        }
      }
    });

    it('keeps a list variable’s length apart inside a literal filter', async () => {
      const query = 'query($ids: [ID!]) { getOrders(where: {id: {in: $ids}}) { id } }';
      for (const round of [1, 2]) {
        for (const ids of [['3'], ['3', '4'], ['3', '4', '5', '6'], []]) {
          const answer = await send({ query, variables: { ids } });
          expect({ round, ids: answer.getOrders.map((o) => o.id) }).toEqual({ round, ids });
        }
        // Absent: the literal filter's `in` is left out, so every order.
        const absent = await send({ query, variables: {} });
        expect({ round, rows: absent.getOrders.length }).toEqual({ round, rows: ORDERS.length });
      }
    });
  });
}
