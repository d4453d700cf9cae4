import {
  execute,
  getNamedType,
  graphql,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLObjectType,
  GraphQLSchema,
  isEnumType,
  parse,
  validateSchema,
} from 'graphql';
import { ALL_ROWS } from '../datasources/core/dialect';
import type {
  CompiledQuery,
  ColumnKind,
  DatabaseEnum,
  ModelColumn,
  StatementResult,
} from '../datasources/core/dialect';
import type { DatasourceConnection } from '../datasources/datasource-pools.service';
import { PostgresDialect } from '../datasources/postgres/dialect';
import type {
  ModelEnum,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { enumValueNames, nameDatabaseEnums } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { coerceRequest } from './input-coercion';
import { BUILDER } from './request/audience';
import {
  columnDescription,
  databaseEnumType,
  databaseTypeText,
  rowDescription,
  VersionTypes,
} from './schema-builder';
import { outsideEnum } from './value-ranges';
import { planValues } from './write-planner';
import { modelColumn } from '../../test/support/model-column';

/**
 * Issue 11, item 4 (second part): database enum types become GraphQL enums (values that are not
 * GraphQL names mapped deterministically, the stored text as the internal value), and catalog
 * comments become descriptions next to each column's database type.
 */

const MOOD: DatabaseEnum = {
  name: 'mood',
  values: ['happy', 'sad', 'on hold', '1st', 'true', 'Happy', 'on_hold'],
};

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, extra);

function people(extra: Partial<ModelTable> = {}): ModelTable {
  return {
    name: 'people',
    dbName: 'people',
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns: [
      col('id', 'int', { nullable: false, generated: true, dbType: 'integer' }),
      col('mood', 'text', {
        dbType: 'USER-DEFINED',
        declaredType: 'mood',
        dbEnum: MOOD,
        comment: 'How they feel',
      }),
      col('email', 'text', {
        dbType: 'character varying',
        declaredType: 'character varying(200)',
        maxLength: 200,
        comment: "The customer's e-mail.",
      }),
    ],
    primaryKey: ['id'],
    foreignKeys: [],
    comment: 'Everyone we know.',
    ...extra,
  };
}

const none = { select: false, insert: false, update: false, delete: false };
const all = { select: true, insert: true, update: true, delete: true };

function api(name: string, table: string): TableApiDefinition {
  return {
    id: `api-${name}`,
    name,
    table,
    actions: all,
    public: none,
    fields: null,
    status: 'published',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

function definition(
  tables: ModelTable[],
  apis: TableApiDefinition[],
  enums: ModelEnum[] = [],
): VersionDefinition {
  return { tables, enums, apis, permissions: {} };
}

function schemaOf(def: VersionDefinition): GraphQLSchema {
  const { schema } = new VersionTypes(def).schemaFor(BUILDER);
  expect(validateSchema(schema)).toEqual([]);
  return schema;
}

describe('enumValueNames: database values → GraphQL enum value names', () => {
  it('keeps GraphQL names (case-sensitive), maps the rest deterministically', () => {
    expect(enumValueNames(MOOD.values)).toEqual([
      'happy',
      'sad',
      'on_hold_2',
      'V_1st',
      'V_true',
      'Happy',
      'on_hold',
    ]);
  });

  it.each([
    [['on hold'], ['on_hold']],
    [
      ['a-b', 'a b', 'a_b'],
      ['a_b_2', 'a_b_3', 'a_b'],
    ],
    [
      ['é', 'ü'],
      ['_', '__2'],
    ],
    [
      ['', 'null', 'false', '__typename', '42'],
      ['V_', 'V_null', 'V_false', 'V___typename', 'V_42'],
    ],
    [
      ['x_2', 'x-', 'x '],
      ['x_2', 'x_', 'x__2'],
    ],
    [['😀'], ['_']],
  ])('%j → %j', (values, names) => {
    expect(enumValueNames(values)).toEqual(names);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[_A-Za-z][_0-9A-Za-z]*$/);
  });

  it('is stable: the same values always give the same names', () => {
    expect(enumValueNames(MOOD.values)).toEqual(enumValueNames([...MOOD.values]));
  });

  it('builds a valid GraphQL enum whose internal values are the stored texts', () => {
    const type = databaseEnumType('Mood', MOOD);
    expect(type.getValues().map((v) => [v.name, v.value])).toEqual([
      ['happy', 'happy'],
      ['sad', 'sad'],
      ['on_hold_2', 'on hold'],
      ['V_1st', '1st'],
      ['V_true', 'true'],
      ['Happy', 'Happy'],
      ['on_hold', 'on_hold'],
    ]);
    expect(type.serialize('on hold')).toBe('on_hold_2');
    expect(type.parseValue('V_1st')).toBe('1st');
    expect(type.parseLiteral({ kind: 'EnumValue', value: 'V_true' } as never, undefined)).toBe(
      'true',
    );
    expect(type.getValue('on_hold_2')?.description).toBe('Database value: "on hold".');
    expect(type.getValue('happy')?.description).toBeUndefined();
    expect(type.description).toBe('Values of the database enum mood.');
  });
});

describe('naming database enum types', () => {
  it('names a PostgreSQL type after itself and a MySQL ENUM after its table and column', () => {
    const orders: ModelTable = {
      ...people({ name: 'orders', dbName: 'orders' }),
      columns: [
        col('id', 'int'),
        col('status', 'text', { dbEnum: { name: 'orders.status', values: ['new', 'paid'] } }),
      ],
    };
    const named = nameDatabaseEnums(definition([people(), orders], []));
    expect([...named.values()].map((n) => [n.typeName, n.filterName])).toEqual([
      ['Mood', 'MoodFilter'],
      ['Orders_status', 'Orders_statusFilter'],
    ]);
  });

  it('yields to API types, app enums and reserved names (`_2`), never clashing', () => {
    const def = definition(
      [people()],
      [api('people', 'people'), api('mood', 'people'), api('mood_2Filter', 'people')],
    );
    const named = nameDatabaseEnums(def, ['Query']);
    expect([...named.values()].map((n) => n.typeName)).toEqual(['Mood_3']);
    const schema = schemaOf(def);
    expect(schema.getType('Mood')).toBeInstanceOf(GraphQLObjectType);
    expect(schema.getType('Mood_3')).toBeInstanceOf(GraphQLEnumType);
    expect(schema.getType('Mood_3Filter')).toBeInstanceOf(GraphQLInputObjectType);
  });

  it('shares one type between columns of the same enum, and a nested row never takes its name', () => {
    const other: ModelTable = {
      ...people({ name: 'mood', dbName: 'mood' }),
      columns: [col('id', 'int'), col('feeling', 'text', { dbEnum: MOOD })],
      comment: undefined,
    };
    const withLink = people({
      columns: [...people().columns, col('mood_row_id', 'int')],
      foreignKeys: [
        {
          columns: ['mood_row_id'],
          referencedSchema: 'public',
          referencedTable: 'mood',
          referencedColumns: ['id'],
        },
      ],
    });
    const nested = {
      ...api('people', 'people'),
      fields: { id: true as const, mood: true as const, mood_row: { feeling: true as const } },
    };
    const def = definition([withLink, other], [nested, api('moods', 'mood')]);
    const schema = schemaOf(def);
    const typeOf = (row: string, field: string) =>
      getNamedType((schema.getType(row) as GraphQLObjectType).getFields()[field].type).name;
    expect(typeOf('People', 'mood')).toBe('Mood');
    expect(typeOf('Moods', 'feeling')).toBe('Mood');
    // The nested row of table `mood` would be `Mood`: the enum holds it, so it is `Mood_2`.
    expect(typeOf('People', 'mood_row')).toBe('Mood_2');
    expect(typeOf('Mood_2', 'feeling')).toBe('Mood');
  });

  it('leaves an enum without values, a key column and a column with an app enum alone', () => {
    const table = people({
      columns: [
        col('id', 'text', { nullable: false, dbEnum: { name: 'code', values: ['a', 'b'] } }),
        col('empty', 'text', { dbEnum: { name: 'empty_e', values: [] } }),
        col('mood', 'text', { dbEnum: MOOD, enum: 'Feeling' }),
        col('old_text', 'text'),
      ],
    });
    const feeling: ModelEnum = {
      name: 'Feeling',
      description: null,
      values: [
        { value: 'happy', label: null, color: null },
        { value: 'sad', label: null, color: null },
      ],
    };
    const schema = schemaOf(definition([table], [api('people', 'people')], [feeling]));
    const row = schema.getType('People') as GraphQLObjectType;
    const typeOf = (field: string) => getNamedType(row.getFields()[field].type).name;
    expect(typeOf('id')).toBe('ID');
    expect(typeOf('empty')).toBe('String');
    expect(typeOf('mood')).toBe('Feeling');
    expect(typeOf('old_text')).toBe('String');
    const filter = schema.getType('PeopleFilter') as GraphQLInputObjectType;
    expect(getNamedType(filter.getFields().mood.type).name).toBe('StringFilter');
    expect(schema.getType('Mood')).toBeUndefined();
  });
});

describe('the schema of a database enum column', () => {
  const schema = schemaOf(definition([people()], [api('people', 'people')]));

  it('is the enum in output, in add/update arguments and in its filter', () => {
    const row = schema.getType('People') as GraphQLObjectType;
    expect(getNamedType(row.getFields().mood.type).name).toBe('Mood');
    const mutation = schema.getMutationType()!.getFields();
    expect(getNamedType(mutation.addPeople.args.find((a) => a.name === 'mood')!.type).name).toBe(
      'Mood',
    );
    expect(getNamedType(mutation.updatePeople.args.find((a) => a.name === 'mood')!.type).name).toBe(
      'Mood',
    );
    const filter = schema.getType('PeopleFilter') as GraphQLInputObjectType;
    expect(getNamedType(filter.getFields().mood.type).name).toBe('MoodFilter');
    const ops = (schema.getType('MoodFilter') as GraphQLInputObjectType).getFields();
    expect(Object.keys(ops)).toEqual([
      'eq',
      'neq',
      'contains',
      'startsWith',
      'endsWith',
      'in',
      'nin',
    ]);
    expect(getNamedType(ops.eq.type).name).toBe('Mood');
    expect(getNamedType(ops.in.type).name).toBe('Mood');
    expect(getNamedType(ops.contains.type).name).toBe('String');
    const order = schema.getType('PeopleOrder') as GraphQLInputObjectType;
    expect(Object.keys(order.getFields())).toContain('mood');
  });

  it('describes the row by the table comment and every field by its comment and database type', () => {
    const row = schema.getType('People') as GraphQLObjectType;
    expect(row.description).toBe('Everyone we know.');
    const fields = row.getFields();
    expect(fields.id.description).toBe('Database type: integer.');
    expect(fields.mood.description).toBe('How they feel. Database type: mood.');
    expect(fields.email.description).toBe(
      "The customer's e-mail. Database type: character varying(200).",
    );
  });

  it('refuses a value outside the type in a literal and in a variable', async () => {
    const literal = await graphql({
      schema,
      source: 'mutation { updatePeople(id: 1, mood: angry) { id } }',
    });
    expect(literal.errors?.[0].message).toBe('Value "angry" does not exist in "Mood" enum.');
    const variable = await graphql({
      schema,
      source: 'mutation ($m: Mood) { updatePeople(id: 1, mood: $m) { id } }',
      variableValues: { m: 'on hold' },
    });
    expect(variable.errors?.[0].message).toContain('Value "on hold" does not exist in "Mood" enum');
  });
});

describe('descriptions', () => {
  it('uses the table name without a comment, and the type alone without one', () => {
    expect(rowDescription(people({ comment: undefined }))).toBe('A row of people.');
    expect(rowDescription(people({ comment: '  ' }))).toBe('A row of people.');
    expect(rowDescription(people({ comment: 'Who pays' }))).toBe('Who pays.');
    expect(columnDescription(col('n', 'int', { dbType: 'INTEGER' }))).toBe(
      'Database type: INTEGER.',
    );
  });

  it('names a MySQL ENUM `enum`, a PostgreSQL column by its full type, others by dbType', () => {
    const mysqlEnum = col('s', 'text', {
      dbType: "enum('new','paid')",
      dbEnum: { name: 'orders.s', values: ['new', 'paid'] },
    });
    expect(databaseTypeText(mysqlEnum)).toBe('enum');
    expect(databaseTypeText(col('v', 'text', { dbType: 'varchar(200)' }))).toBe('varchar(200)');
    expect(
      databaseTypeText(
        col('v', 'text', { dbType: 'character varying', declaredType: 'character varying(9)' }),
      ),
    ).toBe('character varying(9)');
  });

  it('cuts a very long comment at 1,000 characters', () => {
    const text = columnDescription(col('n', 'int', { dbType: 'int', comment: 'x'.repeat(5000) }));
    expect(text).toBe(`${'x'.repeat(1000)}… Database type: int.`);
  });
});

/** A context whose datasource answers every statement with `rows`, recording statements. */
function fakeContext(rows: Record<string, unknown>[]) {
  const statements: CompiledQuery[] = [];
  const run = (query: CompiledQuery): Promise<StatementResult> => {
    statements.push(query);
    return Promise.resolve({ rows, affected: 1 });
  };
  const connection: DatasourceConnection = {
    dialect: new PostgresDialect(),
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

describe('round trips through the schema', () => {
  const schema = schemaOf(definition([people()], [api('people', 'people')]));

  it('serializes stored texts to names and parses names (or stored texts) back to the text', async () => {
    const { ctx, statements } = fakeContext([{ id: 1, mood: 'on hold' }]);
    const read = await graphql({
      schema,
      contextValue: ctx,
      source: '{ getPeople(where: {mood: {in: [on_hold_2, V_1st], neq: null}}) { id mood } }',
    });
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({ getPeople: [{ id: '1', mood: 'on_hold_2' }] });
    expect(statements[0].params.slice(0, 2)).toEqual(['on hold', '1st']);

    const source = 'mutation ($m: Mood) { updatePeople(id: 1, mood: $m) { mood } }';
    const coerced = coerceRequest(schema, parse(source), { m: 'on hold' });
    expect(coerced.variables).toEqual({ m: 'on_hold_2' });
    const written = await graphql({
      schema,
      contextValue: ctx,
      source,
      variableValues: coerced.variables,
    });
    expect(written.errors).toBeUndefined();
    expect(statements[1].params).toContain('on hold');

    const quoted = coerceRequest(
      schema,
      parse('mutation { updatePeople(id: 1, mood: "1st") { mood } }'),
      undefined,
    );
    expect(quoted.changed).toBe(true);
    const literal = await execute({ schema, contextValue: ctx, document: quoted.document });
    expect(literal.errors).toBeUndefined();
    expect(statements[2].params).toContain('1st');
  });

  it('coerces a quoted stored text or name to the enum value, never a text outside it', () => {
    const names = (query: string) => {
      const { document } = coerceRequest(schema, parse(query), undefined);
      const values: string[] = [];
      JSON.stringify(document, (key, value: unknown) => {
        if (value && typeof value === 'object' && (value as { kind?: string }).kind === 'EnumValue')
          values.push((value as { value: string }).value);
        return value;
      });
      return values;
    };
    expect(names('{ getPeople(where: {mood: {eq: "on hold"}}) { id } }')).toEqual(['on_hold_2']);
    expect(names('{ getPeople(where: {mood: {eq: "on_hold"}}) { id } }')).toEqual(['on_hold']);
    expect(names('{ getPeople(where: {mood: {eq: "V_1st"}}) { id } }')).toEqual(['V_1st']);
    expect(names('{ getPeople(where: {mood: {eq: "angry"}}) { id } }')).toEqual([]);
    expect(isEnumType(schema.getType('Mood'))).toBe(true);
  });
});

describe('a value outside the database enum, through an app enum assigned to the column', () => {
  const column = col('mood', 'text', { dbEnum: MOOD, enum: 'Feeling' });

  it('is INVALID_VALUE naming the field before any SQL', () => {
    const node = { isKey: () => false } as never;
    expect(() => planValues(node, [column], { mood: 'angry' }, new PostgresDialect())).toThrow(
      expect.objectContaining({
        refusal: expect.objectContaining({ code: 'INVALID_VALUE', field: 'mood' }),
      }),
    );
    expect(planValues(node, [column], { mood: 'on hold' }, new PostgresDialect())).toEqual([
      { column: 'mood', value: 'on hold' },
    ]);
  });

  it('is compared as each database compares enum values', () => {
    expect(outsideEnum('postgres', column, 'HAPPY')).toBe(true);
    expect(outsideEnum('mysql', column, 'HAPPY')).toBe(false);
    expect(outsideEnum('mysql', column, 'angry')).toBe(true);
    expect(outsideEnum('postgres', column, null)).toBe(false);
    expect(outsideEnum('postgres', col('plain', 'text'), 'anything')).toBe(false);
  });
});
