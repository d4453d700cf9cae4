import type { Dialect, InsertManyPlan } from './dialect';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/** `addMany<Base>` (issue 24 item 1): one multi-row INSERT, four SQL texts side by side. */
const DIALECTS: Record<string, Dialect> = {
  postgres: new PostgresDialect(),
  mysql: new MysqlDialect(),
  mssql: new MssqlDialect(),
  sqlite: new SqliteDialect(),
};

describe('golden SQL of a multi-row INSERT', () => {
  const plan: InsertManyPlan = {
    table: { schema: 'shop', name: 'customers' },
    columns: ['name', 'email'],
    rows: [
      ['Ana', 'ana@example.com'],
      ['Bruno', 'bruno@example.com'],
    ],
    returning: ['id', 'email'],
  };

  it('binds every value in row order and reads the rows back in the same statement', () => {
    const out = Object.fromEntries(
      Object.entries(DIALECTS).map(([name, d]) => [name, d.compileInsertMany(plan)]),
    );
    const params = ['Ana', 'ana@example.com', 'Bruno', 'bruno@example.com'];
    expect(out).toEqual({
      postgres: {
        sql: 'INSERT INTO "shop"."customers" ("name", "email") VALUES ($1, $2), ($3, $4) RETURNING "id", "email"',
        params,
      },
      mysql: {
        sql: 'INSERT INTO `shop`.`customers` (`name`, `email`) VALUES (?, ?), (?, ?) RETURNING `id`, `email`',
        params,
      },
      // SQL Server: a MERGE that inserts every row (ON 1 = 0), each row with its position, so the
      // rows come back in the order sent; OUTPUT … INTO a table variable (triggers allowed).
      mssql: {
        sql:
          'DECLARE @tg_out TABLE ([__tg_n] INT, [id] NVARCHAR(MAX) NULL, [email] NVARCHAR(MAX) NULL); ' +
          'MERGE INTO [shop].[customers] USING (VALUES (@p1, @p2, 0), (@p3, @p4, 1)) AS [__tg_s] ([name], [email], [__tg_n]) ON 1 = 0 ' +
          'WHEN NOT MATCHED THEN INSERT ([name], [email]) VALUES ([__tg_s].[name], [__tg_s].[email]) ' +
          'OUTPUT [__tg_s].[__tg_n], INSERTED.[id], INSERTED.[email] INTO @tg_out ([__tg_n], [id], [email]); ' +
          'SELECT [id], [email] FROM @tg_out ORDER BY [__tg_n]',
        params,
      },
      sqlite: {
        sql: 'INSERT INTO "shop"."customers" ("name", "email") VALUES (?, ?), (?, ?) RETURNING "id", "email"',
        params,
      },
    });
  });

  it('reads nothing back when nothing is asked (MySQL before RETURNING; a plain INSERT on SQL Server)', () => {
    const sql = DIALECTS.mysql.compileInsertMany({ ...plan, returning: [] }).sql;
    expect(sql).toBe('INSERT INTO `shop`.`customers` (`name`, `email`) VALUES (?, ?), (?, ?)');
    expect(DIALECTS.mssql.compileInsertMany({ ...plan, returning: [] }).sql).toBe(
      'INSERT INTO [shop].[customers] ([name], [email]) VALUES (@p1, @p2), (@p3, @p4)',
    );
  });
});
