import { GraphQLError } from 'graphql';
import { DomainError } from '../../common/domain-error';
import { ALL_ROWS, type ColumnKind, type ModelColumn } from '../../datasources/core/dialect';
import type { CompiledQuery, Condition } from '../../datasources/core/dialect';
import { MssqlDialect } from '../../datasources/mssql/dialect';
import { MysqlDialect } from '../../datasources/mysql/dialect';
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
  keysFirst,
  mustGoByKey,
  readsTable,
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

describe('updateMany/deleteMany whose filter reads the changed table (MySQL error 1093)', () => {
  const my = new MysqlDialect();
  const pg = new PostgresDialect();
  const self = { schema: 'public', name: 'orders' };
  /** `orders` that have an order of the same status after them: a relation back to `orders`. */
  const selfFilter: Condition = {
    kind: 'exists',
    table: self,
    on: [{ inner: 'id', outer: 'id' }],
    scope: ALL_ROWS,
    where: { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' },
    negated: false,
  };
  const other: Condition = { ...selfFilter, table: { schema: 'public', name: 'order_line' } };

  it('finds the table in a relation filter at any depth, in where or in the rule', () => {
    expect(readsTable(selfFilter, self)).toBe(true);
    expect(readsTable(other, self)).toBe(false);
    expect(
      readsTable(
        { kind: 'and', items: [{ kind: 'untrue', item: { ...other, where: selfFilter } }] },
        self,
      ),
    ).toBe(true);
    expect(readsTable({ kind: 'compare', column: 'id', op: 'eq', value: 1 }, self)).toBe(false);
    expect(mustGoByKey(ordersNode, my, selfFilter, ALL_ROWS)).toBe(true);
    expect(mustGoByKey(ordersNode, my, ALL_ROWS, { kind: 'or', items: [selfFilter] })).toBe(true);
    expect(mustGoByKey(ordersNode, my, other, ALL_ROWS)).toBe(false);
    // PostgreSQL, SQLite and SQL Server change a table a subquery reads: one statement there.
    expect(mustGoByKey(ordersNode, pg, selfFilter, ALL_ROWS)).toBe(false);
  });

  /** A statement runner answering `answers` in turn, keeping what it ran. */
  const runner = (answers: Record<string, unknown>[][]) => {
    const ran: CompiledQuery[] = [];
    const run = (query: CompiledQuery) => {
      ran.push(query);
      return Promise.resolve({ rows: answers[ran.length - 1] ?? [], affected: undefined });
    };
    return { ran, run };
  };

  it('reads at most atMost + 1 keys, locks those still matching, and gives only their keys', async () => {
    const { ran, run } = runner([[{ id: 3 }, { id: 5 }], [{ id: 5 }]]);
    const slices = await keysFirst(run, ordersNode, my, selfFilter, ALL_ROWS, 2, 'change');
    expect(ran.map((q) => q.sql)).toEqual([
      'SELECT `id` FROM `public`.`orders` WHERE EXISTS (SELECT 1 FROM `public`.`orders` `__tg_r1` WHERE `__tg_r1`.`id` = `orders`.`id` AND `__tg_r1`.`status` = ?) ORDER BY `id` ASC LIMIT ?',
      'SELECT `id` FROM `public`.`orders` WHERE (((`id` = ?) OR (`id` = ?)) AND EXISTS (SELECT 1 FROM `public`.`orders` `__tg_r1` WHERE `__tg_r1`.`id` = `orders`.`id` AND `__tg_r1`.`status` = ?)) ORDER BY `id` ASC FOR UPDATE',
    ]);
    expect(ran[0].params).toEqual(['PAID', 3]);
    // Only order 5 still matched: the UPDATE/DELETE goes by its key alone, no subquery.
    const update = my.compileUpdate({
      table: self,
      set: [{ column: 'status', value: 'HELD' }],
      where: slices[0],
      scope: ALL_ROWS,
      returning: [],
    });
    expect(update).toEqual({
      sql: 'UPDATE `public`.`orders` SET `status` = ? WHERE ((`id` = ?))',
      params: ['HELD', 5],
    });
  });

  it('more rows than atMost: counts them and refuses before anything is written', async () => {
    const { ran, run } = runner([[{ id: 1 }, { id: 2 }, { id: 3 }], [{ count: 7 }]]);
    await expect(
      keysFirst(run, ordersNode, my, selfFilter, ALL_ROWS, 2, 'delete'),
    ).rejects.toMatchObject({
      refusal: {
        code: TOO_MANY_ROWS,
        field: 'atMost',
        message:
          'Nothing was changed: this would delete 7 rows; atMost is 2: narrow where or raise atMost',
      },
    });
    expect(ran).toHaveLength(2);
    expect(ran[1].sql).toMatch(/^SELECT COUNT\(\*\)/);
  });
});
