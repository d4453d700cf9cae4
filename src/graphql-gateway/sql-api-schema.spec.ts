import { printType, type GraphQLObjectType } from 'graphql';
import { PostgresDialect } from '../datasources/postgres/dialect';
import { SqliteDialect } from '../datasources/sqlite/dialect';
import {
  emptyDefinition,
  type SqlApiDefinition,
  type VersionDefinition,
} from '../platform/version-definition';
import { CONTRACT_LIMITS } from '../../test/support/request-limits';
import { DatabaseRefusalError } from './graphql-errors';
import { compileDocument, selectOperation } from './request/compiled-operation';
import { coerceRequestVariables } from './request/execute-operation';
import { BUILDER, PUBLISHED } from './request/audience';
import { DefinitionClash, VersionTypes } from './schema-builder';
import { shapeSqlRows, sqlApiPlan, wallTimeToInstant } from './sql-api-values';

/**
 * README "SQL APIs" (issue 26 item 3): the GraphQL shape of query and mutation kinds, drafts and
 * names, and the output values (zoned instants, NULL in a non-null column).
 */

const proposed = { databaseType: null, kind: null, nullable: null };

function sqlApi(over: Partial<SqlApiDefinition>): SqlApiDefinition {
  return {
    id: 'r1',
    name: 'salesReport',
    datasourceId: 'ds',
    statement: 'SELECT name, total FROM t WHERE status = :status',
    kind: 'query',
    arguments: [{ name: 'status', type: 'text', nullable: false, enum: 'OrderStatus', proposed }],
    columns: [
      { name: 'name', kind: 'text', nullable: false, proposed },
      { name: 'total', kind: 'decimal', nullable: true, proposed },
      { name: 'at', kind: 'timestamptz', nullable: true, proposed },
    ],
    filterable: false,
    public: false,
    status: 'published',
    createdAt: '',
    updatedAt: '',
    ...over,
  };
}

function definition(...apis: SqlApiDefinition[]): VersionDefinition {
  const def = emptyDefinition();
  def.enums.push({
    name: 'OrderStatus',
    description: null,
    values: ['PAID', 'PENDING'].map((value) => ({ value, label: null, color: null })),
  });
  def.sqlApis = apis;
  return def;
}

describe('SQL API schema', () => {
  it('gives a query kind its row type, enum argument and take; filterable adds where, order, skip', () => {
    const { schema, rootFields } = new VersionTypes(
      definition(sqlApi({}), sqlApi({ id: 'r2', name: 'byDay', filterable: true })),
    ).schemaFor(PUBLISHED);
    const field = schema.getQueryType()!.getFields().salesReport;
    expect(field.type.toString()).toBe('[SalesReportRow!]!');
    expect(field.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual([
      'status: OrderStatus!',
      'take: Int',
    ]);
    expect(printType(schema.getType('SalesReportRow')!)).toContain('name: String!');
    expect(printType(schema.getType('SalesReportRow')!)).toContain('at: DateTime');
    const filterable = schema.getQueryType()!.getFields().byDay;
    expect(filterable.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual([
      'status: OrderStatus!',
      'where: ByDayRowFilter',
      'order: [ByDayRowOrder!]',
      'take: Int',
      'skip: Int',
    ]);
    expect(rootFields.get('salesReport')).toEqual({
      apiId: 'r1',
      action: 'select',
      public: false,
      datasourceId: 'ds',
    });
  });

  it('gives a mutation kind <Name>Result { affected rows }, and leaves out implicit :user_ parameters', () => {
    const { schema } = new VersionTypes(
      definition(
        sqlApi({
          name: 'closeOrders',
          kind: 'mutation',
          arguments: [
            { name: 'before', type: 'date', nullable: false, proposed },
            { name: 'user_id', type: 'text', nullable: false, proposed },
          ],
          columns: [{ name: 'id', kind: 'int', nullable: false, proposed }],
        }),
      ),
    ).schemaFor(PUBLISHED);
    const field = schema.getMutationType()!.getFields().closeOrders;
    expect(field.type.toString()).toBe('CloseOrdersResult');
    expect(field.args.map((a) => `${a.name}: ${a.type.toString()}`)).toEqual(['before: Date!']);
    const result = schema.getType('CloseOrdersResult') as GraphQLObjectType;
    expect(Object.keys(result.getFields())).toEqual(['affected', 'rows']);
  });

  it('shows drafts to builders only (RASCUNHO) and leaves out an SQL API lacking a type', () => {
    const def = definition(
      sqlApi({ status: 'draft' }),
      sqlApi({
        id: 'r3',
        name: 'untyped',
        columns: [{ name: 'x', kind: null, nullable: true, proposed }],
      }),
    );
    const types = new VersionTypes(def);
    expect(types.schemaFor(PUBLISHED).schema.getQueryType()!.getFields().salesReport).toBe(
      undefined,
    );
    const builder = types.schemaFor(BUILDER).schema.getQueryType()!.getFields();
    expect(builder.salesReport.description).toBe('RASCUNHO');
    expect(builder.untyped).toBeUndefined();
  });

  it('refuses an SQL API named like a Table API operation (409 at save)', () => {
    const def = definition(sqlApi({ name: 'getCustomers' }));
    def.tables.push({
      name: 'customers',
      datasourceId: 'ds',
      active: true,
      schema: null,
      dbName: 'customers',
      columns: [
        {
          name: 'id',
          dbType: 'integer',
          kind: 'int',
          nullable: false,
          hasDefault: false,
          generated: true,
          maxLength: null,
        },
      ],
      primaryKey: ['id'],
      foreignKeys: [],
    });
    def.apis.push({
      id: 't',
      name: 'customers',
      table: 'customers',
      actions: { select: true, insert: false, update: false, delete: false },
      public: { select: false, insert: false, update: false, delete: false },
      fields: null,
      status: 'published',
      createdAt: '',
      updatedAt: '',
    });
    expect(() => new VersionTypes(def)).toThrow(DefinitionClash);
  });
});

describe('SQL API cost', () => {
  // README "SQL APIs": a query kind is charged its take as the rows it may read, like get<Base>.
  const cost = (text: string, variables: Record<string, unknown> = {}) => {
    const { schema } = new VersionTypes(definition(sqlApi({}))).schemaFor(PUBLISHED);
    const operation = selectOperation(
      compileDocument(schema, text, CONTRACT_LIMITS, false),
      undefined,
    );
    return operation.cost(
      coerceRequestVariables(schema, operation, variables).values,
      CONTRACT_LIMITS,
    );
  };

  it('charges a query kind its take, 10,000 without one, one statement per field', () => {
    expect(cost('{ salesReport(status: PAID, take: 50) { name } }')).toMatchObject({
      rows: 50,
      statements: 1,
    });
    expect(
      cost('query($t: Int) { salesReport(status: PAID, take: $t) { name } }', { t: 7 }).rows,
    ).toBe(7);
    expect(
      cost('{ a: salesReport(status: PAID) { name } b: salesReport(status: PAID) { name } }'),
    ).toMatchObject({
      rows: 20_000,
      statements: 2,
    });
    expect(() => cost('{ salesReport(status: PAID, take: 10001) { name } }')).toThrow(
      'salesReport: take exceeds the limit of 10,000 rows',
    );
  });
});

describe('SQL API values', () => {
  it('reads a date and time without zone in the configured zone, as …Z with milliseconds', () => {
    expect(wallTimeToInstant('2024-03-01 12:00:00', 'UTC')).toBe('2024-03-01T12:00:00.000Z');
    expect(wallTimeToInstant('2024-07-01 12:00:00.1234', 'Europe/Lisbon')).toBe(
      '2024-07-01T11:00:00.123Z',
    );
    expect(wallTimeToInstant('2024-01-15T08:30', 'America/Sao_Paulo')).toBe(
      '2024-01-15T11:30:00.000Z',
    );
    // 02:30 does not exist in Berlin on 2024-03-31 (clocks go 02:00 → 03:00): the offset before.
    expect(wallTimeToInstant('2024-03-31 02:30:00', 'Europe/Berlin')).toBe(
      '2024-03-31T01:30:00.000Z',
    );
    // 02:30 happens twice on 2024-10-27 (03:00 → 02:00): the first, at the offset before.
    expect(wallTimeToInstant('2024-10-27 02:30:00', 'Europe/Berlin')).toBe(
      '2024-10-27T00:30:00.000Z',
    );
    expect(wallTimeToInstant('2024-03-31 02:30:00+02', 'Europe/Berlin')).toBeNull();
  });

  it('formats rows by the confirmed kinds and refuses a NULL in a non-null column', () => {
    const plan = sqlApiPlan(sqlApi({}), 'SalesReportRow', 'America/Sao_Paulo');
    const pg = new PostgresDialect();
    expect(
      shapeSqlRows(
        plan,
        [
          { name: 'a', total: '10.50', at: '2024-03-01 12:00:00' },
          { name: 'b', total: null, at: '2024-03-01 12:00:00.5+00' },
        ],
        pg,
      ),
    ).toEqual([
      { name: 'a', total: '10.50', at: '2024-03-01T15:00:00.000Z' },
      { name: 'b', total: null, at: '2024-03-01T12:00:00.500Z' },
    ]);
    let refusal: unknown;
    try {
      shapeSqlRows(plan, [{ name: null, total: '1', at: null }], new SqliteDialect());
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DatabaseRefusalError);
    expect((refusal as DatabaseRefusalError).refusal).toMatchObject({
      code: 'INVALID_VALUE',
      field: 'name',
    });
  });
});
