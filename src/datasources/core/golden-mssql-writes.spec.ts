import { modelColumn } from '../../../test/support/model-column';
import { ALL_ROWS, type ColumnKind, type CompiledQuery, type ModelColumn } from './dialect';
import { mssqlOutputType } from '../mssql/compiler';
import { MssqlDialect } from '../mssql/dialect';
import {
  type MssqlColumnRow,
  mssqlColumnFromCatalog,
  mssqlDeclaredType,
  mssqlTablesFromCatalog,
  mssqlUniqueKeys,
  mssqlUniqueKeysSql,
  type MssqlUniqueKeyRow,
} from '../mssql/introspection';
import { affectedRows } from '../mssql/pool';

/**
 * Every SQL Server write (issue 24 items 1–3, ADR 0016): a write that reads rows back sends them
 * `OUTPUT … INTO` a table variable declared with the columns' types, then selects them, because
 * "The target table … of the DML statement cannot have any enabled triggers if the statement
 * contains an OUTPUT clause without INTO clause" (error 334; Microsoft docs, "OUTPUT clause",
 * Triggers). The SQL does not depend on whether the table has a trigger, so the golden texts below
 * are the SQL sent to a table that has one (`invoices`, with an AFTER INSERT, UPDATE, DELETE
 * trigger writing an audit row); `live.spec.ts` runs them against one where a server is set.
 */

const ms = new MssqlDialect();
const table = { schema: 'dbo', name: 'invoices' };

/** `invoices` as import reads it now: declared types with their lengths, precision and scale. */
const c = (name: string, kind: ColumnKind, dbType: string, declaredType?: string): ModelColumn =>
  modelColumn(name, kind, { dbType, ...(declaredType && { declaredType }) });
const invoices: ModelColumn[] = [
  c('id', 'int', 'int'),
  c('number', 'text', 'nvarchar', 'nvarchar(20)'),
  c('customer', 'text', 'varchar', 'varchar(80)'),
  c('total', 'decimal', 'decimal', 'decimal(12,2)'),
  c('issued_at', 'timestamp', 'datetime2', 'datetime2(3)'),
  c('note', 'text', 'nvarchar', 'nvarchar(max)'),
  c('version', 'text', 'timestamp'),
  c('paid', 'boolean', 'bit'),
];
const model = Object.fromEntries(invoices.map((col) => [col.name, col]));
const kinds = Object.fromEntries(invoices.map((col) => [col.name, col.kind]));
const returning = ['id', 'number', 'total', 'issued_at', 'version'];

/** The table variable of the reads above, as declared: the columns' own types. */
const DECLARED =
  '[id] INT NULL, [number] NVARCHAR(20) NULL, [total] DECIMAL(12,2) NULL, [issued_at] DATETIME2(3) NULL, [version] BINARY(8) NULL';
const OUTPUT =
  'OUTPUT INSERTED.[id], INSERTED.[number], INSERTED.[total], INSERTED.[issued_at], INSERTED.[version] INTO @tg_out ([id], [number], [total], [issued_at], [version])';
const READ =
  'SELECT [id], [number], CONVERT(NVARCHAR(64), [total], 2) AS [total], [issued_at], [version] FROM @tg_out';

/**
 * Every OUTPUT in `sql` names INTO before its statement ends, and the batch ends with the read of
 * the variable, or `sql` has no OUTPUT at all.
 */
function expectTriggerSafe({ sql }: CompiledQuery): void {
  for (const statement of sql.split(/;\s*/)) {
    if (/\bOUTPUT\b/.test(statement)) expect(statement).toMatch(/\bOUTPUT\b[^;]*\bINTO @tg_\w+ \(/);
  }
  if (/\bOUTPUT\b/.test(sql))
    expect(sql).toMatch(/; SELECT [^;]* FROM @tg_\w+( ORDER BY \[__tg_n\])?$/);
}

describe('golden SQL of SQL Server writes on a table with a trigger (OUTPUT … INTO)', () => {
  it('add<Base>: INSERT … OUTPUT INSERTED … INTO @tg_out … VALUES, then the row from the variable', () => {
    const q = ms.compileInsert({
      table,
      values: [
        { column: 'number', value: 'F-1' },
        { column: 'total', value: '10.50' },
      ],
      returning,
      kinds,
      model,
    });
    expect(q).toEqual({
      sql:
        `DECLARE @tg_out TABLE (${DECLARED}); ` +
        `INSERT INTO [dbo].[invoices] ([number], [total]) ${OUTPUT} VALUES (@p1, @p2); ${READ}`,
      params: ['F-1', '10.50'],
    });
    expectTriggerSafe(q);
    const defaults = ms.compileInsert({ table, values: [], returning: ['id'], kinds, model });
    expect(defaults.sql).toBe(
      'DECLARE @tg_out TABLE ([id] INT NULL); INSERT INTO [dbo].[invoices] OUTPUT INSERTED.[id] INTO @tg_out ([id]) DEFAULT VALUES; SELECT [id] FROM @tg_out',
    );
    expectTriggerSafe(defaults);
  });

  it('addMany<Base>: MERGE … ON 1 = 0 with each row’s position, read back in the order sent', () => {
    const q = ms.compileInsertMany({
      table,
      columns: ['number', 'customer'],
      rows: [
        ['F-1', 'Ana'],
        ['F-2', 'Bruno'],
        ['F-3', 'Carla'],
      ],
      returning: ['id', 'customer'],
      kinds,
      model,
    });
    expect(q).toEqual({
      sql:
        'DECLARE @tg_out TABLE ([__tg_n] INT, [id] INT NULL, [customer] NVARCHAR(80) NULL); ' +
        'MERGE INTO [dbo].[invoices] USING (VALUES (@p1, @p2, 0), (@p3, @p4, 1), (@p5, @p6, 2)) AS [__tg_s] ([number], [customer], [__tg_n]) ON 1 = 0 ' +
        'WHEN NOT MATCHED THEN INSERT ([number], [customer]) VALUES ([__tg_s].[number], [__tg_s].[customer]) ' +
        'OUTPUT [__tg_s].[__tg_n], INSERTED.[id], INSERTED.[customer] INTO @tg_out ([__tg_n], [id], [customer]); ' +
        'SELECT [id], [customer] FROM @tg_out ORDER BY [__tg_n]',
      params: ['F-1', 'Ana', 'F-2', 'Bruno', 'F-3', 'Carla'],
    });
    expectTriggerSafe(q);
  });

  it('update<Base> and updateMany<Base>: UPDATE … SET … OUTPUT … INTO @tg_out WHERE …, then the rows', () => {
    const byKey = ms.compileUpdate({
      table,
      set: [{ column: 'paid', value: true }],
      where: { kind: 'compare', column: 'id', op: 'eq', value: 7 },
      scope: ALL_ROWS,
      returning,
      kinds,
      model,
    });
    expect(byKey).toEqual({
      sql:
        `DECLARE @tg_out TABLE (${DECLARED}); ` +
        `UPDATE [dbo].[invoices] SET [paid] = @p1 ${OUTPUT} WHERE [id] = @p2; ${READ}`,
      params: [true, 7],
    });
    const byFilter = ms.compileUpdate({
      table,
      set: [{ column: 'paid', value: true }],
      where: { kind: 'compare', column: 'customer', op: 'eq', value: 'Ana' },
      scope: { kind: 'compare', column: 'total', op: 'lt', value: '1000' },
      returning: ['id'],
      kinds,
      model,
    });
    expect(byFilter.sql).toBe(
      'DECLARE @tg_out TABLE ([id] INT NULL); ' +
        'UPDATE [dbo].[invoices] SET [paid] = @p1 OUTPUT INSERTED.[id] INTO @tg_out ([id]) WHERE ([customer] = @p2 AND [total] < @p3); ' +
        'SELECT [id] FROM @tg_out',
    );
    for (const q of [byKey, byFilter]) expectTriggerSafe(q);
  });

  it('upsert<Base>/upsertMany<Base>: MERGE … WITH (HOLDLOCK) … OUTPUT $action, INSERTED.<key> INTO @tg_upsert', () => {
    const q = ms.compileUpsert({
      table,
      columns: ['number', 'customer'],
      rows: [['F-1', 'Ana']],
      key: ['number'],
      update: ['customer'],
      when: ALL_ROWS,
      scope: ALL_ROWS,
      returning: ['number'],
      kinds,
      model,
    });
    expect(q.sql).toBe(
      'DECLARE @tg_upsert TABLE ([__tg_action] NVARCHAR(10), [number] NVARCHAR(20) NULL); ' +
        'MERGE INTO [dbo].[invoices] WITH (HOLDLOCK) USING (VALUES (@p1, @p2)) AS [__tg_s] ([number], [customer]) ' +
        'ON [invoices].[number] = [__tg_s].[number] WHEN MATCHED THEN UPDATE SET [customer] = [__tg_s].[customer] ' +
        'WHEN NOT MATCHED BY TARGET THEN INSERT ([number], [customer]) VALUES ([__tg_s].[number], [__tg_s].[customer]) ' +
        'OUTPUT $action, INSERTED.[number] INTO @tg_upsert ([__tg_action], [number]); ' +
        "SELECT [number], CASE WHEN [__tg_action] = N'INSERT' THEN 1 ELSE 0 END AS [__tg_inserted] FROM @tg_upsert",
    );
    expectTriggerSafe(q);
  });

  it('delete<Base>/deleteMany<Base> and writes reading nothing back: no OUTPUT at all', () => {
    const writes = [
      ms.compileDelete({
        table,
        where: { kind: 'compare', column: 'paid', op: 'eq', value: false },
        scope: ALL_ROWS,
      }),
      ms.compileInsert({ table, values: [{ column: 'number', value: 'F-9' }], returning: [] }),
      ms.compileInsertMany({ table, columns: ['number'], rows: [['F-8'], ['F-9']], returning: [] }),
      ms.compileUpdate({
        table,
        set: [{ column: 'paid', value: true }],
        where: ALL_ROWS,
        scope: ALL_ROWS,
        returning: [],
      }),
    ];
    expect(writes.map((q) => q.sql)).toEqual([
      'DELETE FROM [dbo].[invoices] WHERE [paid] = @p1',
      'INSERT INTO [dbo].[invoices] ([number]) VALUES (@p1)',
      'INSERT INTO [dbo].[invoices] ([number]) VALUES (@p1), (@p2)',
      'UPDATE [dbo].[invoices] SET [paid] = @p1',
    ]);
  });

  it('affected is the batch’s last row count: a trigger’s own counts come first and are not the write’s', () => {
    // UPDATE of 3 rows whose trigger (without SET NOCOUNT ON) inserted 3 audit rows, then the read of @tg_out.
    expect(affectedRows([3, 3, 3])).toBe(3);
    // DELETE of 2 rows whose trigger updated 40 rows of another table first.
    expect(affectedRows([40, 2])).toBe(2);
    expect(affectedRows([5])).toBe(5);
    expect(affectedRows([])).toBeUndefined();
  });
});

describe('the table variable’s column types (mssqlOutputType)', () => {
  const t = (extra: Partial<ModelColumn>, kind: ColumnKind = 'text') =>
    mssqlOutputType(modelColumn('x', kind, extra));

  it('the declared type; char/varchar as Unicode (tempdb’s collation may lack their characters)', () => {
    expect(t({ dbType: 'decimal', declaredType: 'decimal(10,2)' }, 'decimal')).toBe(
      'DECIMAL(10,2) NULL',
    );
    expect(t({ dbType: 'datetime2', declaredType: 'datetime2(3)' }, 'timestamp')).toBe(
      'DATETIME2(3) NULL',
    );
    expect(t({ dbType: 'varbinary', declaredType: 'varbinary(max)' }, 'binary')).toBe(
      'VARBINARY(MAX) NULL',
    );
    expect(t({ dbType: 'nvarchar', declaredType: 'nvarchar(50)' })).toBe('NVARCHAR(50) NULL');
    expect(t({ dbType: 'varchar', declaredType: 'varchar(50)' })).toBe('NVARCHAR(50) NULL');
    expect(t({ dbType: 'char', declaredType: 'char(3)' })).toBe('NCHAR(3) NULL');
    expect(t({ dbType: 'varchar', declaredType: 'varchar(8000)' })).toBe('NVARCHAR(MAX) NULL');
    expect(t({ dbType: 'varchar', declaredType: 'varchar(max)' })).toBe('NVARCHAR(MAX) NULL');
    expect(t({ dbType: 'text' })).toBe('NVARCHAR(MAX) NULL');
    expect(t({ dbType: 'image' }, 'binary')).toBe('VARBINARY(MAX) NULL');
    expect(t({ dbType: 'timestamp' })).toBe('BINARY(8) NULL');
    expect(t({ dbType: 'money' }, 'decimal')).toBe('MONEY NULL');
    expect(t({ dbType: 'xml' }, 'other')).toBe('XML NULL');
    expect(t({ dbType: 'uniqueidentifier' }, 'uuid')).toBe('UNIQUEIDENTIFIER NULL');
  });

  it('definitions imported before declared types: the length the model knows, else the widest of the family', () => {
    expect(t({ dbType: 'nvarchar', maxLength: 50 })).toBe('NVARCHAR(50) NULL');
    expect(t({ dbType: 'nvarchar', maxLength: null })).toBe('NVARCHAR(MAX) NULL');
    expect(t({ dbType: 'varchar', maxLength: 9000 })).toBe('NVARCHAR(MAX) NULL');
    expect(t({ dbType: 'decimal' }, 'decimal')).toBe('SQL_VARIANT NULL');
    expect(t({ dbType: 'datetime2' }, 'timestamp')).toBe('DATETIME2(7) NULL');
    expect(t({ dbType: 'datetimeoffset' }, 'timestamptz')).toBe('DATETIMEOFFSET(7) NULL');
    expect(t({ dbType: 'binary' }, 'binary')).toBe('VARBINARY(MAX) NULL');
    expect(t({ dbType: 'int' }, 'int')).toBe('INT NULL');
    expect(mssqlOutputType(undefined, 'bigint')).toBe('BIGINT NULL');
    expect(mssqlOutputType(undefined, undefined)).toBe('NVARCHAR(MAX) NULL');
  });

  it('a type text that is no plain type name (a definition edited by hand) never reaches SQL', () => {
    const hostile = 'int); DROP TABLE invoices; --';
    expect(t({ dbType: 'int', declaredType: hostile }, 'int')).toBe('INT NULL');
    expect(t({ dbType: hostile }, 'int')).toBe('INT NULL');
    expect(t({ dbType: 'geo]graphy', declaredType: 'geo]graphy' }, 'other')).toBe(
      'SQL_VARIANT NULL',
    );
    // A CLR user-defined type name: the kind's type, never an unknown name.
    expect(t({ dbType: 'MyPoint', declaredType: 'MyPoint' }, 'other')).toBe('SQL_VARIANT NULL');
  });
});

describe('SQL Server import: declared types and unique keys from recorded catalog answers', () => {
  const row = (column_name: string, type_name: string, more: Partial<MssqlColumnRow> = {}) =>
    ({
      schema_name: 'dbo',
      table_name: 'invoices',
      table_kind: 'table',
      column_name,
      type_name,
      max_length: 4,
      precision: 10,
      scale: 0,
      is_nullable: false,
      is_identity: false,
      is_computed: false,
      has_default: false,
      generated_always_type: 0,
      ...more,
    }) as MssqlColumnRow;

  it('sys.columns max_length/precision/scale as the declared type', () => {
    const declared = [
      row('number', 'nvarchar', { max_length: 40 }),
      row('note', 'nvarchar', { max_length: -1 }),
      row('code', 'varchar', { max_length: 12 }),
      row('hash', 'binary', { max_length: 32 }),
      row('total', 'decimal', { max_length: 9, precision: 12, scale: 2 }),
      row('issued_at', 'datetime2', { max_length: 7, precision: 23, scale: 3 }),
      row('at', 'time', { max_length: 5, precision: 16, scale: 7 }),
      row('id', 'int'),
      row('amount', 'money', { max_length: 8, precision: 19, scale: 4 }),
    ].map((r) => mssqlDeclaredType(r));
    expect(declared).toEqual([
      'nvarchar(20)',
      'nvarchar(max)',
      'varchar(12)',
      'binary(32)',
      'decimal(12,2)',
      'datetime2(3)',
      'time(7)',
      undefined,
      undefined,
    ]);
    expect(mssqlColumnFromCatalog(row('number', 'nvarchar', { max_length: 40 }))).toMatchObject({
      dbType: 'nvarchar',
      declaredType: 'nvarchar(20)',
      maxLength: 20,
    });
    expect(mssqlColumnFromCatalog(row('id', 'int'))).not.toHaveProperty('declaredType');
    // Rows of tests written before precision and scale were read.
    expect(mssqlDeclaredType({ ...row('t', 'decimal'), precision: undefined })).toBeUndefined();
  });

  it('the unique-key query: unique indexes and UNIQUE constraints but the primary key, key columns only', () => {
    expect(mssqlUniqueKeysSql('OBJECT_ID(@p1)')).toBe(
      `SELECT s.name AS [schema_name], t.name AS [table_name], i.index_id AS [index_id], c.name AS [column_name],
       c.is_computed AS [is_computed], i.has_filter AS [has_filter]
       FROM sys.indexes i
       JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0
       JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
       JOIN sys.tables t ON t.object_id = i.object_id
       JOIN sys.schemas s ON s.schema_id = t.schema_id
       WHERE i.is_unique = 1 AND i.is_primary_key = 0 AND i.is_disabled = 0 AND i.is_hypothetical = 0
         AND i.object_id IN (OBJECT_ID(@p1))
       ORDER BY s.name, t.name, i.index_id, ic.key_ordinal`,
    );
  });

  /**
   * The rows the query answers, per SQL Server's documented catalog views ("sys.indexes",
   * "sys.index_columns"; tedious gives `bit` as a boolean), for `invoices` with `CONSTRAINT
   * UQ_number UNIQUE (number)` (index 2), `CREATE UNIQUE INDEX UX_customer_issued ON invoices
   * (customer, issued_at)` (3), `CREATE UNIQUE INDEX UX_open ON invoices (customer) WHERE paid = 0`
   * (4) and a unique index on a computed column `number_upper AS UPPER(number)` (5). Written from
   * the documentation, not captured from a server (none here); `live.spec.ts` reads the same
   * keys from a real one where TEST_MSSQL_URL is set.
   */
  const recorded: MssqlUniqueKeyRow[] = [
    {
      schema_name: 'dbo',
      table_name: 'invoices',
      index_id: 2,
      column_name: 'number',
      is_computed: false,
      has_filter: false,
    },
    {
      schema_name: 'dbo',
      table_name: 'invoices',
      index_id: 3,
      column_name: 'customer',
      is_computed: false,
      has_filter: false,
    },
    {
      schema_name: 'dbo',
      table_name: 'invoices',
      index_id: 3,
      column_name: 'issued_at',
      is_computed: false,
      has_filter: false,
    },
    {
      schema_name: 'dbo',
      table_name: 'invoices',
      index_id: 4,
      column_name: 'customer',
      is_computed: false,
      has_filter: true,
    },
    {
      schema_name: 'dbo',
      table_name: 'invoices',
      index_id: 5,
      column_name: 'number_upper',
      is_computed: true,
      has_filter: false,
    },
    {
      schema_name: 'sales',
      table_name: 'orders',
      index_id: 2,
      column_name: 'code',
      is_computed: 0,
      has_filter: 0,
    },
  ];

  it('maps the recorded answer to unique keys per table: filtered and computed ones partial', () => {
    const keys = mssqlUniqueKeys(recorded, (s, t) => `${s}.${t}`);
    expect(Object.fromEntries(keys)).toEqual({
      'dbo.invoices': [
        { columns: ['number'] },
        { columns: ['customer', 'issued_at'] },
        { columns: ['customer'], partial: true },
        { columns: ['number_upper'], partial: true },
      ],
      'sales.orders': [{ columns: ['code'] }],
    });
  });

  it('a table’s uniqueKeys, [] when it has none; a view has none at all', () => {
    const tables = mssqlTablesFromCatalog(
      [
        { schema: null, name: 'invoices' },
        { schema: 'dbo', name: 'plain' },
        { schema: 'dbo', name: 'open_invoices' },
      ],
      [
        row('id', 'int'),
        row('number', 'nvarchar', { max_length: 40 }),
        row('id', 'int', { table_name: 'plain' }),
        row('id', 'int', { table_name: 'open_invoices', table_kind: 'view' }),
      ],
      [
        { schema_name: 'dbo', table_name: 'invoices', column_name: 'id' },
        { schema_name: 'dbo', table_name: 'plain', column_name: 'id' },
      ],
      [],
      [],
      recorded,
    );
    expect(tables.map((t) => [t.dbName, t.uniqueKeys])).toEqual([
      [
        'invoices',
        [
          { columns: ['number'] },
          { columns: ['customer', 'issued_at'] },
          { columns: ['customer'], partial: true },
          { columns: ['number_upper'], partial: true },
        ],
      ],
      ['plain', []],
      ['open_invoices', undefined],
    ]);
  });
});
