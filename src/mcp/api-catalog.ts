import {
  getNamedType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLObjectType,
  type GraphQLOutputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { baseName } from '../graphql-gateway/api-tree';
import type { BuiltSchema } from '../graphql-gateway/schema-builder';
import type { TableApiDefinition } from '../platform/version-definition';

/** A JSON Schema (2020-12) object, as MCP carries it in `inputSchema`/`outputSchema`. */
export type JsonSchema = Record<string, unknown>;

/** The Table API operations the MCP tools call, by the tool that calls them. */
export type ApiOperation = 'get' | 'count' | 'aggregate' | 'add' | 'update' | 'delete';

const OPERATIONS: readonly ApiOperation[] = [
  'get',
  'count',
  'aggregate',
  'add',
  'update',
  'delete',
];

/** One column of an API's row type, as `describe_apis` tells it and the tools check names. */
export interface ColumnEntry {
  name: string;
  /** The GraphQL type of the column in the row type (`String`, `ID!`, `[Int!]`). */
  type: string;
  nullable: boolean;
  /** Values of an enum column. */
  values?: string[];
  /** The `where` operators the column takes (`eq`, `contains`, …); none: not filterable. */
  operators: string[];
  /** Whether `order` may name it. */
  orderable: boolean;
  /** Its JSON Schema in answers (CONTRACT.md §6 Values: 64-bit and decimals as text, …). */
  schema: JsonSchema;
}

/** A navigation field of a row type: named in `describe_apis` and in `where`. */
export interface NavigationEntry {
  name: string;
  /** The related row type's name. */
  type: string;
  many: boolean;
  /** The related row type's columns (what `get_rows`' `include` may read), with their schemas. */
  fields: Record<string, JsonSchema>;
}

/** The columns of a row type (its fields that are no navigation), with their JSON Schemas. */
function columnsOf(type: GraphQLObjectType): Record<string, JsonSchema> {
  const columns: Record<string, JsonSchema> = {};
  for (const field of Object.values(type.getFields())) {
    if (!isObjectType(getNamedType(field.type))) columns[field.name] = outputJsonSchema(field.type);
  }
  return columns;
}

/**
 * A navigation's JSON Schema in a row read with `include`: its columns (any subset), a list for
 * one-to-many, an object or null for many-to-one.
 */
function navigationSchema(nav: NavigationEntry): JsonSchema {
  const row = { type: 'object', properties: nav.fields, additionalProperties: false };
  return nav.many ? { type: 'array', items: row } : { anyOf: [row, { type: 'null' }] };
}

/** One Table API the caller's schema holds, as the MCP tools see it. */
export interface ApiEntry {
  /** The API's name: the `api` argument of every tool. */
  name: string;
  id: string;
  description: string | null;
  rowType: GraphQLObjectType;
  columns: ColumnEntry[];
  navigations: NavigationEntry[];
  /** The operations of the API in the caller's schema (its scope, published, action switches). */
  operations: Partial<Record<ApiOperation, GraphQLField<unknown, unknown>>>;
  /** Primary key columns (the arguments of `delete<Base>`, or the required ones of `update<Base>`). */
  key: string[];
  /** The row's JSON Schema in answers. */
  rowSchema: JsonSchema;
}

/** The APIs a caller's schema holds, by name, in the definition's order. */
export type ApiCatalog = ReadonlyMap<string, ApiEntry>;

/** The named GraphQL type a field or argument type ends at, with the wrappers printed. */
function typeText(type: GraphQLInputType | GraphQLOutputType): string {
  return String(type);
}

/**
 * The JSON Schema of a value of an output type, by the scalar's wire form (`scalars.ts`): `Int` an
 * integer, `Float` a number, `Boolean` a boolean, `JSON` any value, enums their names, every other
 * scalar (`ID`, `String`, `BigInt`, `Decimal`, dates, `Base64`, …) text; lists arrays. Nullable
 * types also admit `null`.
 */
export function outputJsonSchema(type: GraphQLOutputType): JsonSchema {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) {
    schema = { type: 'array', items: outputJsonSchema(inner.ofType as GraphQLOutputType) };
  } else if (isEnumType(inner)) {
    schema = { type: 'string', enum: inner.getValues().map((v) => v.name) };
  } else if (isScalarType(inner)) {
    switch (inner.name) {
      case 'Int':
        schema = { type: 'integer' };
        break;
      case 'Float':
        schema = { type: 'number' };
        break;
      case 'Boolean':
        schema = { type: 'boolean' };
        break;
      case 'JSON':
        return {};
      default:
        schema = { type: 'string' };
    }
  } else {
    schema = { type: 'object' };
  }
  if (!nullable) return schema;
  if (typeof schema.type === 'string') {
    const withNull: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    // An enum lists null among its values for a nullable column.
    if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
    return withNull;
  }
  return schema;
}

/** The operators one filter key takes (`<Type>Filter`'s field type: `StringFilter`, …). */
function operatorsOf(filter: GraphQLInputObjectType | undefined, column: string): string[] {
  const field = filter?.getFields()[column];
  if (!field) return [];
  const type = getNamedType(field.type);
  return isInputObjectType(type) ? Object.keys(type.getFields()) : [];
}

/** The list element's object type of `get<Base>` (`[<Base>!]!`). */
function rowTypeOf(get: GraphQLField<unknown, unknown>): GraphQLObjectType | null {
  const named = getNamedType(get.type);
  return isObjectType(named) ? named : null;
}

/** One API's entry, or null when the caller cannot read it (no `get<Base>` in its schema). */
function entryOf(
  api: Pick<TableApiDefinition, 'id' | 'name'>,
  built: BuiltSchema,
): ApiEntry | null {
  const base = baseName(api.name);
  const query = built.schema.getQueryType()?.getFields() ?? {};
  const mutation = built.schema.getMutationType()?.getFields() ?? {};
  const operations: ApiEntry['operations'] = {};
  for (const op of OPERATIONS) {
    const name = `${op}${base}`;
    const field = (op === 'add' || op === 'update' || op === 'delete' ? mutation : query)[name];
    // The field must be the API's own (a root field of another API cannot share the name).
    if (field && built.rootFields.get(name)?.apiId === api.id) {
      operations[op] = field as GraphQLField<unknown, unknown>;
    }
  }
  const rowType = operations.get ? rowTypeOf(operations.get) : null;
  if (!rowType) return null;
  const whereArg = operations.get!.args.find((a) => a.name === 'where');
  const filter = whereArg ? getNamedType(whereArg.type) : undefined;
  const orderArg = operations.get!.args.find((a) => a.name === 'order');
  const order = orderArg ? getNamedType(orderArg.type) : undefined;
  const orderFields = order && isInputObjectType(order) ? order.getFields() : {};
  const columns: ColumnEntry[] = [];
  const navigations: NavigationEntry[] = [];
  for (const field of Object.values(rowType.getFields())) {
    const named = getNamedType(field.type);
    if (isObjectType(named)) {
      const inner = isNonNullType(field.type) ? field.type.ofType : field.type;
      navigations.push({
        name: field.name,
        type: named.name,
        many: isListType(inner),
        fields: columnsOf(named),
      });
      continue;
    }
    const column: ColumnEntry = {
      name: field.name,
      type: typeText(field.type),
      nullable: !isNonNullType(field.type),
      operators: operatorsOf(filter && isInputObjectType(filter) ? filter : undefined, field.name),
      orderable:
        field.name in orderFields && !isInputObjectType(getNamedType(orderFields[field.name].type)),
      schema: outputJsonSchema(field.type),
    };
    if (isEnumType(named)) column.values = named.getValues().map((v) => v.name);
    columns.push(column);
  }
  const key = operations.delete
    ? operations.delete.args.map((a) => a.name)
    : (operations.update?.args.filter((a) => isNonNullType(a.type)).map((a) => a.name) ?? []);
  const properties: Record<string, JsonSchema> = {};
  for (const c of columns) properties[c.name] = c.schema;
  for (const nav of navigations) properties[nav.name] = navigationSchema(nav);
  return {
    name: api.name,
    id: api.id,
    description: rowType.description ?? null,
    rowType,
    columns,
    navigations,
    operations,
    key,
    rowSchema: { type: 'object', title: api.name, properties, additionalProperties: false },
  };
}

/**
 * The Table APIs of a caller's schema (its audience: for a key, the published APIs in its scope),
 * in the definition's order, each with what the tools need: its operations in that schema, its
 * columns (type, operators, order), navigations, key and row JSON Schema. Read from the schema
 * itself, so the MCP tools see exactly what GraphQL serves that caller.
 */
export function catalogOf(
  built: BuiltSchema,
  apis: readonly Pick<TableApiDefinition, 'id' | 'name'>[],
): ApiCatalog {
  const catalog = new Map<string, ApiEntry>();
  for (const api of apis) {
    const entry = entryOf(api, built);
    if (entry) catalog.set(entry.name, entry);
  }
  return catalog;
}
