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

describe('golden SQL of aggregate buckets, having and order', () => {
  const table = { schema: null, name: 'orders' };
  const plan: AggregatePlan = {
    table,
    where: ALL_ROWS,
    scope: ALL_ROWS,
    groupBy: [
      {
        column: 'placed_at',
        kind: 'timestamptz',
        nullable: true,
        alias: '__tg_k0',
        bucket: 'MONTH',
      },
      { column: 'ship_on', kind: 'date', nullable: false, alias: '__tg_k1', bucket: 'YEAR' },
      { column: 'local_at', kind: 'timestamp', nullable: true, alias: '__tg_k2', bucket: 'HOUR' },
    ],
    aggregates: [
      { fn: 'count', alias: '__tg_a0' },
      { fn: 'sum', column: 'total', kind: 'decimal', alias: '__tg_a1' },
    ],
    having: {
      kind: 'and',
      items: [
        { kind: 'compare', measure: { fn: 'count' }, op: 'gt', value: 2 },
        {
          kind: 'or',
          items: [
            {
              kind: 'compare',
              measure: { fn: 'sum', column: 'total', kind: 'decimal' },
              op: 'gte',
              value: '100.5',
            },
            {
              kind: 'compare',
              measure: { fn: 'avg', column: 'quantity', kind: 'int' },
              op: 'lt',
              value: 1.5,
            },
            {
              kind: 'compare',
              measure: { fn: 'max', column: 'total', kind: 'decimal' },
              op: 'eq',
              value: null,
            },
          ],
        },
      ],
    },
    order: [
      {
        measure: { fn: 'sum', column: 'total', kind: 'decimal' },
        direction: 'DESC',
        nullable: true,
      },
      { measure: { fn: 'key', index: 1 }, direction: 'DESC', nullable: false },
      { measure: { fn: 'count' }, direction: 'ASC', nullable: false },
    ],
    take: 50,
    skip: 0,
  };

  it('groups by bucket starts, filters groups with HAVING and orders by aggregates, then the keys', () => {
    const out = compileAll((d) => d.compileAggregate(plan));
    expect(out).toEqual({
      postgres: {
        sql: 'SELECT (date_trunc(\'month\', "orders"."placed_at" AT TIME ZONE \'UTC\') AT TIME ZONE \'UTC\') AS "__tg_k0", CAST(date_trunc(\'year\', "orders"."ship_on") AS date) AS "__tg_k1", date_trunc(\'hour\', "orders"."local_at") AS "__tg_k2", COUNT(*) AS "__tg_a0", SUM("orders"."total") AS "__tg_a1" FROM "orders" GROUP BY (date_trunc(\'month\', "orders"."placed_at" AT TIME ZONE \'UTC\') AT TIME ZONE \'UTC\'), CAST(date_trunc(\'year\', "orders"."ship_on") AS date), date_trunc(\'hour\', "orders"."local_at") HAVING (COUNT(*) > $1 AND (SUM("orders"."total") >= $2 OR AVG("orders"."quantity" * 1.0E0) < $3 OR MAX("orders"."total") IS NULL)) ORDER BY SUM("orders"."total") DESC NULLS LAST, CAST(date_trunc(\'year\', "orders"."ship_on") AS date) DESC, COUNT(*) ASC, (date_trunc(\'month\', "orders"."placed_at" AT TIME ZONE \'UTC\') AT TIME ZONE \'UTC\') ASC NULLS FIRST, date_trunc(\'hour\', "orders"."local_at") ASC NULLS FIRST LIMIT $4',
        params: [2, '100.5', 1.5, 50],
      },
      mysql: {
        sql: "SELECT CAST(DATE_FORMAT(`orders`.`placed_at`, '%Y-%m-01 00:00:00') AS DATETIME) AS `__tg_k0`, CAST(DATE_FORMAT(`orders`.`ship_on`, '%Y-01-01') AS DATE) AS `__tg_k1`, CAST(DATE_FORMAT(`orders`.`local_at`, '%Y-%m-%d %H:00:00') AS DATETIME) AS `__tg_k2`, COUNT(*) AS `__tg_a0`, SUM(`orders`.`total`) AS `__tg_a1` FROM `orders` GROUP BY CAST(DATE_FORMAT(`orders`.`placed_at`, '%Y-%m-01 00:00:00') AS DATETIME), CAST(DATE_FORMAT(`orders`.`ship_on`, '%Y-01-01') AS DATE), CAST(DATE_FORMAT(`orders`.`local_at`, '%Y-%m-%d %H:00:00') AS DATETIME) HAVING (COUNT(*) > ? AND (SUM(`orders`.`total`) >= CAST(? AS DECIMAL(65,30)) OR AVG(`orders`.`quantity` * 1.0E0) < ? OR MAX(`orders`.`total`) IS NULL)) ORDER BY SUM(`orders`.`total`) DESC, CAST(DATE_FORMAT(`orders`.`ship_on`, '%Y-01-01') AS DATE) DESC, COUNT(*) ASC, CAST(DATE_FORMAT(`orders`.`placed_at`, '%Y-%m-01 00:00:00') AS DATETIME) ASC, CAST(DATE_FORMAT(`orders`.`local_at`, '%Y-%m-%d %H:00:00') AS DATETIME) ASC LIMIT ?",
        params: [2, '100.5', 1.5, 50],
      },
      mssql: {
        sql: "SELECT TODATETIMEOFFSET(CAST(DATEFROMPARTS(YEAR(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), MONTH(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), 1) AS DATETIME2), '+00:00') AS [__tg_k0], DATEFROMPARTS(YEAR([orders].[ship_on]), 1, 1) AS [__tg_k1], DATEADD(HOUR, DATEPART(HOUR, [orders].[local_at]), CAST(CAST([orders].[local_at] AS DATE) AS DATETIME2)) AS [__tg_k2], COUNT_BIG(*) AS [__tg_a0], CONVERT(NVARCHAR(64), SUM([orders].[total])) AS [__tg_a1] FROM [orders] GROUP BY TODATETIMEOFFSET(CAST(DATEFROMPARTS(YEAR(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), MONTH(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), 1) AS DATETIME2), '+00:00'), DATEFROMPARTS(YEAR([orders].[ship_on]), 1, 1), DATEADD(HOUR, DATEPART(HOUR, [orders].[local_at]), CAST(CAST([orders].[local_at] AS DATE) AS DATETIME2)) HAVING (COUNT_BIG(*) > @p1 AND (SUM([orders].[total]) >= CAST(@p2 AS DECIMAL(38,10)) OR AVG([orders].[quantity] * 1.0E0) < @p3 OR MAX([orders].[total]) IS NULL)) ORDER BY SUM([orders].[total]) DESC, DATEFROMPARTS(YEAR([orders].[ship_on]), 1, 1) DESC, COUNT_BIG(*) ASC, TODATETIMEOFFSET(CAST(DATEFROMPARTS(YEAR(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), MONTH(CAST(SWITCHOFFSET([orders].[placed_at], '+00:00') AS DATETIME2)), 1) AS DATETIME2), '+00:00') ASC, DATEADD(HOUR, DATEPART(HOUR, [orders].[local_at]), CAST(CAST([orders].[local_at] AS DATE) AS DATETIME2)) ASC OFFSET @p4 ROWS FETCH NEXT @p5 ROWS ONLY",
        params: [2, '100.5', 1.5, 0, 50],
      },
      sqlite: {
        sql: 'SELECT strftime(\'%Y-%m-01 00:00:00\', "orders"."placed_at") AS "__tg_k0", strftime(\'%Y-01-01\', "orders"."ship_on") AS "__tg_k1", strftime(\'%Y-%m-%d %H:00:00\', "orders"."local_at") AS "__tg_k2", COUNT(*) AS "__tg_a0", SUM("orders"."total") AS "__tg_a1" FROM "orders" GROUP BY strftime(\'%Y-%m-01 00:00:00\', "orders"."placed_at"), strftime(\'%Y-01-01\', "orders"."ship_on"), strftime(\'%Y-%m-%d %H:00:00\', "orders"."local_at") HAVING (COUNT(*) > ? AND (SUM("orders"."total") >= CAST(? AS NUMERIC) OR AVG("orders"."quantity" * 1.0E0) < ? OR MAX("orders"."total") IS NULL)) ORDER BY SUM("orders"."total") DESC, strftime(\'%Y-01-01\', "orders"."ship_on") DESC, COUNT(*) ASC, strftime(\'%Y-%m-01 00:00:00\', "orders"."placed_at") ASC, strftime(\'%Y-%m-%d %H:00:00\', "orders"."local_at") ASC LIMIT ?',
        params: [2, '100.5', 1.5, 50],
      },
    });
  });
});

describe('golden SQL of a navigation aggregate (one statement per level)', () => {
  it('groups the children of a batch of parents by their foreign key, inside the row rule', () => {
    const out = compileAll((d) =>
      d.compileAggregate({
        table: { schema: null, name: 'order_lines' },
        where: {
          kind: 'and',
          items: [
            { kind: 'in', column: 'order_id', values: [1, 2, 3], negated: false },
            { kind: 'compare', column: 'quantity', op: 'gt', value: 1 },
          ],
        },
        scope: { kind: 'compare', column: 'tenant', op: 'eq', value: 't1' },
        groupBy: [{ column: 'order_id', kind: 'int', nullable: false, alias: '__tg_k0' }],
        aggregates: [
          { fn: 'count', alias: '__tg_a0' },
          { fn: 'sum', column: 'quantity', kind: 'int', alias: '__tg_a1' },
        ],
        take: null,
        skip: 0,
      }),
    );
    expect(out.postgres).toEqual({
      sql: 'SELECT "order_lines"."order_id" AS "__tg_k0", COUNT(*) AS "__tg_a0", SUM("order_lines"."quantity") AS "__tg_a1" FROM "order_lines" WHERE (("order_id" IN ($1, $2, $3) AND "quantity" > $4) AND "tenant" = $5) GROUP BY "order_lines"."order_id" ORDER BY "order_lines"."order_id" ASC',
      params: [1, 2, 3, 1, 't1'],
    });
    expect(out.mssql.sql).toBe(
      'SELECT [order_lines].[order_id] AS [__tg_k0], COUNT_BIG(*) AS [__tg_a0], CONVERT(NVARCHAR(64), SUM(CAST([order_lines].[quantity] AS DECIMAL(38,0)))) AS [__tg_a1] FROM [order_lines] WHERE (([order_id] IN (@p1, @p2, @p3) AND [quantity] > @p4) AND [tenant] = @p5) GROUP BY [order_lines].[order_id] ORDER BY [order_lines].[order_id] ASC',
    );
    expect(out.mysql.sql).toContain('GROUP BY `order_lines`.`order_id` ORDER BY');
    expect(out.sqlite.sql).not.toContain('LIMIT');
  });
});
