import { buildSchema, type GraphQLSchema } from 'graphql';
import { DomainError, ErrorCode } from '../../common/domain-error';
import { type CompileLimits, compileDocument, selectOperation } from './compiled-operation';
import { coerceRequestVariables } from './execute-operation';
import { navigationRowEstimate, tableRowEstimate, writtenRows } from './operation-cost';
import type { NavigationNode } from '../api-tree';
import type { ModelTable } from '../../platform/version-definition';
import { CONTRACT_LIMITS } from '../../../test/support/request-limits';

/**
 * Issue 23 item 5: the row estimate reads the statistics the schema carries
 * (`extensions.rowEstimate`), and counts are charged the rows they scan.
 */

const SDL = `
  type Query {
    getOrders(take: Int, skip: Int): [Order!]!
    countOrders: Int!
    countLines: Int!
  }
  type Order { id: ID! customer: Customer order_lines(take: Int, skip: Int): [Line!]! }
  type Customer { id: ID! name: String }
  type Line { id: ID! product: Product }
  type Product { id: ID! name: String }
`;

const LIMITS = CONTRACT_LIMITS;

/** The sales schema with statistics: `orders` rows, lines per order, `lines` rows (null: unknown). */
function salesSchema(orders: number | null, linesPerOrder: number | null, lines: number | null) {
  const schema = buildSchema(SDL);
  const set = (type: string, field: string, rows: number | null) => {
    const definition = (
      schema.getType(type) as never as { getFields(): Record<string, object> }
    ).getFields()[field] as { extensions: Record<string, unknown> };
    definition.extensions = { rowEstimate: { rows } };
  };
  set('Query', 'getOrders', orders);
  set('Query', 'countOrders', orders);
  set('Query', 'countLines', lines);
  set('Order', 'order_lines', linesPerOrder);
  return schema;
}

function cost(schema: GraphQLSchema, text: string, limits: CompileLimits = LIMITS) {
  const compiled = compileDocument(schema, text, limits, false);
  const operation = selectOperation(compiled, undefined);
  return operation.cost(coerceRequestVariables(schema, operation, {}).values, limits);
}

function refused(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

const NESTED = '{ getOrders { customer { name } order_lines { product { name } } } }';

describe('row estimate from statistics', () => {
  it('serves the nested read without take on small tables: table rows at the root, fan-out below', () => {
    // 1,000 orders, 3 lines each: 1,000 + 1,000 customers + 3,000 lines + 3,000 products.
    expect(cost(salesSchema(1_000, 3, 3_000), NESTED).rows).toBe(8_000);
  });

  it('keeps the worst case (10,000 a level) when the statistics are unknown', () => {
    const e = refused(() => cost(salesSchema(null, null, null), NESTED));
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('may read up to 200,020,000 rows; the limit is 100,000');
    // Known at the root only: 1,000 orders × 10,000 lines.
    expect(refused(() => cost(salesSchema(1_000, null, null), NESTED)).message).toContain(
      'may read up to 20,002,000 rows',
    );
  });

  it('refuses the same shape before SQL when the statistics say ten million rows', () => {
    // 500,000 orders with 20 lines each: each level at most 10,000 per parent, so 10,000 orders
    // and customers, 200,000 lines and products.
    const e = refused(() => cost(salesSchema(500_000, 20, 10_000_000), NESTED));
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('may read up to 420,000 rows; the limit is 100,000');
    // Ten million orders of 3 lines: the default page reads 10,000 orders, 80,000 rows in all.
    expect(cost(salesSchema(10_000_000, 3, 30_000_000), NESTED).rows).toBe(80_000);
  });

  it('takes take as given, whatever the statistics, and rounds a fractional level up', () => {
    const schema = salesSchema(1_000, 2.5, 2_500);
    expect(cost(schema, '{ getOrders(take: 5000) { id } }').rows).toBe(5_000);
    expect(cost(schema, '{ getOrders(take: 3) { order_lines { id } } }').rows).toBe(3 + 8);
    expect(cost(schema, '{ getOrders(take: 1) { order_lines(take: 7) { id } } }').rows).toBe(8);
  });
});

describe('counts weighed by the rows they scan', () => {
  it('charges each count its table estimate uncapped, summed, against LIMIT_SCANNED_ROWS', () => {
    const schema = salesSchema(4_000_000, 3, 12_000_000);
    expect(cost(schema, '{ countOrders }').scanned).toBe(4_000_000);
    const e = refused(() => cost(schema, '{ countOrders countLines }'));
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('may scan 16,000,000 rows');
    expect(e.message).toContain('the limit is 10,000,000');
    expect(cost(schema, '{ countOrders }', { ...LIMITS, scannedRows: 4_000_000 }).scanned).toBe(
      4_000_000,
    );
    expect(
      refused(() =>
        cost(schema, '{ a: countOrders b: countOrders }', {
          ...LIMITS,
          scannedRows: 5_000_000,
        }),
      ).message,
    ).toContain("may scan 8,000,000 rows (the tables' estimated rows); the limit is 5,000,000");
  });

  it('charges 10,000 for a count whose table has no statistics, and nothing for a get', () => {
    const schema = salesSchema(null, null, null);
    expect(cost(schema, '{ countOrders countLines }').scanned).toBe(20_000);
    expect(cost(schema, '{ getOrders(take: 1) { id } }').scanned).toBe(0);
    // A schema without marks (older builds, hand-made schemas) charges no scan.
    expect(cost(buildSchema(SDL), '{ countOrders }').scanned).toBe(0);
  });
});

describe('aggregates weighed by the rows they scan', () => {
  const AGG_SDL = `
    type Query { getOrders(take: Int): [Order!]! aggregateOrders(take: Int): [Group!]! }
    type Order { id: ID! linesAggregate: Group! }
    type Group { count: Int! sum: Sums }
    type Sums { total: Float }
  `;
  /** `aggregateOrders` scans `orders` rows; `linesAggregate` `perOrder` lines per parent. */
  function aggregateSchema(orders: number | null, perOrder: number | null) {
    const schema = buildSchema(AGG_SDL);
    const fields = (type: string) =>
      (
        schema.getType(type) as never as { getFields(): Record<string, object> }
      ).getFields() as Record<string, { extensions: Record<string, unknown> }>;
    fields('Query').aggregateOrders.extensions = {
      rowEstimate: { rows: 100 },
      scanEstimate: { rows: orders },
    };
    fields('Order').linesAggregate.extensions = { scanEstimate: { rows: perOrder } };
    fields('Group').sum.extensions = { aggregatePart: true };
    return schema;
  }

  it('charges an aggregate its table estimate whatever take says, and 10,000 when unknown', () => {
    expect(
      cost(aggregateSchema(4_000_000, 3), '{ aggregateOrders(take: 1) { count } }').scanned,
    ).toBe(4_000_000);
    expect(cost(aggregateSchema(null, 3), '{ aggregateOrders { count } }').scanned).toBe(10_000);
    const e = refused(() =>
      cost(
        aggregateSchema(6_000_000, 3),
        '{ a: aggregateOrders { count } b: aggregateOrders { sum { total } } }',
      ),
    );
    expect(e.code).toBe(ErrorCode.QueryTooComplex);
    expect(e.message).toContain('counts and aggregates may scan 12,000,000 rows');
  });

  it('charges a navigation aggregate its fan-out per parent, one statement per level', () => {
    const schema = aggregateSchema(1_000, 7);
    const out = cost(
      schema,
      '{ getOrders(take: 20) { id linesAggregate { count sum { total } } } }',
    );
    expect(out.scanned).toBe(140);
    expect(out.statements).toBe(2);
    expect(
      cost(aggregateSchema(1_000, null), '{ getOrders(take: 20) { linesAggregate { count } } }')
        .scanned,
    ).toBe(200_000);
  });
});

describe('the marks the schema builder sets', () => {
  const table = (estimatedRows?: number, fanOut?: number): ModelTable =>
    ({
      name: 'order_lines',
      dbName: 'order_lines',
      schema: null,
      datasourceId: 'd',
      active: true,
      columns: [],
      primaryKey: ['id'],
      ...(estimatedRows !== undefined && { estimatedRows }),
      foreignKeys: [
        {
          columns: ['order_id'],
          referencedSchema: null,
          referencedTable: 'orders',
          referencedColumns: ['id'],
          ...(fanOut !== undefined && { fanOut }),
        },
      ],
    }) as ModelTable;
  const nav = (kind: 'oneToMany' | 'manyToOne', child: ModelTable): NavigationNode =>
    ({
      navigation: {
        name: 'order_lines',
        kind,
        from: 'orders',
        to: 'order_lines',
        fromColumn: 'id',
        toColumn: 'order_id',
        fkColumn: 'order_id',
      },
      node: { table: child },
    }) as never;

  it('marks a root field with the table estimate, a one-to-many navigation with the fan-out', () => {
    expect(tableRowEstimate(table(3_000))).toEqual({ rowEstimate: { rows: 3_000 } });
    expect(tableRowEstimate(table())).toEqual({ rowEstimate: { rows: null } });
    expect(navigationRowEstimate(nav('oneToMany', table(3_000, 3)))).toEqual({
      rowEstimate: { rows: 3 },
    });
    expect(navigationRowEstimate(nav('oneToMany', table(3_000)))).toEqual({
      rowEstimate: { rows: null },
    });
    expect(navigationRowEstimate(nav('manyToOne', table(3_000, 3)))).toBeUndefined();
  });
});

describe('writtenRows (LIMIT_BULK_ROWS)', () => {
  it('counts each row and the rows of every list of objects it holds, however deep', () => {
    expect(writtenRows([{ a: 1 }, { a: 2 }])).toBe(2);
    expect(
      writtenRows([
        { id: 1, lines: [{ q: 1 }, { q: 2, parts: [{ p: 1 }] }] },
        { id: 2, tags: ['x', 'y'] },
      ]),
    ).toBe(5);
    expect(writtenRows([null, 'text', 3])).toBe(0);
  });
});

describe('rows bounded by the parent field’s argument (updateMany’s atMost)', () => {
  /** `updateManyOrders` with statistics: a `rows` list of at most atMost rows, lines per order. */
  function writeSchema(linesPerOrder: number | null) {
    const schema = buildSchema(`
      type Query { countOrders: Int! }
      type Mutation { updateManyOrders(atMost: Int!): OrdersUpdateManyResult! }
      type OrdersUpdateManyResult { affected: Int! rows: [Order!] }
      type Order { id: ID! order_lines(take: Int): [Line!]! }
      type Line { id: ID! }
    `);
    const result = schema.getType('OrdersUpdateManyResult') as never as {
      getFields(): Record<string, { extensions: Record<string, unknown> }>;
    };
    result.getFields().rows.extensions = {
      rowEstimate: { rows: 10_000, parentArgument: 'atMost' },
    };
    const order = schema.getType('Order') as never as typeof result;
    order.getFields().order_lines.extensions = { rowEstimate: { rows: linesPerOrder } };
    return schema;
  }
  const text = (atMost: number) =>
    `mutation { updateManyOrders(atMost: ${atMost}) { affected rows { id order_lines { id } } } }`;

  it('counts atMost rows, not the 10,000 of an unbounded list', () => {
    // 1 result + 5 orders + 5 × 100 lines.
    expect(cost(writeSchema(100), text(5)).rows).toBe(506);
    // Unknown fan-out: 10,000 lines per order, 50,000 for five.
    expect(cost(writeSchema(null), text(5)).rows).toBe(50_006);
  });

  it('still caps the level at 10,000 rows', () => {
    expect(cost(writeSchema(1), text(50_000)).rows).toBe(20_001);
  });
});
