import type { TableApiDefinition, VersionDefinition } from './version-definition';
import { diffVersions, stableJson } from './version-diff';

const off = { select: false, insert: false, update: false, delete: false };

function api(over: Partial<TableApiDefinition>): TableApiDefinition {
  return {
    id: 'a1',
    name: 'orders',
    table: 'orders',
    actions: { ...off, select: true },
    public: off,
    fields: { id: true, total: true },
    status: 'published',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}

function version(over: Partial<VersionDefinition>): VersionDefinition {
  return { tables: [], enums: [], apis: [], permissions: {}, ...over };
}

describe('diffVersions', () => {
  it('finds no change between equal versions, whatever the order of a rule’s keys', () => {
    const a = version({
      apis: [api({})],
      permissions: { sales: { tables: { orders: { where: { a: { eq: 1 }, b: { eq: 2 } } } } } },
    });
    const b = version({
      apis: [api({})],
      permissions: { sales: { tables: { orders: { where: { b: { eq: 2 }, a: { eq: 1 } } } } } },
    });
    expect(diffVersions(a, b)).toEqual([]);
  });

  it('names a changed Table API by its new name with each switch, field and state change', () => {
    const main = version({ apis: [api({})] });
    const working = version({
      apis: [
        api({
          name: 'sales',
          actions: { ...off, select: true, insert: true },
          public: { ...off, select: true },
          fields: { id: true, customer: { name: true } },
          status: 'draft',
        }),
      ],
    });
    expect(diffVersions(main, working)).toEqual([
      {
        area: 'api',
        change: 'changed',
        name: 'sales',
        details: [
          'renamed from orders',
          'back to draft: callers no longer reach it',
          'actions switched on: insert',
          'public switched on: select',
          'fields added: customer.name',
          'fields removed: total',
        ],
      },
    ]);
  });

  it('lists added and removed APIs, tables, enums and rules', () => {
    const column = {
      name: 'id',
      dbType: 'INTEGER',
      kind: 'integer',
      nullable: false,
      hasDefault: false,
      generated: false,
      maxLength: null,
    } as unknown as VersionDefinition['tables'][number]['columns'][number];
    const table = {
      name: 'orders',
      schema: null,
      dbName: 'orders',
      datasourceId: 'd',
      active: true,
      columns: [column],
      primaryKey: ['id'],
      foreignKeys: [],
    };
    const main = version({
      apis: [api({ id: 'old', name: 'gone' })],
      permissions: { old: { tables: { orders: { where: {} } } } },
    });
    const working = version({
      apis: [api({ id: 'new', name: 'fresh' })],
      tables: [table],
      enums: [
        { name: 'Status', description: null, values: [{ value: 'A', label: 'Aa', color: null }] },
      ],
      permissions: { sales: { tables: { orders: { where: { id: { eq: '$user.id' } } } } } },
    });
    const changes = diffVersions(main, working);
    expect(changes.map((c) => `${c.area} ${c.change} ${c.name}`)).toEqual([
      'api added fresh',
      'api removed gone',
      'table added orders',
      'enum added Status',
      'rule added sales',
      'rule removed old',
    ]);
    expect(changes.find((c) => c.name === 'sales')?.details).toEqual([
      'orders: rule added, rows where {"id":{"eq":"$user.id"}}',
    ]);
    expect(changes.find((c) => c.name === 'fresh')?.details).toContain('public: none');
  });

  it('writes JSON with sorted keys', () => {
    expect(stableJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe(
      '{"a":null,"b":[1,{"c":2,"d":1}]}',
    );
  });
});
