import { StatementRefusal } from '../datasources.errors';
import {
  MSSQL_DESCRIBE_PARAMETERS_SQL,
  MSSQL_DESCRIBE_RESULT_SQL,
  mssqlSingleUseParameters,
} from '../mssql/describe';
import { MssqlDialect } from '../mssql/dialect';
import { mysqlColumnType, mysqlMessageWithoutSql } from '../mysql/describe';
import { MysqlDialect } from '../mysql/dialect';
import { postgresTypeKind } from '../postgres/describe';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';
import {
  ALL_ROWS,
  type CompiledQuery,
  type Dialect,
  type ModelColumn,
  type SqlPool,
  type StatementResult,
} from './dialect';
import { bindNamedValues, parseNamedStatement } from './sql-statement';

/**
 * Golden SQL of SQL APIs' statement port (issue 26), no server: `compileStatementSelect` on the
 * four dialects, SQL Server's description from answers in the shape its procedures document, and
 * the type mappings of the describe modules.
 */

const column = (name: string, kind: ModelColumn['kind'], nullable = true): ModelColumn => ({
  name,
  dbType: kind,
  kind,
  nullable,
  hasDefault: false,
  generated: false,
  maxLength: null,
});

const TEXT = `SELECT region, sum(amount) AS total FROM orders
WHERE placed_at >= :since AND (region = :region OR :region IS NULL)
GROUP BY region -- per region`;

function compiled(dialect: Dialect, take = 10, order = true): CompiledQuery {
  const statement = parseNamedStatement(TEXT, dialect.type);
  return dialect.compileStatementSelect({
    statement,
    params: bindNamedValues(statement, { since: '2026-01-01', region: 'north' }),
    columns: [column('region', 'text'), column('total', 'decimal')],
    where: {
      kind: 'and',
      items: [
        { kind: 'compare', column: 'total', op: 'gt', value: 5 },
        { kind: 'null', column: 'region', negated: true },
      ],
    },
    order: order ? [{ column: 'total', direction: 'DESC', nullable: true }] : [],
    take,
    skip: 20,
  });
}

describe('compileStatementSelect: the statement as a subquery, its parameters first', () => {
  it('PostgreSQL: $1, $2 for the statement, then the filter and the page', () => {
    expect(compiled(new PostgresDialect())).toEqual({
      sql:
        'SELECT "region", "total" FROM (\nSELECT region, sum(amount) AS total FROM orders\n' +
        'WHERE placed_at >= $1 AND (region = $2 OR $2 IS NULL)\nGROUP BY region -- per region\n' +
        ') AS "q" WHERE ("total" > $3 AND "region" IS NOT NULL) ORDER BY "q"."total" DESC NULLS LAST LIMIT $4 OFFSET $5',
      params: ['2026-01-01', 'north', 5, 10, 20],
    });
  });

  it('MySQL/MariaDB: ? per occurrence, the repeated name bound twice', () => {
    const query = compiled(new MysqlDialect());
    expect(query.params).toEqual(['2026-01-01', 'north', 'north', 5, 10, 20]);
    expect(query.sql).toBe(
      'SELECT `region`, `total` FROM (\nSELECT region, sum(amount) AS total FROM orders\n' +
        'WHERE placed_at >= ? AND (region = ? OR ? IS NULL)\nGROUP BY region -- per region\n' +
        ') AS `q` WHERE (`total` > ? AND `region` IS NOT NULL) ORDER BY `q`.`total` DESC LIMIT ? OFFSET ?',
    );
  });

  it('SQLite: ? per occurrence', () => {
    const query = compiled(new SqliteDialect());
    expect(query.params).toEqual(['2026-01-01', 'north', 'north', 5, 10, 20]);
    expect(query.sql).toBe(
      'SELECT "region", "total" FROM (\nSELECT region, sum(amount) AS total FROM orders\n' +
        'WHERE placed_at >= ? AND (region = ? OR ? IS NULL)\nGROUP BY region -- per region\n' +
        ') AS "q" WHERE ("total" > ? AND "region" IS NOT NULL) ORDER BY "q"."total" DESC LIMIT ? OFFSET ?',
    );
  });

  it('SQL Server: @p1, @p2, decimals read as text, OFFSET/FETCH with an order always', () => {
    const dialect = new MssqlDialect();
    const query = compiled(dialect);
    expect(query.params).toEqual(['2026-01-01', 'north', 5, 20, 10]);
    expect(query.sql).toBe(
      'SELECT [region], CONVERT(NVARCHAR(64), [total], 2) AS [total] FROM (\n' +
        'SELECT region, sum(amount) AS total FROM orders\n' +
        'WHERE placed_at >= @p1 AND (region = @p2 OR @p2 IS NULL)\nGROUP BY region -- per region\n' +
        ') AS [q] WHERE ([total] > @p3 AND [region] IS NOT NULL) ORDER BY [q].[total] DESC ' +
        'OFFSET @p4 ROWS FETCH NEXT @p5 ROWS ONLY',
    );
    // No order asked: OFFSET/FETCH still needs one.
    expect(compiled(dialect, 10, false).sql).toMatch(
      /\) AS \[q\] WHERE .* ORDER BY \(SELECT NULL\) OFFSET @p4 ROWS FETCH NEXT @p5 ROWS ONLY$/,
    );
    // take 0: FETCH NEXT 0 is refused by SQL Server, a false filter answers no row.
    const none = compiled(dialect, 0);
    expect(none.sql).toContain('AND 1=0)');
    expect(none.params.slice(-2)).toEqual([20, 1]);
  });

  it('the other dialects order nothing when no order is asked', () => {
    expect(compiled(new PostgresDialect(), 10, false).sql).toMatch(
      /IS NOT NULL\) LIMIT \$4 OFFSET \$5$/,
    );
  });

  it('with no filter, no WHERE', () => {
    const statement = parseNamedStatement('SELECT 1 AS one', 'postgres');
    expect(
      new PostgresDialect().compileStatementSelect({
        statement,
        params: [],
        columns: [column('one', 'int', false)],
        where: ALL_ROWS,
        order: [],
        take: 5,
        skip: 0,
      }),
    ).toEqual({ sql: 'SELECT "one" FROM (\nSELECT 1 AS one\n) AS "q" LIMIT $1', params: [5] });
  });
});

/**
 * A pool whose readOnly answers each statement from `answer`, recording what was asked; `run`
 * outside readOnly is refused (the description must run inside it).
 */
function describingPool(
  answer: (query: CompiledQuery) => Record<string, unknown>[],
): SqlPool & { asked: CompiledQuery[]; readOnlyCalls: number } {
  const asked: CompiledQuery[] = [];
  const pool = {
    asked,
    readOnlyCalls: 0,
    run: () => Promise.reject(new Error('outside readOnly')),
    transaction: () => Promise.reject(new Error('not used')),
    readOnly: <T>(
      work: (run: (query: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
    ): Promise<T> => {
      pool.readOnlyCalls++;
      return work((query) => {
        asked.push(query);
        return Promise.resolve({ rows: answer(query), affected: undefined });
      });
    },
    serverVersion: () => Promise.resolve('16.0'),
    close: () => Promise.resolve(),
  };
  return pool;
}

describe('SQL Server describeStatement (answers in the procedures’ documented shape)', () => {
  const dialect = new MssqlDialect();
  const text =
    'SELECT o.id, o.placed_at, o.placed_tz, c.name, SUM(o.amount) OVER (PARTITION BY c.id) AS running ' +
    'FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.placed_at >= :since AND o.id <> :id AND c.id <> :id';

  it('types parameters by sp_describe_undeclared_parameters and columns by sp_describe_first_result_set', async () => {
    const statement = parseNamedStatement(text, 'mssql');
    const pool = describingPool((query) =>
      query.sql === MSSQL_DESCRIBE_PARAMETERS_SQL
        ? [
            { parameter_ordinal: 1, name: '@p1', suggested_system_type_name: 'datetime2(7)' },
            { parameter_ordinal: 2, name: '@p2', suggested_system_type_name: 'int' },
            { parameter_ordinal: 3, name: '@p2_2', suggested_system_type_name: 'int' },
          ]
        : [
            // sp_describe_first_result_set: is_hidden, column_ordinal, name, is_nullable, system_type_name…
            {
              is_hidden: false,
              column_ordinal: 2,
              name: 'placed_at',
              is_nullable: false,
              system_type_name: 'datetime2(7)',
            },
            {
              is_hidden: false,
              column_ordinal: 1,
              name: 'id',
              is_nullable: false,
              system_type_name: 'int',
            },
            {
              is_hidden: false,
              column_ordinal: 3,
              name: 'placed_tz',
              is_nullable: true,
              system_type_name: 'datetimeoffset(7)',
            },
            {
              is_hidden: false,
              column_ordinal: 4,
              name: 'name',
              is_nullable: true,
              system_type_name: 'nvarchar(100)',
            },
            {
              is_hidden: false,
              column_ordinal: 5,
              name: 'running',
              is_nullable: true,
              system_type_name: 'decimal(38,2)',
            },
            {
              is_hidden: true,
              column_ordinal: 6,
              name: 'rowguid',
              is_nullable: false,
              system_type_name: 'uniqueidentifier',
            },
          ],
    );
    const described = await dialect.describeStatement(pool, statement);
    expect(pool.readOnlyCalls).toBe(1);
    expect(pool.asked).toEqual([
      {
        sql: MSSQL_DESCRIBE_PARAMETERS_SQL,
        params: [
          'SELECT o.id, o.placed_at, o.placed_tz, c.name, SUM(o.amount) OVER (PARTITION BY c.id) AS running ' +
            'FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.placed_at >= @p1 AND o.id <> @p2 AND c.id <> @p2_2',
        ],
      },
      { sql: MSSQL_DESCRIBE_RESULT_SQL, params: [statement.sql, '@p1 datetime2(7), @p2 int'] },
    ]);
    expect(described).toEqual({
      parameters: [
        { name: 'since', databaseType: 'datetime2(7)', kind: 'timestamp' },
        { name: 'id', databaseType: 'int', kind: 'int' },
      ],
      columns: [
        { name: 'id', databaseType: 'int', kind: 'int', nullable: false },
        { name: 'placed_at', databaseType: 'datetime2(7)', kind: 'timestamp', nullable: false },
        {
          name: 'placed_tz',
          databaseType: 'datetimeoffset(7)',
          kind: 'timestamptz',
          nullable: true,
        },
        { name: 'name', databaseType: 'nvarchar(100)', kind: 'text', nullable: true },
        { name: 'running', databaseType: 'decimal(38,2)', kind: 'decimal', nullable: true },
      ],
    });
  });

  it('declares a parameter SQL Server could not type as sql_variant, with no kind', async () => {
    const statement = parseNamedStatement('SELECT :x AS x', 'mssql');
    const pool = describingPool((query) =>
      query.sql === MSSQL_DESCRIBE_PARAMETERS_SQL
        ? []
        : [
            {
              is_hidden: false,
              column_ordinal: 1,
              name: 'x',
              is_nullable: true,
              system_type_name: 'sql_variant',
            },
          ],
    );
    const described = await dialect.describeStatement(pool, statement);
    expect(pool.asked[1].params[1]).toBe('@p1 sql_variant');
    expect(described.parameters).toEqual([{ name: 'x', databaseType: null, kind: null }]);
  });

  it('a statement without parameters asks only for its result set', async () => {
    const pool = describingPool(() => [
      {
        is_hidden: false,
        column_ordinal: 1,
        name: null,
        is_nullable: false,
        system_type_name: 'int',
      },
    ]);
    const described = await dialect.describeStatement(
      pool,
      parseNamedStatement('SELECT 1', 'mssql'),
    );
    expect(pool.asked.map((q) => q.sql)).toEqual([MSSQL_DESCRIBE_RESULT_SQL]);
    expect(pool.asked[0].params).toEqual(['SELECT 1', null]);
    expect(described.columns).toEqual([
      { name: '', databaseType: 'int', kind: 'int', nullable: false },
    ]);
  });

  it('turns SQL Server’s refusal into INVALID_STATEMENT with its message', async () => {
    const pool = describingPool(() => {
      throw Object.assign(new Error("Invalid object name 'nope'."), { number: 208, class: 16 });
    });
    const refusal = await dialect
      .describeStatement(pool, parseNamedStatement('SELECT * FROM nope', 'mssql'))
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(StatementRefusal);
    expect((refusal as StatementRefusal).reason).toBe('INVALID_STATEMENT');
    expect((refusal as StatementRefusal).message).toBe(
      "The database refused the statement: Invalid object name 'nope'.",
    );
  });

  it('renames every use of a parameter after its first for sp_describe_undeclared_parameters', () => {
    expect(mssqlSingleUseParameters('SELECT @p1, @p2, @p1, @p10, @p1')).toBe(
      'SELECT @p1, @p2, @p1_2, @p10, @p1_3',
    );
  });
});

describe('type mappings of the describe modules (the introspection’s kinds)', () => {
  it('MySQL/MariaDB column definitions', () => {
    const def = (columnType: number, extra: Record<string, unknown> = {}) =>
      mysqlColumnType({ name: 'c', orgTable: 't', orgName: 'c', columnType, flags: 0, ...extra });
    expect(def(3)).toEqual({ databaseType: 'int', kind: 'int' });
    expect(def(3, { flags: 32 })).toEqual({ databaseType: 'int unsigned', kind: 'bigint' });
    expect(def(1, { columnLength: 1 })).toEqual({ databaseType: 'tinyint(1)', kind: 'boolean' });
    expect(def(1, { columnLength: 4 })).toEqual({ databaseType: 'tinyint', kind: 'int' });
    expect(def(8).kind).toBe('bigint');
    expect(def(246).kind).toBe('decimal');
    expect(def(12).kind).toBe('timestamp');
    expect(def(7).kind).toBe('timestamptz');
    expect(def(10).kind).toBe('date');
    expect(def(11).kind).toBe('duration');
    expect(def(245).kind).toBe('json');
    expect(def(253, { characterSet: 45 })).toEqual({ databaseType: 'varchar', kind: 'text' });
    expect(def(253, { characterSet: 63 })).toEqual({ databaseType: 'varbinary', kind: 'binary' });
    expect(def(252, { characterSet: 63 }).kind).toBe('binary');
    expect(def(252, { characterSet: 45, extendedFormat: 'json' }).kind).toBe('json');
    expect(def(254, { characterSet: 45, extendedTypeName: 'uuid' }).kind).toBe('uuid');
    expect(def(255).kind).toBe('other');
    expect(def(6)).toEqual({ databaseType: null, kind: null });
  });

  it('MySQL messages lose the SQL they quote', () => {
    expect(
      mysqlMessageWithoutSql(
        "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'FORM orders WHERE secret = 'x'' at line 1",
      ),
    ).toBe(
      'You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use at line 1',
    );
  });

  it('PostgreSQL types: enums as text, domains as their base, unknown without kind', () => {
    const type = (
      name: string,
      typtype = 'b',
      base: string | null = null,
      baseType: string | null = null,
    ) => postgresTypeKind({ oid: 1, name, typtype, base, base_typtype: baseType });
    expect(type('timestamp with time zone')).toBe('timestamptz');
    expect(type('timestamp without time zone')).toBe('timestamp');
    expect(type('character varying')).toBe('text');
    expect(type('mood', 'e')).toBe('text');
    expect(type('positive_int', 'd', 'integer', 'b')).toBe('int');
    expect(type('mood_domain', 'd', 'mood', 'e')).toBe('text');
    expect(type('integer[]')).toBe('other');
    expect(type('unknown', 'p')).toBeNull();
    expect(postgresTypeKind(undefined)).toBeNull();
  });
});
