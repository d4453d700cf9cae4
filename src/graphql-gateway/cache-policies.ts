import { getNamedType, GraphQLObjectType, isAbstractType, isObjectType } from 'graphql';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { navigationAggregateName } from './operations/navigation-aggregate';
import { buildApiTrees, claimFreeName, RowNode, tableTypeName } from './api-tree';
import type { BuiltSchema } from './schema-builder';

/**
 * A schema's client-cache configuration, served by `GET /api/graphql/:address/cache-policies`
 * (README "Calling it from an integration", issue 21 item 3). `possibleTypes` and `typePolicies`
 * are Apollo Client's own shapes (`InMemoryCacheConfig`); `entities` is what a client adds so
 * that every row type of one table gets one cache identity. For the demo:
 * `{"possibleTypes":{"Customers":["Customers_2"],"Customers_2":["Customers"],…},
 *   "typePolicies":{"Customers":{"keyFields":["id"]},"Customers_2":{"keyFields":["id"]},…},
 *   "entities":{"Customers":"Customers","Customers_2":"Customers",…}}`.
 */
export interface CachePolicies {
  /**
   * Each abstract type's object types (none today), and each identified row type (one listed in
   * `entities`) → the other identified row types of its table. Rows of one table share one cache
   * object, whose stored `__typename` is the last one written: a fragment on `Customers_2` must
   * still match the object after a mutation wrote it as `Customers` (Apollo's
   * `policies.fragmentMatches` reads `possibleTypes`; without it the fragment's fields are left
   * out of the cached answer, silently).
   */
  possibleTypes: Record<string, string[]>;
  /**
   * Every row type of the schema: `{ keyFields: [<primary key columns>] }` (the table's
   * `primaryKey`, as the type's field names: a column field is named as its column) when the
   * table has a primary key and all of its columns are fields of the type; else
   * `{ keyFields: false }`, so that Apollo does not identify the row by a column merely named
   * `id` (a view, or a field set without the key). Passed as they are, they identify a row per
   * type name (`Customers_2:{"id":"6"}`).
   */
  typePolicies: Record<string, { keyFields: string[] | false }>;
  /**
   * The entity of each row type with key fields: one name per table, shared by all its row types,
   * for cache ids `<entity>:<JSON of the key fields>` (Apollo's own id format, e.g.
   * `Customers:{"id":"6"}` for both `Customers` and `Customers_2`). Named by
   * {@link entityNames}.
   */
  entities: Record<string, string>;
}

/**
 * One name per active table of a definition, distinct from each other: the table's type name
 * (`tableTypeName`: `customers` → `Customers`, `album` → `Album`), or the first free of
 * `<Name>_2`, `<Name>_3`, … for a later table whose name gives the same one (`order-lines` after
 * `order_lines`), in table order (`claimFreeName`). It does not depend on the caller's view, so
 * every audience of a version names a table alike.
 * @returns entity name by model table name.
 */
export function entityNames(def: VersionDefinition): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const table of def.tables) {
    if (table.active) names.set(table.name, claimFreeName(tableTypeName(table.name), taken));
  }
  return names;
}

/** A row type reached from the caller's root fields, and the table of its rows. */
interface RowType {
  type: GraphQLObjectType;
  table: ModelTable;
}

/**
 * The row types of a schema and their tables, found by walking each API's row-type tree
 * (`buildApiTrees`, the trees the schema builder names and builds its row types from) in step
 * with the schema: a root field of the API (by `rootFields`) gives the root row type, a
 * navigation field of a row type the nested one. `consistent` is false when a type's fields are
 * not its node's columns and navigations (the definition read is not the one the schema was
 * built from: it changed in between); such a type and what lies below it are left out.
 */
function rowTypesOf(
  built: Pick<BuiltSchema, 'schema' | 'rootFields'>,
  def: VersionDefinition,
): { rows: Map<string, RowType>; consistent: boolean } {
  const { schema, rootFields } = built;
  const rows = new Map<string, RowType>();
  let consistent = true;
  const visit = (node: RowNode, type: GraphQLObjectType) => {
    const known = rows.get(type.name);
    if (known) {
      consistent &&= known.table === node.table;
      return;
    }
    const expected = [
      ...new Set([
        ...node.columns.map((c) => c.name),
        ...node.navigations.map((n) => n.navigation.name),
        // `<navigation>Aggregate` of an API with the aggregate action (README "Aggregates").
        ...node.navigations
          .filter((n) => node.aggregates && n.navigation.kind === 'oneToMany')
          .map((n) => navigationAggregateName(n.navigation.name)),
      ]),
    ];
    const fields = type.getFields();
    if (expected.length !== Object.keys(fields).length || !expected.every((f) => f in fields)) {
      consistent = false;
      return;
    }
    rows.set(type.name, { type, table: node.table });
    for (const { navigation, node: sub } of node.navigations) {
      const target = getNamedType(fields[navigation.name].type);
      if (isObjectType(target)) visit(sub, target);
      else consistent = false;
    }
  };
  const trees = new Map(buildApiTrees(def).map(({ api, node }) => [api.id, node]));
  const roots = {
    ...schema.getQueryType()?.getFields(),
    ...schema.getMutationType()?.getFields(),
    ...schema.getSubscriptionType()?.getFields(),
  };
  for (const [name, { apiId }] of rootFields) {
    const node = trees.get(apiId);
    const field = roots[name];
    if (!node || !field) {
      consistent = false;
      continue;
    }
    // `count…` and `delete…` answer scalars, as does `add…` where rows cannot come back; an
    // aggregate answers groups (no row type); `addMany…` a result whose `rows` are rows;
    // `upsert…` a `{status, row}` and `upsertMany…` a result whose `rows` are those.
    let type = getNamedType(field.type);
    const rowsOf = isObjectType(type) ? type.getFields().rows : undefined;
    if (isObjectType(type) && type.name !== node.typeName && rowsOf)
      type = getNamedType(rowsOf.type);
    const rowOf = isObjectType(type) ? type.getFields().row : undefined;
    if (isObjectType(type) && type.name !== node.typeName && rowOf) type = getNamedType(rowOf.type);
    // `on<Base>Changed` answers a `<Base>Change` whose `old` and `new` are rows.
    const newOf = isObjectType(type) ? type.getFields().new : undefined;
    if (isObjectType(type) && type.name !== node.typeName && newOf) type = getNamedType(newOf.type);
    if (isObjectType(type) && type.name === node.typeName) visit(node, type);
  }
  return { rows, consistent };
}

/** A map with its keys sorted, as a plain object (one JSON text for one content). */
function sortedObject<V>(entries: Iterable<[string, V]>): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The client-cache configuration of a built schema (see {@link CachePolicies}): its row types
 * are those reachable from its root fields, so each caller learns only the types of its own view.
 * `def` must be the definition the schema was built from; `consistent` is false when it is not
 * (see {@link rowTypesOf}), and the policies then leave out the types that did not match.
 */
export function cachePoliciesOf(
  built: Pick<BuiltSchema, 'schema' | 'rootFields'>,
  def: VersionDefinition,
): { policies: CachePolicies; consistent: boolean } {
  const { rows, consistent } = rowTypesOf(built, def);
  const entityOf = entityNames(def);
  const typePolicies: [string, { keyFields: string[] | false }][] = [];
  const entities: [string, string][] = [];
  const byTable = new Map<string, string[]>();
  for (const [name, { type, table }] of rows) {
    const fields = type.getFields();
    const key = table.primaryKey;
    const entity = entityOf.get(table.name);
    if (key.length === 0 || !key.every((column) => column in fields) || !entity) {
      typePolicies.push([name, { keyFields: false }]);
      continue;
    }
    typePolicies.push([name, { keyFields: [...key] }]);
    entities.push([name, entity]);
    byTable.set(table.name, [...(byTable.get(table.name) ?? []), name]);
  }
  const possibleTypes: [string, string[]][] = [];
  for (const type of Object.values(built.schema.getTypeMap())) {
    if (isAbstractType(type) && !type.name.startsWith('__')) {
      possibleTypes.push([type.name, built.schema.getPossibleTypes(type).map((t) => t.name)]);
    }
  }
  for (const names of byTable.values()) {
    if (names.length < 2) continue;
    for (const name of names) possibleTypes.push([name, names.filter((n) => n !== name).sort()]);
  }
  return {
    policies: {
      possibleTypes: sortedObject(possibleTypes),
      typePolicies: sortedObject(typePolicies),
      entities: sortedObject(entities),
    },
    consistent,
  };
}

/** Answers by schema: an entry lives as long as its cached schema (`SchemaProviderService`). */
const bodies = new WeakMap<object, Promise<string>>();

/**
 * The JSON text of {@link cachePoliciesOf} for a cached schema, computed once per schema (kept
 * while the schema object lives) from the definition `definition()` reads. An answer computed
 * from a definition that no longer matches the schema (`consistent` false) is served once and
 * computed again on the next request.
 * @throws what `definition()` throws (nothing is kept then).
 */
export function cachePoliciesBody(
  built: Pick<BuiltSchema, 'schema' | 'rootFields'>,
  definition: () => Promise<VersionDefinition>,
): Promise<string> {
  let body = bodies.get(built);
  if (!body) {
    body = definition().then((def) => {
      const { policies, consistent } = cachePoliciesOf(built, def);
      if (!consistent) bodies.delete(built);
      return JSON.stringify(policies);
    });
    body.catch(() => bodies.delete(built));
    bodies.set(built, body);
  }
  return body;
}
