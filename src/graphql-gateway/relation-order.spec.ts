import {
  getNamedType,
  GraphQLInputObjectType,
  GraphQLObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  validateSchema,
} from 'graphql';
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
import { ConsultedScopes, planOrder, tableRef } from './query-planner';
import { BUILDER } from './request/audience';
import { checkRequestCost, planOperationFields } from './request/operation-cost';
import { VersionTypes } from './schema-builder';
import { modelColumn } from '../../test/support/model-column';
import { CONTRACT_LIMITS } from '../../test/support/request-limits';

/**
 * Ordering through relations (issue 23 item 3, README "Order and pages"): `<Row>Order` keys per
 * navigation, planned as correlated scalar subqueries inside the caller's row rules, refused with
 * messages that say what to change, and counted as relation filters by the cost check.
 */

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

const countries = table('countries', [
  modelColumn('id', 'int', { nullable: false }),
  modelColumn('name', 'text', { nullable: false }),
]);
const customers = table(
  'customers',
  [
    modelColumn('id', 'int', { nullable: false }),
    modelColumn('name', 'text', { nullable: false }),
    modelColumn('secret', 'text'),
    modelColumn('country_id', 'int'),
  ],
  [['country_id', 'countries']],
);
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
const none = { select: false, insert: false, update: false, delete: false };
function api(name: string, tableName: string, fields: TableApiDefinition['fields']) {
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
  } satisfies TableApiDefinition;
}
const ordersApi = api('orders', 'orders', {
  id: true,
  status: true,
  customer: { id: true, name: true, country: { name: true }, orders: { id: true } },
});
const customersApi = api('customers', 'customers', {
  id: true,
  name: true,
  orders: { id: true, status: true },
});
const definition: VersionDefinition = {
  tables: [countries, customers, orders],
  enums: [],
  apis: [ordersApi, customersApi],
  permissions: {},
};
const tree = (a: TableApiDefinition): RowNode => buildApiTree(definition, a)!;
const ordersNode = tree(ordersApi);
const customersNode = tree(customersApi);

const ownOrders: Condition = { kind: 'compare', column: 'owner', op: 'eq', value: 'u1' };
const hiddenCustomers: Condition = { kind: 'compare', column: 'id', op: 'neq', value: 2 };
/** A caller whose rules bound orders and customers, not countries. */
const scopes = {
  of: (t: ModelTable, _d: Dialect) =>
    t.name === 'orders' ? ownOrders : t.name === 'customers' ? hiddenCustomers : ALL_ROWS,
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

const pkTerm = { column: 'id', direction: 'ASC', nullable: false, tiebreak: true };

describe('planOrder: orders through relations', () => {
  it('many-to-one: the related column, inside the related rule, nullable; the primary key completes it', () => {
    expect(planOrder(ordersNode, [{ customer: { name: 'DESC' } }], pg, scopes)).toEqual([
      {
        related: {
          table: tableRef(customers),
          on: [{ inner: 'id', outer: 'customer_id' }],
          scope: hiddenCustomers,
          value: { kind: 'column', column: 'name' },
        },
        direction: 'DESC',
        nullable: true,
      },
      pkTerm,
    ]);
  });

  it('one-to-many: the count of visible children, never NULL', () => {
    expect(planOrder(customersNode, [{ orders: { count: 'ASC' } }], pg, scopes)).toEqual([
      {
        related: {
          table: tableRef(orders),
          on: [{ inner: 'customer_id', outer: 'id' }],
          scope: ownOrders,
          value: { kind: 'count' },
        },
        direction: 'ASC',
        nullable: false,
      },
      pkTerm,
    ]);
  });

  it('nests many-to-one levels (and a count under one), each with its own rule; columns and relations mix in one order', () => {
    const terms = planOrder(
      ordersNode,
      [
        { status: 'ASC' },
        { customer: { country: { name: 'ASC' } } },
        { customer: { orders: { count: 'DESC' } } },
      ],
      pg,
      scopes,
    );
    expect(terms[0]).toEqual({ column: 'status', direction: 'ASC', nullable: true });
    expect(terms[1]).toMatchObject({
      related: {
        scope: hiddenCustomers,
        value: {
          kind: 'related',
          related: {
            table: tableRef(countries),
            on: [{ inner: 'id', outer: 'country_id' }],
            scope: ALL_ROWS,
            value: { kind: 'column', column: 'name' },
          },
        },
      },
      direction: 'ASC',
      nullable: true,
    });
    // The customer may be hidden: the count under it is then NULL.
    expect(terms[2]).toMatchObject({
      related: {
        value: { kind: 'related', related: { scope: ownOrders, value: { kind: 'count' } } },
      },
      direction: 'DESC',
      nullable: true,
    });
    expect(terms[3]).toEqual(pkTerm);
    const { sql, params } = pg.compileSelect({
      table: tableRef(orders),
      columns: ['id'],
      where: ALL_ROWS,
      scope: ALL_ROWS,
      order: terms,
      take: null,
      skip: 0,
    });
    expect(sql).toBe(
      'SELECT "id" FROM "public"."orders" ORDER BY "status" ASC NULLS FIRST, ' +
        '(SELECT (SELECT "__tg_r2"."name" FROM "public"."countries" "__tg_r2" WHERE "__tg_r2"."id" = "__tg_r1"."country_id") FROM "public"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."id" <> $1) ASC NULLS FIRST, ' +
        '(SELECT (SELECT COUNT(*) FROM "public"."orders" "__tg_r2" WHERE "__tg_r2"."customer_id" = "__tg_r1"."id" AND "__tg_r2"."owner" = $2) FROM "public"."customers" "__tg_r1" WHERE "__tg_r1"."id" = "orders"."customer_id" AND "__tg_r1"."id" <> $3) DESC NULLS LAST, ' +
        '"id" ASC',
    );
    expect(params).toEqual([2, 'u1', 2]);
  });

  it('the first of two elements naming the same value decides, as for columns', () => {
    const terms = planOrder(
      ordersNode,
      [{ customer: { name: 'DESC' } }, { customer: { name: 'ASC' } }],
      pg,
      scopes,
    );
    expect(terms.map((t) => t.direction)).toEqual(['DESC', 'ASC']);
    expect(terms).toHaveLength(2);
  });

  it('each element names exactly one thing; the message says what to change', () => {
    const two = domainError(() =>
      planOrder(ordersNode, [{ status: 'ASC', customer: { name: 'ASC' } }], pg, scopes),
    );
    expect(two.code).toBe(ErrorCode.InvalidInput);
    expect(two.message).toMatch(/exactly one column/);
    expect(two.message).toContain('this one names status, customer');
    expect(two.message).toContain('give each its own element');
    const inner = domainError(() =>
      planOrder(ordersNode, [{ customer: { name: 'ASC', id: 'DESC' } }], pg, scopes),
    );
    expect(inner.code).toBe(ErrorCode.InvalidInput);
    expect(inner.message).toBe(
      'customer: an order through a relation names exactly one column of the related row, or one relation of it, e.g. {customer: {<column>: ASC}} (this one names name, id): give each its own element',
    );
    const empty = domainError(() => planOrder(ordersNode, [{ customer: {} }], pg, scopes));
    expect(empty.message).toContain('customer: an order through a relation names exactly one');
    // A deeper level's message writes the whole element to send.
    const deep = domainError(() =>
      planOrder(ordersNode, [{ customer: { country: { name: 'ASC', id: 'ASC' } } }], pg, scopes),
    );
    expect(deep.message).toContain(
      'customer.country: an order through a relation names exactly one column of the related row, or one relation of it, e.g. {customer: {country: {<column>: ASC}}}',
    );
    const deepCount = domainError(() =>
      planOrder(ordersNode, [{ customer: { orders: { id: 'ASC' } } }], pg, scopes),
    );
    expect(deepCount.message).toBe(
      'customer.orders is a one-to-many relation: order by the number of its rows the caller can see, as {customer: {orders: {count: DESC}}}',
    );
  });

  it('a one-to-many relation orders by its count only', () => {
    const error = domainError(() =>
      planOrder(customersNode, [{ orders: { status: 'ASC' } }], pg, scopes),
    );
    expect(error.code).toBe(ErrorCode.InvalidInput);
    expect(error.message).toBe(
      'orders is a one-to-many relation: order by the number of its rows the caller can see, as {orders: {count: DESC}}',
    );
  });

  it('a relation given a direction is told how to name its column', () => {
    const error = domainError(() => planOrder(ordersNode, [{ customer: 'ASC' }], pg, scopes));
    expect(error.message).toBe(
      'customer is a relation: order by it as {customer: {<column>: ASC}}',
    );
  });

  it('names only what the navigation subtree includes (ordering is reading)', () => {
    const secret = domainError(() =>
      planOrder(ordersNode, [{ customer: { secret: 'ASC' } }], pg, scopes),
    );
    expect(secret.code).toBe(ErrorCode.InvalidInput);
    expect(secret.message).toBe(
      'customer.secret cannot be ordered by here: the API does not include it',
    );
    // customers.orders includes no customer navigation.
    const deeper = domainError(() =>
      planOrder(customersNode, [{ orders: { customer: { name: 'ASC' } } }], pg, scopes),
    );
    expect(deeper.code).toBe(ErrorCode.InvalidInput);
  });

  it('fails closed: no scopes, no order through a relation (columns still order)', () => {
    const error = domainError(() => planOrder(ordersNode, [{ customer: { name: 'ASC' } }]));
    expect(error.code).toBe(ErrorCode.Forbidden);
    expect(planOrder(ordersNode, [{ status: 'DESC' }])).toEqual([
      { column: 'status', direction: 'DESC', nullable: true },
      pkTerm,
    ]);
  });

  it('notes the tables whose scopes it applied, so a kept plan is reused only where they admit every row', () => {
    const consulted = new ConsultedScopes(scopes);
    planOrder(ordersNode, [{ customer: { country: { name: 'ASC' } } }], pg, consulted);
    expect([...consulted.tables].map((t) => t.name).sort()).toEqual(['countries', 'customers']);
  });
});

describe('<Row>Order keys through relations', () => {
  const { schema } = new VersionTypes(definition).schemaFor(BUILDER);

  const input = (name: string) => schema.getType(name) as GraphQLInputObjectType;
  const fieldType = (type: string, field: string) =>
    getNamedType(input(type).getFields()[field].type).name;

  it('many-to-one keys take the related level’s order, one-to-many keys <Row>AggregateOrder {count}', () => {
    expect(validateSchema(schema)).toEqual([]);
    expect(Object.keys(input('OrdersOrder').getFields()).sort()).toEqual([
      'customer',
      'id',
      'status',
    ]);
    const customerOrder = fieldType('OrdersOrder', 'customer');
    expect(Object.keys(input(customerOrder).getFields()).sort()).toEqual([
      'country',
      'id',
      'name',
      'orders',
    ]);
    const count = fieldType(customerOrder, 'orders');
    expect(count).toMatch(/AggregateOrder$/);
    expect(Object.keys(input(count).getFields())).toEqual(['count']);
    expect(fieldType(count, 'count')).toBe('SortDirection');
    // The orders subtree of the customers API has its own row type: its count order too.
    const childRow = getNamedType(
      (schema.getType('Customers') as GraphQLObjectType).getFields().orders.type,
    ).name;
    expect(fieldType('CustomersOrder', 'orders')).toBe(`${childRow}AggregateOrder`);
  });
});

describe('relations named in an order count against LIMIT_RELATION_FILTERS', () => {
  const { schema } = new VersionTypes(definition).schemaFor(BUILDER);
  const cost = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query);
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )!;
    const fields = planOperationFields(schema, operation, new Map());
    return () => checkRequestCost(fields, variables, CONTRACT_LIMITS);
  };
  const elements = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 2 ? '{customer: {name: ASC}}' : '{customer: {country: {name: DESC}}}',
    ).join(', ');

  it('each relation is one subquery: 8 pass (with nested ones counting each), a 9th is refused', () => {
    // 3 elements: 2 + 1 + 2 relations, plus 3 more in a one-to-many order below: 8.
    expect(
      cost(
        `{ getOrders(take: 1, order: [${elements(3)}]) { id } getCustomers(take: 1, order: [{orders: {count: DESC}}]) { orders(take: 1, order: [{status: ASC}]) { id } } a: getCustomers(take: 1, order: [{orders: {count: ASC}}, {orders: {count: DESC}}]) { id } }`,
      ),
    ).not.toThrow();
    const error = domainError(
      cost(`{ getOrders(take: 1, order: [${elements(5)}], where: {customer: {}}) { id } }`),
    );
    expect(error.code).toBe(ErrorCode.InvalidInput);
    expect(error.message).toContain('more than 8 relation filters');
    expect(error.message).toContain('relations named in an order');
  });

  it('counts order values sent as variables as written ones', () => {
    const query = 'query($o: [OrdersOrder!]) { getOrders(take: 1, order: $o) { id } }';
    const order = Array.from({ length: 9 }, () => ({ customer: { name: 'ASC' } }));
    expect(cost(query, { o: order.slice(0, 8) })).not.toThrow();
    expect(domainError(cost(query, { o: order })).message).toContain(
      'more than 8 relation filters',
    );
  });

  it('columns cost nothing', () => {
    const many = Array.from({ length: 20 }, () => '{status: ASC}').join(', ');
    expect(cost(`{ getOrders(take: 1, order: [${many}]) { id } }`)).not.toThrow();
  });
});
