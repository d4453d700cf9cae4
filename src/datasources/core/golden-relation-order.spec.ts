import { ALL_ROWS } from './dialect';
import type { Condition, Dialect, OrderTerm, RelatedValue, SelectPlan } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Ordering through relations (issue 23 item 3, README "Order and pages"): the correlated scalar
 * subquery the shared compiler writes in ORDER BY, four SQL texts side by side, as
 * `golden-relation-filters.spec.ts` shows the EXISTS of relation filters.
 */
const DIALECTS: Record<string, Dialect> = {
  postgres: new PostgresDialect(),
  mysql: new MysqlDialect(),
  mssql: new MssqlDialect(),
  sqlite: new SqliteDialect(),
};

function compileAll(plan: SelectPlan) {
  return Object.fromEntries(
    Object.entries(DIALECTS).map(([name, d]) => [name, d.compileSelect(plan)]),
  );
}

/** `"x"` → `` `x` `` and `$n` → `?`: the MySQL text of a PostgreSQL text without NULLS clauses. */
const asMysql = (sql: string) => sql.replace(/"/g, '`').replace(/\$\d+/g, '?');
/** `$n` → `?`: the SQLite text of a PostgreSQL text without NULLS clauses. */
const asSqlite = (sql: string) => sql.replace(/\$\d+/g, '?');
/** `"x"` → `[x]` and `$n` → `@pn`. */
const asMssql = (sql: string) => sql.replace(/"([^"]*)"/g, '[$1]').replace(/\$(\d+)/g, '@p$1');

describe('golden SQL of orders through relations (correlated scalar subqueries), four dialects', () => {
  const customers = { schema: 'shop', name: 'customers' };
  const ordersTable = { schema: 'shop', name: 'orders' };
  const lines = { schema: 'shop', name: 'order_lines' };
  const countries = { schema: 'shop', name: 'countries' };
  const ownRule: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
  const byId: OrderTerm = { column: 'id', direction: 'ASC', nullable: false };

  const customerOf = (value: RelatedValue['value'], scope: Condition = ownRule): RelatedValue => ({
    table: customers,
    on: [{ inner: 'id', outer: 'customer_id' }],
    scope,
    value,
  });

  const select = (table: typeof customers, order: OrderTerm[], extra: Partial<SelectPlan> = {}) =>
    ({
      table,
      columns: ['id'],
      where: ALL_ROWS,
      scope: ALL_ROWS,
      order,
      take: null,
      skip: 0,
      ...extra,
    }) satisfies SelectPlan;

  it('many-to-one: the related column inside its row rule, NULL first under ASC; parameters in text order', () => {
    const plan = select(
      ordersTable,
      [
        {
          related: customerOf({ kind: 'column', column: 'name' }),
          direction: 'ASC',
          nullable: true,
        },
        byId,
      ],
      {
        where: { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' },
        scope: { kind: 'compare', column: 'region', op: 'eq', value: 'EU' },
        take: 10,
        skip: 20,
      },
    );
    const out = compileAll(plan);
    expect(out.postgres).toEqual({
      sql: 'SELECT "id" FROM "shop"."orders" WHERE ("status" = $1 AND "region" = $2) ORDER BY (SELECT "__tg_r1"."name" FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."owner" = $3) ASC NULLS FIRST, "id" ASC LIMIT $4 OFFSET $5',
      params: ['PAID', 'EU', 'u1', 10, 20],
    });
    const plain = out.postgres.sql.replace(' NULLS FIRST', '');
    expect(out.sqlite).toEqual({ sql: asSqlite(plain), params: ['PAID', 'EU', 'u1', 10, 20] });
    expect(out.mysql).toEqual({ sql: asMysql(plain), params: ['PAID', 'EU', 'u1', 10, 20] });
    expect(out.mssql).toEqual({
      sql: 'SELECT [id] FROM [shop].[orders] WHERE ([status] = @p1 AND [region] = @p2) ORDER BY (SELECT [__tg_r1].[name] FROM [shop].[customers] [__tg_r1] WHERE [__tg_r1].[id] = [orders].[customer_id] AND [__tg_r1].[owner] = @p3) ASC, [orders].[id] ASC OFFSET @p4 ROWS FETCH NEXT @p5 ROWS ONLY',
      params: ['PAID', 'EU', 'u1', 20, 10],
    });
  });

  it('one-to-many: COUNT(*) of the visible children, never NULL (no NULLS clause); DESC', () => {
    const plan = select(customers, [
      {
        related: {
          table: ordersTable,
          on: [{ inner: 'customer_id', outer: 'id' }],
          scope: ownRule,
          value: { kind: 'count' },
        },
        direction: 'DESC',
        nullable: false,
      },
      byId,
    ]);
    const out = compileAll(plan);
    const pg =
      'SELECT "id" FROM "shop"."customers" ORDER BY (SELECT COUNT(*) FROM "shop"."orders" "__tg_r1" WHERE "__tg_r1"."customer_id" = "customers"."id" AND "__tg_r1"."owner" = $1) DESC, "id" ASC';
    expect(out.postgres).toEqual({ sql: pg, params: ['u1'] });
    expect(out.sqlite).toEqual({ sql: asSqlite(pg), params: ['u1'] });
    expect(out.mysql).toEqual({ sql: asMysql(pg), params: ['u1'] });
    expect(out.mssql).toEqual({
      sql: asMssql(pg).replace(', [id] ASC', ', [customers].[id] ASC'),
      params: ['u1'],
    });
  });

  it('nested many-to-one levels correlate with the level above, each inside its own rule; a count under a many-to-one can be NULL', () => {
    const country: RelatedValue = {
      table: countries,
      on: [{ inner: 'code', outer: 'country_code' }],
      scope: { kind: 'compare', column: 'visible', op: 'eq', value: true },
      value: { kind: 'column', column: 'name' },
    };
    const customerOrders: RelatedValue = {
      table: ordersTable,
      on: [{ inner: 'customer_id', outer: 'id' }],
      scope: ownRule,
      value: { kind: 'count' },
    };
    const plan = select(ordersTable, [
      {
        related: customerOf({ kind: 'related', related: country }),
        direction: 'DESC',
        nullable: true,
      },
      {
        related: customerOf({ kind: 'related', related: customerOrders }, ALL_ROWS),
        direction: 'ASC',
        nullable: true,
      },
      byId,
    ]);
    const out = compileAll(plan);
    const pg =
      'SELECT "id" FROM "shop"."orders" ORDER BY ' +
      '(SELECT (SELECT "__tg_r2"."name" FROM "shop"."countries" "__tg_r2" WHERE "__tg_r2"."code" = "__tg_r1"."country_code" AND "__tg_r2"."visible" = $1) FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."owner" = $2) DESC NULLS LAST, ' +
      '(SELECT (SELECT COUNT(*) FROM "shop"."orders" "__tg_r2" WHERE "__tg_r2"."customer_id" = "__tg_r1"."id" AND "__tg_r2"."owner" = $3) FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id") ASC NULLS FIRST, ' +
      '"id" ASC';
    expect(out.postgres).toEqual({ sql: pg, params: [true, 'u1', 'u1'] });
    const plain = pg.replace(' NULLS LAST', '').replace(' NULLS FIRST', '');
    expect(out.sqlite.sql).toBe(asSqlite(plain));
    expect(out.mysql.sql).toBe(asMysql(plain));
    expect(out.mssql.sql).toBe(asMssql(plain).replace(', [id] ASC', ', [orders].[id] ASC'));
    for (const name of ['mysql', 'mssql']) expect(out[name].params).toEqual(out.postgres.params);
  });

  it('inside the batched one-to-many read: the window ORDER BY binds its parameters before WHERE', () => {
    const plan = select(
      ordersTable,
      [
        {
          related: {
            table: lines,
            on: [{ inner: 'order_id', outer: 'id' }],
            scope: ownRule,
            value: { kind: 'count' },
          },
          direction: 'DESC',
          nullable: false,
        },
        byId,
      ],
      {
        columns: ['id', 'customer_id'],
        where: { kind: 'in', column: 'customer_id', values: [1, 2], negated: false },
        take: 3,
        partition: { column: 'customer_id' },
      },
    );
    const out = compileAll(plan);
    const pg =
      'SELECT "id", "customer_id" FROM (SELECT "id", "customer_id", ROW_NUMBER() OVER (PARTITION BY "customer_id" ORDER BY ' +
      '(SELECT COUNT(*) FROM "shop"."order_lines" "__tg_r1" WHERE "__tg_r1"."order_id" = "orders"."id" AND "__tg_r1"."owner" = $1) DESC, "id" ASC) AS "__tg_rn" ' +
      'FROM "shop"."orders" WHERE "customer_id" IN ($2, $3)) "__tg_p" WHERE "__tg_rn" > $4 AND "__tg_rn" <= $5 ORDER BY "__tg_rn"';
    const params = ['u1', 1, 2, 0, 3];
    expect(out.postgres).toEqual({ sql: pg, params });
    expect(out.sqlite).toEqual({ sql: asSqlite(pg), params });
    expect(out.mysql).toEqual({ sql: asMysql(pg), params });
    expect(out.mssql).toEqual({ sql: asMssql(pg), params });
  });

  it('a composite key matches every column; a table related to itself correlates with the outer row; no rule adds no condition', () => {
    const employees = { schema: 'hr', name: 'employees' };
    const plan = select(employees, [
      {
        related: {
          table: employees,
          on: [
            { inner: 'id', outer: 'manager_id' },
            { inner: 'site', outer: 'manager_site' },
          ],
          scope: ALL_ROWS,
          value: { kind: 'column', column: 'name' },
        },
        direction: 'ASC',
        nullable: true,
      },
      byId,
    ]);
    const out = compileAll(plan);
    const pg =
      'SELECT "id" FROM "hr"."employees" ORDER BY (SELECT "__tg_r1"."name" FROM "hr"."employees" "__tg_r1" WHERE "__tg_r1"."id" = "employees"."manager_id" AND "__tg_r1"."site" = "employees"."manager_site") ASC NULLS FIRST, "id" ASC';
    expect(out.postgres).toEqual({ sql: pg, params: [] });
    const plain = pg.replace(' NULLS FIRST', '');
    expect(out.sqlite.sql).toBe(asSqlite(plain));
    expect(out.mysql.sql).toBe(asMysql(plain));
    expect(out.mssql.sql).toBe(asMssql(plain).replace(', [id] ASC', ', [employees].[id] ASC'));
  });

  it('fails closed: a rule that cannot be planned (false) leaves no related row, so the value is NULL / 0; a rule through a relation nests one level deeper', () => {
    const denied: Condition = { kind: 'or', items: [] };
    const ruleThroughRelation: Condition = {
      kind: 'exists',
      table: ordersTable,
      on: [{ inner: 'customer_id', outer: 'id' }],
      scope: ALL_ROWS,
      where: { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' },
      negated: false,
    };
    const plan = select(ordersTable, [
      {
        related: customerOf({ kind: 'column', column: 'name' }, denied),
        direction: 'ASC',
        nullable: true,
      },
      {
        related: customerOf({ kind: 'column', column: 'city' }, ruleThroughRelation),
        direction: 'ASC',
        nullable: true,
      },
      byId,
    ]);
    const out = compileAll(plan);
    const pg =
      'SELECT "id" FROM "shop"."orders" ORDER BY ' +
      '(SELECT "__tg_r1"."name" FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND 1=0) ASC NULLS FIRST, ' +
      '(SELECT "__tg_r1"."city" FROM "shop"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND EXISTS (SELECT 1 FROM "shop"."orders" "__tg_r2" WHERE "__tg_r2"."customer_id" = "__tg_r1"."id" AND "__tg_r2"."owner" = $1)) ASC NULLS FIRST, ' +
      '"id" ASC';
    expect(out.postgres).toEqual({ sql: pg, params: ['u1'] });
    const plain = pg.replace(/ NULLS FIRST/g, '');
    expect(out.sqlite.sql).toBe(asSqlite(plain));
    expect(out.mysql.sql).toBe(asMysql(plain));
    expect(out.mssql.sql).toBe(asMssql(plain).replace(', [id] ASC', ', [orders].[id] ASC'));
  });

  it('refuses an order through a relation with no column pair (a planner bug), never an uncorrelated subquery', () => {
    const plan = select(ordersTable, [
      { related: { ...customerOf({ kind: 'count' }), on: [] }, direction: 'ASC' },
    ]);
    for (const d of Object.values(DIALECTS))
      expect(() => d.compileSelect(plan)).toThrow(/column pair/);
  });
});
