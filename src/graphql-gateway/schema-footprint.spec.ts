import {
  getIntrospectionQuery,
  graphqlSync,
  isInputObjectType,
  isObjectType,
  printSchema,
  validateSchema,
} from 'graphql';
import type { ColumnKind, ModelColumn } from '../datasources/core/dialect';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { modelColumn } from '../../test/support/model-column';
import { BUILDER, PUBLISHED } from './request/audience';
import { VersionTypes } from './schema-builder';
import { trimSchema } from './schema-footprint';

/**
 * Issue 25 item 4: a cached schema shares the empty parts graphql-js makes per field (an
 * `extensions` object each, an empty argument array each) and changes nothing a caller,
 * introspection or execution sees. The definition is real (customers, their orders, an enum).
 */

const col = (name: string, kind: ColumnKind, extra: Partial<ModelColumn> = {}) =>
  modelColumn(name, kind, extra);

function definition(): VersionDefinition {
  const table = (
    name: string,
    columns: ModelColumn[],
    foreignKeys: ModelTable['foreignKeys'],
  ): ModelTable => ({
    name,
    dbName: name,
    schema: null,
    datasourceId: 'ds1',
    active: true,
    columns,
    primaryKey: ['id'],
    foreignKeys,
  });
  const tables = [
    table(
      'customer',
      [
        col('id', 'int', { nullable: false }),
        col('name', 'text', { nullable: false }),
        col('tier', 'text', { enum: 'Tier' }),
      ],
      [],
    ),
    table(
      'orders',
      [
        col('id', 'int', { nullable: false }),
        col('customer_id', 'int'),
        col('total', 'float'),
        col('placed_at', 'timestamp'),
      ],
      [
        {
          columns: ['customer_id'],
          referencedSchema: null,
          referencedTable: 'customer',
          referencedColumns: ['id'],
        },
      ],
    ),
  ];
  const all = { select: true, insert: true, update: true, delete: true, aggregate: true };
  const apis = tables.map((t) => ({
    id: `api-${t.name}`,
    name: t.name,
    table: t.name,
    actions: all,
    public: all,
    fields: null,
    status: 'published' as const,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  }));
  const enums = [{ name: 'Tier', description: null, values: [{ value: 'gold', label: 'Gold' }] }];
  return { tables, enums, apis, permissions: {} } as unknown as VersionDefinition;
}

/** What a caller can learn of a schema: its SDL and its full introspection answer. */
function seen(schema: Parameters<typeof printSchema>[0]): string {
  const introspection = graphqlSync({ schema, source: getIntrospectionQuery() });
  expect(introspection.errors).toBeUndefined();
  return printSchema(schema) + JSON.stringify(introspection.data);
}

/** Every field's or argument's non-empty `extensions`, by `Type.field(.arg)`. */
function heldExtensions(schema: Parameters<typeof printSchema>[0]): Map<string, unknown> {
  const held = new Map<string, unknown>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const at = `${type.name}.${field.name}`;
      if (Object.keys(field.extensions).length) held.set(at, field.extensions);
      for (const arg of 'args' in field ? field.args : [])
        if (Object.keys(arg.extensions).length) held.set(`${at}.${arg.name}`, arg.extensions);
    }
  }
  return held;
}

describe('trimSchema', () => {
  it('shares one frozen empty extensions and argument list, and changes nothing a caller sees', () => {
    const types = new VersionTypes(definition());
    const { schema } = types.schemaFor(PUBLISHED);
    const before = seen(schema);
    const held = heldExtensions(schema);
    trimSchema(schema);
    expect(validateSchema(schema)).toEqual([]);
    expect(seen(schema)).toBe(before);

    const extensions = new Set<unknown>();
    const noArgs = new Set<unknown>();
    let kept = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (!isObjectType(type) && !isInputObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (Object.keys(field.extensions).length) kept++;
        else extensions.add(field.extensions);
        if ('args' in field && field.args.length === 0) noArgs.add(field.args);
      }
    }
    // Every empty one is the same object, frozen; the ones holding something keep it.
    expect(extensions.size).toBe(1);
    const [shared] = [...extensions] as Record<string, unknown>[];
    expect(Object.isFrozen(shared)).toBe(true);
    expect(() => {
      shared.x = 1;
    }).toThrow(TypeError);
    expect(noArgs.size).toBe(1);
    // What the cost check and the aggregates read (rowEstimate, aggregatePart…) stays.
    expect(kept).toBeGreaterThan(0);
    expect(heldExtensions(schema)).toEqual(held);
    const get = schema.getQueryType()?.getFields().getOrders;
    expect(get?.extensions).toEqual({ rowEstimate: { rows: null } });
  });

  it('leaves a second audience of the same types as it finds them, trimmed once', () => {
    const types = new VersionTypes(definition());
    const published = types.schemaFor(PUBLISHED).schema;
    trimSchema(published);
    const builder = types.schemaFor(BUILDER).schema;
    const before = seen(builder);
    trimSchema(builder);
    expect(seen(builder)).toBe(before);
    expect(builder.getType('Customer')).toBe(published.getType('Customer'));
    const row = builder.getType('Customer');
    expect(isObjectType(row) && Object.isFrozen(row.getFields().name.extensions)).toBe(true);
  });
});
