import { ALL_ROWS } from './dialect';
import type { Condition, Dialect, SelectPlan } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Relation filters (issue 23 item 3): the correlated EXISTS the shared compiler writes, four SQL
 * texts side by side, as `golden-four-dialects.spec.ts` shows the other plans.
 */
const DIALECTS: Record<string, Dialect> = {
  postgres: new PostgresDialect(),
  mysql: new MysqlDialect(),
  mssql: new MssqlDialect(),
  sqlite: new SqliteDialect(),
};

function compileAll(compile: (d: Dialect) => { sql: string; params: unknown[] }) {
  return Object.fromEntries(Object.entries(DIALECTS).map(([name, d]) => [name, compile(d)]));
}

describe('golden SQL of relation filters (correlated EXISTS), four dialects side by side', () => {
  const customers = { schema: 'shop', name: 'customers' };
  const ordersTable = { schema: 'shop', name: 'orders' };
  const ownRule: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
  const unpaid: Condition = { kind: 'compare', column: 'status', op: 'neq', value: 'PAID' };

  function exists(where: Condition, negated = false, scope: Condition = ownRule): Condition {
    return {
      kind: 'exists',
      table: ordersTable,
      on: [{ inner: 'customer_id', outer: 'id' }],
      scope,
      where,
      negated,
    };
  }

  const select = (where: Condition): SelectPlan => ({
    table: customers,
    columns: ['id'],
    where,
    scope: ALL_ROWS,
    order: [{ column: 'id', direction: 'ASC', nullable: false }],
    take: null,
    skip: 0,
  });

  it('many-to-one: the related row exists, is inside its rule, and matches', () => {
    const plan: SelectPlan = {
      table: ordersTable,
      columns: ['id'],
      where: {
        kind: 'exists',
        table: customers,
        on: [{ inner: 'id', outer: 'customer_id' }],
        scope: ownRule,
        where: { kind: 'compare', column: 'city', op: 'eq', value: 'Lyon' },
        negated: false,
      },
      scope: ALL_ROWS,
      order: [{ column: 'id', direction: 'ASC', nullable: false }],
      take: null,
      skip: 0,
    };
    const out = compileAll((d) => d.compileSelect(plan));
    expect(out.postgres).toEqual({
      sql: 'SELECT "id" FROM "shop"."orders" WHERE EXISTS (SELECT 1 FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."owner" = $1 AND "__tg_r1"."city" = $2) ORDER BY "id" ASC',
      params: ['u1', 'Lyon'],
    });
    expect(out.sqlite).toEqual({
      sql: 'SELECT "id" FROM "shop"."orders" WHERE EXISTS (SELECT 1 FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."owner" = ? AND "__tg_r1"."city" = ?) ORDER BY "id" ASC',
      params: ['u1', 'Lyon'],
    });
    expect(out.mysql).toEqual({
      sql: 'SELECT `id` FROM `shop`.`orders` WHERE EXISTS (SELECT 1 FROM `shop`.`customers` `__tg_r1` WHERE `__tg_r1`.`id` = `orders`.`customer_id` AND `__tg_r1`.`owner` = ? AND `__tg_r1`.`city` = ?) ORDER BY `id` ASC',
      params: ['u1', 'Lyon'],
    });
    expect(out.mssql).toEqual({
      sql: 'SELECT [id] FROM [shop].[orders] WHERE EXISTS (SELECT 1 FROM [shop].[customers] [__tg_r1] WHERE [__tg_r1].[id] = [orders].[customer_id] AND [__tg_r1].[owner] = @p1 AND [__tg_r1].[city] = @p2) ORDER BY [orders].[id] ASC',
      params: ['u1', 'Lyon'],
    });
  });

  it('some, none and every (NOT EXISTS of a child whose condition is not TRUE), in a count', () => {
    const where: Condition = {
      kind: 'and',
      items: [
        exists(unpaid),
        exists(unpaid, true),
        exists({ kind: 'untrue', item: unpaid }, true, ALL_ROWS),
      ],
    };
    const out = compileAll((d) => d.compileCount({ table: customers, where, scope: ALL_ROWS }));
    const sub = (q: (s: string) => string, p: (n: number) => string, n: number) =>
      `SELECT 1 FROM ${q('shop')}.${q('orders')} ${q('__tg_r1')} WHERE ${q('__tg_r1')}.${q('customer_id')} = ${q('customers')}.${q('id')}` +
      ` AND ${q('__tg_r1')}.${q('owner')} = ${p(n)} AND ${q('__tg_r1')}.${q('status')} <> ${p(n + 1)}`;
    const every = (q: (s: string) => string, p: (n: number) => string, n: number) =>
      `NOT EXISTS (SELECT 1 FROM ${q('shop')}.${q('orders')} ${q('__tg_r1')} WHERE ${q('__tg_r1')}.${q('customer_id')} = ${q('customers')}.${q('id')}` +
      ` AND CASE WHEN ${q('__tg_r1')}.${q('status')} <> ${p(n)} THEN 1 ELSE 0 END = 0)`;
    const expected = (q: (s: string) => string, p: (n: number) => string) =>
      `SELECT COUNT(*) AS ${q('count')} FROM ${q('shop')}.${q('customers')} WHERE (EXISTS (${sub(q, p, 1)}) AND NOT EXISTS (${sub(q, p, 3)}) AND ${every(q, p, 5)})`;
    const dq = (s: string) => `"${s}"`;
    expect(out.postgres.sql).toBe(expected(dq, (n) => `$${n}`));
    expect(out.sqlite.sql).toBe(expected(dq, () => '?'));
    expect(out.mysql.sql).toBe(
      expected(
        (s) => `\`${s}\``,
        () => '?',
      ),
    );
    expect(out.mssql.sql).toBe(
      expected(
        (s) => `[${s}]`,
        (n) => `@p${n}`,
      ),
    );
    for (const { params } of Object.values(out))
      expect(params).toEqual(['u1', 'PAID', 'u1', 'PAID', 'PAID']);
  });

  it('a composite key matches every column; nested levels correlate with the level above', () => {
    const lines = { schema: 'shop', name: 'order_lines' };
    const where: Condition = {
      kind: 'exists',
      table: ordersTable,
      on: [
        { inner: 'customer_id', outer: 'id' },
        { inner: 'region', outer: 'region' },
      ],
      scope: ALL_ROWS,
      where: {
        kind: 'exists',
        table: lines,
        on: [
          { inner: 'order_id', outer: 'id' },
          { inner: 'order_region', outer: 'region' },
        ],
        scope: ownRule,
        where: { kind: 'null', column: 'product_id', negated: true },
        negated: false,
      },
      negated: false,
    };
    const out = compileAll((d) => d.compileSelect(select(where)));
    expect(out.postgres).toEqual({
      sql: 'SELECT "id" FROM "shop"."customers" WHERE EXISTS (SELECT 1 FROM "shop"."orders" "__tg_r1" WHERE "__tg_r1"."customer_id" = "customers"."id" AND "__tg_r1"."region" = "customers"."region" AND EXISTS (SELECT 1 FROM "shop"."order_lines" "__tg_r2" WHERE "__tg_r2"."order_id" = "__tg_r1"."id" AND "__tg_r2"."order_region" = "__tg_r1"."region" AND "__tg_r2"."owner" = $1 AND "__tg_r2"."product_id" IS NOT NULL)) ORDER BY "id" ASC',
      params: ['u1'],
    });
    expect(out.sqlite.sql).toBe(out.postgres.sql.replace('$1', '?'));
    expect(out.mysql.sql).toBe(out.postgres.sql.replace(/"/g, '`').replace('$1', '?'));
    expect(out.mssql.sql).toBe(
      out.postgres.sql
        .replace(/"([^"]*)"/g, '[$1]')
        .replace('$1', '@p1')
        .replace('ORDER BY [id]', 'ORDER BY [customers].[id]'),
    );
  });

  it('refuses a relation filter with no column pair (a planner bug), never an uncorrelated EXISTS', () => {
    const bare = new (class extends PostgresDialect {})();
    const empty: Condition = { ...exists(unpaid), on: [] } as Condition;
    expect(() => bare.compileSelect(select(empty))).toThrow(/at least one column pair/);
  });
});
