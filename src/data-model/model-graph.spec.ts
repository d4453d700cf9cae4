import type { ModelColumn, ModelForeignKey } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import {
  isIdColumn,
  isKeyColumn,
  manyToOneName,
  Navigation,
  navigationsOf,
  requiredColumns,
} from './model-graph';
import { modelColumn } from '../../test/support/model-column';

/** Navigation naming rules of CONTRACT.md §6, required columns of §3. */

const col = modelColumn;

function fk(
  columns: string[],
  referencedTable: string,
  referencedColumns: string[],
  referencedSchema: string | null = 'public',
): ModelForeignKey {
  return { columns, referencedSchema, referencedTable, referencedColumns };
}

function table(
  name: string,
  columns: (string | ModelColumn)[],
  primaryKey: string[],
  foreignKeys: ModelForeignKey[] = [],
  extra: Partial<ModelTable> = {},
): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns: columns.map((c) => (typeof c === 'string' ? col(c) : c)),
    primaryKey,
    foreignKeys,
    ...extra,
  };
}

/** name → kind/to/fromColumn/toColumn, for compact expectations. */
function summary(navs: Navigation[]) {
  return navs.map((n) => ({
    name: n.name,
    kind: n.kind,
    to: n.to,
    fromColumn: n.fromColumn,
    toColumn: n.toColumn,
  }));
}

describe('manyToOneName', () => {
  it.each([
    ['customer_id', 'customer'],
    ['customerId', 'customer'],
    ['billing_customer_id', 'billing_customer'],
    ['owner', 'owner'],
    ['paid', 'paid'],
    ['customerID', 'customerID'],
    ['_id', '_id'],
    ['Id', 'Id'],
  ])('%s → %s', (fkColumn, name) => {
    expect(manyToOneName(fkColumn)).toBe(name);
  });
});

describe('navigationsOf', () => {
  const customer = table('customer', ['id', col('name', 'text')], ['id']);
  const orders = table(
    'orders',
    ['id', 'customer_id', col('status', 'text')],
    ['id'],
    [fk(['customer_id'], 'customer', ['id'])],
  );
  const orderLine = table(
    'order_line',
    ['id', 'order_id', col('product', 'text')],
    ['id'],
    [fk(['order_id'], 'orders', ['id'])],
  );

  it('many-to-one is named after the FK column without _id', () => {
    const navs = navigationsOf([customer, orders, orderLine], 'orders');
    expect(navs).toEqual([
      {
        name: 'customer',
        kind: 'manyToOne',
        from: 'orders',
        to: 'customer',
        fromColumn: 'customer_id',
        toColumn: 'id',
        fkColumn: 'customer_id',
      },
      {
        name: 'order_line',
        kind: 'oneToMany',
        from: 'orders',
        to: 'order_line',
        fromColumn: 'id',
        toColumn: 'order_id',
        fkColumn: 'order_id',
      },
    ]);
  });

  it('many-to-one of a camelCase FK column drops the trailing Id', () => {
    const invoice = table(
      'invoice',
      ['id', 'customerId'],
      ['id'],
      [fk(['customerId'], 'customer', ['id'])],
    );
    expect(summary(navigationsOf([customer, invoice], 'invoice'))).toEqual([
      {
        name: 'customer',
        kind: 'manyToOne',
        to: 'customer',
        fromColumn: 'customerId',
        toColumn: 'id',
      },
    ]);
    expect(summary(navigationsOf([customer, invoice], 'customer'))).toEqual([
      {
        name: 'invoice',
        kind: 'oneToMany',
        to: 'invoice',
        fromColumn: 'id',
        toColumn: 'customerId',
      },
    ]);
  });

  it('one-to-many is named after the referencing table (its model name)', () => {
    expect(summary(navigationsOf([customer, orders, orderLine], 'customer'))).toEqual([
      {
        name: 'orders',
        kind: 'oneToMany',
        to: 'orders',
        fromColumn: 'id',
        toColumn: 'customer_id',
      },
    ]);
    const renamed = { ...orders, name: 'sales_orders', dbName: 'orders', schema: 'sales' };
    const salesCustomer = { ...customer, schema: 'sales' };
    const navs = navigationsOf(
      [
        salesCustomer,
        { ...renamed, foreignKeys: [fk(['customer_id'], 'customer', ['id'], 'sales')] },
      ],
      'customer',
    );
    expect(navs.map((n) => n.name)).toEqual(['sales_orders']);
  });

  it('a many-to-one referencing a non-primary key uses the referenced column', () => {
    const account = table('account', ['id', col('code', 'text')], ['id']);
    const payment = table(
      'payment',
      ['id', col('account_id', 'text')],
      ['id'],
      [fk(['account_id'], 'account', ['code'])],
    );
    expect(summary(navigationsOf([account, payment], 'payment'))).toEqual([
      {
        name: 'account',
        kind: 'manyToOne',
        to: 'account',
        fromColumn: 'account_id',
        toColumn: 'code',
      },
    ]);
    expect(summary(navigationsOf([account, payment], 'account'))).toEqual([
      {
        name: 'payment',
        kind: 'oneToMany',
        to: 'payment',
        fromColumn: 'code',
        toColumn: 'account_id',
      },
    ]);
  });

  it('a name that clashes with a column gets _by_<fk column>', () => {
    // `orders` has a plain `customer` text column besides the `customer_id` foreign key.
    const withColumn = table(
      'orders',
      ['id', 'customer_id', col('customer', 'text')],
      ['id'],
      [fk(['customer_id'], 'customer', ['id'])],
    );
    expect(navigationsOf([customer, withColumn], 'orders').map((n) => n.name)).toEqual([
      'customer_by_customer_id',
    ]);
    // A foreign key column without a suffix clashes with itself.
    const bare = table('note', ['id', 'author'], ['id'], [fk(['author'], 'customer', ['id'])]);
    expect(navigationsOf([customer, bare], 'note').map((n) => n.name)).toEqual([
      'author_by_author',
    ]);
  });

  it('a one-to-many that clashes with a column gets _by_<fk column>', () => {
    const customerWithOrdersColumn = table('customer', ['id', col('orders', 'int')], ['id']);
    expect(
      navigationsOf([customerWithOrdersColumn, orders], 'customer').map((n) => n.name),
    ).toEqual(['orders_by_customer_id']);
  });

  it('two foreign keys to the same table: distinct many-to-one names, clashing one-to-many names disambiguated', () => {
    const shipment = table(
      'shipment',
      ['id', 'billing_customer_id', 'shipping_customer_id'],
      ['id'],
      [
        fk(['billing_customer_id'], 'customer', ['id']),
        fk(['shipping_customer_id'], 'customer', ['id']),
      ],
    );
    expect(navigationsOf([customer, shipment], 'shipment').map((n) => n.name)).toEqual([
      'billing_customer',
      'shipping_customer',
    ]);
    expect(summary(navigationsOf([customer, shipment], 'customer'))).toEqual([
      {
        name: 'shipment_by_billing_customer_id',
        kind: 'oneToMany',
        to: 'shipment',
        fromColumn: 'id',
        toColumn: 'billing_customer_id',
      },
      {
        name: 'shipment_by_shipping_customer_id',
        kind: 'oneToMany',
        to: 'shipment',
        fromColumn: 'id',
        toColumn: 'shipping_customer_id',
      },
    ]);
  });

  it('a many-to-one and a one-to-many of the same name are both disambiguated', () => {
    const person = table('person', ['id'], ['id']);
    const team = table('team', ['id', 'lead_id'], ['id'], [fk(['lead_id'], 'person', ['id'])]);
    const lead = table('lead', ['id', 'team_id'], ['id'], [fk(['team_id'], 'team', ['id'])]);
    expect(summary(navigationsOf([person, team, lead], 'team'))).toEqual([
      {
        name: 'lead_by_lead_id',
        kind: 'manyToOne',
        to: 'person',
        fromColumn: 'lead_id',
        toColumn: 'id',
      },
      {
        name: 'lead_by_team_id',
        kind: 'oneToMany',
        to: 'lead',
        fromColumn: 'id',
        toColumn: 'team_id',
      },
    ]);
  });

  it('a self-reference gives both directions on the same table', () => {
    const employee = table(
      'employee',
      ['id', 'manager_id'],
      ['id'],
      [fk(['manager_id'], 'employee', ['id'])],
    );
    expect(summary(navigationsOf([employee], 'employee'))).toEqual([
      {
        name: 'manager',
        kind: 'manyToOne',
        to: 'employee',
        fromColumn: 'manager_id',
        toColumn: 'id',
      },
      {
        name: 'employee',
        kind: 'oneToMany',
        to: 'employee',
        fromColumn: 'id',
        toColumn: 'manager_id',
      },
    ]);
  });

  it('composite foreign keys give no navigation in either direction', () => {
    const header = table('order_header', ['region', 'number'], ['region', 'number']);
    const line = table(
      'order_item',
      ['region', 'number', 'line_no'],
      ['region', 'number', 'line_no'],
      [fk(['region', 'number'], 'order_header', ['region', 'number'])],
    );
    expect(navigationsOf([header, line], 'order_item')).toEqual([]);
    expect(navigationsOf([header, line], 'order_header')).toEqual([]);
  });

  it('inactive tables give no navigation', () => {
    const inactiveCustomer = { ...customer, active: false };
    expect(navigationsOf([inactiveCustomer, orders], 'orders')).toEqual([]);
    const inactiveOrders = { ...orders, active: false };
    expect(navigationsOf([customer, inactiveOrders, orderLine], 'customer')).toEqual([]);
    // order_line's many-to-one leads to the inactive orders table: no navigation.
    expect(navigationsOf([customer, inactiveOrders, orderLine], 'order_line')).toEqual([]);
  });

  it('tables of another datasource or schema are not linked', () => {
    const otherDs = { ...customer, datasourceId: 'ds2' };
    expect(navigationsOf([otherDs, orders], 'orders')).toEqual([]);
    expect(navigationsOf([otherDs, orders], 'customer')).toEqual([]);
    const otherSchema = { ...customer, schema: 'archive' };
    expect(navigationsOf([otherSchema, orders], 'orders')).toEqual([]);
  });

  it('SQLite tables (schema null) link by name', () => {
    const c = { ...customer, schema: null };
    const o = {
      ...orders,
      schema: null,
      foreignKeys: [fk(['customer_id'], 'customer', ['id'], null)],
    };
    expect(navigationsOf([c, o], 'orders').map((n) => n.name)).toEqual(['customer']);
    expect(navigationsOf([c, o], 'customer').map((n) => n.name)).toEqual(['orders']);
  });

  it('an unknown table has no navigation', () => {
    expect(navigationsOf([customer, orders], 'nope')).toEqual([]);
  });
});

describe('requiredColumns', () => {
  it('is the not-null columns without a default that are not generated', () => {
    const t = table(
      'customer',
      [
        col('id', 'int', { nullable: false, generated: true }),
        col('name', 'text', { nullable: false }),
        col('email', 'text', { nullable: true }),
        col('created_at', 'timestamptz', { nullable: false, hasDefault: true }),
        col('code', 'text', { nullable: false }),
        col('total', 'decimal', { nullable: false, generated: true }),
      ],
      ['id'],
    );
    expect(requiredColumns(t).map((c) => c.name)).toEqual(['name', 'code']);
  });

  it('includes a non-generated primary key', () => {
    const t = table(
      'country',
      [col('iso', 'text', { nullable: false }), col('label', 'text')],
      ['iso'],
    );
    expect(requiredColumns(t).map((c) => c.name)).toEqual(['iso']);
  });
});

describe('isKeyColumn', () => {
  const line = table(
    'order_item',
    ['region', 'number', 'line_no', 'product_id', col('qty', 'int')],
    ['region', 'number', 'line_no'],
    [
      fk(['region', 'number'], 'order_header', ['region', 'number']),
      fk(['product_id'], 'product', ['id']),
    ],
  );

  it('is true for primary key columns', () => {
    expect(isKeyColumn(line, 'region')).toBe(true);
    expect(isKeyColumn(line, 'line_no')).toBe(true);
  });
  it('is true for foreign key columns, composite ones included', () => {
    expect(isKeyColumn(line, 'product_id')).toBe(true);
    const fkOnly = table('t', ['id', 'a', 'b'], ['id'], [fk(['a', 'b'], 'u', ['x', 'y'])]);
    expect(isKeyColumn(fkOnly, 'b')).toBe(true);
  });
  it('is false for other columns', () => {
    expect(isKeyColumn(line, 'qty')).toBe(false);
    expect(isKeyColumn(line, 'missing')).toBe(false);
  });
});

describe('isIdColumn', () => {
  const payments = table(
    'payment',
    [
      col('payment_id', 'int'),
      col('payment_date', 'date'),
      col('amount', 'decimal'),
      col('code', 'uuid'),
    ],
    ['payment_date', 'payment_id'],
    [fk(['amount'], 'prices', ['amount']), fk(['code'], 'codes', ['code'])],
  );

  it('types whole-number, UUID and text keys ID', () => {
    expect(isIdColumn(payments, 'payment_id')).toBe(true);
    expect(isIdColumn(payments, 'code')).toBe(true);
    const countries = table('country', [col('iso', 'text'), col('name', 'text')], ['iso']);
    expect(isIdColumn(countries, 'iso')).toBe(true);
    expect(isIdColumn(countries, 'name')).toBe(false);
  });
  it('leaves keys of other kinds their own scalar, and other columns alone', () => {
    expect(isIdColumn(payments, 'payment_date')).toBe(false);
    expect(isIdColumn(payments, 'amount')).toBe(false);
  });
});
