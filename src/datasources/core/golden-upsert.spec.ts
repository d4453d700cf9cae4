import { ALL_ROWS, type Dialect, type SelectPlan, type UpsertPlan } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * `upsert<Base>`/`upsertMany<Base>` (issue 24 item 2, README "Writing rows"): the upsert
 * statement and the locked read of existing keys, four SQL texts side by side. PEERS.md §C2:
 * PostgreSQL/SQLite `ON CONFLICT … DO UPDATE … WHERE`, MySQL/MariaDB `ON DUPLICATE KEY UPDATE`
 * (no filter, no RETURNING: the gateway reads under lock first), SQL Server `MERGE … WITH
 * (HOLDLOCK)` with `OUTPUT … INTO` a table variable.
 */
const DIALECTS: Record<string, Dialect> = {
  postgres: new PostgresDialect(),
  mysql: new MysqlDialect(),
  mssql: new MssqlDialect(),
  sqlite: new SqliteDialect(),
};

const values = ['ana@example.com', 'Ana', 'Porto', 'bruno@example.com', 'Bruno', 'Faro'];

/** Two customers by email; update name and city when the existing row is no VIP, inside a Porto rule. */
const plan: UpsertPlan = {
  table: { schema: 'shop', name: 'customers' },
  columns: ['email', 'name', 'city'],
  rows: [
    ['ana@example.com', 'Ana', 'Porto'],
    ['bruno@example.com', 'Bruno', 'Faro'],
  ],
  key: ['email'],
  update: ['name', 'city'],
  when: { kind: 'compare', column: 'vip', op: 'eq', value: false },
  scope: { kind: 'compare', column: 'city', op: 'eq', value: 'Porto' },
  returning: ['email'],
};

describe('golden SQL of an upsert', () => {
  it('PostgreSQL: ON CONFLICT DO UPDATE, when and the row rule on the existing row, xmax = 0 tells an insert', () => {
    expect(DIALECTS.postgres.compileUpsert(plan)).toEqual({
      sql:
        'INSERT INTO "shop"."customers" ("email", "name", "city") VALUES ($1, $2, $3), ($4, $5, $6) ' +
        'ON CONFLICT ("email") DO UPDATE SET "name" = EXCLUDED."name", "city" = EXCLUDED."city" ' +
        'WHERE ("customers"."vip" = $7 AND "customers"."city" = $8) ' +
        'RETURNING "email", (xmax = 0) AS "__tg_inserted"',
      params: [...values, false, 'Porto'],
    });
  });

  it('SQLite: the same statement, with no flag telling an insert from an update', () => {
    expect(DIALECTS.sqlite.compileUpsert(plan)).toEqual({
      sql:
        'INSERT INTO "shop"."customers" ("email", "name", "city") VALUES (?, ?, ?), (?, ?, ?) ' +
        'ON CONFLICT ("email") DO UPDATE SET "name" = EXCLUDED."name", "city" = EXCLUDED."city" ' +
        'WHERE ("customers"."vip" = ? AND "customers"."city" = ?) RETURNING "email"',
      params: [...values, false, 'Porto'],
    });
  });

  it('SQL Server: MERGE WITH (HOLDLOCK), $action and the key OUTPUT INTO a table variable, then read', () => {
    expect(DIALECTS.mssql.compileUpsert(plan)).toEqual({
      sql:
        'DECLARE @tg_upsert TABLE ([__tg_action] NVARCHAR(10), [email] NVARCHAR(MAX) NULL); ' +
        'MERGE INTO [shop].[customers] WITH (HOLDLOCK) USING (VALUES (@p1, @p2, @p3), (@p4, @p5, @p6)) ' +
        'AS [__tg_s] ([email], [name], [city]) ON [customers].[email] = [__tg_s].[email] ' +
        'WHEN MATCHED AND ([customers].[vip] = @p7 AND [customers].[city] = @p8) ' +
        'THEN UPDATE SET [name] = [__tg_s].[name], [city] = [__tg_s].[city] ' +
        'WHEN NOT MATCHED BY TARGET THEN INSERT ([email], [name], [city]) ' +
        'VALUES ([__tg_s].[email], [__tg_s].[name], [__tg_s].[city]) ' +
        'OUTPUT $action, INSERTED.[email] INTO @tg_upsert ([__tg_action], [email]); ' +
        "SELECT [email], CASE WHEN [__tg_action] = N'INSERT' THEN 1 ELSE 0 END AS [__tg_inserted] FROM @tg_upsert",
      params: [...values, false, 'Porto'],
    });
  });

  it('MySQL/MariaDB: ON DUPLICATE KEY UPDATE from VALUES(), and refuses what it cannot express', () => {
    const bare = { ...plan, when: ALL_ROWS, scope: ALL_ROWS, returning: [] };
    expect(DIALECTS.mysql.compileUpsert(bare)).toEqual({
      sql:
        'INSERT INTO `shop`.`customers` (`email`, `name`, `city`) VALUES (?, ?, ?), (?, ?, ?) ' +
        'ON DUPLICATE KEY UPDATE `name` = VALUES(`name`), `city` = VALUES(`city`)',
      params: values,
    });
    expect(() => DIALECTS.mysql.compileUpsert(plan)).toThrow(/before the statement/);
    expect(() => DIALECTS.mysql.compileUpsert({ ...bare, returning: ['email'] })).toThrow();
  });

  it('update: [] leaves the existing row: DO NOTHING, no WHEN MATCHED, a plain INSERT on MySQL', () => {
    const none = { ...plan, update: [], when: ALL_ROWS, scope: ALL_ROWS };
    expect(DIALECTS.postgres.compileUpsert(none).sql).toBe(
      'INSERT INTO "shop"."customers" ("email", "name", "city") VALUES ($1, $2, $3), ($4, $5, $6) ' +
        'ON CONFLICT ("email") DO NOTHING RETURNING "email", (xmax = 0) AS "__tg_inserted"',
    );
    expect(DIALECTS.sqlite.compileUpsert({ ...none, returning: [] }).sql).toBe(
      'INSERT INTO "shop"."customers" ("email", "name", "city") VALUES (?, ?, ?), (?, ?, ?) ' +
        'ON CONFLICT ("email") DO NOTHING',
    );
    expect(DIALECTS.mssql.compileUpsert(none).sql).not.toContain('WHEN MATCHED');
    expect(DIALECTS.mysql.compileUpsert({ ...none, returning: [] }).sql).toBe(
      'INSERT INTO `shop`.`customers` (`email`, `name`, `city`) VALUES (?, ?, ?), (?, ?, ?)',
    );
  });

  it('a composite key: every column in the conflict target and in the MERGE condition', () => {
    const composite: UpsertPlan = {
      ...plan,
      columns: ['tenant_id', 'email', 'name'],
      rows: [[7, 'ana@example.com', 'Ana']],
      key: ['tenant_id', 'email'],
      update: ['name'],
      when: ALL_ROWS,
      scope: ALL_ROWS,
    };
    expect(DIALECTS.postgres.compileUpsert(composite).sql).toBe(
      'INSERT INTO "shop"."customers" ("tenant_id", "email", "name") VALUES ($1, $2, $3) ' +
        'ON CONFLICT ("tenant_id", "email") DO UPDATE SET "name" = EXCLUDED."name" ' +
        'RETURNING "email", (xmax = 0) AS "__tg_inserted"',
    );
    expect(DIALECTS.mssql.compileUpsert(composite).sql).toContain(
      'ON [customers].[tenant_id] = [__tg_s].[tenant_id] AND [customers].[email] = [__tg_s].[email] WHEN MATCHED THEN UPDATE SET [name] = [__tg_s].[name]',
    );
  });
});

describe('golden SQL of the locked read of existing keys', () => {
  const read: SelectPlan = {
    table: { schema: 'shop', name: 'customers' },
    columns: ['email'],
    where: { kind: 'in', column: 'email', values: ['a@x', 'b@x'], negated: false },
    scope: ALL_ROWS,
    order: [{ column: 'email', direction: 'ASC', nullable: false }],
    take: null,
    skip: 0,
  };

  it('FOR UPDATE, UPDLOCK/HOLDLOCK, and the plain SELECT on SQLite (BEGIN IMMEDIATE)', () => {
    const out = Object.fromEntries(
      Object.entries(DIALECTS).map(([name, d]) => [name, d.compileSelectForUpdate(read).sql]),
    );
    expect(out).toEqual({
      postgres:
        'SELECT "email" FROM "shop"."customers" WHERE "email" IN ($1, $2) ORDER BY "email" ASC FOR UPDATE',
      mysql:
        'SELECT `email` FROM `shop`.`customers` WHERE `email` IN (?, ?) ORDER BY `email` ASC FOR UPDATE',
      mssql:
        'SELECT [email] FROM [shop].[customers] WITH (UPDLOCK, HOLDLOCK) WHERE [email] IN (@p1, @p2) ORDER BY [customers].[email] ASC',
      sqlite: 'SELECT "email" FROM "shop"."customers" WHERE "email" IN (?, ?) ORDER BY "email" ASC',
    });
  });
});
