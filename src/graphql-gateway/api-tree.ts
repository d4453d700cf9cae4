import { GRAPHQL_NAME } from '../common/graphql-name';
import { isIdColumn, Navigation, navigationsOf, requiredColumns } from '../data-model/model-graph';
import type { DatabaseEnum, ModelColumn } from '../datasources/core/dialect';
import type {
  FieldsTree,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';

/** One navigation field of a row type, and the row type it leads to. */
export interface NavigationNode {
  navigation: Navigation;
  node: RowNode;
}

/**
 * One row type of a Table API: the root `<Base>` or a nested type reached through navigation
 * fields. Carries everything resolvers and the planner need, computed once per schema.
 */
export interface RowNode {
  /**
   * GraphQL name of the node's row type; its filter and order inputs are `<typeName>Filter` and
   * `<typeName>Order`. Given by {@link nameRowTypes}, once per schema build:
   * - a root node: the API's `<Base>` (CONTRACT.md §6);
   * - a nested node: the name of the first node with the same {@link RowNode.shape} (a root
   *   node's `<Base>` before any nested one), else its table's name ({@link tableTypeName}:
   *   `albums` → `Albums`), suffixed `_2`, `_3`, … when another field set already holds it.
   *
   * Nodes of one shape thus share one GraphQL type, so `__typename` is the same wherever an entity
   * appears with those fields (a client's normalized cache, keyed by `__typename` and key, sees
   * `updateAlbums` refresh `getArtists { albums }`), and names stay as short as the table's.
   */
  typeName: string;
  /**
   * Canonical shape: the table, the included columns and, recursively, the navigations with
   * their shapes, each list sorted; e.g. `"albums"(id,title)` or
   * `"artists"(id,name){albums:"albums"(id,title)}` (the table name as a JSON string, since it
   * may hold any character; column and navigation names are GraphQL names). Two nodes with equal
   * shapes have identical row, filter and order types, and equivalent resolvers: everything the
   * schema builder and the resolvers read of a node (columns, navigations, key columns) follows
   * from its table and these names. Computed once, when the node is built.
   */
  readonly shape: string;
  table: ModelTable;
  /** Included columns, in table order. */
  columns: ModelColumn[];
  navigations: NavigationNode[];
  /** Whether a column is typed `ID` (a primary or foreign key of an `ID` kind: `isIdColumn`). */
  isKey(column: string): boolean;
  /**
   * Whether the node's one-to-many navigations get `<navigation>Aggregate` fields: its API's
   * `aggregate` action is on (README "Aggregates"). Part of the {@link shape} when the node has a
   * one-to-many navigation, so an API without the action never shares a type that has them.
   */
  aggregates: boolean;
}

/** A Table API and its row-type tree. */
export interface ApiTree {
  api: TableApiDefinition;
  node: RowNode;
}

/** `customers` → `Customers` (CONTRACT.md §6). */
export function baseName(apiName: string): string {
  return apiName.charAt(0).toUpperCase() + apiName.slice(1);
}

/**
 * The type name a nested row of `table` starts from: the model table name with its first letter
 * upper-cased (`albums` → `Albums`, `order_lines` → `Order_lines`). A model table name may hold
 * any character, so characters outside GraphQL names become `_`, and a name GraphQL would refuse
 * at the start (a digit, or `__`, reserved for introspection) gets a leading `T`.
 */
export function tableTypeName(table: string): string {
  const name = table.replace(/[^_0-9A-Za-z]/g, '_');
  return baseName(/^(\d|__)/.test(name) ? `T${name}` : name);
}

/**
 * The GraphQL names a row type mints: the row, its filter, its order input, its relation
 * filter (`<Row>Relation`, the `{some, none, every}` of a one-to-many filter key) and its count
 * order (`<Row>AggregateOrder`, the `{count}` of a one-to-many order key).
 */
export function rowTypeNames(typeName: string): [string, string, string, string, string] {
  return [
    typeName,
    `${typeName}Filter`,
    `${typeName}Order`,
    `${typeName}Relation`,
    `${typeName}AggregateOrder`,
  ];
}

function shapeOf(
  table: ModelTable,
  columns: ModelColumn[],
  navigations: NavigationNode[],
  aggregates: boolean,
): string {
  const names = columns.map((c) => c.name).sort();
  // Navigation names are unique on a table: sorted entries give one text for one set.
  const navs = navigations.map((n) => `${n.navigation.name}:${n.node.shape}`).sort();
  const counted = aggregates && navigations.some((n) => n.navigation.kind === 'oneToMany');
  return `${JSON.stringify(table.name)}(${names.join(',')})${navs.length ? `{${navs.join(',')}}` : ''}${counted ? '+aggregates' : ''}`;
}

function buildNode(
  def: VersionDefinition,
  table: ModelTable,
  tree: FieldsTree | null,
  forced: Set<string>,
  aggregates: boolean,
): RowNode {
  const included = (c: ModelColumn) => tree === null || tree[c.name] === true || forced.has(c.name);
  const columns = table.columns.filter((c) => GRAPHQL_NAME.test(c.name) && included(c));
  const navigations: NavigationNode[] = [];
  if (tree) {
    for (const navigation of navigationsOf(def.tables, table.name)) {
      const sub = tree[navigation.name];
      if (!sub || sub === true || !GRAPHQL_NAME.test(navigation.name)) continue;
      const target = def.tables.find((t) => t.name === navigation.to && t.active);
      if (!target) continue;
      navigations.push({ navigation, node: buildNode(def, target, sub, new Set(), aggregates) });
    }
  }
  // Decided once per schema: the planner asks for every filter and write value.
  const ids = new Set(table.columns.filter((c) => isIdColumn(table, c.name)).map((c) => c.name));
  return {
    // Given by nameRowTypes() once every tree of the schema is built.
    typeName: '',
    shape: shapeOf(table, columns, navigations, aggregates),
    table,
    columns,
    navigations,
    isKey: (c) => ids.has(c),
    aggregates,
  };
}

/** The tree of one API, its nodes not yet named. */
function unnamedTree(def: VersionDefinition, api: TableApiDefinition): RowNode | null {
  const table = def.tables.find((t) => t.name === api.table && t.active);
  if (!table) return null;
  const forced = new Set<string>(
    api.actions.insert || api.actions.update ? requiredColumns(table).map((c) => c.name) : [],
  );
  return buildNode(def, table, api.fields, forced, api.actions.aggregate === true);
}

/**
 * The first of `start`, `start_2`, `start_3`, … whose minted names (`mints(name)`: the name and
 * what is derived from it, e.g. its `Filter`) are all free in `taken`; claims them there. The one
 * rule for every generated name that must step aside (row types, database enums, enum values).
 */
export function claimFreeName(
  start: string,
  taken: Set<string>,
  mints: (name: string) => readonly string[] = (name) => [name],
): string {
  let name = start;
  for (let n = 2; mints(name).some((minted) => taken.has(minted)); n++) name = `${start}_${n}`;
  for (const minted of mints(name)) taken.add(minted);
  return name;
}

/**
 * Names the row types of a schema's trees (see {@link RowNode.typeName}). Root nodes first, in
 * the order given: each is its API's `<Base>`, and the first root of a shape lends its name to the
 * nested nodes of that shape. Then the nested nodes, tree after tree, depth first in navigation
 * order: a shape seen before reuses its name; a new one takes its table's name, or the first of
 * `<Table>_2`, `<Table>_3`, … whose row, filter and order names are all free. A name is free
 * when no root `<Base>`, `<Base>Filter` or `<Base>Order`, no name in `reserved` (enums, built-in
 * scalars, root types) and no earlier nested type mints it, so a nested name never clashes: only
 * a root `<Base>` can (a DefinitionClash, found by the schema builder). Deterministic: the same
 * definition always gives the same names.
 */
export function nameRowTypes(trees: ApiTree[], reserved: Iterable<string> = []): void {
  const byShape = new Map<string, string>();
  const taken = new Set<string>(reserved);
  for (const { api, node } of trees) {
    node.typeName = baseName(api.name);
    for (const name of rowTypeNames(node.typeName)) taken.add(name);
    if (!byShape.has(node.shape)) byShape.set(node.shape, node.typeName);
  }
  const visit = (node: RowNode) => {
    for (const { node: sub } of node.navigations) {
      let name = byShape.get(sub.shape);
      if (name === undefined) {
        name = claimFreeName(tableTypeName(sub.table.name), taken, rowTypeNames);
        byShape.set(sub.shape, name);
      }
      sub.typeName = name;
      visit(sub);
    }
  };
  for (const { node } of trees) visit(node);
}

/**
 * The row-type trees of every API of a version, in `def.apis` order, named together
 * ({@link nameRowTypes}; `reserved`: names the schema holds whatever the APIs). APIs whose table is
 * missing or inactive are left out.
 */
export function buildApiTrees(def: VersionDefinition, reserved: Iterable<string> = []): ApiTree[] {
  const trees: ApiTree[] = [];
  for (const api of def.apis) {
    const node = unnamedTree(def, api);
    if (node) trees.push({ api, node });
  }
  nameRowTypes(trees, reserved);
  return trees;
}

/**
 * The row-type tree of an API from its included-fields tree (CONTRACT.md §3): omitted fields mean
 * every column and no navigation; when insert or update is active, required columns are always
 * included. Returns null when the API's table is missing or inactive. Columns whose names are not
 * GraphQL names are left out (README "Names"). Its types are named as if it were the version's
 * only API; a schema names every API's tree together with {@link buildApiTrees}.
 */
export function buildApiTree(def: VersionDefinition, api: TableApiDefinition): RowNode | null {
  const node = unnamedTree(def, api);
  if (node) nameRowTypes([{ api, node }]);
  return node;
}

/** Words GraphQL does not allow as enum values (GraphQL spec §3.9 "Enums"). */
const NOT_ENUM_VALUES = new Set(['true', 'false', 'null']);

/**
 * Whether a database enum value can be its own GraphQL enum value name: a GraphQL name
 * (`[_A-Za-z][_0-9A-Za-z]*`), not `true`, `false` or `null`, not starting with `__` (reserved for
 * introspection, GraphQL spec §2.1.9).
 */
function isOwnName(value: string): boolean {
  return GRAPHQL_NAME.test(value) && !NOT_ENUM_VALUES.has(value) && !value.startsWith('__');
}

/**
 * The GraphQL enum value names of a database enum's values, position for position (README
 * "Enums", "Database enum types"). Deterministic, so a value always gets the same name:
 * 1. A value that is a GraphQL name (not `true`, `false`, `null`, not starting with `__`) is its
 *    own name: `happy` → `happy`, `Happy` → `Happy` (names are case-sensitive, so both exist).
 * 2. Any other value: every character outside `[_0-9A-Za-z]` becomes `_` (`on hold` → `on_hold`,
 *    `é` → `_`); then a result that is empty, starts with a digit or `__`, or is `true`, `false`
 *    or `null` gets `V_` in front (`1st` → `V_1st`, `true` → `V_true`, `` → `V_`).
 * 3. A name already taken, by a rule-1 value first and then by earlier values, gets `_2`, `_3`, …
 *    (the first free one): `on hold` next to `on_hold` → `on_hold_2`.
 * The GraphQL enum value's internal value is the stored text, so output shows the name of what the
 * database holds and input (a name, or the stored text, see `input-coercion.ts`) writes the text.
 */
export function enumValueNames(values: readonly string[]): string[] {
  const names: (string | undefined)[] = [];
  const taken = new Set<string>();
  for (const value of values) {
    const own = isOwnName(value) && !taken.has(value);
    if (own) taken.add(value);
    names.push(own ? value : undefined);
  }
  return values.map((value, i) => {
    const own = names[i];
    if (own !== undefined) return own;
    let base = [...value].map((ch) => (/^[_0-9A-Za-z]$/.test(ch) ? ch : '_')).join('');
    if (base === '' || /^(\d|__)/.test(base) || NOT_ENUM_VALUES.has(base)) base = `V_${base}`;
    return claimFreeName(base, taken);
  });
}

/** One key per database enum name and value list: columns of equal enums share one GraphQL enum. */
export function databaseEnumKey(dbEnum: DatabaseEnum): string {
  return JSON.stringify([dbEnum.name, dbEnum.values]);
}

/**
 * The database enum that types a column in GraphQL, or null: the column has one with at least
 * one value (GraphQL enums need a value), is not typed `ID` (a key, `isIdColumn`), and has no app
 * enum that exists in the version (`appEnums`): a builder's app enum wins.
 */
export function databaseEnumOf(
  table: ModelTable,
  column: ModelColumn,
  appEnums: { has(name: string): boolean },
): DatabaseEnum | null {
  const dbEnum = column.dbEnum;
  if (!dbEnum || !Array.isArray(dbEnum.values) || dbEnum.values.length === 0) return null;
  if (!dbEnum.values.every((v) => typeof v === 'string')) return null;
  if (column.enum && appEnums.has(column.enum)) return null;
  if (isIdColumn(table, column.name)) return null;
  return dbEnum;
}

/** A database enum and the GraphQL name of its enum type (see {@link nameDatabaseEnums}). */
export interface NamedDatabaseEnum {
  typeName: string;
  /** `<typeName>Filter`: its column operator input. */
  filterName: string;
  dbEnum: DatabaseEnum;
}

/**
 * Names the GraphQL enum types of a version's database enums (README "Enums"): every column of an
 * active table that {@link databaseEnumOf} types, named GraphQL names, in table and column order.
 * Equal enums ({@link databaseEnumKey}) share one type. A type is named after the database type,
 * as {@link tableTypeName} names tables (`mood` → `Mood`; a MySQL ENUM, named `<table>.<column>`,
 * → `Orders_status`), or the first of `<Name>_2`, `<Name>_3`, … whose name and `<Name>Filter`
 * are both free: not in `reserved` (app enums, built-in scalars, root types), not minted by any
 * API's `<Base>`, `<Base>Filter` or `<Base>Order`, and not taken by an earlier database enum. So a
 * database enum never clashes: it yields to every name a builder chose. Deterministic.
 * @returns the named enums by {@link databaseEnumKey}.
 */
export function nameDatabaseEnums(
  def: VersionDefinition,
  reserved: Iterable<string> = [],
): Map<string, NamedDatabaseEnum> {
  const taken = new Set<string>(reserved);
  for (const api of def.apis) for (const name of rowTypeNames(baseName(api.name))) taken.add(name);
  const appEnums = new Set(def.enums.map((e) => e.name));
  const named = new Map<string, NamedDatabaseEnum>();
  for (const table of def.tables) {
    if (!table.active) continue;
    for (const column of table.columns) {
      const dbEnum = GRAPHQL_NAME.test(column.name)
        ? databaseEnumOf(table, column, appEnums)
        : null;
      if (!dbEnum) continue;
      const key = databaseEnumKey(dbEnum);
      if (named.has(key)) continue;
      const typeName = claimFreeName(tableTypeName(String(dbEnum.name)), taken, (name) => [
        name,
        `${name}Filter`,
      ]);
      named.set(key, { typeName, filterName: `${typeName}Filter`, dbEnum });
    }
  }
  return named;
}
