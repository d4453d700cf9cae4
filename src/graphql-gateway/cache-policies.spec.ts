import type { ColumnKind, ModelColumn, ModelForeignKey } from '../datasources/core/dialect';
import type {
  FieldsTree,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { modelColumn } from '../../test/support/model-column';
import { cachePoliciesBody, cachePoliciesOf, entityNames } from './cache-policies';
import { AudienceView, BUILDER } from './request/audience';
import { VersionTypes } from './schema-builder';

/**
 * Issue 21 item 3: the client-cache configuration the service serves per caller's schema
 * (`GET /api/graphql/:address/cache-policies`). Row types of one table get one entity and their
 * primary key as key fields, whatever their type names (`Customers`, `Customers_2`) and key
 * names (`album_id`).
 */

const col = (name: string, kind: ColumnKind = 'int', extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, { nullable: false, ...extra });

function fk(column: string, referencedTable: string, referencedColumn: string): ModelForeignKey {
  return {
    columns: [column],
    referencedSchema: 'main',
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
    schema: 'main',
    datasourceId: 'ds1',
    active: true,
    columns,
    primaryKey,
    foreignKeys,
  };
}

const customers = table(
  'customers',
  [col('id'), col('name', 'text'), col('email', 'text')],
  ['id'],
);
const orders = table(
  'orders',
  [col('id'), col('customer_id'), col('total', 'decimal')],
  ['id'],
  [fk('customer_id', 'customers', 'id')],
);
// Chinook's keys are not named `id`.
const artist = table('artist', [col('artist_id'), col('name', 'text')], ['artist_id']);
const album = table(
  'album',
  [col('album_id'), col('title', 'text'), col('artist_id')],
  ['album_id'],
  [fk('artist_id', 'artist', 'artist_id')],
);
// A view: no primary key, but a column named `id`.
const orderTotals = table('order_totals', [col('id'), col('total', 'decimal')], []);

const none = { select: false, insert: false, update: false, delete: false };
const ALL = { select: true, insert: true, update: true, delete: true };

function api(
  name: string,
  tableName: string,
  fields: FieldsTree | null,
  actions: TableApiDefinition['actions'] = ALL,
): TableApiDefinition {
  return {
    id: `api-${name}`,
    name,
    table: tableName,
    actions,
    public: none,
    fields,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

const APIS = [
  api('customers', 'customers', { id: true, name: true, email: true, orders: { id: true } }),
  api('orders', 'orders', {
    id: true,
    total: true,
    customer_id: true,
    customer: { id: true, name: true },
  }),
  // Nested albums without their key: never identified.
  api('artists', 'artist', { artist_id: true, name: true, album: { title: true } }),
  api('albums', 'album', {
    album_id: true,
    title: true,
    artist_id: true,
    artist: { artist_id: true, name: true },
  }),
  api('orderTotals', 'order_totals', null),
];

function definition(
  apis: TableApiDefinition[] = APIS,
  tables = [customers, orders, artist, album, orderTotals],
): VersionDefinition {
  return { tables, enums: [], apis, permissions: {} };
}

function built(def: VersionDefinition, audience: AudienceView = BUILDER) {
  return new VersionTypes(def).schemaFor(audience);
}

describe('cachePoliciesOf', () => {
  it('gives every row type of a table one entity and the primary key as its key fields', () => {
    const def = definition();
    const { policies, consistent } = cachePoliciesOf(built(def), def);
    expect(consistent).toBe(true);
    expect(policies.typePolicies).toEqual({
      Albums: { keyFields: ['album_id'] },
      Album: { keyFields: false },
      Artist: { keyFields: ['artist_id'] },
      Artists: { keyFields: ['artist_id'] },
      Customers: { keyFields: ['id'] },
      Customers_2: { keyFields: ['id'] },
      Orders: { keyFields: ['id'] },
      Orders_2: { keyFields: ['id'] },
      OrderTotals: { keyFields: false },
    });
    expect(policies.entities).toEqual({
      Albums: 'Album',
      Artist: 'Artist',
      Artists: 'Artist',
      Customers: 'Customers',
      Customers_2: 'Customers',
      Orders: 'Orders',
      Orders_2: 'Orders',
    });
    // Siblings of one table match each other's fragments: their cache object is shared.
    expect(policies.possibleTypes).toEqual({
      Artist: ['Artists'],
      Artists: ['Artist'],
      Customers: ['Customers_2'],
      Customers_2: ['Customers'],
      Orders: ['Orders_2'],
      Orders_2: ['Orders'],
    });
    // One JSON text for one schema: keys sorted.
    expect(Object.keys(policies.typePolicies)).toEqual(
      Object.keys(policies.typePolicies).sort((a, b) => (a < b ? -1 : 1)),
    );
  });

  it("names only the row types the caller's view reaches", () => {
    const def = definition();
    const ordersOnly: AudienceView = { key: 'key:test', includes: (f) => f.apiId === 'api-orders' };
    const { policies } = cachePoliciesOf(built(def, ordersOnly), def);
    expect(policies.typePolicies).toEqual({
      Customers_2: { keyFields: ['id'] },
      Orders: { keyFields: ['id'] },
    });
    expect(policies.entities).toEqual({ Customers_2: 'Customers', Orders: 'Orders' });
    expect(policies.possibleTypes).toEqual({});
  });

  it('names a composite key in key order and identifies no row type whose key is partly left out', () => {
    const lines = table(
      'order_lines',
      [col('line'), col('order_id'), col('qty')],
      ['order_id', 'line'],
      [fk('order_id', 'orders', 'id')],
    );
    const def = definition(
      [
        api('lines', 'order_lines', null),
        // Read only: no write forces the required `order_id` into the field set.
        api('someLines', 'order_lines', { line: true, qty: true }, { ...none, select: true }),
      ],
      [customers, orders, lines],
    );
    const { policies } = cachePoliciesOf(built(def), def);
    expect(policies.typePolicies.Lines).toEqual({ keyFields: ['order_id', 'line'] });
    expect(policies.typePolicies.SomeLines).toEqual({ keyFields: false });
    expect(policies.entities).toEqual({ Lines: 'Order_lines' });
  });

  it('leaves out the types a definition read after a change does not match', () => {
    const def = definition();
    const changed = definition(
      APIS.map((a) => (a.name === 'orders' ? { ...a, fields: { id: true, total: true } } : a)),
    );
    const { policies, consistent } = cachePoliciesOf(built(def), changed);
    expect(consistent).toBe(false);
    expect(policies.typePolicies.Orders).toBeUndefined();
    expect(policies.typePolicies.Customers).toEqual({ keyFields: ['id'] });
  });
});

describe('entityNames', () => {
  it('names each active table after its type name, distinct in table order', () => {
    const def = definition(
      [],
      [
        table('order_lines', [col('id')], ['id']),
        table('order-lines', [col('id')], ['id']),
        { ...table('gone', [col('id')], ['id']), active: false },
        table('2024', [col('id')], ['id']),
      ],
    );
    expect(Object.fromEntries(entityNames(def))).toEqual({
      order_lines: 'Order_lines',
      'order-lines': 'Order_lines_2',
      2024: 'T2024',
    });
  });
});

describe('cachePoliciesBody', () => {
  it('reads the definition once per schema and answers the same text', async () => {
    const def = definition();
    const schema = built(def);
    const read = jest.fn(async () => def);
    const first = await cachePoliciesBody(schema, read);
    expect(await cachePoliciesBody(schema, read)).toBe(first);
    expect(read).toHaveBeenCalledTimes(1);
    expect(JSON.parse(first)).toEqual(cachePoliciesOf(schema, def).policies);
    // Another schema object is another entry.
    await cachePoliciesBody(built(def), read);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keeps neither an answer from a definition that did not match nor a failed read', async () => {
    const def = definition();
    const schema = built(def);
    const stale = definition(APIS.filter((a) => a.name !== 'orders'));
    const read = jest
      .fn<Promise<VersionDefinition>, []>()
      .mockRejectedValueOnce(new Error('store down'))
      .mockResolvedValueOnce(stale)
      .mockResolvedValue(def);
    await expect(cachePoliciesBody(schema, read)).rejects.toThrow('store down');
    const partial = JSON.parse(await cachePoliciesBody(schema, read));
    expect(partial.typePolicies.Orders).toBeUndefined();
    const whole = JSON.parse(await cachePoliciesBody(schema, read));
    expect(whole.typePolicies.Orders).toEqual({ keyFields: ['id'] });
    await cachePoliciesBody(schema, read);
    expect(read).toHaveBeenCalledTimes(3);
  });
});
