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
      mssql: {
        sql: 'INSERT INTO [shop].[customers] ([name], [email]) OUTPUT INSERTED.[id], INSERTED.[email] VALUES (@p1, @p2), (@p3, @p4)',
        params,
      },
      sqlite: {
        sql: 'INSERT INTO "shop"."customers" ("name", "email") VALUES (?, ?), (?, ?) RETURNING "id", "email"',
        params,
      },
    });
  });

  it('reads nothing back when nothing is asked (MySQL before RETURNING)', () => {
    const sql = DIALECTS.mysql.compileInsertMany({ ...plan, returning: [] }).sql;
    expect(sql).toBe('INSERT INTO `shop`.`customers` (`name`, `email`) VALUES (?, ?), (?, ?)');
  });
});
