import { spawnSync } from 'child_process';
import { join } from 'path';
import { DomainError } from '../../common/domain-error';
import { ALL_ROWS } from '../core/dialect';
import type {
  ColumnKind,
  CompiledQuery,
  Condition,
  CountPlan,
  SelectPlan,
  SqlPool,
} from '../core/dialect';
import { parseMssqlUrl } from './pool';
import {
  MssqlColumnRow,
  mssqlColumnFromCatalog,
  mssqlKind,
  mssqlRowEstimatesSql,
  mssqlUniqueKeysSql,
  mssqlTablesFromCatalog,
} from './introspection';
import { MssqlDialect } from './dialect';
import { ROW_NUMBER_ALIAS } from '../core/sql-compiler';
import { modelColumn } from '../../../test/support/model-column';

/**
 * Golden tests of the SQL Server adapter (CONTRACT.md §6: the `where` language, order, take/skip,
 * writes, Values). Every expectation is the exact SQL text and parameter list; no SQL Server runs
 * here (see mssql.live.spec.ts for the suite against a real server).
 */

const ms = new MssqlDialect();

/**
 * Asserts that no value is inlined in the SQL text: outside bracketed identifiers there is no
 * string literal other than `ESCAPE '\'`, no number other than `1=1`/`1=0` and the fixed
 * `NVARCHAR(64)`/style `2` of a decimal read and the collation name, every string parameter is
 * absent from the text, and the placeholders are `@p1…@pN`, each once, in order.
 */
function expectAllValuesBound(q: CompiledQuery): void {
  const outsideIdentifiers = q.sql.replace(/\[(?:[^\]]|\]\])*\]/g, '[]');
  const bare = outsideIdentifiers
    // The table variable's column types come from the model (lengths, precision), not values.
    .replace(/^DECLARE @tg_out TABLE \([^;]*\); /, 'DECLARE; ')
    .replace(/ ESCAPE '\\'/g, '')
    .replace(/@p\d+/g, '?')
    .replace(/\b1=[01]\b/g, 'TRUTH')
    .replace(/CONVERT\(NVARCHAR\(64\), (INSERTED\.)?\[\], 2\)/g, 'DECIMAL')
    .replace(/Latin1_General_100_BIN2/g, 'COLLATION');
  expect(bare).not.toMatch(/'/);
  expect(bare).not.toMatch(/\d/);
  for (const p of q.params) {
    if (typeof p === 'string' && p.length > 1) expect(outsideIdentifiers).not.toContain(p);
  }
  const used = [...q.sql.matchAll(/@p(\d+)/g)].map((m) => Number(m[1]));
  expect(used).toEqual(q.params.map((_, i) => i + 1));
}

function select(plan: SelectPlan): CompiledQuery {
  const q = ms.compileSelect(plan);
  expectAllValuesBound(q);
  return q;
}

function count(plan: CountPlan): CompiledQuery {
  const q = ms.compileCount(plan);
  expectAllValuesBound(q);
  return q;
}

/** A one-table read of `dbo.customer`, ordered by id, with the given filter and no page. */
function customers(where: Condition): SelectPlan {
  return {
    scope: ALL_ROWS,
    table: { schema: 'dbo', name: 'customer' },
    columns: ['id', 'name'],
    where,
    order: [{ column: 'id', direction: 'ASC' }],
    take: null,
    skip: 0,
  };
}

const TRUE: Condition = { kind: 'and', items: [] };
const HEAD = 'SELECT [id], [name] FROM [dbo].[customer] WHERE';
const BY_ID = 'ORDER BY [customer].[id] ASC';

describe('MssqlDialect golden SQL', () => {
  describe('comparison operators', () => {
    const cases: { op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; sql: string }[] = [
      { op: 'eq', sql: '=' },
      { op: 'neq', sql: '<>' },
      { op: 'gt', sql: '>' },
      { op: 'gte', sql: '>=' },
      { op: 'lt', sql: '<' },
      { op: 'lte', sql: '<=' },
    ];
    it.each(cases)('$op compiles to $sql with one bound @p1', ({ op, sql }) => {
      expect(
        select(customers({ kind: 'compare', column: 'name', op, value: 'Ada Lovelace' })),
      ).toEqual({
        sql: `${HEAD} [name] ${sql} @p1 ${BY_ID}`,
        params: ['Ada Lovelace'],
      });
    });

    it('binds numbers, booleans and bigints as parameters, never as text', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'customer' },
        where: {
          kind: 'and',
          items: [
            { kind: 'compare', column: 'age', op: 'gte', value: 4711 },
            { kind: 'compare', column: 'vip', op: 'eq', value: true },
            { kind: 'compare', column: 'balance', op: 'lt', value: 9007199254740993n },
          ],
        },
      });
      expect(q).toEqual({
        sql: 'SELECT COUNT(*) AS [count] FROM [dbo].[customer] WHERE ([age] >= @p1 AND [vip] = @p2 AND [balance] < @p3)',
        params: [4711, true, 9007199254740993n],
      });
    });
  });

  describe('null tests', () => {
    it('eq null is IS NULL, with no parameter', () => {
      expect(select(customers({ kind: 'null', column: 'email', negated: false }))).toEqual({
        sql: `${HEAD} [email] IS NULL ${BY_ID}`,
        params: [],
      });
    });

    it('neq null is IS NOT NULL, with no parameter', () => {
      expect(select(customers({ kind: 'null', column: 'email', negated: true }))).toEqual({
        sql: `${HEAD} [email] IS NOT NULL ${BY_ID}`,
        params: [],
      });
    });
  });

  describe('in / nin', () => {
    it('in binds one parameter per value', () => {
      expect(
        select(customers({ kind: 'in', column: 'id', values: [1101, 1102, 1103], negated: false })),
      ).toEqual({
        sql: `${HEAD} [id] IN (@p1, @p2, @p3) ${BY_ID}`,
        params: [1101, 1102, 1103],
      });
    });

    it('nin is NOT IN', () => {
      expect(
        select(customers({ kind: 'in', column: 'name', values: ['Ada', 'Grace'], negated: true })),
      ).toEqual({
        sql: `${HEAD} [name] NOT IN (@p1, @p2) ${BY_ID}`,
        params: ['Ada', 'Grace'],
      });
    });

    it('in: [] matches nothing (1=0), nin: [] everything (1=1)', () => {
      expect(select(customers({ kind: 'in', column: 'id', values: [], negated: false }))).toEqual({
        sql: `${HEAD} 1=0 ${BY_ID}`,
        params: [],
      });
      expect(select(customers({ kind: 'in', column: 'id', values: [], negated: true }))).toEqual({
        sql: `${HEAD} 1=1 ${BY_ID}`,
        params: [],
      });
    });
  });

  describe('contains / startsWith / endsWith', () => {
    const like = (column: string, p: string) =>
      `LOWER(CAST([${column}] AS NVARCHAR(MAX))) COLLATE Latin1_General_100_BIN2 LIKE LOWER(${p}) ESCAPE '\\'`;
    const cases: { mode: 'contains' | 'startsWith' | 'endsWith'; pattern: string }[] = [
      { mode: 'contains', pattern: '%lovelace%' },
      { mode: 'startsWith', pattern: 'lovelace%' },
      { mode: 'endsWith', pattern: '%lovelace' },
    ];
    it.each(cases)(
      '$mode: LOWER both sides under a binary collation, pattern $pattern bound',
      ({ mode, pattern }) => {
        expect(
          select(customers({ kind: 'like', column: 'name', mode, value: 'lovelace' })),
        ).toEqual({
          sql: `${HEAD} ${like('name', '@p1')} ${BY_ID}`,
          params: [pattern],
        });
      },
    );

    it('escapes %, _, [ and \\ (the escape character); ] and ^ are ordinary outside a class', () => {
      const q = count({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'contains', value: '50%_off\\[sale]^' },
      });
      expect(q).toEqual({
        sql: `SELECT COUNT(*) AS [count] FROM [dbo].[product] WHERE ${like('title', '@p1')}`,
        params: ['%50\\%\\_off\\\\\\[sale]^%'],
      });
    });

    it('escapes in startsWith and endsWith the same way', () => {
      const starts = count({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'startsWith', value: '[a]_b%' },
      });
      const ends = count({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'product' },
        where: { kind: 'like', column: 'title', mode: 'endsWith', value: 'c\\d[' },
      });
      expect(starts.params).toEqual(['\\[a]\\_b\\%%']);
      expect(ends.params).toEqual(['%c\\\\d\\[']);
    });
  });

  describe('and / or', () => {
    it('and: [] is no WHERE, or: [] is 1=0', () => {
      expect(
        count({ scope: ALL_ROWS, table: { schema: 'dbo', name: 'customer' }, where: TRUE }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS [count] FROM [dbo].[customer]',
        params: [],
      });
      expect(
        count({
          scope: ALL_ROWS,
          table: { schema: 'dbo', name: 'customer' },
          where: { kind: 'or', items: [] },
        }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS [count] FROM [dbo].[customer] WHERE 1=0',
        params: [],
      });
    });

    it('nests and/or with parentheses, parameters numbered in text order', () => {
      const where: Condition = {
        kind: 'and',
        items: [
          {
            kind: 'or',
            items: [
              { kind: 'compare', column: 'name', op: 'eq', value: 'Ada' },
              { kind: 'like', column: 'email', mode: 'endsWith', value: '@example.org' },
              { kind: 'and', items: [] },
            ],
          },
          { kind: 'compare', column: 'id', op: 'gt', value: 500 },
          { kind: 'or', items: [] },
          {
            kind: 'and',
            items: [
              { kind: 'null', column: 'deleted_at', negated: false },
              { kind: 'in', column: 'tier', values: ['gold', 'platinum'], negated: false },
            ],
          },
        ],
      };
      expect(select(customers(where))).toEqual({
        sql:
          `${HEAD} (([name] = @p1 OR LOWER(CAST([email] AS NVARCHAR(MAX))) COLLATE Latin1_General_100_BIN2 LIKE LOWER(@p2) ESCAPE '\\' OR 1=1)` +
          ` AND [id] > @p3 AND 1=0 AND ([deleted_at] IS NULL AND [tier] IN (@p4, @p5))) ${BY_ID}`,
        params: ['Ada', '%@example.org', 500, 'gold', 'platinum'],
      });
    });

    it('a single-item or is still parenthesised', () => {
      expect(
        count({
          scope: ALL_ROWS,
          table: { schema: 'dbo', name: 'customer' },
          where: {
            kind: 'or',
            items: [{ kind: 'compare', column: 'name', op: 'neq', value: 'Bob' }],
          },
        }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS [count] FROM [dbo].[customer] WHERE ([name] <> @p1)',
        params: ['Bob'],
      });
    });
  });

  describe('order', () => {
    it('multi-column order, names qualified by the table; NULLs first under ASC and last under DESC natively', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'sales', name: 'customer' },
        columns: ['id', 'name', 'email'],
        where: TRUE,
        order: [
          { column: 'name', direction: 'DESC' },
          { column: 'email', direction: 'ASC' },
          { column: 'id', direction: 'ASC' },
        ],
        take: null,
        skip: 0,
      });
      expect(q).toEqual({
        sql: 'SELECT [id], [name], [email] FROM [sales].[customer] ORDER BY [customer].[name] DESC, [customer].[email] ASC, [customer].[id] ASC',
        params: [],
      });
    });
  });

  describe('pagination', () => {
    const base = (take: number | null, skip: number): SelectPlan => ({
      scope: ALL_ROWS,
      table: { schema: 'dbo', name: 'customer' },
      columns: ['id'],
      where: { kind: 'compare', column: 'name', op: 'eq', value: 'Ada' },
      order: [{ column: 'id', direction: 'DESC' }],
      take,
      skip,
    });
    const head =
      'SELECT [id] FROM [dbo].[customer] WHERE [name] = @p1 ORDER BY [customer].[id] DESC';

    it('take only: OFFSET @p ROWS FETCH NEXT @p ROWS ONLY after ORDER BY, offset 0 bound', () => {
      expect(select(base(25, 0))).toEqual({
        sql: `${head} OFFSET @p2 ROWS FETCH NEXT @p3 ROWS ONLY`,
        params: ['Ada', 0, 25],
      });
    });

    it('take and skip', () => {
      expect(select(base(25, 50))).toEqual({
        sql: `${head} OFFSET @p2 ROWS FETCH NEXT @p3 ROWS ONLY`,
        params: ['Ada', 50, 25],
      });
    });

    it('skip without take (take null): OFFSET only', () => {
      expect(select(base(null, 50))).toEqual({
        sql: `${head} OFFSET @p2 ROWS`,
        params: ['Ada', 50],
      });
    });

    it('no take and no skip: no pagination clause', () => {
      expect(select(base(null, 0))).toEqual({ sql: head, params: ['Ada'] });
    });

    it('take: 0 is a false filter, since FETCH NEXT 0 ROWS is refused (error 10744)', () => {
      expect(select(base(0, 10))).toEqual({
        sql: 'SELECT [id] FROM [dbo].[customer] WHERE ([name] = @p1 AND 1=0) ORDER BY [customer].[id] DESC',
        params: ['Ada'],
      });
    });
  });

  describe('partitioned select (batched one-to-many)', () => {
    const plan = (take: number | null, skip: number): SelectPlan => ({
      scope: ALL_ROWS,
      table: { schema: 'dbo', name: 'orders' },
      columns: ['id', 'customer_id', 'total'],
      kinds: { id: 'int', customer_id: 'int', total: 'decimal' },
      where: {
        kind: 'and',
        items: [
          { kind: 'in', column: 'customer_id', values: [101, 102], negated: false },
          { kind: 'compare', column: 'total', op: 'gt', value: '10.50' },
        ],
      },
      order: [
        { column: 'placed_at', direction: 'DESC' },
        { column: 'id', direction: 'ASC' },
      ],
      take,
      skip,
      partition: { column: 'customer_id' },
    });
    const inner =
      'SELECT [id], [customer_id], CONVERT(NVARCHAR(64), [total], 2) AS [total], ROW_NUMBER() OVER (PARTITION BY [customer_id] ' +
      `ORDER BY [placed_at] DESC, [id] ASC) AS [${ROW_NUMBER_ALIAS}] FROM [dbo].[orders] WHERE ([customer_id] IN (@p1, @p2) AND [total] > @p3)`;

    it('numbers rows per partition and pages on the row number (take and skip)', () => {
      expect(select(plan(3, 1))).toEqual({
        sql: `SELECT [id], [customer_id], [total] FROM (${inner}) [__tg_p] WHERE [${ROW_NUMBER_ALIAS}] > @p4 AND [${ROW_NUMBER_ALIAS}] <= @p5 ORDER BY [${ROW_NUMBER_ALIAS}]`,
        params: [101, 102, '10.50', 1, 4],
      });
    });

    it('take null: only the lower bound', () => {
      expect(select(plan(null, 0))).toEqual({
        sql: `SELECT [id], [customer_id], [total] FROM (${inner}) [__tg_p] WHERE [${ROW_NUMBER_ALIAS}] > @p4 ORDER BY [${ROW_NUMBER_ALIAS}]`,
        params: [101, 102, '10.50', 0],
      });
    });
  });

  describe('count', () => {
    it('COUNT(*) AS [count] with the filter bound', () => {
      expect(
        count({
          scope: ALL_ROWS,
          table: { schema: 'dbo', name: 'customer' },
          where: { kind: 'compare', column: 'tier', op: 'eq', value: 'gold' },
        }),
      ).toEqual({
        sql: 'SELECT COUNT(*) AS [count] FROM [dbo].[customer] WHERE [tier] = @p1',
        params: ['gold'],
      });
    });
  });

  describe('decimal columns are read as exact text', () => {
    it('select list: CONVERT(NVARCHAR(64), col, 2) AS [col]; ORDER BY still sorts the number (qualified name)', () => {
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'product' },
        columns: ['id', 'price', 'name', 'weight'],
        kinds: { id: 'int', price: 'decimal', name: 'text', weight: 'float' },
        where: { kind: 'compare', column: 'price', op: 'gte', value: '12.3456' },
        order: [
          { column: 'price', direction: 'DESC' },
          { column: 'id', direction: 'ASC' },
        ],
        take: 10,
        skip: 0,
      });
      expect(q).toEqual({
        sql:
          'SELECT [id], CONVERT(NVARCHAR(64), [price], 2) AS [price], [name], [weight] FROM [dbo].[product] WHERE [price] >= @p1' +
          ' ORDER BY [product].[price] DESC, [product].[id] ASC OFFSET @p2 ROWS FETCH NEXT @p3 ROWS ONLY',
        params: ['12.3456', 0, 10],
      });
    });

    it('without kinds nothing is cast', () => {
      const q = select({ ...customers(TRUE), columns: ['price'] });
      expect(q.sql).toBe(`SELECT [price] FROM [dbo].[customer] ${BY_ID}`);
    });
  });

  describe('writes', () => {
    it('insert with values reads back with OUTPUT INSERTED INTO a table variable before VALUES; decimals as text', () => {
      const q = ms.compileInsert({
        table: { schema: 'dbo', name: 'orders' },
        values: [
          { column: 'customer_id', value: 7 },
          { column: 'total', value: '99999999999999999.99' },
          { column: 'note', value: "it's [here]" },
        ],
        returning: ['id', 'total', 'note'],
        kinds: { id: 'int', total: 'decimal', note: 'text' },
        model: {
          total: modelColumn('total', 'decimal', {
            dbType: 'decimal',
            declaredType: 'decimal(19,2)',
          }),
          note: modelColumn('note', 'text', { dbType: 'varchar', declaredType: 'varchar(200)' }),
        },
      });
      expectAllValuesBound(q);
      expect(q).toEqual({
        sql:
          'DECLARE @tg_out TABLE ([id] INT NULL, [total] DECIMAL(19,2) NULL, [note] NVARCHAR(200) NULL); ' +
          'INSERT INTO [dbo].[orders] ([customer_id], [total], [note]) OUTPUT INSERTED.[id], INSERTED.[total], INSERTED.[note] INTO @tg_out ([id], [total], [note])' +
          ' VALUES (@p1, @p2, @p3); SELECT [id], CONVERT(NVARCHAR(64), [total], 2) AS [total], [note] FROM @tg_out',
        params: [7, '99999999999999999.99', "it's [here]"],
      });
    });

    it('insert of no values: OUTPUT … INTO before DEFAULT VALUES', () => {
      const q = ms.compileInsert({
        table: { schema: 'dbo', name: 'tick' },
        values: [],
        returning: ['id', 'at'],
        kinds: { id: 'bigint', at: 'timestamp' },
      });
      expect(q).toEqual({
        sql:
          'DECLARE @tg_out TABLE ([id] BIGINT NULL, [at] DATETIME2(7) NULL); ' +
          'INSERT INTO [dbo].[tick] OUTPUT INSERTED.[id], INSERTED.[at] INTO @tg_out ([id], [at]) DEFAULT VALUES; SELECT [id], [at] FROM @tg_out',
        params: [],
      });
    });

    it('insert with nothing to read back has no OUTPUT', () => {
      expect(
        ms.compileInsert({
          table: { schema: 'dbo', name: 'tick' },
          values: [{ column: 'n', value: 1 }],
          returning: [],
        }),
      ).toEqual({
        sql: 'INSERT INTO [dbo].[tick] ([n]) VALUES (@p1)',
        params: [1],
      });
      expect(
        ms.compileInsert({ table: { schema: 'dbo', name: 'tick' }, values: [], returning: [] }),
      ).toEqual({ sql: 'INSERT INTO [dbo].[tick] DEFAULT VALUES', params: [] });
    });

    it('update: SET, then OUTPUT INSERTED … INTO, then WHERE; parameters in text order', () => {
      const q = ms.compileUpdate({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'orders' },
        set: [
          { column: 'status', value: 'paid' },
          { column: 'total', value: '10.00' },
        ],
        where: { kind: 'compare', column: 'id', op: 'eq', value: 42 },
        returning: ['id', 'status', 'total'],
        kinds: { id: 'int', status: 'text', total: 'decimal' },
      });
      expectAllValuesBound(q);
      expect(q).toEqual({
        sql:
          'DECLARE @tg_out TABLE ([id] INT NULL, [status] NVARCHAR(MAX) NULL, [total] SQL_VARIANT NULL); ' +
          'UPDATE [dbo].[orders] SET [status] = @p1, [total] = @p2 OUTPUT INSERTED.[id], INSERTED.[status], INSERTED.[total] INTO @tg_out ([id], [status], [total])' +
          ' WHERE [id] = @p3; SELECT [id], [status], CONVERT(NVARCHAR(64), [total], 2) AS [total] FROM @tg_out',
        params: ['paid', '10.00', 42],
      });
    });

    it('update with nothing to read back has no OUTPUT', () => {
      expect(
        ms.compileUpdate({
          scope: ALL_ROWS,
          table: { schema: 'dbo', name: 'orders' },
          set: [{ column: 'status', value: null }],
          where: { kind: 'compare', column: 'id', op: 'eq', value: 1 },
          returning: [],
        }),
      ).toEqual({
        sql: 'UPDATE [dbo].[orders] SET [status] = @p1 WHERE [id] = @p2',
        params: [null, 1],
      });
    });

    it('delete by key', () => {
      const q = ms.compileDelete({
        scope: ALL_ROWS,
        table: { schema: 'dbo', name: 'memberships' },
        where: {
          kind: 'and',
          items: [
            { kind: 'compare', column: 'tenant_id', op: 'eq', value: 7 },
            { kind: 'compare', column: 'slug', op: 'eq', value: 'sales' },
          ],
        },
      });
      expectAllValuesBound(q);
      expect(q).toEqual({
        sql: 'DELETE FROM [dbo].[memberships] WHERE ([tenant_id] = @p1 AND [slug] = @p2)',
        params: [7, 'sales'],
      });
    });

    it('capabilities: OUTPUT on insert and update', () => {
      expect(ms.capabilities()).toEqual({ insertReturning: true, updateReturning: true });
    });
  });

  describe('quoting', () => {
    it('brackets, with ] doubled, in schema, table, columns, order, OUTPUT and aliases', () => {
      expect(ms.quote('a]b')).toBe('[a]]b]');
      expect(ms.quote('[x]')).toBe('[[x]]]');
      expect(ms.quote('Display Name')).toBe('[Display Name]');
      const q = select({
        scope: ALL_ROWS,
        table: { schema: 'we]ird', name: 'ta]ble' },
        columns: ['c]1', 'am]t'],
        kinds: { 'c]1': 'text', 'am]t': 'decimal' },
        where: { kind: 'compare', column: 'c]1', op: 'eq', value: ']; DROP TABLE x; --' },
        order: [{ column: 'c]1', direction: 'ASC' }],
        take: null,
        skip: 0,
      });
      expect(q).toEqual({
        sql: 'SELECT [c]]1], CONVERT(NVARCHAR(64), [am]]t], 2) AS [am]]t] FROM [we]]ird].[ta]]ble] WHERE [c]]1] = @p1 ORDER BY [ta]]ble].[c]]1] ASC',
        params: [']; DROP TABLE x; --'],
      });
      const ins = ms.compileInsert({
        table: { schema: 'dbo', name: 't]' },
        values: [{ column: 'v]', value: 1 }],
        returning: ['v]'],
      });
      expect(ins.sql).toBe(
        'DECLARE @tg_out TABLE ([v]]] NVARCHAR(MAX) NULL); INSERT INTO [dbo].[t]]] ([v]]]) OUTPUT INSERTED.[v]]] INTO @tg_out ([v]]]) VALUES (@p1); SELECT [v]]] FROM @tg_out',
      );
    });
  });
});

describe('parseMssqlUrl / MssqlDialect.connectionConfig', () => {
  it('parses user, password, host, port, database and the TLS flags; pins UTC, language and date format', () => {
    const config = ms.connectionConfig(
      'mssql://sa:S3cret!@db.example.com:14330/shop?encrypt=true&trustServerCertificate=true',
      7,
    );
    expect(config).toEqual({
      server: 'db.example.com',
      port: 14330,
      user: 'sa',
      password: 'S3cret!',
      database: 'shop',
      connectionTimeout: 5000,
      requestTimeout: 15000,
      pool: { max: 7, min: 0, idleTimeoutMillis: 30000 },
      options: {
        encrypt: true,
        trustServerCertificate: true,
        useUTC: true,
        language: 'us_english',
        dateFormat: 'ymd',
        lowerCaseGuids: true,
        appName: 'tablegraph',
      },
    });
  });

  it('sqlserver:// is the same; port 1433 by default; percent-encoded parts are decoded', () => {
    const config = parseMssqlUrl('sqlserver://app%40corp:p%40ss%3Aw%2Fd@10.0.0.5/My%20Db');
    expect(config).toMatchObject({
      server: '10.0.0.5',
      port: 1433,
      user: 'app@corp',
      password: 'p@ss:w/d',
      database: 'My Db',
      pool: { max: 10 },
    });
    expect(config.options).toMatchObject({
      encrypt: true,
      trustServerCertificate: false,
      useUTC: true,
    });
  });

  it('accepts an IPv6 host, a missing database, instanceName, timeouts and boolean spellings', () => {
    const config = parseMssqlUrl(
      'mssql://u:p@[::1]:1500?Encrypt=no&TrustServerCertificate=1&instanceName=SQLEXPRESS&connectTimeout=2500&requestTimeout=60000',
    );
    expect(config).toMatchObject({
      server: '::1',
      port: 1500,
      database: undefined,
      connectionTimeout: 2500,
      requestTimeout: 60000,
    });
    expect(config.options).toMatchObject({
      encrypt: false,
      trustServerCertificate: true,
      instanceName: 'SQLEXPRESS',
    });
  });

  it.each([
    ['postgres://u:p@h/db', 'starts with mssql:// or sqlserver://'],
    ['mssql://u:secretpw@h/db?bogus=1', 'Unknown mssql datasource URL parameter "bogus"'],
    ['mssql://u:secretpw@h/db?encrypt=maybe', '"encrypt" takes true or false'],
    ['mssql://u:secretpw@h/db?connectTimeout=-5', '"connectTimeout" takes whole milliseconds'],
    ['mssql://u:secretpw@h:99999/db', 'not a valid URL'],
    ['mssql://u:secretpw@h/db/extra', 'database name only'],
  ])('refuses %s with INVALID_INPUT, never echoing the password', (url, message) => {
    let caught: unknown;
    try {
      parseMssqlUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).code).toBe('INVALID_INPUT');
    expect((caught as DomainError).message).toContain(message);
    expect((caught as DomainError).message).not.toContain('secretpw');
  });
});

describe('mssqlKind', () => {
  it.each<[string, ColumnKind]>([
    ['tinyint', 'int'],
    ['smallint', 'int'],
    ['int', 'int'],
    ['INT', 'int'],
    ['bigint', 'bigint'],
    ['decimal', 'decimal'],
    ['decimal(38, 10)', 'decimal'],
    ['numeric', 'decimal'],
    ['money', 'decimal'],
    ['smallmoney', 'decimal'],
    ['real', 'float'],
    ['float', 'float'],
    ['bit', 'boolean'],
    ['date', 'date'],
    ['datetime', 'timestamp'],
    ['datetime2', 'timestamp'],
    ['datetime2(3)', 'timestamp'],
    ['smalldatetime', 'timestamp'],
    ['datetimeoffset', 'timestamptz'],
    ['time', 'time'],
    ['uniqueidentifier', 'uuid'],
    ['json', 'json'],
    ['nvarchar', 'text'],
    ['nvarchar(max)', 'text'],
    ['varchar', 'text'],
    ['nchar', 'text'],
    ['char', 'text'],
    ['ntext', 'text'],
    ['text', 'text'],
    ['sysname', 'text'],
    ['xml', 'other'],
    ['varbinary', 'binary'],
    ['image', 'other'],
    ['timestamp', 'text'],
    ['rowversion', 'text'],
    ['sql_variant', 'other'],
    ['hierarchyid', 'other'],
  ])('%s → %s', (type, kind) => {
    expect(mssqlKind(type)).toBe(kind);
  });
});

describe('introspection rows → model', () => {
  const row = (over: Partial<MssqlColumnRow>): MssqlColumnRow => ({
    schema_name: 'dbo',
    table_name: 'customer',
    table_kind: 'table',
    column_name: 'c',
    type_name: 'int',
    max_length: 4,
    is_nullable: false,
    is_identity: false,
    is_computed: false,
    has_default: false,
    generated_always_type: 0,
    ...over,
  });

  it('nvarchar lengths are characters (max_length / 2); varchar bytes; (max) is -1 → null', () => {
    expect(mssqlColumnFromCatalog(row({ type_name: 'nvarchar', max_length: 100 })).maxLength).toBe(
      50,
    );
    expect(mssqlColumnFromCatalog(row({ type_name: 'nchar', max_length: 2 })).maxLength).toBe(1);
    expect(mssqlColumnFromCatalog(row({ type_name: 'varchar', max_length: 30 })).maxLength).toBe(
      30,
    );
    expect(
      mssqlColumnFromCatalog(row({ type_name: 'nvarchar', max_length: -1 })).maxLength,
    ).toBeNull();
    expect(
      mssqlColumnFromCatalog(row({ type_name: 'varbinary', max_length: 16 })).maxLength,
    ).toBeNull();
    expect(
      mssqlColumnFromCatalog(row({ type_name: 'ntext', max_length: 16 })).maxLength,
    ).toBeNull();
    expect(mssqlColumnFromCatalog(row({ type_name: 'int', max_length: 4 })).maxLength).toBeNull();
  });

  it('identity is generated; computed, rowversion and period columns are generated and computed', () => {
    expect(mssqlColumnFromCatalog(row({ is_identity: true }))).toMatchObject({
      generated: true,
      computed: false,
    });
    expect(mssqlColumnFromCatalog(row({ is_computed: true }))).toMatchObject({
      generated: true,
      computed: true,
    });
    expect(mssqlColumnFromCatalog(row({ type_name: 'timestamp', max_length: 8 }))).toMatchObject({
      generated: true,
      computed: true,
      kind: 'text',
    });
    expect(
      mssqlColumnFromCatalog(row({ type_name: 'datetime2', generated_always_type: 1 })),
    ).toMatchObject({ generated: true, computed: true });
    expect(
      mssqlColumnFromCatalog(row({ type_name: 'datetime2', generated_always_type: null })),
    ).toMatchObject({ generated: false, computed: false });
    expect(
      mssqlColumnFromCatalog(row({ is_nullable: true, has_default: true, type_name: 'DECIMAL' })),
    ).toEqual({
      name: 'c',
      dbType: 'decimal',
      kind: 'decimal',
      nullable: true,
      hasDefault: true,
      generated: false,
      computed: false,
      maxLength: null,
      enum: null,
    });
  });

  it('assembles tables in the asked order with keys and multi-column foreign keys; unknown tables are left out', () => {
    const tables = mssqlTablesFromCatalog(
      [
        { schema: 'sales', name: 'order_line' },
        { schema: null, name: 'missing' },
        { schema: 'dbo', name: 'customer' },
      ],
      [
        row({ column_name: 'id', is_identity: true }),
        row({ column_name: 'name', type_name: 'nvarchar', max_length: 200 }),
        row({ schema_name: 'sales', table_name: 'order_line', column_name: 'order_id' }),
        row({
          schema_name: 'sales',
          table_name: 'order_line',
          column_name: 'line_no',
          type_name: 'smallint',
          max_length: 2,
        }),
        row({ schema_name: 'sales', table_name: 'order_line', column_name: 'customer_id' }),
      ],
      [
        { schema_name: 'dbo', table_name: 'customer', column_name: 'id' },
        { schema_name: 'sales', table_name: 'order_line', column_name: 'order_id' },
        { schema_name: 'sales', table_name: 'order_line', column_name: 'line_no' },
      ],
      [
        {
          fk_id: 9,
          schema_name: 'sales',
          table_name: 'order_line',
          column_name: 'customer_id',
          ref_schema: 'dbo',
          ref_table: 'customer',
          ref_column: 'id',
        },
        {
          fk_id: 11,
          schema_name: 'sales',
          table_name: 'order_line',
          column_name: 'order_id',
          ref_schema: 'sales',
          ref_table: 'order',
          ref_column: 'id',
        },
        {
          fk_id: 11,
          schema_name: 'sales',
          table_name: 'order_line',
          column_name: 'line_no',
          ref_schema: 'sales',
          ref_table: 'order',
          ref_column: 'line',
        },
      ],
    );
    expect(tables.map((t) => `${t.schema}.${t.dbName}`)).toEqual([
      'sales.order_line',
      'dbo.customer',
    ]);
    expect(tables[0].primaryKey).toEqual(['order_id', 'line_no']);
    expect(tables[0].foreignKeys).toEqual([
      {
        columns: ['customer_id'],
        referencedSchema: 'dbo',
        referencedTable: 'customer',
        referencedColumns: ['id'],
      },
      {
        columns: ['order_id', 'line_no'],
        referencedSchema: 'sales',
        referencedTable: 'order',
        referencedColumns: ['id', 'line'],
      },
    ]);
    expect(tables[1].primaryKey).toEqual(['id']);
    expect(tables[1].columns.map((c) => [c.name, c.maxLength, c.generated])).toEqual([
      ['id', null, true],
      ['name', 100, false],
    ]);
  });
});

describe('introspection of views (issue 11; golden SQL, no server)', () => {
  /** Records statements; answers the column query with `columns`, the key queries with nothing. */
  function pool(columns: MssqlColumnRow[]): SqlPool & { queries: CompiledQuery[] } {
    const queries: CompiledQuery[] = [];
    return {
      queries,
      run: (query) => {
        queries.push(query);
        const rows = queries.length % 3 === 1 ? columns : [];
        return Promise.resolve({ rows: rows as never, affected: undefined });
      },
      transaction: () => Promise.reject(new Error('not used')),
      readOnly: () => Promise.reject(new Error('not used')),
      serverVersion: () => Promise.resolve('16.0'),
      close: () => Promise.resolve(),
    };
  }

  const viewColumn = (column_name: string, type_name: string): MssqlColumnRow => ({
    schema_name: 'dbo',
    table_name: 'film_list',
    table_kind: 'view',
    column_name,
    type_name,
    max_length: type_name === 'nvarchar' ? 100 : 4,
    is_nullable: true,
    is_identity: false,
    is_computed: false,
    has_default: false,
    generated_always_type: 0,
  });

  it('resolves names with OBJECT_ID of any type and keeps user tables and views (sys.objects U, V)', async () => {
    const p = pool([viewColumn('fid', 'int'), viewColumn('title', 'nvarchar')]);
    const tables = await ms.introspect(p, [
      { schema: null, name: 'film_list' },
      { schema: 'sales', name: 'orders' },
    ]);
    expect(p.queries).toHaveLength(5);
    expect(p.queries[3].sql).toBe(mssqlRowEstimatesSql('OBJECT_ID(@p1), OBJECT_ID(@p2)'));
    expect(p.queries[4].sql).toBe(mssqlUniqueKeysSql('OBJECT_ID(@p1), OBJECT_ID(@p2)'));
    for (const q of p.queries) {
      expect(q.params).toEqual(['[dbo].[film_list]', '[sales].[orders]']);
      expect(q.sql).toContain('IN (OBJECT_ID(@p1), OBJECT_ID(@p2))');
      expect(q.sql).not.toContain("N'U'");
    }
    expect(p.queries[0].sql).toBe(`SELECT s.name AS [schema_name], o.name AS [table_name],
         CASE WHEN o.type = 'V' THEN 'view' ELSE 'table' END AS [table_kind], c.name AS [column_name],
         CASE WHEN ty.is_user_defined = 1 AND ty.is_assembly_type = 0 THEN TYPE_NAME(ty.system_type_id) ELSE ty.name END AS [type_name],
         c.max_length AS [max_length], c.precision AS [precision], c.scale AS [scale], c.is_nullable AS [is_nullable], c.is_identity AS [is_identity], c.is_computed AS [is_computed],
         CAST(CASE WHEN c.default_object_id <> 0 THEN 1 ELSE 0 END AS bit) AS [has_default],
         COLUMNPROPERTY(c.object_id, c.name, 'GeneratedAlwaysType') AS [generated_always_type],
         (SELECT CAST(p.value AS nvarchar(4000)) FROM sys.extended_properties p
           WHERE p.class = 1 AND p.major_id = o.object_id AND p.minor_id = c.column_id AND p.name = N'MS_Description') AS [column_comment],
         (SELECT CAST(p.value AS nvarchar(4000)) FROM sys.extended_properties p
           WHERE p.class = 1 AND p.major_id = o.object_id AND p.minor_id = 0 AND p.name = N'MS_Description') AS [table_comment]
         FROM sys.columns c
         JOIN sys.objects o ON o.object_id = c.object_id AND o.type IN ('U', 'V')
         JOIN sys.schemas s ON s.schema_id = o.schema_id
         JOIN sys.types ty ON ty.user_type_id = c.user_type_id
         WHERE c.object_id IN (OBJECT_ID(@p1), OBJECT_ID(@p2))
         ORDER BY s.name, o.name, c.column_id`);
    expect(tables).toEqual([
      {
        schema: 'dbo',
        dbName: 'film_list',
        kind: 'view',
        columns: [
          expect.objectContaining({ name: 'fid', kind: 'int', nullable: true }),
          expect.objectContaining({ name: 'title', kind: 'text', maxLength: 50 }),
        ],
        primaryKey: [],
        foreignKeys: [],
      },
    ]);
  });

  it('a table row without a view kind assembles as a table', () => {
    const [t] = mssqlTablesFromCatalog(
      [{ schema: 'dbo', name: 'film' }],
      [{ ...viewColumn('id', 'int'), table_name: 'film', table_kind: 'table' }],
      [{ schema_name: 'dbo', table_name: 'film', column_name: 'id' }],
      [],
    );
    expect(t).toMatchObject({ dbName: 'film', kind: 'table', primaryKey: ['id'] });
  });
});

const col = (kind: ColumnKind, dbType: string) => modelColumn('v', kind, { dbType });

/**
 * Dates exactly as tedious v19 builds them with `useUTC: true` (lib/value-parser.js `readDate`,
 * `readDateTime`, `readSmallDateTime`, `readDateTime2`, `readTime`, `readDateTimeOffset`): the
 * stored fields become the Date's UTC fields; a datetimeoffset becomes its UTC instant.
 */
const tedious = {
  /** `date`: days since 0001-01-01. */
  date: (y: number, mo: number, d: number) =>
    new Date(Date.UTC(2000, 0, daysSinceYearOne(y, mo, d) - 730118)),
  /** `datetime`: days since 1900-01-01 and 1/300 s ticks, rounded to milliseconds. */
  datetime: (days: number, ticks: number) =>
    new Date(Date.UTC(1900, 0, 1 + days, 0, 0, 0, Math.round(ticks * (3 + 1 / 3)))),
  /** `datetime2(7)`: days since 0001-01-01 and 100 ns units since midnight. */
  datetime2: (days: number, units: number) =>
    new Date(Date.UTC(2000, 0, days - 730118, 0, 0, 0, units / 10000)),
  /** `time(7)`: 100 ns units since midnight, on 1970-01-01. */
  time: (units: number) => new Date(Date.UTC(1970, 0, 1, 0, 0, 0, units / 10000)),
};

/** Days from 0001-01-01 to the given date (what SQL Server stores for date/datetime2). */
function daysSinceYearOne(y: number, mo: number, d: number): number {
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  const one = new Date(0);
  one.setUTCFullYear(1, 0, 1);
  return Math.round((at.getTime() - one.getTime()) / 864e5);
}

/** Date and time values as tedious gives them, with the output each must have (CONTRACT.md §6). */
const TEMPORAL_CASES: {
  what: string;
  kind: ColumnKind;
  dbType: string;
  raw: Date | string;
  out: string;
}[] = [
  // 23:59:58.1234567 → tedious keeps milliseconds.
  {
    what: 'datetime2 late evening',
    kind: 'timestamp',
    dbType: 'datetime2',
    raw: tedious.datetime2(
      daysSinceYearOne(2024, 3, 10),
      (23 * 3600 + 59 * 60 + 58) * 1e7 + 1234567,
    ),
    out: '2024-03-10T23:59:58.123',
  },
  {
    what: 'datetime2 early morning, no fraction',
    kind: 'timestamp',
    dbType: 'datetime2',
    raw: tedious.datetime2(daysSinceYearOne(2024, 3, 10), 3 * 3600 * 1e7),
    out: '2024-03-10T03:00:00',
  },
  // A Brazilian DST gap: 1990-10-21 00:30 did not exist in São Paulo.
  {
    what: 'datetime2 in a DST gap',
    kind: 'timestamp',
    dbType: 'datetime2',
    raw: tedious.datetime2(daysSinceYearOne(1990, 10, 21), 30 * 60 * 1e7),
    out: '1990-10-21T00:30:00',
  },
  {
    what: 'datetime2 year 1',
    kind: 'timestamp',
    dbType: 'datetime2',
    raw: tedious.datetime2(0, 0),
    out: '0001-01-01T00:00:00',
  },
  // datetime 2024-02-29 00:30:00 + 299/300 s → 997 ms.
  {
    what: 'datetime',
    kind: 'timestamp',
    dbType: 'datetime',
    raw: tedious.datetime(
      Math.round((Date.UTC(2024, 1, 29) - Date.UTC(1900, 0, 1)) / 864e5),
      30 * 60 * 300 + 299,
    ),
    out: '2024-02-29T00:30:00.997',
  },
  {
    what: 'smalldatetime',
    kind: 'timestamp',
    dbType: 'smalldatetime',
    raw: new Date(Date.UTC(1900, 0, 1 + 45000, 0, 17 * 60 + 5)),
    out: '2023-03-17T17:05:00',
  },
  {
    what: 'datetime2 as text',
    kind: 'timestamp',
    dbType: 'datetime2',
    raw: '2024-03-10 23:59:58.1234567',
    out: '2024-03-10T23:59:58.123',
  },
  // 2024-03-10T23:30:00.005-03:00: tedious gives the UTC instant and drops the offset.
  {
    what: 'datetimeoffset',
    kind: 'timestamptz',
    dbType: 'datetimeoffset',
    raw: new Date(Date.UTC(2024, 2, 11, 2, 30, 0, 5)),
    out: '2024-03-11T02:30:00.005Z',
  },
  {
    what: 'datetimeoffset as text',
    kind: 'timestamptz',
    dbType: 'datetimeoffset',
    raw: '2024-03-10 23:30:00.0000000 -03:00',
    out: '2024-03-11T02:30:00.000Z',
  },
  { what: 'date', kind: 'date', dbType: 'date', raw: tedious.date(2024, 10, 6), out: '2024-10-06' },
  {
    what: 'date year 1',
    kind: 'date',
    dbType: 'date',
    raw: tedious.date(1, 1, 1),
    out: '0001-01-01',
  },
  {
    what: 'date 9999-12-31',
    kind: 'date',
    dbType: 'date',
    raw: tedious.date(9999, 12, 31),
    out: '9999-12-31',
  },
  {
    what: 'time',
    kind: 'time',
    dbType: 'time',
    raw: tedious.time((13 * 3600 + 45 * 60) * 1e7),
    out: '13:45:00',
  },
  {
    what: 'time with 100 ns units',
    kind: 'time',
    dbType: 'time',
    raw: tedious.time((23 * 3600 + 59 * 60 + 59) * 1e7 + 9999999),
    out: '23:59:59.999',
  },
];

/**
 * Formats {@link TEMPORAL_CASES} in a child Node process whose TZ is `zone` (Jest's sandbox has its
 * own `process.env`, so setting TZ in a test never reaches V8's clock). The child loads the adapter
 * from source through TypeScript's transpiler; Dates travel as their epoch milliseconds.
 */
function formatInZone(zone: string): { offset: number; out: unknown[] } {
  const root = join(__dirname, '..', '..', '..');
  const script = `
    const ts = require('typescript');
    const fs = require('fs');
    require.extensions['.ts'] = (m, file) => m._compile(ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText, file);
    const { MssqlDialect } = require(${JSON.stringify(join(__dirname, 'dialect.ts'))});
    const dialect = new MssqlDialect();
    const cases = JSON.parse(process.argv[1]);
    const out = cases.map((c) => dialect.formatValue(
      { name: 'v', dbType: c.dbType, kind: c.kind, nullable: true, hasDefault: false, generated: false, maxLength: null },
      typeof c.raw === 'number' ? new Date(c.raw) : c.raw,
    ));
    process.stdout.write(JSON.stringify({ offset: new Date(Date.UTC(2024, 0, 15)).getTimezoneOffset(), out }));
  `;
  const cases = TEMPORAL_CASES.map((c) => ({
    kind: c.kind,
    dbType: c.dbType,
    raw: c.raw instanceof Date ? c.raw.getTime() : c.raw,
  }));
  const child = spawnSync(process.execPath, ['-e', script, JSON.stringify(cases)], {
    cwd: root,
    env: { ...process.env, TZ: zone },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { offset: number; out: unknown[] };
}

describe('formatValue (CONTRACT.md §6 Values) and bindValue', () => {
  it.each(TEMPORAL_CASES)('$what ($dbType) → $out', ({ kind, dbType, raw, out }) => {
    expect(ms.formatValue(col(kind, dbType), raw)).toBe(out);
  });

  it.each<[string, number]>([
    ['America/Sao_Paulo', 180],
    ['Asia/Kolkata', -330],
  ])('dates and times format the same in a process whose TZ is %s', (zone, offset) => {
    const result = formatInZone(zone);
    // The zone really is in effect in that process (UTC-3 and UTC+5:30 in January 2024).
    expect(result.offset).toBe(offset);
    expect(result.out).toEqual(TEMPORAL_CASES.map((c) => c.out));
  });

  it('bit as Boolean', () => {
    expect(ms.formatValue(col('boolean', 'bit'), true)).toBe(true);
    expect(ms.formatValue(col('boolean', 'bit'), false)).toBe(false);
  });

  it('bigint exact (tedious returns text); int and float as numbers', () => {
    expect(ms.formatValue(col('bigint', 'bigint'), '9223372036854775807')).toBe(
      '9223372036854775807',
    );
    expect(ms.formatValue(col('bigint', 'bigint'), '-9223372036854775808')).toBe(
      '-9223372036854775808',
    );
    expect(ms.formatValue(col('int', 'int'), 2147483647)).toBe(2147483647);
    expect(ms.formatValue(col('int', 'tinyint'), 255)).toBe(255);
    expect(ms.formatValue(col('float', 'float'), 0.1)).toBe(0.1);
    expect(ms.formatValue(col('float', 'real'), 1.5)).toBe(1.5);
  });

  it('decimal/numeric/money exact from the CONVERT text, all digits kept', () => {
    expect(
      ms.formatValue(col('decimal', 'decimal'), '12345678901234567890.123456789012345678'),
    ).toBe('12345678901234567890.123456789012345678');
    expect(ms.formatValue(col('decimal', 'numeric'), '-0.0001')).toBe('-0.0001');
    expect(ms.formatValue(col('decimal', 'money'), '922337203685477.5807')).toBe(
      '922337203685477.5807',
    );
    expect(ms.formatValue(col('decimal', 'smallmoney'), '-214748.3648')).toBe('-214748.3648');
  });

  it('uuid lower-cased; text, json and binary', () => {
    expect(
      ms.formatValue(col('uuid', 'uniqueidentifier'), '6F9619FF-8B86-D011-B42D-00C04FC964FF'),
    ).toBe('6f9619ff-8b86-d011-b42d-00c04fc964ff');
    expect(ms.formatValue(col('text', 'nvarchar'), 'Zoë [x] 100%')).toBe('Zoë [x] 100%');
    expect(ms.formatValue(col('json', 'json'), '{"a":1}')).toEqual({ a: 1 });
    expect(ms.formatValue(col('text', 'varbinary'), Buffer.from([0xde, 0xad, 0xbe, 0xef]))).toBe(
      '3q2+7w==',
    );
    expect(ms.formatValue(col('text', 'timestamp'), Buffer.from([0, 0, 0, 0, 0, 0, 7, 0xd1]))).toBe(
      'AAAAAAAAB9E=',
    );
  });

  it('null and undefined are null for every kind', () => {
    for (const kind of [
      'text',
      'int',
      'bigint',
      'decimal',
      'boolean',
      'date',
      'time',
      'timestamp',
      'timestamptz',
      'uuid',
    ] as ColumnKind[]) {
      expect(ms.formatValue(col(kind, 'x'), null)).toBeNull();
      expect(ms.formatValue(col(kind, 'x'), undefined)).toBeNull();
    }
  });

  it('bindValue: bigint text as an exact JS bigint, timestamps with the ISO T, others unchanged', () => {
    expect(ms.bindValue(col('bigint', 'bigint'), '9223372036854775807')).toBe(9223372036854775807n);
    expect(ms.bindValue(col('bigint', 'bigint'), '-42')).toBe(-42n);
    expect(ms.bindValue(col('bigint', 'bigint'), '9223372036854775808')).toBe(
      '9223372036854775808',
    );
    expect(ms.bindValue(col('bigint', 'bigint'), 42)).toBe(42);
    expect(ms.bindValue(col('timestamp', 'datetime'), '2024-01-02 03:04:05.123')).toBe(
      '2024-01-02T03:04:05.123',
    );
    expect(ms.bindValue(col('timestamp', 'datetime2'), '2024-01-02T03:04:05')).toBe(
      '2024-01-02T03:04:05',
    );
    expect(ms.bindValue(col('timestamp', 'datetime'), '2024-01-02')).toBe('2024-01-02T00:00:00');
    expect(ms.bindValue(col('timestamptz', 'datetimeoffset'), '2024-01-02T03:04:05.000Z')).toBe(
      '2024-01-02T03:04:05.000Z',
    );
    expect(ms.bindValue(col('boolean', 'bit'), true)).toBe(true);
    expect(ms.bindValue(col('decimal', 'decimal'), '12.345678901234567890')).toBe(
      '12.345678901234567890',
    );
    expect(ms.bindValue(col('text', 'nvarchar'), 'x')).toBe('x');
  });
});
