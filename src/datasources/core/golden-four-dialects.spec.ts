import { ALL_ROWS } from './dialect';
import type { CompiledQuery, Dialect, SelectPlan, SqlPool } from './dialect';
import { MSSQL_LIST_TABLES_SQL, mssqlColumnsSql } from '../mssql/introspection';
import { MssqlDialect } from '../mssql/dialect';
import { MysqlDialect } from '../mysql/dialect';
import { mysqlColumnsSql, mysqlTablesSql } from '../mysql/introspection';
import {
  POSTGRES_COLUMN_DETAILS_SQL,
  POSTGRES_COLUMN_STATISTICS_SQL,
  POSTGRES_LIST_TABLES_SQL,
  POSTGRES_INDEX_LEADS_SQL,
  POSTGRES_ROW_ESTIMATES_SQL,
  POSTGRES_RELATIONS_SQL,
  POSTGRES_UNIQUE_KEYS_SQL,
  postgresArrayElement,
} from '../postgres/introspection';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * The same plans, four SQL texts side by side (DESIGN.md "Golden tests per dialect"). Each
 * dialect's own spec covers every operator in depth; this file keeps the four in view together,
 * so a change to the shared compiler shows its effect on every database at once.
 */
const DIALECTS: Record<string, Dialect> = {
  postgres: new PostgresDialect(),
  mysql: new MysqlDialect(),
  mssql: new MssqlDialect(),
  sqlite: new SqliteDialect(),
};

const table = { schema: 'shop', name: 'orders' };

const filtered: SelectPlan = {
  scope: ALL_ROWS,
  table,
  columns: ['id', 'status'],
  where: {
    kind: 'and',
    items: [
      { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' },
      { kind: 'like', column: 'note', mode: 'contains', value: '50%_off[' },
      { kind: 'null', column: 'shipped_at', negated: false },
      { kind: 'in', column: 'id', values: [], negated: true },
    ],
  },
  order: [
    { column: 'status', direction: 'DESC' },
    { column: 'id', direction: 'ASC' },
  ],
  take: 10,
  skip: 20,
};

function compileAll(compile: (d: Dialect) => { sql: string; params: unknown[] }) {
  return Object.fromEntries(Object.entries(DIALECTS).map(([name, d]) => [name, compile(d)]));
}

describe('golden SQL, four dialects side by side', () => {
  it('select with eq, literal contains, eq null, nin [], two-column order and a page', () => {
    const out = compileAll((d) => d.compileSelect(filtered));
    expect(out.postgres).toEqual({
      sql: 'SELECT "id", "status" FROM "shop"."orders" WHERE ("status" = $1 AND "note"::text ILIKE $2 ESCAPE \'\\\' AND "shipped_at" IS NULL AND 1=1) ORDER BY "status" DESC NULLS LAST, "id" ASC NULLS FIRST LIMIT $3 OFFSET $4',
      params: ['PAID', '%50\\%\\_off[%', 10, 20],
    });
    expect(out.sqlite.sql).toBe(
      'SELECT "id", "status" FROM "shop"."orders" WHERE ("status" = ? AND tg_casefold("note") LIKE tg_casefold(?) ESCAPE \'\\\' AND "shipped_at" IS NULL AND 1=1) ORDER BY "status" DESC, "id" ASC LIMIT ? OFFSET ?',
    );
    expect(out.sqlite.params).toEqual(['PAID', '%50\\%\\_off[%', 10, 20]);
    expect(out.mysql.sql).toMatch(
      /^SELECT `id`, `status` FROM `shop`\.`orders` WHERE \(`status` = \? AND .*`note`.* LIKE .* ESCAPE '\|' AND `shipped_at` IS NULL AND 1=1\) ORDER BY `status` DESC, `id` ASC LIMIT \? OFFSET \?$/,
    );
    expect(out.mysql.params.slice(1, 2)).toEqual(['%50|%|_off[%']);
    expect(out.mssql.sql).toMatch(
      /^SELECT \[id\], \[status\] FROM \[shop\]\.\[orders\] WHERE \(\[status\] = @p1 AND .*\[note\].* LIKE .*@p2.* ESCAPE .* AND \[shipped_at\] IS NULL AND 1=1\) ORDER BY .*\[status\] DESC, .*\[id\] ASC OFFSET @p3 ROWS FETCH NEXT @p4 ROWS ONLY$/,
    );
    // SQL Server: `[` is a LIKE wildcard there, so it is escaped too.
    expect(String(out.mssql.params[1])).toContain('\\[');
    for (const { sql, params } of Object.values(out)) {
      expect(sql).not.toContain('PAID');
      expect(sql).not.toContain('50');
      expect(params).toHaveLength(4);
    }
  });

  it('count with or [] (false) on every dialect', () => {
    const out = compileAll((d) =>
      d.compileCount({ scope: ALL_ROWS, table, where: { kind: 'or', items: [] } }),
    );
    expect(out.postgres.sql).toBe('SELECT COUNT(*) AS "count" FROM "shop"."orders" WHERE 1=0');
    expect(out.sqlite.sql).toBe('SELECT COUNT(*) AS "count" FROM "shop"."orders" WHERE 1=0');
    expect(out.mysql.sql).toBe('SELECT COUNT(*) AS `count` FROM `shop`.`orders` WHERE 1=0');
    expect(out.mssql.sql).toMatch(
      /^SELECT COUNT\(\*\) AS \[count\] FROM \[shop\]\.\[orders\] WHERE 1=0$/,
    );
  });

  it('insert reading the row back: RETURNING, OUTPUT INSERTED INTO a table variable, or nothing (MySQL family)', () => {
    const plan = {
      table,
      values: [{ column: 'status', value: 'NEW' }],
      returning: ['id', 'status'],
    };
    const out = compileAll((d) => d.compileInsert(plan));
    expect(out.postgres).toEqual({
      sql: 'INSERT INTO "shop"."orders" ("status") VALUES ($1) RETURNING "id", "status"',
      params: ['NEW'],
    });
    expect(out.sqlite).toEqual({
      sql: 'INSERT INTO "shop"."orders" ("status") VALUES (?) RETURNING "id", "status"',
      params: ['NEW'],
    });
    expect(out.mysql).toEqual({
      sql: 'INSERT INTO `shop`.`orders` (`status`) VALUES (?) RETURNING `id`, `status`',
      params: ['NEW'],
    });
    expect(out.mssql.sql).toBe(
      'DECLARE @tg_out TABLE ([id] NVARCHAR(MAX) NULL, [status] NVARCHAR(MAX) NULL); ' +
        'INSERT INTO [shop].[orders] ([status]) OUTPUT INSERTED.[id], INSERTED.[status] INTO @tg_out ([id], [status]) VALUES (@p1); ' +
        'SELECT [id], [status] FROM @tg_out',
    );
    expect(new MysqlDialect().compileInsert({ ...plan, returning: [] }).sql).toBe(
      'INSERT INTO `shop`.`orders` (`status`) VALUES (?)',
    );
  });

  it('update by key and delete by key', () => {
    const where = { kind: 'compare' as const, column: 'id', op: 'eq' as const, value: 7 };
    const update = compileAll((d) =>
      d.compileUpdate({
        scope: ALL_ROWS,
        table,
        set: [{ column: 'status', value: 'PAID' }],
        where,
        returning: ['status'],
      }),
    );
    expect(update.postgres.sql).toBe(
      'UPDATE "shop"."orders" SET "status" = $1 WHERE "id" = $2 RETURNING "status"',
    );
    expect(update.sqlite.sql).toBe(
      'UPDATE "shop"."orders" SET "status" = ? WHERE "id" = ? RETURNING "status"',
    );
    // MySQL and MariaDB have no UPDATE … RETURNING: the row is read back by key.
    expect(update.mysql.sql).toBe('UPDATE `shop`.`orders` SET `status` = ? WHERE `id` = ?');
    expect(update.mssql.sql).toBe(
      'DECLARE @tg_out TABLE ([status] NVARCHAR(MAX) NULL); ' +
        'UPDATE [shop].[orders] SET [status] = @p1 OUTPUT INSERTED.[status] INTO @tg_out ([status]) WHERE [id] = @p2; ' +
        'SELECT [status] FROM @tg_out',
    );
    const del = compileAll((d) => d.compileDelete({ scope: ALL_ROWS, table, where }));
    expect(Object.fromEntries(Object.entries(del).map(([k, v]) => [k, v.sql]))).toEqual({
      postgres: 'DELETE FROM "shop"."orders" WHERE "id" = $1',
      mysql: 'DELETE FROM `shop`.`orders` WHERE `id` = ?',
      mssql: 'DELETE FROM [shop].[orders] WHERE [id] = @p1',
      sqlite: 'DELETE FROM "shop"."orders" WHERE "id" = ?',
    });
  });

  it('batched one-to-many read: ROW_NUMBER per parent on every dialect', () => {
    const out = compileAll((d) =>
      d.compileSelect({
        scope: ALL_ROWS,
        table,
        columns: ['id', 'customer_id'],
        where: { kind: 'in', column: 'customer_id', values: [1, 2], negated: false },
        order: [{ column: 'id', direction: 'ASC' }],
        take: 5,
        skip: 0,
        partition: { column: 'customer_id' },
      }),
    );
    for (const [name, { sql, params }] of Object.entries(out)) {
      expect([name, sql]).toEqual([
        name,
        expect.stringContaining('ROW_NUMBER() OVER (PARTITION BY'),
      ]);
      expect(params).toEqual(
        name === 'mysql' || name === 'mssql' ? expect.arrayContaining([1, 2]) : [1, 2, 0, 5],
      );
    }
  });
});

/**
 * A pool that records every statement and answers each with the next canned row list (the last
 * one again when they run out); no database.
 */
function recordingPool(
  answers: Record<string, unknown>[][],
): SqlPool & { queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  return {
    queries,
    run: (query) => {
      queries.push(query);
      const rows = answers[Math.min(queries.length - 1, answers.length - 1)] ?? [];
      return Promise.resolve({ rows, affected: undefined });
    },
    transaction: () => Promise.reject(new Error('not used')),
    readOnly: () => Promise.reject(new Error('not used')),
    serverVersion: () => Promise.resolve('test'),
    close: () => Promise.resolve(),
  };
}

describe('golden listing SQL, four dialects side by side (issue 11: views and partitions)', () => {
  it('lists tables and views from each catalog, with their kind', async () => {
    const answers: Record<string, Record<string, unknown>[]> = {
      postgres: [
        { schema: 'public', name: 'film', kind: 'table' },
        { schema: 'public', name: 'film_list', kind: 'view' },
      ],
      mysql: [
        { schema: 'shop', name: 'film', type: 'BASE TABLE' },
        { schema: 'shop', name: 'film_list', type: 'VIEW' },
        { schema: 'shop', name: 'history', type: 'SYSTEM VERSIONED' },
      ],
      mssql: [
        { schema: 'dbo', name: 'film', kind: 'table' },
        { schema: 'dbo', name: 'film_list', kind: 'view' },
      ],
      sqlite: [
        { name: 'film', type: 'table' },
        { name: 'film_list', type: 'view' },
      ],
    };
    const sql: Record<string, string> = {};
    for (const [name, dialect] of Object.entries(DIALECTS)) {
      const pool = recordingPool([answers[name]]);
      const listed = await dialect.listTables(pool);
      expect(pool.queries).toHaveLength(1);
      expect(pool.queries[0].params).toEqual([]);
      sql[name] = pool.queries[0].sql;
      expect([name, listed.map((t) => `${t.schema}.${t.name}:${t.kind}`)]).toEqual([
        name,
        answers[name].map(
          (r) =>
            `${name === 'sqlite' ? null : r.schema}.${r.name}:${r.name === 'film_list' ? 'view' : 'table'}`,
        ),
      ]);
    }
    // PostgreSQL: pg_class, so materialized views (absent from information_schema.tables) come
    // too; partitioned parents are tables, their partitions are left out.
    expect(sql.postgres).toBe(POSTGRES_LIST_TABLES_SQL);
    expect(sql.postgres).toContain("cl.relkind IN ('r', 'p', 'v', 'm')");
    expect(sql.postgres).toContain(
      "CASE WHEN cl.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END",
    );
    expect(sql.postgres).toContain(
      "NOT EXISTS (SELECT 1 FROM pg_inherits inh JOIN pg_class parent ON parent.oid = inh.inhparent\n       WHERE inh.inhrelid = cl.oid AND parent.relkind = 'p')",
    );
    expect(sql.postgres).toContain("cl.relpersistence <> 't'");
    expect(sql.mysql).toBe(
      'SELECT TABLE_SCHEMA AS `schema`, TABLE_NAME AS `name`, TABLE_TYPE AS `type` FROM information_schema.TABLES ' +
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED', 'VIEW') ORDER BY TABLE_NAME",
    );
    expect(sql.mssql).toBe(MSSQL_LIST_TABLES_SQL);
    expect(sql.mssql).toMatch(/FROM sys\.tables t[\s\S]*UNION ALL[\s\S]*FROM sys\.views v/);
    expect(sql.mssql).toContain('WHERE v.is_ms_shipped = 0');
    expect(sql.mssql).toMatch(/ORDER BY \[schema\], \[name\]$/);
    expect(sql.sqlite).toBe(
      "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
  });

  it('PostgreSQL introspection reads materialized view columns from pg_attribute and drops foreign keys to partitions', async () => {
    const pool = recordingPool([
      [
        {
          table_schema: 'public',
          table_name: 'film_counts',
          column_name: 'n',
          data_type: 'bigint',
          is_nullable: 'YES',
          column_default: null,
          is_identity: 'NO',
          is_generated: 'NEVER',
          character_maximum_length: null,
        },
      ],
      [{ table_schema: 'public', table_name: 'film_counts', relkind: 'm' }],
      [],
    ]);
    const [table] = await DIALECTS.postgres.introspect(pool, [
      { schema: 'public', name: 'film_counts' },
    ]);
    expect(table).toMatchObject({ dbName: 'film_counts', kind: 'view', primaryKey: [] });
    const [columns, kinds, keys] = pool.queries;
    expect(columns.sql).toContain('FROM information_schema.columns');
    expect(columns.sql).toContain('UNION ALL');
    expect(columns.sql).toContain("WHERE cl.relkind = 'm' AND a.attnum > 0 AND NOT a.attisdropped");
    expect(columns.sql).toContain('information_schema._pg_char_max_length(');
    expect(columns.params).toEqual([['public'], ['film_counts']]);
    expect(kinds.sql).toContain("cl.relkind IN ('r', 'p', 'v', 'm', 'f')");
    expect(keys.sql).toContain(
      "AND (con.contype = 'p' OR NOT EXISTS (SELECT 1 FROM pg_inherits inh JOIN pg_class parent ON parent.oid = inh.inhparent\n       WHERE inh.inhrelid = fcl.oid AND parent.relkind = 'p'))",
    );
  });
});

describe('golden introspection SQL: comments and enum types (issue 11, item 4)', () => {
  /** A PostgreSQL `information_schema.columns` row. */
  const pgColumn = (column_name: string, data_type: string, position: number) => ({
    table_schema: 'public',
    table_name: 'people',
    column_name,
    data_type,
    is_nullable: 'YES',
    column_default: null,
    is_identity: 'NO',
    is_generated: 'NEVER',
    character_maximum_length: data_type === 'character varying' ? 200 : null,
    ordinal_position: position,
  });

  it('PostgreSQL: table comment from obj_description, full type, comment and enum labels from pg_attribute', async () => {
    const detail = (column_name: string, extra: Record<string, unknown>) => ({
      table_schema: 'public',
      table_name: 'people',
      column_name,
      declared_type: null,
      comment: null,
      enum_name: null,
      enum_values: null,
      ...extra,
    });
    const pool = recordingPool([
      [
        pgColumn('id', 'integer', 1),
        pgColumn('mood', 'USER-DEFINED', 2),
        pgColumn('email', 'character varying', 3),
        pgColumn('nothing', 'USER-DEFINED', 4),
      ],
      [{ table_schema: 'public', table_name: 'people', relkind: 'r', comment: 'Everyone.' }],
      [],
      [
        detail('id', { declared_type: 'integer' }),
        detail('mood', {
          declared_type: 'mood',
          enum_name: 'mood',
          enum_values: '["happy","on hold","1st"]',
          comment: '   ',
        }),
        detail('email', { declared_type: 'character varying(200)', comment: "The e-mail's text." }),
        detail('nothing', { declared_type: 'empty_e', enum_name: 'empty_e', enum_values: '[]' }),
      ],
    ]);
    const [table] = await DIALECTS.postgres.introspect(pool, [
      { schema: 'public', name: 'people' },
    ]);
    expect(pool.queries).toHaveLength(8);
    const [, relations, , details, estimates, statistics, uniques, leads] = pool.queries;
    expect(uniques.sql).toBe(POSTGRES_UNIQUE_KEYS_SQL);
    expect(leads.sql).toBe(POSTGRES_INDEX_LEADS_SQL);
    expect(estimates.sql).toBe(POSTGRES_ROW_ESTIMATES_SQL);
    expect(statistics.sql).toBe(POSTGRES_COLUMN_STATISTICS_SQL);
    expect(statistics.params).toEqual([['public'], ['people']]);
    expect(relations.sql).toBe(POSTGRES_RELATIONS_SQL);
    expect(relations.sql).toContain("obj_description(cl.oid, 'pg_class') AS comment");
    expect(details.sql).toBe(POSTGRES_COLUMN_DETAILS_SQL);
    expect(details.params).toEqual([['public'], ['people']]);
    for (const part of [
      'format_type(a.atttypid, a.atttypmod) AS declared_type',
      'col_description(cl.oid, a.attnum) AS comment',
      "LEFT JOIN pg_type et ON et.typtype = 'e'",
      "AND et.oid = (CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE ty.oid END)",
      'array_agg(e.enumlabel ORDER BY e.enumsortorder)',
      'WHERE a.attnum > 0 AND NOT a.attisdropped',
    ])
      expect(details.sql).toContain(part);
    expect(table.comment).toBe('Everyone.');
    expect(table.columns).toEqual([
      expect.objectContaining({ name: 'id', kind: 'int', declaredType: 'integer' }),
      expect.objectContaining({
        name: 'mood',
        kind: 'text',
        dbType: 'USER-DEFINED',
        declaredType: 'mood',
        dbEnum: { name: 'mood', values: ['happy', 'on hold', '1st'] },
      }),
      expect.objectContaining({
        name: 'email',
        declaredType: 'character varying(200)',
        comment: "The e-mail's text.",
      }),
      expect.objectContaining({ name: 'nothing', dbEnum: { name: 'empty_e', values: [] } }),
    ]);
    // Nothing where the catalog has nothing: no `comment` key at all.
    expect(table.columns[0]).not.toHaveProperty('comment');
    expect(table.columns[1]).not.toHaveProperty('comment');
    expect(table.columns[0]).not.toHaveProperty('dbEnum');
  });

  it('PostgreSQL: one-dimensional arrays of supported elements are lists (issue 11, item 1), other arrays stay text form', async () => {
    const detail = (column_name: string, element_type: string | null, array_dims: number) => ({
      table_schema: 'public',
      table_name: 'people',
      column_name,
      declared_type: null,
      comment: null,
      enum_name: null,
      enum_values: null,
      element_type,
      array_dims,
    });
    const pool = recordingPool([
      [
        pgColumn('tags', 'ARRAY', 1),
        pgColumn('stamps', 'ARRAY', 2),
        pgColumn('from_view', 'ARRAY', 3),
        pgColumn('grid', 'ARRAY', 4),
        pgColumn('docs', 'ARRAY', 5),
        pgColumn('moods', 'ARRAY', 6),
        pgColumn('plain', 'integer', 7),
      ],
      [{ table_schema: 'public', table_name: 'people', relkind: 'r', comment: null }],
      [],
      [
        detail('tags', 'varchar', 1),
        detail('stamps', 'timestamptz', 1),
        detail('from_view', 'int8', 0),
        detail('grid', 'int4', 2),
        detail('docs', 'jsonb', 1),
        detail('moods', null, 1),
        detail('plain', null, 0),
      ],
    ]);
    const [table] = await DIALECTS.postgres.introspect(pool, [
      { schema: 'public', name: 'people' },
    ]);
    const details = pool.queries[3].sql;
    for (const part of [
      "CASE WHEN eln.nspname = 'pg_catalog' THEN el.typname::text END AS element_type",
      'a.attndims::int AS array_dims',
      'LEFT JOIN pg_type at ON at.typelem <> 0 AND at.typlen = -1',
      "AND at.oid = (CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE ty.oid END)",
    ])
      expect(details).toContain(part);
    const kinds = table.columns.map((c) => [c.name, c.kind, c.elementKind, c.elementType]);
    expect(kinds).toEqual([
      ['tags', 'array', 'text', 'varchar'],
      ['stamps', 'array', 'timestamptz', 'timestamptz'],
      ['from_view', 'array', 'bigint', 'int8'],
      ['grid', 'other', undefined, undefined],
      ['docs', 'other', undefined, undefined],
      ['moods', 'other', undefined, undefined],
      ['plain', 'int', undefined, undefined],
    ]);
    expect(table.columns[3]).not.toHaveProperty('elementKind');
  });

  it('postgresArrayElement: the element kinds that read as lists', () => {
    expect(postgresArrayElement('ARRAY', 'int2', 1)).toEqual({
      elementKind: 'int',
      elementType: 'int2',
    });
    for (const [type, kind] of [
      ['bpchar', 'text'],
      ['numeric', 'decimal'],
      ['float4', 'float'],
      ['bool', 'boolean'],
      ['uuid', 'uuid'],
      ['date', 'date'],
      ['timestamp', 'timestamp'],
      ['time', 'time'],
      ['timetz', 'time'],
    ])
      expect(postgresArrayElement('ARRAY', type, null)?.elementKind).toBe(kind);
    for (const type of ['json', 'bytea', 'interval', 'point', 'inet', 'money', 'oid'])
      expect([type, postgresArrayElement('ARRAY', type, 1)]).toEqual([type, null]);
    expect(postgresArrayElement('integer', 'int4', 1)).toBeNull();
    expect(postgresArrayElement('ARRAY', 'int4', 3)).toBeNull();
  });

  it("MySQL/MariaDB: COLUMN_COMMENT, TABLE_COMMENT (never a view's `VIEW`) and ENUM values from COLUMN_TYPE", async () => {
    const column = (
      table_name: string,
      column_name: string,
      data_type: string,
      column_type: string,
      column_comment = '',
    ) => ({
      table_name,
      column_name,
      data_type,
      column_type,
      is_nullable: 'YES',
      column_default: null,
      extra: '',
      column_comment,
    });
    const pool = recordingPool([
      [{ db: 'shop' }],
      [
        column('orders', 'id', 'int', 'int(11)'),
        column(
          'orders',
          'status',
          'enum',
          "enum('new','it''s','on hold','c\\\\d')",
          'Where it stands',
        ),
        column('order_list', 'status', 'enum', "enum('new')"),
      ],
      [],
      [
        { table_name: 'orders', table_type: 'BASE TABLE', table_comment: 'Orders placed.' },
        { table_name: 'order_list', table_type: 'VIEW', table_comment: 'VIEW' },
      ],
    ]);
    const tables = await DIALECTS.mysql.introspect(pool, [
      { schema: null, name: 'orders' },
      { schema: null, name: 'order_list' },
    ]);
    const [, columns, , relations] = pool.queries;
    expect(columns.sql).toBe(mysqlColumnsSql(2));
    expect(columns.sql).toContain('COLUMN_COMMENT AS `column_comment`');
    expect(columns.params).toEqual(['shop', 'orders', 'order_list']);
    expect(relations.sql).toBe(mysqlTablesSql(2));
    expect(relations.sql).toBe(
      'SELECT TABLE_NAME AS `table_name`, TABLE_TYPE AS `table_type`, TABLE_COMMENT AS `table_comment`, TABLE_ROWS AS `table_rows` ' +
        'FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?)',
    );
    expect(tables.map((t) => [t.dbName, t.kind, t.comment])).toEqual([
      ['orders', 'table', 'Orders placed.'],
      ['order_list', 'view', undefined],
    ]);
    expect(tables[0].columns[1]).toMatchObject({
      name: 'status',
      kind: 'text',
      comment: 'Where it stands',
      dbEnum: { name: 'orders.status', values: ['new', "it's", 'on hold', 'c\\d'] },
    });
    expect(tables[0].columns[0]).not.toHaveProperty('comment');
    expect(tables[0].columns[0]).not.toHaveProperty('dbEnum');
    expect(tables[1].columns[0].dbEnum).toEqual({ name: 'order_list.status', values: ['new'] });
  });

  it('SQL Server: MS_Description extended properties of the table and of each column (golden only)', async () => {
    const row = (column_name: string, column_comment: string | null) => ({
      schema_name: 'dbo',
      table_name: 'customers',
      table_kind: 'table',
      column_name,
      type_name: 'nvarchar',
      max_length: 100,
      is_nullable: true,
      is_identity: false,
      is_computed: false,
      has_default: false,
      generated_always_type: 0,
      column_comment,
      table_comment: 'Who buys.',
    });
    const pool = recordingPool([[row('email', 'Where to write'), row('name', null)], [], []]);
    const [table] = await DIALECTS.mssql.introspect(pool, [{ schema: null, name: 'customers' }]);
    expect(pool.queries[0].sql).toBe(mssqlColumnsSql('OBJECT_ID(@p1)'));
    expect(pool.queries[0].sql).toContain(
      "(SELECT CAST(p.value AS nvarchar(4000)) FROM sys.extended_properties p\n           WHERE p.class = 1 AND p.major_id = o.object_id AND p.minor_id = c.column_id AND p.name = N'MS_Description') AS [column_comment]",
    );
    expect(pool.queries[0].sql).toContain(
      "AND p.minor_id = 0 AND p.name = N'MS_Description') AS [table_comment]",
    );
    expect(table.comment).toBe('Who buys.');
    expect(table.columns.map((c) => [c.name, c.comment])).toEqual([
      ['email', 'Where to write'],
      ['name', undefined],
    ]);
    expect(table.columns.some((c) => c.dbEnum)).toBe(false);
  });

  it('SQLite: no comments, no enum types', async () => {
    const pool = recordingPool([
      [{ name: 'notes', type: 'table' }],
      [{ n: 0 }],
      [{ name: 'id', type: 'INTEGER', notnull: 0n, dflt_value: null, pk: 1n, hidden: 0n }],
      [],
    ]);
    const [table] = await DIALECTS.sqlite.introspect(pool, [{ schema: null, name: 'notes' }]);
    expect(table).not.toHaveProperty('comment');
    expect(table.columns[0]).not.toHaveProperty('comment');
    expect(table.columns[0]).not.toHaveProperty('dbEnum');
  });
});
