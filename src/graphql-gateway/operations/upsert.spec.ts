import { type ColumnKind, type ModelColumn } from '../../datasources/core/dialect';
import { MssqlDialect } from '../../datasources/mssql/dialect';
import { mssqlTablesFromCatalog } from '../../datasources/mssql/introspection';
import { MysqlDialect } from '../../datasources/mysql/dialect';
import { PostgresDialect } from '../../datasources/postgres/dialect';
import type {
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../../platform/version-definition';
import { modelColumn } from '../../../test/support/model-column';
import { buildApiTree, type RowNode } from '../api-tree';
import { keyText, upsertKeys } from './upsert';

/** The keys `on` offers and how keys are compared (issue 24 item 2, README "Writing rows"). */

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, { nullable: false, ...extra });

const FULL = { insertReturning: true, updateReturning: true };
const MYSQL = { insertReturning: false, updateReturning: false, upsertMatchesAnyKey: true };

/** The root node of an API with every action over `table` (every column, no navigation). */
function node(table: Partial<ModelTable> & Pick<ModelTable, 'columns' | 'primaryKey'>): RowNode {
  const model: ModelTable = {
    name: 'members',
    dbName: 'members',
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    foreignKeys: [],
    ...table,
  };
  const all = { select: true, insert: true, update: true, delete: true };
  const api: TableApiDefinition = {
    id: 'api-members',
    name: 'members',
    table: 'members',
    actions: all,
    public: all,
    fields: null,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
  const definition: VersionDefinition = {
    tables: [model],
    enums: [],
    apis: [api],
    permissions: {},
  };
  const built = buildApiTree(definition, api);
  if (!built) throw new Error('no tree');
  return built;
}

const columns = [
  col('id', 'int', { generated: true }),
  col('tenant_id', 'int'),
  col('email', 'text'),
  col('code', 'text'),
  col('total', 'int', { computed: true, generated: true }),
];

describe('upsertKeys', () => {
  it('offers the primary key, then the plain unique keys, named by their columns', () => {
    const n = node({
      columns,
      primaryKey: ['id'],
      uniqueKeys: [
        { columns: ['tenant_id', 'email'] },
        { columns: ['code'], partial: true },
        { columns: ['total'] },
      ],
    });
    expect(upsertKeys(n, FULL)).toEqual([
      { name: 'id', columns: ['id'] },
      { name: 'tenant_id_email', columns: ['tenant_id', 'email'] },
    ]);
  });

  it('never a primary key a builder chose: no constraint backs it', () => {
    const n = node({ columns, primaryKey: ['id'], primaryKeyChosen: true });
    expect(upsertKeys(n, FULL)).toEqual([]);
  });

  it('on MySQL/MariaDB only a table with one unique key set, partial ones counted', () => {
    expect(upsertKeys(node({ columns, primaryKey: ['id'] }), MYSQL)).toEqual([
      { name: 'id', columns: ['id'] },
    ]);
    const two = node({ columns, primaryKey: ['id'], uniqueKeys: [{ columns: ['email'] }] });
    expect(upsertKeys(two, MYSQL)).toEqual([]);
    const partial = node({
      columns,
      primaryKey: ['id'],
      uniqueKeys: [{ columns: ['code'], partial: true }],
    });
    expect(upsertKeys(partial, MYSQL)).toEqual([]);
  });
});

describe('upsertKeys on SQL Server (unique keys read at import, issue 24)', () => {
  it('offers the primary key and each plain unique key sys.indexes gave, never a filtered one', () => {
    const [table] = mssqlTablesFromCatalog(
      [{ schema: 'dbo', name: 'members' }],
      ['id', 'tenant_id', 'email', 'code'].map((column_name) => ({
        schema_name: 'dbo',
        table_name: 'members',
        table_kind: 'table' as const,
        column_name,
        type_name: column_name === 'email' || column_name === 'code' ? 'nvarchar' : 'int',
        max_length: 200,
        is_nullable: false,
        is_identity: column_name === 'id',
        is_computed: false,
        has_default: false,
        generated_always_type: 0,
      })),
      [{ schema_name: 'dbo', table_name: 'members', column_name: 'id' }],
      [],
      [],
      [
        {
          schema_name: 'dbo',
          table_name: 'members',
          index_id: 2,
          column_name: 'tenant_id',
          is_computed: false,
          has_filter: false,
        },
        {
          schema_name: 'dbo',
          table_name: 'members',
          index_id: 2,
          column_name: 'email',
          is_computed: false,
          has_filter: false,
        },
        {
          schema_name: 'dbo',
          table_name: 'members',
          index_id: 3,
          column_name: 'code',
          is_computed: false,
          has_filter: true,
        },
      ],
    );
    const n = node({
      ...table,
      name: 'members',
      columns: table.columns,
      primaryKey: table.primaryKey,
    });
    expect(upsertKeys(n, new MssqlDialect().capabilities())).toEqual([
      { name: 'id', columns: ['id'] },
      { name: 'tenant_id_email', columns: ['tenant_id', 'email'] },
    ]);
  });
});

describe('keyText', () => {
  const pg = new PostgresDialect();
  const my = new MysqlDialect();
  it('compares numbers without leading or trailing zeros and UUIDs in lower case', () => {
    const id = [col('id', 'bigint')];
    expect(keyText(pg, id, ['0042'])).toBe(keyText(pg, id, [42]));
    const amount = [col('amount', 'decimal')];
    expect(keyText(pg, amount, ['1.50'])).toBe(keyText(pg, amount, ['1.5']));
    expect(keyText(pg, amount, ['10'])).not.toBe(keyText(pg, amount, ['1']));
    const uuid = [col('ref', 'uuid')];
    expect(keyText(pg, uuid, ['A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'])).toBe(
      keyText(pg, uuid, ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']),
    );
  });

  it('text as the default collation compares it: exact on PostgreSQL, folded on MySQL', () => {
    const email = [col('email', 'text')];
    expect(keyText(pg, email, ['Ana@x'])).not.toBe(keyText(pg, email, ['ana@x']));
    expect(keyText(my, email, ['Ana@x '])).toBe(keyText(my, email, ['ana@x']));
  });
});
