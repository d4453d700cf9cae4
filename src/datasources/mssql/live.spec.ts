import { randomBytes } from 'crypto';
import { describeWith, SERVICE_URLS } from '../../../test/support/services';
import { ALL_ROWS } from '../core/dialect';
import type {
  ColumnKind,
  CompiledQuery,
  IntrospectedTable,
  ModelColumn,
  SqlPool,
  TableRef,
  WriteContext,
} from '../core/dialect';
import { MssqlPool, parseMssqlUrl } from './pool';
import { MssqlDialect } from './dialect';

/**
 * The SQL Server adapter against a real server (CONTRACT.md §6: filters, order, pages, writes,
 * Values, Database refusals). Runs only where TEST_MSSQL_URL is set (a login that may create
 * databases, e.g. `mssql://sa:…@127.0.0.1:1433/master?encrypt=true&trustServerCertificate=true`);
 * it creates a throwaway database, and drops it at the end.
 */

const dialect = new MssqlDialect();

describeWith('mssql')('MssqlDialect against a real SQL Server', () => {
  const dbName = `tg_live_${randomBytes(4).toString('hex')}`;
  let admin: SqlPool;
  let pool: SqlPool;
  let tables: Record<string, IntrospectedTable>;
  let major: number;

  const exec = (sql: string, params: unknown[] = []) => pool.run({ sql, params });

  beforeAll(async () => {
    admin = await MssqlPool.open(parseMssqlUrl(SERVICE_URLS.mssql, 2));
    await admin.run({ sql: `CREATE DATABASE ${dialect.quote(dbName)}`, params: [] });
    const url = new URL(SERVICE_URLS.mssql);
    url.pathname = `/${dbName}`;
    pool = await dialect.open(url.toString(), {
      poolSize: 4,
      statementTimeoutMs: 15_000,
      acquireTimeoutMs: 5_000,
    });
    major = Number((await pool.serverVersion()).split('.')[0]);

    await exec(`CREATE TABLE dbo.customers (
      id int IDENTITY(1,1) CONSTRAINT PK_customers PRIMARY KEY,
      email nvarchar(100) NOT NULL CONSTRAINT UQ_customers_email UNIQUE,
      name nvarchar(200) NOT NULL,
      code varchar(10) NULL,
      nick nvarchar(50) COLLATE Latin1_General_CS_AS NULL)`);
    await exec(`CREATE TABLE dbo.orders (
      id int IDENTITY(1,1) CONSTRAINT PK_orders PRIMARY KEY,
      customer_id int NOT NULL CONSTRAINT FK_orders_customer_id REFERENCES dbo.customers (id),
      total decimal(38, 10) NULL)`);
    await exec(`CREATE TABLE dbo.kinds (
      id bigint IDENTITY(1,1) PRIMARY KEY,
      i int, ti tinyint, si smallint, bi bigint,
      de decimal(38, 18), nu numeric(10, 2), mo money, sm smallmoney,
      re real, fl float, bt bit,
      d date, dt datetime, dt2 datetime2(7), sdt smalldatetime, dto datetimeoffset(7), t time(7),
      u uniqueidentifier, nv nvarchar(max), vc varchar(50), x xml, vb varbinary(16),
      rv rowversion,
      comp AS (ti * 2))`);
    await exec('CREATE SCHEMA sales');
    await exec('CREATE TABLE sales.[odd]]name] ([we]]ird] int NOT NULL PRIMARY KEY)');

    const listed = await dialect.listTables(pool);
    const found = await dialect.introspect(pool, listed);
    tables = Object.fromEntries(found.map((t) => [t.dbName, t]));
  });

  afterAll(async () => {
    await pool?.close();
    if (admin) {
      await admin
        .run({
          sql: `ALTER DATABASE ${dialect.quote(dbName)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE`,
          params: [],
        })
        .catch(() => undefined);
      await admin.run({ sql: `DROP DATABASE ${dialect.quote(dbName)}`, params: [] });
      await admin.close();
    }
  });

  const ref = (name: string, schema = 'dbo'): TableRef => ({ schema, name });
  const columnsOf = (table: string): ModelColumn[] => tables[table].columns;
  const kindsOf = (table: string, names: string[]): Record<string, ColumnKind> =>
    Object.fromEntries(names.map((n) => [n, columnsOf(table).find((c) => c.name === n)!.kind]));
  const shape = (table: string, rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        columnsOf(table)
          .filter((c) => c.name in row)
          .map((c) => [c.name, dialect.formatValue(c, row[c.name])]),
      ),
    );

  /** Runs a statement that must fail; returns the translation of the driver's error. */
  async function refusal(query: CompiledQuery, ctx: WriteContext) {
    const caught: unknown = await pool.run(query).then(
      () => new Error('the statement succeeded but was expected to be refused'),
      (error: unknown) => error,
    );
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).not.toBe(
      'the statement succeeded but was expected to be refused',
    );
    return dialect.translateError(caught, ctx);
  }

  it('lists and introspects tables of every schema: lengths in characters, identity, computed, rowversion, keys', () => {
    expect(Object.keys(tables).sort()).toEqual(['customers', 'kinds', 'odd]name', 'orders']);
    expect(tables['odd]name']).toMatchObject({ schema: 'sales', primaryKey: ['we]ird'] });
    const customers = tables.customers;
    expect(customers.primaryKey).toEqual(['id']);
    expect(
      customers.columns.map((c) => [c.name, c.dbType, c.maxLength, c.nullable, c.generated]),
    ).toEqual([
      ['id', 'int', null, false, true],
      ['email', 'nvarchar', 100, false, false],
      ['name', 'nvarchar', 200, false, false],
      ['code', 'varchar', 10, true, false],
      ['nick', 'nvarchar', 50, true, false],
    ]);
    expect(tables.orders.foreignKeys).toEqual([
      {
        columns: ['customer_id'],
        referencedSchema: 'dbo',
        referencedTable: 'customers',
        referencedColumns: ['id'],
      },
    ]);
    const kinds = Object.fromEntries(tables.kinds.columns.map((c) => [c.name, c.kind]));
    expect(kinds).toMatchObject({
      bi: 'bigint',
      de: 'decimal',
      mo: 'decimal',
      bt: 'boolean',
      dt: 'timestamp',
      dto: 'timestamptz',
      t: 'time',
      u: 'uuid',
      rv: 'text',
    });
    expect(tables.kinds.columns.find((c) => c.name === 'nv')?.maxLength).toBeNull();
    expect(tables.kinds.columns.find((c) => c.name === 'rv')).toMatchObject({
      generated: true,
      computed: true,
    });
    expect(tables.kinds.columns.find((c) => c.name === 'comp')).toMatchObject({
      generated: true,
      computed: true,
    });
  });

  it('round-trips every kind through INSERT … OUTPUT and SELECT, exact and zone-free', async () => {
    const input: Record<string, unknown> = {
      i: 2147483647,
      ti: 255,
      si: -32768,
      bi: '9223372036854775807',
      de: '12345678901234567890.123456789012345678',
      nu: '12345678.90',
      mo: '922337203685477.5807',
      sm: '-214748.3648',
      re: 1.5,
      fl: 0.1,
      bt: true,
      d: '2024-02-29',
      dt: '2024-02-29T23:59:59.997',
      dt2: '0001-01-01T00:00:00.1234567',
      sdt: '2024-02-29T12:34:00',
      dto: '2024-03-10T23:30:00.005-03:00',
      t: '13:45:30.1234567',
      u: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
      nv: 'Zoë 😀 [x] 100%',
      vc: 'plain',
      x: '<a>1</a>',
      vb: Buffer.from([0xde, 0xad, 0xbe, 0xef]),
    };
    const expected: Record<string, unknown> = {
      ...input,
      bi: '9223372036854775807',
      dt2: '0001-01-01T00:00:00.123',
      dto: '2024-03-11T02:30:00.005Z',
      t: '13:45:30.123',
      u: '6f9619ff-8b86-d011-b42d-00c04fc964ff',
      vb: '3q2+7w==',
      comp: 510,
    };
    const columns = columnsOf('kinds');
    const values = Object.entries(input).map(([column, value]) => ({
      column,
      value: dialect.bindValue(
        columns.find((c) => c.name === column)!,
        value,
      ),
    }));
    const returning = [...Object.keys(input), 'comp', 'rv', 'id'];
    const inserted = await pool.run(
      dialect.compileInsert({
        table: ref('kinds'),
        values,
        returning,
        kinds: kindsOf('kinds', returning),
        // As the gateway passes it: the OUTPUT … INTO variable takes each column's declared type.
        model: Object.fromEntries(columns.map((c) => [c.name, c])),
      }),
    );
    const [row] = shape('kinds', inserted.rows);
    expect(row).toMatchObject(expected);
    expect(row.rv).toMatch(/^[A-Za-z0-9+/]{11}=$/);

    const read = await pool.run(
      dialect.compileSelect({
        scope: ALL_ROWS,
        table: ref('kinds'),
        columns: returning,
        kinds: kindsOf('kinds', returning),
        where: {
          kind: 'compare',
          column: 'id',
          op: 'eq',
          value: dialect.bindValue(columns[0], row.id),
        },
        order: [{ column: 'id', direction: 'ASC' }],
        take: 1,
        skip: 0,
      }),
    );
    expect(shape('kinds', read.rows)).toEqual([row]);

    // Filters on exact and temporal values match what was written.
    const filtered = await pool.run(
      dialect.compileCount({
        scope: ALL_ROWS,
        table: ref('kinds'),
        where: {
          kind: 'and',
          items: [
            {
              kind: 'compare',
              column: 'bi',
              op: 'eq',
              value: dialect.bindValue(
                columns.find((c) => c.name === 'bi')!,
                '9223372036854775807',
              ),
            },
            {
              kind: 'compare',
              column: 'dt2',
              op: 'lt',
              value: dialect.bindValue(
                columns.find((c) => c.name === 'dt2')!,
                '0001-01-01 00:00:01',
              ),
            },
            { kind: 'compare', column: 'dto', op: 'eq', value: '2024-03-11T02:30:00.005Z' },
            { kind: 'compare', column: 'bt', op: 'eq', value: true },
          ],
        },
      }),
    );
    expect(Number(filtered.rows[0].count)).toBe(1);

    // An empty insert reads back its defaults.
    const empty = await pool.run(
      dialect.compileInsert({
        table: ref('kinds'),
        values: [],
        returning: ['id', 'de'],
        kinds: kindsOf('kinds', ['id', 'de']),
      }),
    );
    expect(shape('kinds', empty.rows)).toEqual([{ id: expect.stringMatching(/^\d+$/), de: null }]);
  });

  it('filters case-insensitively and literally whatever the collation; decimals sort as numbers; pages are stable', async () => {
    const add = (email: string, name: string, nick: string | null) =>
      pool.run(
        dialect.compileInsert({
          table: ref('customers'),
          values: [
            { column: 'email', value: email },
            { column: 'name', value: name },
            { column: 'nick', value: nick },
          ],
          returning: ['id'],
        }),
      );
    const ann = (await add('ann@example.com', 'Ann', 'AnnIE[1]%_x')).rows[0].id;
    const bob = (await add('bob@example.com', 'Zoë', null)).rows[0].id;
    const like = async (
      column: string,
      mode: 'contains' | 'startsWith' | 'endsWith',
      value: string,
    ) =>
      Number(
        (
          await pool.run(
            dialect.compileCount({
              scope: ALL_ROWS,
              table: ref('customers'),
              where: { kind: 'like', column, mode, value },
            }),
          )
        ).rows[0].count,
      );
    expect(await like('nick', 'contains', 'annie[1]%')).toBe(1);
    expect(await like('nick', 'startsWith', 'ANNIE[')).toBe(1);
    expect(await like('nick', 'endsWith', '%_X')).toBe(1);
    expect(await like('nick', 'contains', 'e[1]_')).toBe(0);
    expect(await like('nick', 'contains', '[a-z]')).toBe(0);
    expect(await like('name', 'contains', 'zoe')).toBe(0);
    expect(await like('name', 'contains', 'ZOË')).toBe(1);

    for (const total of ['9.5', '100', '10.25', null]) {
      await pool.run(
        dialect.compileInsert({
          table: ref('orders'),
          values: [
            { column: 'customer_id', value: ann },
            { column: 'total', value: total },
          ],
          returning: [],
        }),
      );
    }
    await pool.run(
      dialect.compileInsert({
        table: ref('orders'),
        values: [
          { column: 'customer_id', value: bob },
          { column: 'total', value: '1' },
        ],
        returning: [],
      }),
    );
    const page = (take: number | null, skip: number, direction: 'ASC' | 'DESC') =>
      pool
        .run(
          dialect.compileSelect({
            scope: ALL_ROWS,
            table: ref('orders'),
            columns: ['id', 'total'],
            kinds: kindsOf('orders', ['id', 'total']),
            where: { kind: 'compare', column: 'customer_id', op: 'eq', value: ann },
            order: [
              { column: 'total', direction },
              { column: 'id', direction: 'ASC' },
            ],
            take,
            skip,
          }),
        )
        .then((r) => shape('orders', r.rows).map((o) => o.total));
    expect(await page(null, 0, 'DESC')).toEqual([
      '100.0000000000',
      '10.2500000000',
      '9.5000000000',
      null,
    ]);
    expect(await page(null, 0, 'ASC')).toEqual([
      null,
      '9.5000000000',
      '10.2500000000',
      '100.0000000000',
    ]);
    expect(await page(2, 1, 'ASC')).toEqual(['9.5000000000', '10.2500000000']);
    expect(await page(null, 3, 'ASC')).toEqual(['100.0000000000']);
    expect(await page(0, 0, 'ASC')).toEqual([]);

    const batched = await pool.run(
      dialect.compileSelect({
        scope: ALL_ROWS,
        table: ref('orders'),
        columns: ['customer_id', 'total'],
        kinds: kindsOf('orders', ['customer_id', 'total']),
        where: { kind: 'in', column: 'customer_id', values: [ann, bob], negated: false },
        order: [
          { column: 'total', direction: 'DESC' },
          { column: 'id', direction: 'ASC' },
        ],
        take: 1,
        skip: 0,
        partition: { column: 'customer_id' },
      }),
    );
    expect(
      shape('orders', batched.rows).sort((a, b) => Number(a.customer_id) - Number(b.customer_id)),
    ).toEqual([
      { customer_id: ann, total: '100.0000000000' },
      { customer_id: bob, total: '1.0000000000' },
    ]);
  });

  it('updates with OUTPUT, deletes with a row count', async () => {
    const { rows } = await pool.run(
      dialect.compileInsert({
        table: ref('customers'),
        values: [
          { column: 'email', value: 'cy@example.com' },
          { column: 'name', value: 'Cy' },
        ],
        returning: ['id'],
      }),
    );
    const id = rows[0].id;
    const byId = { kind: 'compare' as const, column: 'id', op: 'eq' as const, value: id };
    const updated = await pool.run(
      dialect.compileUpdate({
        scope: ALL_ROWS,
        table: ref('customers'),
        set: [{ column: 'name', value: 'Cyrus' }],
        where: byId,
        returning: ['id', 'name'],
      }),
    );
    expect(updated.rows).toEqual([{ id, name: 'Cyrus' }]);
    expect(updated.affected).toBe(1);
    const missing = await pool.run(
      dialect.compileUpdate({
        scope: ALL_ROWS,
        table: ref('customers'),
        set: [{ column: 'name', value: 'x' }],
        where: { ...byId, value: -1 },
        returning: ['id'],
      }),
    );
    expect(missing.rows).toEqual([]);
    expect(
      (
        await pool.run(
          dialect.compileDelete({ scope: ALL_ROWS, table: ref('customers'), where: byId }),
        )
      ).affected,
    ).toBe(1);
    expect(
      (
        await pool.run(
          dialect.compileDelete({ scope: ALL_ROWS, table: ref('customers'), where: byId }),
        )
      ).affected,
    ).toBe(0);
  });

  it('writes to a table with a trigger: OUTPUT … INTO, rows in the order sent, counts the write’s own; unique keys and declared types at import', async () => {
    // An AFTER trigger for every action, without SET NOCOUNT ON, so its own row counts reach the client.
    await exec(`CREATE TABLE dbo.invoices (
      id int IDENTITY(1,1) CONSTRAINT PK_invoices PRIMARY KEY,
      number nvarchar(20) NOT NULL CONSTRAINT UQ_invoices_number UNIQUE,
      customer varchar(80) NULL, total decimal(12,2) NULL, issued_at datetime2(3) NULL,
      paid bit NOT NULL DEFAULT 0, version rowversion)`);
    await exec('CREATE UNIQUE INDEX UX_invoices_open ON dbo.invoices (customer) WHERE paid = 0');
    await exec(
      'CREATE TABLE dbo.invoice_audit (id int IDENTITY(1,1) PRIMARY KEY, action nvarchar(10), invoice_id int)',
    );
    await exec(`CREATE TRIGGER dbo.invoices_audit ON dbo.invoices AFTER INSERT, UPDATE, DELETE AS
      BEGIN
        INSERT INTO dbo.invoice_audit (action, invoice_id) SELECT N'write', id FROM inserted;
        INSERT INTO dbo.invoice_audit (action, invoice_id) SELECT N'delete', id FROM deleted;
      END`);
    const [table] = await dialect.introspect(pool, [{ schema: 'dbo', name: 'invoices' }]);
    const model = Object.fromEntries(table.columns.map((c) => [c.name, c]));
    const kinds = Object.fromEntries(table.columns.map((c) => [c.name, c.kind]));
    expect(table.uniqueKeys).toEqual([
      { columns: ['number'] },
      { columns: ['customer'], partial: true },
    ]);
    expect(model.total.declaredType).toBe('decimal(12,2)');
    expect(model.issued_at.declaredType).toBe('datetime2(3)');
    const invoices = ref('invoices');

    const one = await pool.run(
      dialect.compileInsert({
        table: invoices,
        values: [
          { column: 'number', value: 'F-1' },
          { column: 'total', value: '10.50' },
          { column: 'issued_at', value: '2026-11-26T10:00:00.123' },
        ],
        returning: ['id', 'number', 'total', 'issued_at'],
        kinds,
        model,
      }),
    );
    expect(shape('invoices', one.rows)).toEqual([
      { id: 1, number: 'F-1', total: '10.50', issued_at: '2026-11-26T10:00:00.123' },
    ]);
    expect(one.affected).toBe(1);

    const many = await pool.run(
      dialect.compileInsertMany({
        table: invoices,
        columns: ['number', 'customer'],
        rows: [
          ['F-4', 'Dora'],
          ['F-2', 'Bea'],
          ['F-3', 'Caio'],
        ],
        returning: ['id', 'number'],
        kinds,
        model,
      }),
    );
    expect(many.rows.map((r) => r.number)).toEqual(['F-4', 'F-2', 'F-3']);
    expect(many.affected).toBe(3);

    const updated = await pool.run(
      dialect.compileUpdate({
        table: invoices,
        set: [{ column: 'paid', value: true }],
        where: { kind: 'compare', column: 'number', op: 'neq', value: 'F-1' },
        scope: ALL_ROWS,
        returning: ['id'],
        kinds,
        model,
      }),
    );
    expect(updated.rows).toHaveLength(3);
    expect(updated.affected).toBe(3);

    const upserted = await pool.run(
      dialect.compileUpsert({
        table: invoices,
        columns: ['number', 'customer'],
        rows: [
          ['F-1', 'Ana'],
          ['F-5', 'Eva'],
        ],
        key: ['number'],
        update: ['customer'],
        when: ALL_ROWS,
        scope: ALL_ROWS,
        returning: ['number'],
        kinds,
        model,
      }),
    );
    expect(
      upserted.rows
        .map((r) => [r.number, Number(r.__tg_inserted)])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['F-1', 0],
      ['F-5', 1],
    ]);

    const deleted = await pool.run(
      dialect.compileDelete({
        table: invoices,
        where: { kind: 'compare', column: 'paid', op: 'eq', value: true },
        scope: ALL_ROWS,
      }),
    );
    expect(deleted.affected).toBe(3);
    const audit = await exec('SELECT COUNT(*) AS n FROM dbo.invoice_audit');
    expect(Number(audit.rows[0].n)).toBeGreaterThan(0);
  });

  it('translates the four refusals with fields, in plain words', async () => {
    const ctx = (table: string, operation: WriteContext['operation']): WriteContext => ({
      table: ref(table),
      columns: columnsOf(table),
      operation,
    });
    const insertCustomer = (
      email: string | null,
      name: string | null,
      code: string | null = null,
    ) =>
      dialect.compileInsert({
        table: ref('customers'),
        values: [
          { column: 'email', value: email },
          { column: 'name', value: name },
          { column: 'code', value: code },
        ],
        returning: ['id'],
      });
    const { rows } = await pool.run(insertCustomer('dup@example.com', 'Dup'));
    await pool.run(
      dialect.compileInsert({
        table: ref('orders'),
        values: [{ column: 'customer_id', value: rows[0].id }],
        returning: [],
      }),
    );

    expect(
      await refusal(insertCustomer('dup@example.com', 'Again'), ctx('customers', 'insert')),
    ).toEqual({
      code: 'UNIQUE_VIOLATION',
      field: 'email',
      message: 'A row with this email already exists',
    });
    expect(
      await refusal(
        dialect.compileInsert({
          table: ref('orders'),
          values: [{ column: 'customer_id', value: 999999 }],
          returning: ['id'],
        }),
        ctx('orders', 'insert'),
      ),
    ).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: 'customer_id',
      message: 'customer_id refers to a row that does not exist',
    });
    expect(
      await refusal(
        dialect.compileDelete({
          scope: ALL_ROWS,
          table: ref('customers'),
          where: { kind: 'compare', column: 'id', op: 'eq', value: rows[0].id },
        }),
        ctx('customers', 'delete'),
      ),
    ).toEqual({
      code: 'FOREIGN_KEY_VIOLATION',
      field: null,
      message: 'This row cannot be deleted: rows in orders refer to it',
    });
    expect(
      await refusal(insertCustomer('nn@example.com', null), ctx('customers', 'insert')),
    ).toEqual({
      code: 'NOT_NULL_VIOLATION',
      field: 'name',
      message: 'name cannot be empty',
    });
    const tooLong = await refusal(
      insertCustomer('tl@example.com', 'Tl', 'ABCDEFGHIJK'),
      ctx('customers', 'insert'),
    );
    // 2628 names the column from SQL Server 2019 (compatibility level 150, a new database's default); 8152 before.
    expect(tooLong).toEqual(
      major >= 15
        ? {
            code: 'VALUE_TOO_LONG',
            field: 'code',
            message: 'code is too long: at most 10 characters',
          }
        : { code: 'VALUE_TOO_LONG', field: null, message: 'A value is too long' },
    );
  });
});
