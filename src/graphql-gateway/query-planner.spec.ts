import { ALL_ROWS } from '../datasources/core/dialect';
import { FieldNode, FragmentDefinitionNode, Kind, OperationDefinitionNode, parse } from 'graphql';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { ColumnKind, ModelColumn, ModelForeignKey } from '../datasources/core/dialect';
import { PostgresDialect } from '../datasources/postgres/dialect';
import { SqliteDialect } from '../datasources/sqlite/dialect';
import { sqliteKind } from '../datasources/sqlite/introspection';
import type {
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { buildApiTree, RowNode } from './api-tree';
import { DatabaseRefusalError } from './graphql-errors';
import {
  FilterInput,
  planOrder,
  planPage,
  planWhere,
  selectColumns,
  shapeRows,
  TAKE_LIMIT,
  tableRef,
} from './query-planner';
import { modelColumn } from '../../test/support/model-column';
import { parameterColumn } from '../datasources/core/sql-compiler';
import { invalidValueField } from '../datasources/core/invalid-value';

/** The `where` language, order and page of CONTRACT.md §6, from GraphQL arguments to plans. */

const pg = new PostgresDialect();
const lite = new SqliteDialect();

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, extra);

function fk(column: string, referencedTable: string, referencedColumn = 'id'): ModelForeignKey {
  return {
    columns: [column],
    referencedSchema: 'public',
    referencedTable,
    referencedColumns: [referencedColumn],
  };
}

function table(
  name: string,
  columns: ModelColumn[],
  primaryKey: string[],
  foreignKeys: ModelForeignKey[] = [],
): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns,
    primaryKey,
    foreignKeys,
  };
}

const customer = table(
  'customer',
  [
    col('id', 'int', { nullable: false, generated: true }),
    col('name', 'text', { nullable: false }),
    col('email', 'text'),
    col('vip', 'boolean'),
    col('balance', 'decimal'),
    col('created_at', 'timestamptz'),
  ],
  ['id'],
);
const orders = table(
  'orders',
  [
    col('id', 'bigint', { nullable: false, generated: true }),
    col('customer_id', 'int'),
    col('status', 'text'),
    col('total', 'decimal'),
    col('placed_at', 'timestamp'),
    col('created_at', 'timestamptz'),
  ],
  ['id'],
  [fk('customer_id', 'customer')],
);
const orderLine = table(
  'order_line',
  [
    col('order_id', 'bigint', { nullable: false }),
    col('line_no', 'int', { nullable: false }),
    col('product', 'text'),
    col('qty', 'int'),
  ],
  ['order_id', 'line_no'],
  [fk('order_id', 'orders')],
);
const session = table(
  'session',
  [col('id', 'uuid', { nullable: false }), col('customer_id', 'int')],
  ['id'],
  [fk('customer_id', 'customer')],
);
const auditLog = table('audit_log', [col('message', 'text'), col('at', 'timestamp')], []);

const none = { select: false, insert: false, update: false, delete: false };
function api(
  name: string,
  tableName: string,
  fields: TableApiDefinition['fields'],
): TableApiDefinition {
  return {
    id: `api-${name}`,
    name,
    table: tableName,
    actions: { ...none, select: true },
    public: none,
    fields,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

const definition: VersionDefinition = {
  tables: [customer, orders, orderLine, session, auditLog],
  enums: [],
  apis: [],
  permissions: {},
};

function tree(a: TableApiDefinition): RowNode {
  const node = buildApiTree(definition, a);
  if (!node) throw new Error(`no tree for ${a.name}`);
  return node;
}

const customersNode = tree(
  api('customers', 'customer', {
    id: true,
    name: true,
    email: true,
    vip: true,
    balance: true,
    created_at: true,
    orders: { id: true, status: true, created_at: true, customer: { name: true } },
  }),
);
const ordersNode = tree(api('orders', 'orders', null));
const linesNode = tree(api('lines', 'order_line', null));
const sessionsNode = tree(api('sessions', 'session', null));
const logNode = tree(api('log', 'audit_log', null));

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('the hand-written model as an API tree', () => {
  it('has the expected row types and key columns', () => {
    expect(customersNode.typeName).toBe('Customers');
    expect(customersNode.navigations.map((n) => [n.navigation.name, n.node.typeName])).toEqual([
      ['orders', 'Orders'],
    ]);
    expect(customersNode.navigations[0].node.navigations.map((n) => n.node.typeName)).toEqual([
      'Customer',
    ]);
    expect(ordersNode.isKey('customer_id')).toBe(true);
    expect(ordersNode.isKey('status')).toBe(false);
    expect(tableRef(orders)).toEqual({ schema: 'public', name: 'orders' });
  });
});

describe('planWhere', () => {
  it.each(['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const)(
    '%s is a comparison with the value as given',
    (op) => {
      expect(planWhere(customersNode, { name: { [op]: 'Ada' } }, pg)).toEqual({
        kind: 'compare',
        column: 'name',
        op,
        value: 'Ada',
      });
    },
  );

  it('in and nin are lists', () => {
    expect(planWhere(customersNode, { name: { in: ['Ada', 'Grace'] } }, pg)).toEqual({
      kind: 'in',
      column: 'name',
      values: ['Ada', 'Grace'],
      negated: false,
    });
    expect(planWhere(customersNode, { name: { nin: [] } }, pg)).toEqual({
      kind: 'in',
      column: 'name',
      values: [],
      negated: true,
    });
  });

  it('marks the comparisons of a date-and-time column, span and lists alike', () => {
    expect(
      planWhere(
        ordersNode,
        { placed_at: { eq: '2024-01-10T08:00:00', in: ['2024-01-10T08:00:00.5'] } },
        pg,
      ),
    ).toEqual({
      kind: 'and',
      items: [
        {
          kind: 'and',
          items: [
            {
              kind: 'compare',
              column: 'placed_at',
              op: 'gte',
              value: '2024-01-10T08:00:00',
              timestamp: true,
            },
            {
              kind: 'compare',
              column: 'placed_at',
              op: 'lt',
              value: '2024-01-10T08:00:00.001',
              timestamp: true,
            },
          ],
        },
        {
          kind: 'in',
          column: 'placed_at',
          values: ['2024-01-10T08:00:00.5'],
          negated: false,
          timestamp: true,
        },
      ],
    });
    expect(planWhere(ordersNode, { status: { eq: 'x' } }, pg)).not.toHaveProperty('timestamp');
    // Finer fractions compare exactly, as sent: unmarked, and apart from the times in a list.
    const exact = '2024-01-10T08:00:00.123456';
    expect(planWhere(ordersNode, { placed_at: { eq: exact } }, pg)).toEqual({
      kind: 'compare',
      column: 'placed_at',
      op: 'eq',
      value: exact,
    });
    expect(
      planWhere(ordersNode, { placed_at: { nin: [exact, '2024-01-10T08:00:00.5'] } }, pg),
    ).toEqual({
      kind: 'and',
      items: [
        {
          kind: 'in',
          column: 'placed_at',
          values: ['2024-01-10T08:00:00.5'],
          negated: true,
          timestamp: true,
        },
        { kind: 'in', column: 'placed_at', values: [exact], negated: true },
      ],
    });
  });

  it('nin of values the column cannot hold is every filled field, never an empty one', () => {
    // int holds up to 2,147,483,647: the one value leaves the list, and nin: [] would match NULLs.
    expect(planWhere(ordersNode, { customer_id: { nin: ['3000000000'] } }, pg)).toEqual({
      kind: 'null',
      column: 'customer_id',
      negated: true,
    });
    expect(planWhere(ordersNode, { customer_id: { nin: ['3000000000', '7'] } }, pg)).toEqual({
      kind: 'in',
      column: 'customer_id',
      values: [7],
      negated: true,
    });
  });

  it.each(['contains', 'startsWith', 'endsWith'] as const)(
    '%s is a literal LIKE of the raw text',
    (mode) => {
      expect(planWhere(customersNode, { email: { [mode]: '50%_\\[x]' } }, pg)).toEqual({
        kind: 'like',
        column: 'email',
        mode,
        value: '50%_\\[x]',
      });
    },
  );

  it('eq: null matches empty fields and neq: null filled ones', () => {
    expect(planWhere(customersNode, { email: { eq: null } }, pg)).toEqual({
      kind: 'null',
      column: 'email',
      negated: false,
    });
    expect(planWhere(customersNode, { email: { neq: null } }, pg)).toEqual({
      kind: 'null',
      column: 'email',
      negated: true,
    });
  });

  it('other operators given null follow SQL: never true', () => {
    const never = { kind: 'or', items: [] };
    expect(planWhere(customersNode, { name: { gt: null } }, pg)).toEqual(never);
    expect(planWhere(customersNode, { name: { gt: null, contains: null, in: null } }, pg)).toEqual({
      kind: 'and',
      items: [never, never, never],
    });
  });

  it('no filter, an empty filter and a null column are all "true"', () => {
    expect(planWhere(customersNode, undefined, pg)).toEqual({ kind: 'and', items: [] });
    expect(planWhere(customersNode, null, pg)).toEqual({ kind: 'and', items: [] });
    expect(planWhere(customersNode, {}, pg)).toEqual({ kind: 'and', items: [] });
    expect(planWhere(customersNode, { name: null }, pg)).toEqual({ kind: 'and', items: [] });
  });

  it('keys at one level, and operators of one column, are AND-ed', () => {
    expect(
      planWhere(
        customersNode,
        { name: { startsWith: 'A' }, email: { neq: null }, balance: { gte: '10', lt: '100' } },
        pg,
      ),
    ).toEqual({
      kind: 'and',
      items: [
        { kind: 'like', column: 'name', mode: 'startsWith', value: 'A' },
        { kind: 'null', column: 'email', negated: true },
        { kind: 'compare', column: 'balance', op: 'gte', value: '10' },
        { kind: 'compare', column: 'balance', op: 'lt', value: '100' },
      ],
    });
  });

  it('and / or nest', () => {
    const where: FilterInput = {
      or: [
        { name: { eq: 'Ada' } },
        { and: [{ email: { endsWith: '.org' } }, { vip: { eq: true } }] },
      ],
      balance: { gt: '0' },
    };
    expect(planWhere(customersNode, where, pg)).toEqual({
      kind: 'and',
      items: [
        {
          kind: 'or',
          items: [
            { kind: 'compare', column: 'name', op: 'eq', value: 'Ada' },
            {
              kind: 'and',
              items: [
                { kind: 'like', column: 'email', mode: 'endsWith', value: '.org' },
                { kind: 'compare', column: 'vip', op: 'eq', value: true },
              ],
            },
          ],
        },
        { kind: 'compare', column: 'balance', op: 'gt', value: '0' },
      ],
    });
  });

  it('and: [] is true and or: [] is false once compiled', () => {
    const and = planWhere(customersNode, { and: [] }, pg);
    const or = planWhere(customersNode, { or: [] }, pg);
    expect(and).toEqual({ kind: 'and', items: [] });
    expect(or).toEqual({ kind: 'or', items: [] });
    expect(pg.compileCount({ scope: ALL_ROWS, table: tableRef(customer), where: and }).sql).toBe(
      'SELECT COUNT(*) AS "count" FROM "public"."customer"',
    );
    expect(pg.compileCount({ scope: ALL_ROWS, table: tableRef(customer), where: or }).sql).toBe(
      'SELECT COUNT(*) AS "count" FROM "public"."customer" WHERE 1=0',
    );
    const emptyItems = planWhere(customersNode, { or: [{}] }, pg);
    expect(
      pg.compileCount({ scope: ALL_ROWS, table: tableRef(customer), where: emptyItems }).sql,
    ).toBe('SELECT COUNT(*) AS "count" FROM "public"."customer" WHERE (1=1)');
  });

  it('integer key values are converted from text (int to number, bigint kept as exact text)', () => {
    expect(planWhere(customersNode, { id: { eq: '42' } }, pg)).toEqual({
      kind: 'compare',
      column: 'id',
      op: 'eq',
      value: 42,
    });
    expect(planWhere(customersNode, { id: { in: ['1', '-2', 3] } }, pg)).toEqual({
      kind: 'in',
      column: 'id',
      values: [1, -2, 3],
      negated: false,
    });
    expect(planWhere(ordersNode, { customer_id: { neq: '7' } }, pg)).toEqual({
      kind: 'compare',
      column: 'customer_id',
      op: 'neq',
      value: 7,
    });
    expect(planWhere(ordersNode, { id: { eq: '9007199254740993' } }, pg)).toEqual({
      kind: 'compare',
      column: 'id',
      op: 'eq',
      value: '9007199254740993',
    });
  });

  it.each([['abc'], ['12x'], ['1.5'], [''], [' 7']])(
    'an invalid integer key value %j is refused naming the column',
    (bad) => {
      const error = catchError(() => planWhere(ordersNode, { customer_id: { eq: bad } }, pg));
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe(ErrorCode.InvalidInput);
      expect((error as DomainError).message).toContain('customer_id');
      expect((error as DomainError).message).toContain(`"${bad}"`);
    },
  );

  it('an invalid key inside in / nin or a nested or is refused too', () => {
    expect(() => planWhere(ordersNode, { id: { in: ['1', 'two'] } }, pg)).toThrow(
      /"two" is not a valid id/,
    );
    expect(() => planWhere(ordersNode, { or: [{ customer_id: { nin: ['x'] } }] }, pg)).toThrow(
      /customer_id/,
    );
  });

  it('a UUID key must be a UUID', () => {
    const good = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    expect(planWhere(sessionsNode, { id: { eq: good } }, pg)).toEqual({
      kind: 'compare',
      column: 'id',
      op: 'eq',
      value: good,
    });
    const error = catchError(() => planWhere(sessionsNode, { id: { eq: 'not-a-uuid' } }, pg));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).message).toContain('id');
  });

  it('non-key columns keep their value; only the dialect binding changes it', () => {
    expect(planWhere(linesNode, { qty: { gt: 5 } }, pg)).toEqual({
      kind: 'compare',
      column: 'qty',
      op: 'gt',
      value: 5,
    });
    expect(planWhere(customersNode, { vip: { eq: true } }, pg)).toEqual({
      kind: 'compare',
      column: 'vip',
      op: 'eq',
      value: true,
    });
    expect(planWhere(customersNode, { vip: { neq: false } }, lite)).toEqual({
      kind: 'compare',
      column: 'vip',
      op: 'neq',
      value: 0,
    });
    expect(planWhere(customersNode, { vip: { eq: true } }, lite)).toEqual({
      kind: 'compare',
      column: 'vip',
      op: 'eq',
      value: 1,
    });
  });
});

describe('planOrder', () => {
  it('with no order, rows come by primary key ascending', () => {
    expect(planOrder(customersNode, undefined)).toMatchObject([{ column: 'id', direction: 'ASC' }]);
    expect(planOrder(customersNode, null)).toMatchObject([{ column: 'id', direction: 'ASC' }]);
    expect(planOrder(customersNode, [])).toMatchObject([{ column: 'id', direction: 'ASC' }]);
  });

  it('completes the order with the primary key', () => {
    expect(planOrder(customersNode, [{ name: 'DESC' }, { email: 'ASC' }])).toMatchObject([
      { column: 'name', direction: 'DESC' },
      { column: 'email', direction: 'ASC' },
      { column: 'id', direction: 'ASC' },
    ]);
  });

  it('does not repeat a primary key column the caller ordered by', () => {
    expect(planOrder(customersNode, [{ id: 'DESC' }])).toMatchObject([
      { column: 'id', direction: 'DESC' },
    ]);
  });

  it('completes with every column of a composite primary key, in key order', () => {
    expect(planOrder(linesNode, [{ product: 'ASC' }])).toMatchObject([
      { column: 'product', direction: 'ASC' },
      { column: 'order_id', direction: 'ASC' },
      { column: 'line_no', direction: 'ASC' },
    ]);
    expect(planOrder(linesNode, [{ line_no: 'DESC' }])).toMatchObject([
      { column: 'line_no', direction: 'DESC' },
      { column: 'order_id', direction: 'ASC' },
    ]);
  });

  it('a table without a primary key is completed with its first column', () => {
    expect(planOrder(logNode, [{ at: 'DESC' }])).toMatchObject([
      { column: 'at', direction: 'DESC' },
      { column: 'message', direction: 'ASC' },
    ]);
  });

  it('each element names exactly one column', () => {
    const two = catchError(() => planOrder(customersNode, [{ name: 'ASC', email: 'DESC' }]));
    expect(two).toBeInstanceOf(DomainError);
    expect((two as DomainError).code).toBe(ErrorCode.InvalidInput);
    expect((two as DomainError).message).toMatch(/exactly one column/);
    expect(() => planOrder(customersNode, [{}])).toThrow(/exactly one column/);
  });

  it('keys given as null do not count', () => {
    const element = { name: 'ASC', email: null } as unknown as Record<string, 'ASC' | 'DESC'>;
    expect(planOrder(customersNode, [element])).toMatchObject([
      { column: 'name', direction: 'ASC' },
      { column: 'id', direction: 'ASC' },
    ]);
  });

  it('a repeated column is ignored after its first appearance', () => {
    expect(
      planOrder(customersNode, [{ name: 'ASC' }, { email: 'DESC' }, { name: 'DESC' }]),
    ).toMatchObject([
      { column: 'name', direction: 'ASC' },
      { column: 'email', direction: 'DESC' },
      { column: 'id', direction: 'ASC' },
    ]);
  });

  it('marks each term nullable or not, so a NOT NULL column needs no null ordering', () => {
    const terms = planOrder(customersNode, [{ name: 'DESC' }]);
    expect(terms.find((t) => t.column === 'id')?.nullable).toBe(false);
    expect(terms.every((t) => typeof t.nullable === 'boolean')).toBe(true);
  });

  it('refuses a column the API does not include', () => {
    expect(() => planOrder(customersNode, [{ secret: 'ASC' }])).toThrow(/does not include it/);
  });
});

describe('planPage', () => {
  it('take defaults to 10,000 and skip to 0', () => {
    expect(TAKE_LIMIT).toBe(10000);
    expect(planPage(undefined, undefined)).toEqual({ take: 10000, skip: 0 });
    expect(planPage(null, null)).toEqual({ take: 10000, skip: 0 });
  });

  it('accepts 0 and the ceiling', () => {
    expect(planPage(0, 0)).toEqual({ take: 0, skip: 0 });
    expect(planPage(10000, 250000)).toEqual({ take: 10000, skip: 250000 });
  });

  it('refuses take above the ceiling, naming the limit', () => {
    const error = catchError(() => planPage(10001, 0));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.InvalidInput);
    expect((error as DomainError).message).toContain('10,000');
  });

  it('refuses negative take or skip', () => {
    expect(() => planPage(-1, 0)).toThrow(/take/);
    expect(() => planPage(5, -1)).toThrow(/skip/);
    expect(() => planPage(undefined, -10)).toThrow(DomainError);
  });
});

function rootField(query: string): {
  field: FieldNode;
  fragments: Record<string, FragmentDefinitionNode>;
} {
  const document = parse(query);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { field: operation.selectionSet.selections[0] as FieldNode, fragments };
}

function subField(field: FieldNode, name: string): FieldNode {
  return field.selectionSet!.selections.find(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === name,
  )!;
}

describe('selectColumns', () => {
  it('reads the requested columns (aliases, fragments and inline fragments included) plus the primary key, in table order', () => {
    const { field, fragments } = rootField(`
      query { getCustomers { vip ...Contact ... on Customers { nick: name } orders { created_at } } }
      fragment Contact on Customers { email ...Nested }
      fragment Nested on Customers { balance }
    `);
    expect(selectColumns(customersNode, [field], fragments)).toEqual([
      'id',
      'name',
      'email',
      'vip',
      'balance',
    ]);
  });

  it('does not take columns requested under a navigation field for the parent', () => {
    const { field, fragments } = rootField('{ getCustomers { name orders { created_at } } }');
    expect(selectColumns(customersNode, [field], fragments)).toEqual(['id', 'name']);
  });

  it('always reads the primary key, even when not requested', () => {
    const { field, fragments } = rootField('{ getCustomers { email } }');
    expect(selectColumns(customersNode, [field], fragments)).toEqual(['id', 'email']);
    const lines = rootField('{ getLines { qty } }');
    expect(selectColumns(linesNode, [lines.field], lines.fragments)).toEqual([
      'order_id',
      'line_no',
      'qty',
    ]);
  });

  it('reads the key a navigation field needs, even when it is not an included column', () => {
    const { field, fragments } = rootField(
      '{ getCustomers { orders { status customer { name } } } }',
    );
    const ordersField = subField(field, 'orders');
    const ordersRow = customersNode.navigations[0].node;
    expect(ordersRow.columns.map((c) => c.name)).not.toContain('customer_id');
    expect(selectColumns(ordersRow, [ordersField], fragments)).toEqual([
      'id',
      'customer_id',
      'status',
    ]);
  });

  it('adds extra columns (a batch partition column)', () => {
    const { field, fragments } = rootField('{ getCustomers { orders { status } } }');
    const ordersRow = customersNode.navigations[0].node;
    expect(
      selectColumns(ordersRow, [subField(field, 'orders')], fragments, ['customer_id']),
    ).toEqual(['id', 'customer_id', 'status']);
  });

  it('merges several field nodes of the same field', () => {
    const a = rootField('{ getCustomers { name } }');
    const b = rootField('{ getCustomers { created_at } }');
    expect(selectColumns(customersNode, [a.field, b.field], {})).toEqual([
      'id',
      'name',
      'created_at',
    ]);
  });

  it('a table without a primary key reads its first column when nothing else is asked', () => {
    const { field, fragments } = rootField('{ getLog { __typename } }');
    expect(selectColumns(logNode, [field], fragments)).toEqual(['message']);
  });

  it('survives a fragment that spreads itself', () => {
    const { field, fragments } = rootField(`
      { getCustomers { ...Loop } }
      fragment Loop on Customers { name ...Loop }
    `);
    expect(selectColumns(customersNode, [field], fragments)).toEqual(['id', 'name']);
  });
});

describe('shapeRows', () => {
  it('keeps only the read columns, each in its output form (PostgreSQL)', () => {
    const rows = shapeRows(
      customer,
      ['id', 'name', 'vip', 'balance', 'created_at'],
      [
        {
          id: 1,
          name: 'Ada',
          vip: true,
          balance: '12345678901234567.89',
          created_at: '2024-01-02 03:04:05.5+05:30',
          email: 'x@y',
        },
        { id: 2, name: 'Bob', vip: null, balance: null, created_at: null },
      ],
      pg,
    );
    expect(rows).toEqual([
      {
        id: 1,
        name: 'Ada',
        vip: true,
        balance: '12345678901234567.89',
        created_at: '2024-01-01T21:34:05.500Z',
      },
      { id: 2, name: 'Bob', vip: null, balance: null, created_at: null },
    ]);
    expect(Object.keys(rows[0])).toEqual(['id', 'name', 'vip', 'balance', 'created_at']);
  });

  it('converts SQLite driver values (bigint integers, 0/1 booleans)', () => {
    const rows = shapeRows(
      orders,
      ['id', 'customer_id', 'placed_at'],
      [{ id: 9007199254740993n, customer_id: 7n, placed_at: '2024-05-06 07:08:09' }],
      lite,
    );
    expect(rows).toEqual([
      { id: '9007199254740993', customer_id: 7, placed_at: '2024-05-06T07:08:09' },
    ]);
    expect(shapeRows(customer, ['vip'], [{ vip: 1n }, { vip: 0n }], lite)).toEqual([
      { vip: true },
      { vip: false },
    ]);
  });

  it('a missing value is null', () => {
    expect(shapeRows(customer, ['id', 'email'], [{ id: 3 }], pg)).toEqual([{ id: 3, email: null }]);
  });

  it('no rows give no rows', () => {
    expect(shapeRows(customer, ['id'], [], pg)).toEqual([]);
  });
});

describe('64-bit keys of SQLite INTEGER columns (CONTRACT.md §6 Values: 64-bit integers never lose digits)', () => {
  // An SQLite INTEGER (the rowid) holds 64-bit values; snowflake-style ids exceed 2^53.
  const big = '1234567890123456789';
  const tweet: ModelTable = {
    ...table(
      'tweet',
      [
        col('id', sqliteKind('INTEGER'), { nullable: false, generated: true }),
        col('body', sqliteKind('TEXT')),
      ],
      ['id'],
    ),
    schema: null,
  };
  const node = buildApiTree(
    { tables: [tweet], enums: [], apis: [], permissions: {} },
    api('tweets', 'tweet', null),
  )!;

  it('a filter on the key compares the exact value', () => {
    const where = planWhere(node, { id: { eq: big } }, lite);
    expect(where.kind).toBe('compare');
    expect(String((where as { value: unknown }).value)).toBe(big);
  });

  it('the key is returned with every digit', () => {
    const [row] = shapeRows(tweet, ['id'], [{ id: BigInt(big) }], lite);
    expect(String(row.id)).toBe(big);
  });
});

describe('PostgreSQL array columns (issue 11, item 1: lists; issue 22, item 15: eq with the list read)', () => {
  const lists = table(
    'lists',
    [
      col('id', 'int', { nullable: false }),
      col('tags', 'array', {
        dbType: 'ARRAY',
        declaredType: 'text[]',
        elementKind: 'text',
        elementType: 'text',
      }),
      col('counts', 'array', { dbType: 'ARRAY', elementKind: 'int', elementType: 'int4' }),
      col('smalls', 'array', { dbType: 'ARRAY', elementKind: 'int', elementType: 'int2' }),
      col('odd', 'array', { dbType: 'ARRAY', elementKind: 'int', elementType: 'myint' }),
    ],
    ['id'],
  );
  const listsNode = buildApiTree({ ...definition, tables: [lists] }, api('lists', 'lists', null))!;

  it('eq: null matches empty fields, neq: null filled ones', () => {
    expect(planWhere(listsNode, { tags: { eq: null } }, pg)).toEqual({
      kind: 'null',
      column: 'tags',
      negated: false,
    });
    expect(planWhere(listsNode, { counts: { neq: null } }, pg)).toEqual({
      kind: 'null',
      column: 'counts',
      negated: true,
    });
  });

  it('eq and neq compare the whole list, bound as one parameter cast to the array type', () => {
    const where = planWhere(listsNode, { tags: { eq: ['a', null, 'b c'] } }, pg);
    expect(where).toEqual({
      kind: 'compare',
      column: 'tags',
      op: 'eq',
      value: ['a', null, 'b c'],
      typed: 'text[]',
    });
    const select = (w: FilterInput) =>
      pg.compileSelect({
        table: { schema: 'public', name: 'lists' },
        columns: ['id'],
        where: planWhere(listsNode, w, pg),
        scope: ALL_ROWS,
        order: [{ column: 'id', direction: 'ASC', nullable: false }],
        take: null,
        skip: 0,
      });
    expect(select({ tags: { eq: ['a'] }, counts: { neq: [1, 2] } })).toEqual({
      sql: 'SELECT "id" FROM "public"."lists" WHERE ("tags" = $1::text[] AND "counts" <> $2::int4[]) ORDER BY "id" ASC',
      params: [['a'], [1, 2]],
    });
    expect(select({ smalls: { eq: [] } }).sql).toContain('"smalls" = $1::int2[]');
    // An element type the table does not know (a definition edited by hand): PostgreSQL reads the
    // parameter as the column's own type.
    expect(select({ odd: { eq: [1] } }).sql).toContain('"odd" = $1 ORDER');
  });

  it('a list holding an element its type cannot hold matches no row (eq) or every filled field (neq)', () => {
    expect(planWhere(listsNode, { smalls: { eq: [1, 40000] } }, pg)).toEqual({
      kind: 'or',
      items: [],
    });
    expect(planWhere(listsNode, { smalls: { neq: [1, 40000] } }, pg)).toEqual({
      kind: 'null',
      column: 'smalls',
      negated: true,
    });
  });

  it('refuses an ordering or text operator, naming the array type', () => {
    const error = catchError(() => planWhere(listsNode, { tags: { gt: ['a'] } }, pg));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.InvalidInput);
    expect((error as DomainError).message).toBe(
      'tags holds an array (text[]): it can only be compared for equality (eq, neq, in, nin)',
    );
  });

  it('shapes lists, and turns a value of two dimensions into an INVALID_VALUE for that field only', () => {
    const rows = shapeRows(
      lists,
      ['id', 'tags', 'counts'],
      [
        { id: 1, tags: '{a,NULL}', counts: '{{1,2},{3,4}}' },
        { id: 2, tags: '{}', counts: null },
      ],
      pg,
    );
    expect(rows[0].tags).toEqual(['a', null]);
    expect(rows[0].counts).toBeInstanceOf(DatabaseRefusalError);
    expect((rows[0].counts as DatabaseRefusalError).refusal).toEqual({
      code: 'INVALID_VALUE',
      field: 'counts',
      message: 'counts holds an array of more than one dimension, which its list type cannot show',
    });
    expect(rows[1]).toEqual({ id: 2, tags: [], counts: null });
  });
});

describe('PostgreSQL columns read as their text form (issue 22, item 15: eq with the value read)', () => {
  const other = (name: string, dbType: string) => col(name, 'other', { dbType });
  const shapes = table(
    'shapes',
    [
      col('id', 'int', { nullable: false }),
      other('span', 'interval'),
      other('addr', 'inet'),
      other('bits', 'bit'),
      other('range', 'int4range'),
      other('cash', 'money'),
      other('spot', 'point'),
      other('doc', 'xml'),
      other('grid', 'ARRAY'),
      other('snap', 'txid_snapshot'),
    ],
    ['id'],
  );
  const shapesNode = buildApiTree(
    { ...definition, tables: [shapes] },
    api('shapes', 'shapes', null),
  )!;
  const sql = (where: FilterInput) =>
    pg.compileCount({
      table: { schema: 'public', name: 'shapes' },
      where: planWhere(shapesNode, where, pg),
      scope: ALL_ROWS,
    });

  it('types with an equality compare with the parameter cast to the type', () => {
    expect(sql({ span: { eq: '1 day 02:00:00' } })).toEqual({
      sql: 'SELECT COUNT(*) AS "count" FROM "public"."shapes" WHERE "span" = $1::interval',
      params: ['1 day 02:00:00'],
    });
    expect(sql({ addr: { neq: '10.0.0.1' } }).sql).toContain('"addr" <> $1::inet');
    expect(sql({ range: { eq: '[1,5)' } }).sql).toContain('"range" = $1::int4range');
    expect(sql({ cash: { eq: '$12.50' } }).sql).toContain('"cash" = $1::money');
    // bit(n) through varbit: `$1::bit` would be bit(1), cutting the text.
    expect(sql({ bits: { eq: '101' } }).sql).toContain('"bits" = $1::varbit');
  });

  it('geometric types and xml compare text forms, the parameter through the type first', () => {
    expect(sql({ spot: { eq: '(1,2)' } }).sql).toContain('"spot"::text = $1::point::text');
    expect(sql({ doc: { neq: '<a>x</a>' } }).sql).toContain('"doc"::text <> $1::xml::text');
  });

  it('any other type compares its text form exactly as read', () => {
    expect(sql({ grid: { eq: '{{1,2},{3,4}}' } }).sql).toContain('"grid"::text = $1');
    expect(sql({ snap: { eq: '10:20:' } }).sql).toContain('"snap"::text = $1');
  });

  it('in and nin list values cast alike; null never matches but eq/neq: null', () => {
    expect(sql({ span: { in: ['1 day', '2 days'] }, spot: { nin: ['(1,2)'] } })).toEqual({
      sql: 'SELECT COUNT(*) AS "count" FROM "public"."shapes" WHERE ("span" IN ($1::interval, $2::interval) AND "spot"::text NOT IN ($3::point::text))',
      params: ['1 day', '2 days', '(1,2)'],
    });
    expect(planWhere(shapesNode, { span: { eq: null } }, pg)).toEqual({
      kind: 'null',
      column: 'span',
      negated: false,
    });
  });

  it('notes the column of each parameter, so a refused one names its field', () => {
    const query = sql({ span: { eq: '1 day' }, spot: { eq: '(1,2)' } });
    expect(parameterColumn(query, 0)).toBe('span');
    expect(parameterColumn(query, 1)).toBe('spot');
    expect(parameterColumn(query, 2)).toBeNull();
    const error = { code: '22P02', where: "unnamed portal parameter $2 = '...'" };
    expect(invalidValueField('postgres', error, query)).toBe('spot');
    expect(invalidValueField('postgres', { code: '22P02' }, query)).toBeNull();
    expect(invalidValueField('mysql', error, query)).toBeNull();
  });

  it('a database that does not compare such a column still compares it only with null', () => {
    const error = catchError(() => planWhere(shapesNode, { span: { eq: '1 day' } }, lite));
    expect((error as DomainError).message).toBe(
      'span holds interval: it can only be compared with null (eq: null finds empty fields, neq: null filled ones)',
    );
  });
});
