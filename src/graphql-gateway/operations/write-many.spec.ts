import { GraphQLError } from 'graphql';
import { DomainError } from '../../common/domain-error';
import { ALL_ROWS, type ColumnKind, type ModelColumn } from '../../datasources/core/dialect';
import { MssqlDialect } from '../../datasources/mssql/dialect';
import { PostgresDialect } from '../../datasources/postgres/dialect';
import { SqliteDialect } from '../../datasources/sqlite/dialect';
import type {
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../../platform/version-definition';
import { modelColumn } from '../../../test/support/model-column';
import { buildApiTree, type RowNode } from '../api-tree';
import { DatabaseRefusalError } from '../graphql-errors';
import { formatExecutionError } from '../request/execute-operation';
import {
  AT_MOST_LIMIT,
  byPrimaryKey,
  checkAtMost,
  keySlices,
  TOO_MANY_ROWS,
  tooManyRows,
} from './write-many';

/** The `atMost` guard, its refusal, and the key slices of updateMany/deleteMany (issue 24 item 3). */

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, { nullable: false, ...extra });

function table(name: string, columns: ModelColumn[], primaryKey: string[]): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns,
    primaryKey,
    foreignKeys: [],
  };
}

const orders = table('orders', [col('id', 'int'), col('status', 'text')], ['id']);
const lines = table(
  'order_line',
  [col('order_id', 'bigint'), col('line_no', 'int'), col('qty', 'int')],
  ['order_id', 'line_no'],
);
const definition: VersionDefinition = {
  tables: [orders, lines],
  enums: [],
  apis: [],
  permissions: {},
};
const none = { select: false, insert: false, update: false, delete: false };

function tree(name: string, tableName: string): RowNode {
  const api: TableApiDefinition = {
    id: `api-${name}`,
    name,
    table: tableName,
    actions: { ...none, select: true, update: true, delete: true },
    public: none,
    fields: null,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
  const node = buildApiTree(definition, api);
  if (!node) throw new Error(`no tree for ${name}`);
  return node;
}

const ordersNode = tree('orders', 'orders');
const linesNode = tree('lines', 'order_line');

describe('checkAtMost', () => {
  it('takes a whole number from 1 to 10,000', () => {
    expect(checkAtMost('updateManyOrders', 1)).toBe(1);
    expect(checkAtMost('updateManyOrders', AT_MOST_LIMIT)).toBe(10_000);
  });

  it.each([
    [0, 'updateManyOrders: atMost must be 1 or more'],
    [-3, 'updateManyOrders: atMost must be 1 or more'],
    [
      10_001,
      'updateManyOrders: atMost exceeds the limit of 10,000 rows; change the rows in several requests',
    ],
  ])('refuses %p with BAD_USER_INPUT before any SQL', (value, message) => {
    const thrown = (() => {
      try {
        checkAtMost('updateManyOrders', value);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).message).toBe(message);
    expect((thrown as DomainError).code).toBe('INVALID_INPUT');
  });
});

describe('tooManyRows', () => {
  it('names the count and atMost, and says what to change', () => {
    const error = tooManyRows(12_345, 100, 'change');
    expect(error).toBeInstanceOf(DatabaseRefusalError);
    expect(error.refusal).toEqual({
      code: TOO_MANY_ROWS,
      field: 'atMost',
      message:
        'Nothing was changed: this would change 12,345 rows; atMost is 100: narrow where or raise atMost',
    });
    expect(tooManyRows(24, 3, 'delete').message).toContain('would delete 24 rows');
  });

  it('answers extensions.code TOO_MANY_ROWS and field atMost', () => {
    const located = new GraphQLError('x', {
      path: ['updateManyOrders'],
      originalError: tooManyRows(523, 100, 'change'),
    });
    expect(formatExecutionError(located)).toEqual({
      message:
        'Nothing was changed: this would change 523 rows; atMost is 100: narrow where or raise atMost',
      path: ['updateManyOrders'],
      extensions: { code: 'TOO_MANY_ROWS', field: 'atMost' },
    });
  });
});

describe('keySlices', () => {
  it('binds each key as a filter value and ORs them, in slices within the parameter limit', () => {
    const pg = new PostgresDialect();
    const keys = Array.from({ length: 2_500 }, (_, i) => ({ id: i + 1 }));
    const slices = keySlices(ordersNode, keys, pg);
    // At most 1,000 keys per slice, whatever the database would take.
    expect(slices.map((s) => (s.kind === 'or' ? s.items.length : 0))).toEqual([1000, 1000, 500]);
    const query = pg.compileCount({
      table: { schema: 'public', name: 'orders' },
      where: slices[2],
      scope: ALL_ROWS,
    });
    expect(query.params).toHaveLength(500);
    expect(query.params[0]).toBe(2001);
  });

  it('keeps a composite key of SQL Server within its 2,100 parameters, with room for the rest', () => {
    const mssql = new MssqlDialect();
    const keys = Array.from({ length: 1_200 }, (_, i) => ({ order_id: String(i), line_no: 1 }));
    const slices = keySlices(linesNode, keys, mssql);
    // 1,000 key values per slice at most (under half of 2,100): 500 keys of two columns.
    expect(slices.map((s) => (s.kind === 'or' ? s.items.length : 0))).toEqual([500, 500, 200]);
    for (const where of slices) {
      const query = mssql.compileCount({
        table: { schema: 'dbo', name: 'order_line' },
        where,
        scope: ALL_ROWS,
      });
      expect(query.params.length).toBeLessThanOrEqual(1_000);
    }
  });

  it('reads a key back as the API formats it (a SQLite bigint rowid as exact text)', () => {
    const lite = new SqliteDialect();
    const [slice] = keySlices(linesNode, [{ order_id: 9007199254740993n, line_no: 2 }], lite);
    const query = lite.compileCount({
      table: { schema: 'main', name: 'order_line' },
      where: slice,
      scope: ALL_ROWS,
    });
    expect(query.params.map(String)).toEqual(['9007199254740993', '2']);
  });
});

describe('byPrimaryKey', () => {
  it('orders numbers as numbers, then text, composite keys column by column', () => {
    const rows = [{ id: '10' }, { id: 9n }, { id: 2 }, { id: '1' }];
    expect(byPrimaryKey(ordersNode, rows).map((r) => String(r.id))).toEqual(['1', '2', '9', '10']);
    const composite = [
      { order_id: 2, line_no: 1 },
      { order_id: 1, line_no: 3 },
      { order_id: 1, line_no: 2 },
    ];
    expect(byPrimaryKey(linesNode, composite)).toEqual([
      { order_id: 1, line_no: 2 },
      { order_id: 1, line_no: 3 },
      { order_id: 2, line_no: 1 },
    ]);
  });
});
