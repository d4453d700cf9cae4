import {
  getNamedType,
  graphql,
  GraphQLInputObjectType,
  GraphQLObjectType,
  GraphQLSchema,
  isObjectType,
  validateSchema,
} from 'graphql';
import { ALL_ROWS } from '../datasources/core/dialect';
import type {
  ColumnKind,
  CompiledQuery,
  ModelColumn,
  ModelForeignKey,
  StatementResult,
} from '../datasources/core/dialect';
import type { DatasourceConnection } from '../datasources/datasource-pools.service';
import { SqliteDialect } from '../datasources/sqlite/dialect';
import type {
  FieldsTree,
  ModelEnum,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { buildApiTrees, RowNode, tableTypeName } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { BUILDER } from './request/audience';
import { DefinitionClash, VersionTypes } from './schema-builder';
import { modelColumn } from '../../test/support/model-column';

/**
 * Issue 11, item 5: one row type per table and field set. A nested row type shares the type of any
 * node with the same table and included fields (a root `<Base>` first), else is named after its
 * table (`Albums`, `Albums_2`, …); root names stay as CONTRACT.md §6 gives them.
 */

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, extra);

function fk(column: string, referencedTable: string): ModelForeignKey {
  return {
    columns: [column],
    referencedSchema: 'public',
    referencedTable,
    referencedColumns: ['id'],
  };
}

function table(
  name: string,
  columns: ModelColumn[],
  foreignKeys: ModelForeignKey[] = [],
): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns: [col('id', 'int', { nullable: false, generated: true }), ...columns],
    primaryKey: ['id'],
    foreignKeys,
  };
}

const artists = table('artists', [
  col('name', 'text', { nullable: false }),
  col('country', 'text'),
]);
const albums = table(
  'albums',
  [col('artist_id', 'int'), col('title', 'text', { nullable: false }), col('year', 'int')],
  [fk('artist_id', 'artists')],
);
const tracks = table(
  'tracks',
  [col('album_id', 'int'), col('name', 'text'), col('ms', 'int')],
  [fk('album_id', 'albums')],
);
const employees = table(
  'employees',
  [col('manager_id', 'int'), col('name', 'text')],
  [fk('manager_id', 'employees')],
);
const TABLES = [artists, albums, tracks, employees];

const none = { select: false, insert: false, update: false, delete: false };
function api(
  name: string,
  tableName: string,
  fields: FieldsTree | null,
  actions: Partial<TableApiDefinition['actions']> = { select: true },
): TableApiDefinition {
  return {
    id: `api-${name}`,
    name,
    table: tableName,
    actions: { ...none, ...actions },
    public: none,
    fields,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function definition(apis: TableApiDefinition[], enums: ModelEnum[] = []): VersionDefinition {
  return { tables: TABLES, enums, apis, permissions: {} };
}

function schemaOf(def: VersionDefinition): GraphQLSchema {
  const { schema } = new VersionTypes(def).schemaFor(BUILDER);
  expect(validateSchema(schema)).toEqual([]);
  return schema;
}

/** The object type a field of `parent` returns (through lists and non-null). */
function target(parent: GraphQLObjectType, field: string): GraphQLObjectType {
  const type = getNamedType(parent.getFields()[field].type);
  if (!isObjectType(type)) throw new Error(`${parent.name}.${field} is not an object`);
  return type;
}

/** The row types of a schema, by name (introspection, root and built-in types left out). */
function rowTypes(schema: GraphQLSchema): string[] {
  return Object.values(schema.getTypeMap())
    .filter(
      (t) =>
        isObjectType(t) &&
        !t.name.startsWith('__') &&
        // Root types, and the change types of subscriptions (`<Base>Change`), are not rows.
        !/^(Query|Mutation|Subscription)$/.test(t.name) &&
        !(
          t.name.endsWith('Change') &&
          schema.getSubscriptionType()?.getFields()[`on${t.name.slice(0, -6)}Changed`]
        ),
    )
    .map((t) => t.name)
    .sort();
}

/** Every node of a tree, depth first. */
function nodesOf(node: RowNode): RowNode[] {
  return [node, ...node.navigations.flatMap((n) => nodesOf(n.node))];
}

/**
 * A request context whose datasource answers every SELECT with `rows[table]` and every UPDATE
 * with the first row of its table, recording the statements.
 */
function fakeContext(rows: Record<string, Record<string, unknown>[]>) {
  const statements: string[] = [];
  const dialect = new SqliteDialect();
  const run = (query: CompiledQuery): Promise<StatementResult> => {
    statements.push(query.sql);
    const name = Object.keys(rows).find((t) => query.sql.includes(`"${t}"`)) ?? '';
    const all = rows[name] ?? [];
    return Promise.resolve({
      rows: query.sql.startsWith('UPDATE') ? all.slice(0, 1) : all,
      affected: 1,
    });
  };
  const connection: DatasourceConnection = {
    dialect,
    run,
    transaction: (work) => work(run),
    readOnly: (work) => work(run),
  };
  const ctx = {
    connection: () => Promise.resolve(connection),
    scopes: { of: () => ALL_ROWS },
    loaders: new WeakMap(),
  } as unknown as GatewayContext;
  return { ctx, statements };
}

const MUSIC_ROWS = {
  artists: [{ id: 1, name: 'Nina', country: 'US' }],
  albums: [{ id: 10, artist_id: 1, title: 'Pastel Blues', year: 1965 }],
  tracks: [{ id: 100, album_id: 10, name: 'Sinnerman', ms: 620000 }],
};

describe('a nested node with the fields of a root API node', () => {
  const albumFields: FieldsTree = { id: true, artist_id: true, title: true, year: true };
  const def = definition([
    api('artists', 'artists', { id: true, name: true, albums: albumFields }),
    api('albums', 'albums', null, { select: true, update: true }),
  ]);
  const schema = schemaOf(def);
  const Artists = target(schema.getQueryType()!, 'getArtists');

  it('shares the root `<Base>` row type: the same object, wherever the entity appears', () => {
    const nested = target(Artists, 'albums');
    expect(nested.name).toBe('Albums');
    expect(nested).toBe(schema.getType('Albums'));
    expect(nested).toBe(target(schema.getQueryType()!, 'getAlbums'));
    expect(nested).toBe(target(schema.getMutationType()!, 'updateAlbums'));
  });

  it("shares the root's filter and order inputs too", () => {
    const args = Object.fromEntries(Artists.getFields().albums.args.map((a) => [a.name, a]));
    const root = Object.fromEntries(
      schema
        .getQueryType()!
        .getFields()
        .getAlbums.args.map((a) => [a.name, a]),
    );
    expect(getNamedType(args.where.type)).toBe(schema.getType('AlbumsFilter'));
    expect(getNamedType(args.order.type)).toBe(schema.getType('AlbumsOrder'));
    expect(args.where.type).toBe(root.where.type);
    // updateManyAlbums answers its own result type, whose rows are Albums.
    expect(rowTypes(schema)).toEqual(['Albums', 'AlbumsUpdateManyResult', 'Artists']);
  });

  it('answers the same __typename for the nested rows, getAlbums and updateAlbums', async () => {
    const { ctx } = fakeContext(MUSIC_ROWS);
    const read = await graphql({
      schema,
      contextValue: ctx,
      source:
        '{ getArtists { __typename id albums { __typename id title } } getAlbums { __typename id } }',
    });
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({
      getArtists: [
        {
          __typename: 'Artists',
          id: '1',
          albums: [{ __typename: 'Albums', id: '10', title: 'Pastel Blues' }],
        },
      ],
      getAlbums: [{ __typename: 'Albums', id: '10' }],
    });
    const write = await graphql({
      schema,
      contextValue: ctx,
      source: 'mutation { updateAlbums(id: 10, title: "Pastel Blues") { __typename id } }',
    });
    expect(write.errors).toBeUndefined();
    expect(write.data).toEqual({ updateAlbums: { __typename: 'Albums', id: '10' } });
  });

  it('resolves through the shared type exactly as through a type of its own', async () => {
    // The nested `albums` (with `tracks`) equals the root API `albums`, whose node builds the
    // shared type first; without that API the nested node builds it. Same statements either way.
    const fields: FieldsTree = { id: true, title: true, tracks: { id: true, name: true } };
    const query =
      '{ getArtists { name albums(where: {title: {startsWith: "P"}}, order: [{title: DESC}], take: 2) { title tracks { name } } } }';
    const answers = [];
    for (const apis of [
      [
        api('artists', 'artists', { id: true, name: true, albums: fields }),
        api('albums', 'albums', fields),
      ],
      [api('artists', 'artists', { id: true, name: true, albums: fields })],
    ]) {
      const shared = schemaOf(definition(apis));
      expect(target(target(shared.getQueryType()!, 'getArtists'), 'albums').name).toBe('Albums');
      const { ctx, statements } = fakeContext(MUSIC_ROWS);
      const result = await graphql({ schema: shared, contextValue: ctx, source: query });
      expect(result.errors).toBeUndefined();
      answers.push({ data: result.data, statements });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0].statements).toHaveLength(3);
  });

  it('prefers the first root API of that shape, in the order of the APIs', () => {
    const same: FieldsTree = { id: true, title: true };
    const twice = schemaOf(
      definition([
        api('records', 'albums', same),
        api('albums', 'albums', same),
        api('artists', 'artists', { id: true, albums: same }),
      ]),
    );
    expect(target(target(twice.getQueryType()!, 'getArtists'), 'albums')).toBe(
      twice.getType('Records'),
    );
    // Each root keeps its own `<Base>` (CONTRACT.md §6).
    expect(target(twice.getQueryType()!, 'getAlbums').name).toBe('Albums');
  });
});

describe('nested nodes without an equal root node', () => {
  it('are named after their table; other field sets of that table get _2, _3, … in API order', () => {
    const apis = [
      api('artists', 'artists', { id: true, albums: { id: true, title: true } }),
      api('tracks', 'tracks', {
        id: true,
        album: { id: true, year: true, artist: { id: true, albums: { id: true } } },
      }),
    ];
    const names = (list: TableApiDefinition[]) =>
      buildApiTrees(definition(list)).map(({ node }) => nodesOf(node).map((n) => n.typeName));
    expect(names(apis)).toEqual([
      ['Artists', 'Albums'],
      ['Tracks', 'Albums_2', 'Artists_2', 'Albums_3'],
    ]);
    // Deterministic: the same definition, the same names; the order of the APIs decides.
    expect(names(apis)).toEqual(names(apis));
    expect(names([...apis].reverse())).toEqual([
      ['Tracks', 'Albums', 'Artists_2', 'Albums_2'],
      ['Artists', 'Albums_3'],
    ]);
  });

  it('share one type between nodes of one field set, in any API', () => {
    const byArtist: FieldsTree = { id: true, title: true };
    const schema = schemaOf(
      definition([
        api('artists', 'artists', { id: true, albums: byArtist }),
        api('tracks', 'tracks', { id: true, album: byArtist }),
        api('tracks2', 'tracks', { id: true, name: true, album: { id: true, year: true } }),
      ]),
    );
    const query = schema.getQueryType()!;
    const viaArtists = target(target(query, 'getArtists'), 'albums');
    expect(viaArtists.name).toBe('Albums');
    expect(target(target(query, 'getTracks'), 'album')).toBe(viaArtists);
    expect(target(target(query, 'getTracks2'), 'album').name).toBe('Albums_2');
  });

  it('skip a name held by a root API of another field set', () => {
    const schema = schemaOf(
      definition([
        api('albums', 'albums', null),
        api('albums_2', 'albums', { id: true, year: true }),
        api('artists', 'artists', { id: true, albums: { id: true, title: true } }),
      ]),
    );
    expect(target(target(schema.getQueryType()!, 'getArtists'), 'albums').name).toBe('Albums_3');
    expect(rowTypes(schema)).toEqual(['Albums', 'Albums_2', 'Albums_3', 'Artists']);
  });

  it('skip enum, scalar and input names, instead of clashing', () => {
    const tables = [
      ...TABLES,
      table('date', [col('artist_id', 'int')], [fk('artist_id', 'artists')]),
    ];
    const def: VersionDefinition = {
      tables,
      enums: [
        {
          name: 'AlbumsOrder',
          description: null,
          values: [{ value: 'A', label: null, color: null }],
        },
      ],
      apis: [api('artists', 'artists', { id: true, albums: { id: true }, date: { id: true } })],
      permissions: {},
    };
    const schema = schemaOf(def);
    const Artists = target(schema.getQueryType()!, 'getArtists');
    // `Albums` would mint `AlbumsOrder` (the enum); `Date` is the date scalar.
    expect(target(Artists, 'albums').name).toBe('Albums_2');
    expect(target(Artists, 'date').name).toBe('Date_2');
  });

  it('keep the navigation field names of CONTRACT.md §6', () => {
    const schema = schemaOf(
      definition([
        api('tracks', 'tracks', {
          id: true,
          album: { id: true, artist: { name: true, albums: { id: true } }, tracks: { id: true } },
        }),
        api('staff', 'employees', { id: true, manager: { id: true, employees: { id: true } } }),
      ]),
    );
    const query = schema.getQueryType()!;
    const Tracks = target(query, 'getTracks');
    const album = target(Tracks, 'album');
    expect(Object.keys(Tracks.getFields())).toEqual(['id', 'album']);
    expect(Object.keys(album.getFields())).toEqual(['id', 'artist', 'tracks']);
    expect(Object.keys(target(album, 'artist').getFields())).toEqual(['name', 'albums']);
    const manager = target(target(query, 'getStaff'), 'manager');
    expect(Object.keys(manager.getFields())).toEqual(['id', 'employees']);
    expect(manager.getFields().employees.args.map((a) => a.name)).toEqual([
      'where',
      'order',
      'take',
      'skip',
    ]);
  });
});

describe('deep trees', () => {
  // employees.manager.manager… twelve levels down (CONTRACT.md §6: the nesting limit is 12).
  const chain = (depth: number): FieldsTree =>
    depth === 0 ? { id: true, name: true } : { id: true, name: true, manager: chain(depth - 1) };

  it('give names no longer than the table name and a short suffix', () => {
    const [{ node }] = buildApiTrees(definition([api('staff', 'employees', chain(12))]));
    const names = nodesOf(node).map((n) => n.typeName);
    expect(names).toHaveLength(13);
    expect(names[0]).toBe('Staff');
    expect(names.slice(1)).toEqual([
      'Employees',
      ...Array.from({ length: 11 }, (_, i) => `Employees_${i + 2}`),
    ]);
    for (const name of names) expect(name.length).toBeLessThanOrEqual('employees'.length + 3);
  });

  it('reuse a root type for the subtree equal to it, and one type per shape across APIs', () => {
    const apis = [
      api('staff', 'employees', chain(12)),
      api('people', 'employees', chain(12)),
      api('managers', 'employees', { id: true, name: true }),
    ];
    const schema = schemaOf(definition(apis));
    let type = target(schema.getQueryType()!, 'getStaff');
    for (let level = 0; level < 12; level++) type = target(type, 'manager');
    expect(type).toBe(schema.getType('Managers'));
    // 3 roots and 11 nested shapes (the 12th is `Managers`), whatever the number of APIs.
    expect(rowTypes(schema)).toHaveLength(14);
    expect(target(target(schema.getQueryType()!, 'getPeople'), 'manager')).toBe(
      target(target(schema.getQueryType()!, 'getStaff'), 'manager'),
    );
  });
});

describe('root names (CONTRACT.md §6)', () => {
  const schema = schemaOf(
    definition([
      api(
        'albums',
        'albums',
        { id: true, title: true, artist: { id: true } },
        {
          select: true,
          insert: true,
          update: true,
          delete: true,
        },
      ),
    ]),
  );

  it('are get/count/add/update/delete<Base>, returning <Base>, filtered by <Base>Filter, ordered by <Base>Order', () => {
    const query = schema.getQueryType()!.getFields();
    const mutation = schema.getMutationType()!.getFields();
    expect(Object.keys(query)).toEqual(['getAlbums', 'countAlbums']);
    expect(Object.keys(mutation)).toEqual([
      'addAlbums',
      'updateAlbums',
      'deleteAlbums',
      'addManyAlbums',
      'updateManyAlbums',
      'deleteManyAlbums',
      'upsertAlbums',
      'upsertManyAlbums',
    ]);
    expect(String(query.getAlbums.type)).toBe('[Albums!]!');
    expect(query.getAlbums.args.map((a) => `${a.name}: ${String(a.type)}`)).toEqual([
      'where: AlbumsFilter',
      'order: [AlbumsOrder!]',
      'take: Int',
      'skip: Int',
    ]);
    expect(String(query.countAlbums.args[0].type)).toBe('AlbumsFilter');
    expect(String(mutation.addAlbums.type)).toBe('Albums');
    expect(String(mutation.updateAlbums.type)).toBe('Albums');
    expect(String(mutation.deleteAlbums.type)).toBe('Boolean!');
    const argsOf = (name: string) => mutation[name].args.map((a) => `${a.name}: ${String(a.type)}`);
    expect(String(mutation.updateManyAlbums.type)).toBe('AlbumsUpdateManyResult!');
    expect(argsOf('updateManyAlbums')).toEqual([
      'where: AlbumsFilter!',
      'set: AlbumsSet!',
      'atMost: Int!',
    ]);
    // The key addresses rows: set offers the other writable columns, none required.
    expect(
      Object.keys((schema.getType('AlbumsSet') as GraphQLInputObjectType).getFields()),
    ).not.toContain('id');
    expect(String(mutation.deleteManyAlbums.type)).toBe('AlbumsDeleteManyResult!');
    expect(argsOf('deleteManyAlbums')).toEqual(['where: AlbumsFilter!', 'atMost: Int!']);
    expect(target(schema.getType('Albums') as GraphQLObjectType, 'artist').name).toBe('Artists');
  });

  it('still refuse a root <Base> that an enum already mints, naming both', () => {
    const clash = () =>
      new VersionTypes(
        definition(
          [api('albums', 'albums', null)],
          [
            {
              name: 'Albums',
              description: null,
              values: [{ value: 'A', label: null, color: null }],
            },
          ],
        ),
      );
    expect(clash).toThrow(DefinitionClash);
    expect(clash).toThrow(/Albums.*enum "Albums"/);
  });

  it('refuse a root <Base> that another API mints as its updateMany set input, naming both', () => {
    const clash = () =>
      new VersionTypes(
        definition([
          api('albums', 'albums', null, { select: true, update: true }),
          api('albumsSet', 'albums', null),
        ]),
      );
    expect(clash).toThrow(DefinitionClash);
    expect(clash).toThrow(/AlbumsSet/);
  });

  it('still refuse a root <Base> that another API mints as its filter, even of the same fields', () => {
    const clash = () =>
      new VersionTypes(
        definition([api('albums', 'albums', null), api('albumsFilter', 'albums', null)]),
      );
    expect(clash).toThrow(DefinitionClash);
    expect(clash).toThrow(/AlbumsFilter/);
  });

  it('still refuse two APIs of one name, even of the same fields', () => {
    const twice = api('albums', 'albums', null);
    const clash = () => new VersionTypes(definition([twice, { ...twice, id: 'api-albums-again' }]));
    expect(clash).toThrow(DefinitionClash);
    expect(clash).toThrow(/getAlbums/);
  });

  it('no longer clash with a nested type: an API may be named like the old nested names', () => {
    const schema = schemaOf(
      definition([
        api('artists', 'artists', { id: true, albums: { id: true } }),
        api('artists_albums', 'albums', null),
      ]),
    );
    expect(target(target(schema.getQueryType()!, 'getArtists'), 'albums').name).toBe('Albums');
    expect(target(schema.getQueryType()!, 'getArtists_albums').name).toBe('Artists_albums');
  });
});

describe('tableTypeName', () => {
  it.each([
    ['albums', 'Albums'],
    ['order_lines', 'Order_lines'],
    ['main_albums', 'Main_albums'],
    ['order lines', 'Order_lines'],
    ['café', 'Caf_'],
    ['2024_sales', 'T2024_sales'],
    ['__meta', 'T__meta'],
    ['_meta', '_meta'],
  ])('%s → %s', (name, typeName) => {
    expect(tableTypeName(name)).toBe(typeName);
  });
});

describe('shapes', () => {
  it('list the table, the sorted columns and the navigations with their shapes', () => {
    const [{ node }] = buildApiTrees(
      definition([
        api('artists', 'artists', { name: true, id: true, albums: { title: true, id: true } }),
      ]),
    );
    expect(node.navigations[0].node.shape).toBe('"albums"(id,title)');
    expect(node.shape).toBe('"artists"(id,name){albums:"albums"(id,title)}');
  });
});
