import { ALL_ROWS } from './dialect';
import type { AggregatePlan, Condition, Dialect } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Aggregates (issue 23 item 2): the grouped read the shared compiler writes, four SQL texts side
 * by side, as `golden-four-dialects.spec.ts` shows the other plans.
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

describe('golden SQL of aggregates, four dialects side by side', () => {
  const table = { schema: 'shop', name: 'orders' };
  const ownRule: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
  const paid: Condition = { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' };

  const grouped: AggregatePlan = {
    table,
    where: paid,
    scope: ownRule,
    groupBy: [{ column: 'customer_id', kind: 'int', nullable: true, alias: '__tg_k0' }],
    aggregates: [
      { fn: 'count', alias: '__tg_a0' },
      { fn: 'sum', column: 'quantity', kind: 'int', alias: '__tg_a1' },
      { fn: 'countValues', column: 'quantity', kind: 'int', alias: '__tg_a2' },
      { fn: 'sum', column: 'total', kind: 'decimal', alias: '__tg_a3' },
      { fn: 'min', column: 'total', kind: 'decimal', alias: '__tg_a4' },
      { fn: 'max', column: 'ordered_on', kind: 'date', alias: '__tg_a5' },
      { fn: 'countDistinct', column: 'status', kind: 'text', alias: '__tg_a6' },
    ],
    take: 100,
    skip: 5,
  };

  it('groups by a column inside the row rule, ordered NULL first, one page of groups', () => {
    const out = compileAll((d) => d.compileAggregate(grouped));
    expect(out).toEqual({
      postgres: {
        sql: 'SELECT "orders"."customer_id" AS "__tg_k0", COUNT(*) AS "__tg_a0", SUM("orders"."quantity") AS "__tg_a1", COUNT("orders"."quantity") AS "__tg_a2", SUM("orders"."total") AS "__tg_a3", MIN("orders"."total") AS "__tg_a4", MAX("orders"."ordered_on") AS "__tg_a5", COUNT(DISTINCT "orders"."status") AS "__tg_a6" FROM "shop"."orders" WHERE ("status" = $1 AND "owner" = $2) GROUP BY "orders"."customer_id" ORDER BY "orders"."customer_id" ASC NULLS FIRST LIMIT $3 OFFSET $4',
        params: ['PAID', 'u1', 100, 5],
      },
      mysql: {
        sql: 'SELECT `orders`.`customer_id` AS `__tg_k0`, COUNT(*) AS `__tg_a0`, SUM(`orders`.`quantity`) AS `__tg_a1`, COUNT(`orders`.`quantity`) AS `__tg_a2`, SUM(`orders`.`total`) AS `__tg_a3`, MIN(`orders`.`total`) AS `__tg_a4`, MAX(`orders`.`ordered_on`) AS `__tg_a5`, COUNT(DISTINCT `orders`.`status`) AS `__tg_a6` FROM `shop`.`orders` WHERE (`status` = ? AND `owner` = ?) GROUP BY `orders`.`customer_id` ORDER BY `orders`.`customer_id` ASC LIMIT ? OFFSET ?',
        params: ['PAID', 'u1', 100, 5],
      },
      mssql: {
        sql: 'SELECT [orders].[customer_id] AS [__tg_k0], COUNT_BIG(*) AS [__tg_a0], CONVERT(NVARCHAR(64), SUM(CAST([orders].[quantity] AS DECIMAL(38,0)))) AS [__tg_a1], COUNT_BIG([orders].[quantity]) AS [__tg_a2], CONVERT(NVARCHAR(64), SUM([orders].[total])) AS [__tg_a3], CONVERT(NVARCHAR(64), MIN([orders].[total])) AS [__tg_a4], MAX([orders].[ordered_on]) AS [__tg_a5], COUNT_BIG(DISTINCT [orders].[status]) AS [__tg_a6] FROM [shop].[orders] WHERE ([status] = @p1 AND [owner] = @p2) GROUP BY [orders].[customer_id] ORDER BY [orders].[customer_id] ASC OFFSET @p3 ROWS FETCH NEXT @p4 ROWS ONLY',
        params: ['PAID', 'u1', 5, 100],
      },
      sqlite: {
        sql: 'SELECT "orders"."customer_id" AS "__tg_k0", COUNT(*) AS "__tg_a0", SUM("orders"."quantity") AS "__tg_a1", COUNT("orders"."quantity") AS "__tg_a2", SUM("orders"."total") AS "__tg_a3", MIN("orders"."total") AS "__tg_a4", MAX("orders"."ordered_on") AS "__tg_a5", COUNT(DISTINCT "orders"."status") AS "__tg_a6" FROM "shop"."orders" WHERE ("status" = ? AND "owner" = ?) GROUP BY "orders"."customer_id" ORDER BY "orders"."customer_id" ASC LIMIT ? OFFSET ?',
        params: ['PAID', 'u1', 100, 5],
      },
    });
  });

  it('without groupBy: one row, no GROUP BY, ORDER BY or page; a bigint sum', () => {
    const out = compileAll((d) =>
      d.compileAggregate({
        table,
        where: ALL_ROWS,
        scope: ALL_ROWS,
        groupBy: [],
        aggregates: [
          { fn: 'count', alias: '__tg_a0' },
          { fn: 'sum', column: 'big', kind: 'bigint', alias: '__tg_a1' },
          { fn: 'sum', column: 'ratio', kind: 'float', alias: '__tg_a2' },
        ],
        take: 100,
        skip: 0,
      }),
    );
    expect(out).toEqual({
      postgres: {
        sql: 'SELECT COUNT(*) AS "__tg_a0", SUM("orders"."big") AS "__tg_a1", SUM("orders"."ratio") AS "__tg_a2" FROM "shop"."orders"',
        params: [],
      },
      mysql: {
        sql: 'SELECT COUNT(*) AS `__tg_a0`, SUM(`orders`.`big`) AS `__tg_a1`, SUM(`orders`.`ratio`) AS `__tg_a2` FROM `shop`.`orders`',
        params: [],
      },
      mssql: {
        sql: 'SELECT COUNT_BIG(*) AS [__tg_a0], CONVERT(NVARCHAR(64), SUM(CAST([orders].[big] AS DECIMAL(38,0)))) AS [__tg_a1], SUM([orders].[ratio]) AS [__tg_a2] FROM [shop].[orders]',
        params: [],
      },
      sqlite: {
        sql: 'SELECT COUNT(*) AS "__tg_a0", SUM("orders"."big") AS "__tg_a1", SUM("orders"."ratio") AS "__tg_a2" FROM "shop"."orders"',
        params: [],
      },
    });
  });
});
