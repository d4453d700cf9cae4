import type { ModelColumn } from '../datasources/core/dialect';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { GraphqlTypeNames } from './graphql-type';
import { modelColumn } from '../../test/support/model-column';

/** The GraphQL type names the data model page shows beside each column (issue 27 item 3). */

const col = (name: string, extra: Partial<ModelColumn> = {}): ModelColumn => ({
  ...modelColumn(name),
  ...extra,
});

const customers: ModelTable = {
  name: 'customers',
  dbName: 'customers',
  schema: 'public',
  datasourceId: 'ds1',
  active: true,
  columns: [
    col('id', { kind: 'int', dbType: 'integer' }),
    col('name', { kind: 'text', dbType: 'text' }),
    col('status', { kind: 'text', dbType: 'text', enum: 'Status' }),
    col('mood', { kind: 'text', dbType: 'mood', dbEnum: { name: 'mood', values: ['ok', 'sad'] } }),
    col('tags', { kind: 'array', dbType: 'ARRAY', elementKind: 'int', elementType: 'int4' }),
    col('placed_at', { kind: 'timestamptz', dbType: 'timestamp with time zone' }),
    col('total', { kind: 'decimal', dbType: 'numeric' }),
  ],
  primaryKey: ['id'],
  foreignKeys: [],
};

const def = (enums: VersionDefinition['enums']): VersionDefinition => ({
  tables: [customers],
  enums,
  apis: [],
  permissions: {},
});

const typesOf = (d: VersionDefinition) => {
  const names = new GraphqlTypeNames(d);
  return Object.fromEntries(customers.columns.map((c) => [c.name, names.of(customers, c)]));
};

describe('GraphqlTypeNames', () => {
  it('names keys ID, enums by their GraphQL name, arrays as lists and the rest by scalar', () => {
    expect(
      typesOf(
        def([
          {
            name: 'Status',
            description: null,
            values: [{ value: 'new', label: null, color: null }],
          },
        ]),
      ),
    ).toEqual({
      id: 'ID',
      name: 'String',
      status: 'Status',
      mood: 'Mood',
      tags: '[Int]',
      placed_at: 'DateTime',
      total: 'Decimal',
    });
  });

  it('types a column whose app enum is gone as the text it holds again', () => {
    expect(typesOf(def([])).status).toBe('String');
  });

  it('names a database enum apart from an app enum of the same name', () => {
    expect(
      typesOf(
        def([
          { name: 'Mood', description: null, values: [{ value: 'x', label: null, color: null }] },
        ]),
      ).mood,
    ).toBe('Mood_2');
  });
});
