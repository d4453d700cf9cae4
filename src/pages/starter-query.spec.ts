import type { ModelColumn } from '../datasources/core/dialect';
import type {
  ModelTable,
  SqlApiDefinition,
  TableApiDefinition,
} from '../platform/version-definition';
import { baseNameOf, rowColumnsOf, sqlStarterQuery, starterQuery } from './starter-query';

const column = (name: string, extra: Partial<ModelColumn> = {}): ModelColumn => ({
  name,
  dbType: 'INTEGER',
  kind: 'int',
  nullable: true,
  hasDefault: false,
  generated: false,
  maxLength: null,
  ...extra,
});

const table: ModelTable = {
  name: 'order_lines',
  schema: null,
  dbName: 'order_lines',
  datasourceId: 'ds',
  active: true,
  primaryKey: ['id'],
  foreignKeys: [],
  columns: [
    column('id', { nullable: false, generated: true }),
    column('order_id', { nullable: false }),
    column('note'),
    column('bad name'),
  ],
} as unknown as ModelTable;

const api = (over: Partial<TableApiDefinition>): TableApiDefinition => ({
  id: 'a',
  name: 'lines',
  table: 'order_lines',
  actions: { select: true, insert: false, update: false, delete: false },
  public: { select: false, insert: false, update: false, delete: false },
  fields: null,
  status: 'draft',
  createdAt: '',
  updatedAt: '',
  ...over,
});

describe('the test tab starter query', () => {
  it('upper-cases the first letter of the base name only', () => {
    expect(baseNameOf('orderLines')).toBe('OrderLines');
  });

  it('selects every GraphQL-named column when fields is null', () => {
    expect(starterQuery(api({}), table)).toBe(
      '{\n  getLines(take: 10) {\n    id\n    order_id\n    note\n  }\n}\n',
    );
  });

  it('selects the included columns, in table order, plus required ones while writing', () => {
    expect(
      rowColumnsOf(api({ fields: { note: true, id: true, order: { id: true } } }), table),
    ).toEqual(['id', 'note']);
    const writing = api({
      fields: { note: true },
      actions: { select: true, insert: true, update: false, delete: false },
    });
    expect(rowColumnsOf(writing, table)).toEqual(['order_id', 'note']);
  });

  it('says where the operations are without a select action or a table', () => {
    const noSelect = api({
      actions: { select: false, insert: true, update: false, delete: false },
    });
    expect(starterQuery(noSelect, table)).toMatch(/^# lines has no select action.*addLines/);
    expect(starterQuery(api({}), undefined)).toMatch(/no longer in the model/);
  });
});

describe('sqlStarterQuery', () => {
  const proposed = { databaseType: null, kind: null, nullable: null };
  const sqlApi = (extra: Partial<SqlApiDefinition>): SqlApiDefinition => ({
    id: 's1',
    name: 'revenue',
    datasourceId: 'ds',
    statement: 'SELECT …',
    kind: 'query',
    arguments: [
      { name: 'status', type: 'text', nullable: false, proposed },
      { name: 'minimum', type: 'int', nullable: false, proposed },
      { name: 'user_region', type: 'text', nullable: false, proposed },
    ],
    columns: [
      { name: 'city', kind: 'text', nullable: true, proposed },
      { name: 'not a name', kind: 'int', nullable: true, proposed },
      { name: 'total', kind: 'decimal', nullable: true, proposed },
    ],
    filterable: false,
    public: false,
    status: 'draft',
    createdAt: '',
    updatedAt: '',
    ...extra,
  });

  it('calls a query kind with placeholder arguments, take 10 and its GraphQL-named columns, never an implicit :user_ parameter', () => {
    expect(sqlStarterQuery(sqlApi({}))).toBe(
      '# Replace the placeholder values of the arguments.\n{\n  revenue(status: "", minimum: 0, take: 10) {\n    city\n    total\n  }\n}\n',
    );
  });

  it('asks a mutation kind for affected and its rows, or affected alone without columns', () => {
    expect(sqlStarterQuery(sqlApi({ kind: 'mutation', arguments: [] }))).toBe(
      'mutation {\n  revenue {\n    affected\n    rows {\n      city\n      total\n    }\n  }\n}\n',
    );
    expect(sqlStarterQuery(sqlApi({ kind: 'mutation', columns: [] }))).toMatch(
      /^# Replace.*\nmutation \{\n {2}revenue\(status: "", minimum: 0\) \{\n {4}affected\n {2}\}\n\}\n$/,
    );
  });
});
