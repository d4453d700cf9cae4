import { ALL_ROWS } from '../datasources/core/dialect';
import type { Condition, Dialect, ModelColumn } from '../datasources/core/dialect';
import { PostgresDialect } from '../datasources/postgres/dialect';
import { DomainError, ErrorCode } from '../common/domain-error';
import type {
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { buildApiTree, RowNode } from './api-tree';
import { ConsultedScopes, planWhere, RELATION_FILTER_DEPTH, tableRef } from './query-planner';
import { modelColumn } from '../../test/support/model-column';

/** Relation filters (issue 23 item 3): navigation keys of `<Base>Filter` planned as EXISTS. */

const pg = new PostgresDialect();

function table(name: string, columns: ModelColumn[], fks: [string, string][] = []): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns,
    primaryKey: ['id'],
    foreignKeys: fks.map(([column, to]) => ({
      columns: [column],
      referencedSchema: 'public',
      referencedTable: to,
      referencedColumns: ['id'],
    })),
  };
}

const customers = table('customers', [
  modelColumn('id', 'int', { nullable: false }),
  modelColumn('city', 'text'),
  modelColumn('secret', 'text'),
]);
const orders = table(
  'orders',
  [
    modelColumn('id', 'int', { nullable: false }),
    modelColumn('customer_id', 'int'),
    modelColumn('status', 'text'),
    modelColumn('owner', 'text'),
  ],
  [['customer_id', 'customers']],
);
const definition: VersionDefinition = {
  tables: [customers, orders],
  enums: [],
  apis: [],
  permissions: {},
};
const none = { select: false, insert: false, update: false, delete: false };
function tree(name: string, tableName: string, fields: TableApiDefinition['fields']): RowNode {
  return buildApiTree(definition, {
    id: `api-${name}`,
    name,
    table: tableName,
    actions: { ...none, select: true },
    public: none,
    fields,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  })!;
}

const customersNode = tree('customers', 'customers', {
  id: true,
  city: true,
  orders: { id: true, status: true, customer: { id: true, city: true } },
});
const ordersNode = tree('orders', 'orders', { id: true, customer: { id: true, city: true } });

const ownOrders: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
/** A caller whose rule bounds orders only. */
const scopes = {
  of: (t: ModelTable, _d: Dialect) => (t.name === 'orders' ? ownOrders : ALL_ROWS),
};

function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('planWhere: relation filters', () => {
  it('many-to-one: EXISTS over the related table inside its scope, matching the filter', () => {
    const where = planWhere(ordersNode, { customer: { city: { eq: 'Lyon' } } }, pg, scopes);
    expect(where).toEqual({
      kind: 'exists',
      table: tableRef(customers),
      on: [{ inner: 'id', outer: 'customer_id' }],
      scope: ALL_ROWS,
      where: { kind: 'compare', column: 'city', op: 'eq', value: 'Lyon' },
      negated: false,
    });
  });

  it('some / none / every, each inside the child scope; every is NOT EXISTS of an untrue child', () => {
    const paid = { status: { eq: 'PAID' } };
    const where = planWhere(
      customersNode,
      { orders: { some: paid, none: paid, every: paid } },
      pg,
      scopes,
    );
    const cond: Condition = { kind: 'compare', column: 'status', op: 'eq', value: 'PAID' };
    const base = {
      kind: 'exists' as const,
      table: tableRef(orders),
      on: [{ inner: 'customer_id', outer: 'id' }],
      scope: ownOrders,
    };
    expect(where).toEqual({
      kind: 'and',
      items: [
        { ...base, where: cond, negated: false },
        { ...base, where: cond, negated: true },
        { ...base, where: { kind: 'untrue', item: cond }, negated: true },
      ],
    });
    const { sql, params } = pg.compileCount({ table: tableRef(customers), where, scope: ALL_ROWS });
    expect(sql).toContain(
      'NOT EXISTS (SELECT 1 FROM "public"."orders" "__tg_r1" WHERE "__tg_r1"."customer_id" = "customers"."id" AND "__tg_r1"."owner" = $5 AND CASE WHEN "__tg_r1"."status" = $6 THEN 1 ELSE 0 END = 0)',
    );
    expect(params).toEqual(['u1', 'PAID', 'u1', 'PAID', 'u1', 'PAID']);
  });

  it('nests, each level correlated with the one above and inside its own scope', () => {
    const where = planWhere(
      customersNode,
      { orders: { some: { customer: { city: { eq: 'Lyon' } } } } },
      pg,
      scopes,
    );
    const { sql } = pg.compileCount({ table: tableRef(customers), where, scope: ALL_ROWS });
    expect(sql).toBe(
      'SELECT COUNT(*) AS "count" FROM "public"."customers" WHERE EXISTS (SELECT 1 FROM "public"."orders" "__tg_r1" WHERE "__tg_r1"."customer_id" = "customers"."id" AND "__tg_r1"."owner" = $1 AND EXISTS (SELECT 1 FROM "public"."customers" "__tg_r2" WHERE "__tg_r2"."id" = "__tg_r1"."customer_id" AND "__tg_r2"."city" = $2))',
    );
  });

  it('names only columns the subtree includes: others are not filtered on (the schema has no such key)', () => {
    const where = planWhere(ordersNode, { customer: { secret: { eq: 'x' } } }, pg, scopes);
    expect(where).toMatchObject({ kind: 'exists', where: { kind: 'and', items: [] } });
    expect(JSON.stringify(where)).not.toContain('secret');
  });

  it('fails closed: no scopes, no relation filter', () => {
    const error = domainError(() => planWhere(ordersNode, { customer: {} }, pg));
    expect(error.code).toBe(ErrorCode.Forbidden);
  });

  it('notes the tables whose scopes it applied (a kept plan is reused only where they admit every row)', () => {
    const consulted = new ConsultedScopes(scopes);
    planWhere(customersNode, { orders: { some: {} } }, pg, consulted);
    expect([...consulted.tables].map((t) => t.name)).toEqual(['orders']);
  });

  it(`refuses relation filters nested past ${RELATION_FILTER_DEPTH}`, () => {
    // A tree as deep as needed: customers → orders → customer → … (one cycle of two nodes).
    const ordersNav = customersNode.navigations[0];
    const a: RowNode = { ...customersNode, navigations: [] };
    const b: RowNode = { ...ordersNav.node, navigations: [] };
    a.navigations.push({ navigation: ordersNav.navigation, node: b });
    b.navigations.push({ navigation: ordersNav.node.navigations[0].navigation, node: a });
    const nest = (levels: number): Record<string, unknown> => {
      let filter: Record<string, unknown> = {};
      for (let i = levels; i > 0; i--)
        filter = i % 2 === 1 ? { orders: { some: filter } } : { customer: filter };
      return filter;
    };
    expect(() => planWhere(a, nest(RELATION_FILTER_DEPTH), pg, scopes)).not.toThrow();
    const error = domainError(() => planWhere(a, nest(RELATION_FILTER_DEPTH + 1), pg, scopes));
    expect(error.code).toBe(ErrorCode.InvalidInput);
    expect(error.message).toContain(`the limit is ${RELATION_FILTER_DEPTH}`);
  });
});
