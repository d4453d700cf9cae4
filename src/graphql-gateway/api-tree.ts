import { GRAPHQL_NAME } from '../common/graphql-name';
import { isIdColumn, Navigation, navigationsOf, requiredColumns } from '../data-model/model-graph';
import type { ModelColumn } from '../datasources/dialect';
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
  /** GraphQL type name: `<Base>`, nested `<Base>_<nav>_<nav>…`. */
  typeName: string;
  table: ModelTable;
  /** Included columns, in table order. */
  columns: ModelColumn[];
  navigations: NavigationNode[];
  /** Whether a column is typed `ID` (a primary or foreign key of an `ID` kind: `isIdColumn`). */
  isKey(column: string): boolean;
}

/** `customers` → `Customers` (CONTRACT.md §6). */
export function baseName(apiName: string): string {
  return apiName.charAt(0).toUpperCase() + apiName.slice(1);
}

function buildNode(
  def: VersionDefinition,
  table: ModelTable,
  tree: FieldsTree | null,
  typeName: string,
  forced: Set<string>,
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
      navigations.push({
        navigation,
        node: buildNode(def, target, sub, `${typeName}_${navigation.name}`, new Set()),
      });
    }
  }
  // Decided once per schema: the planner asks for every filter and write value.
  const ids = new Set(table.columns.filter((c) => isIdColumn(table, c.name)).map((c) => c.name));
  return { typeName, table, columns, navigations, isKey: (c) => ids.has(c) };
}

/**
 * The row-type tree of an API from its included-fields tree (CONTRACT.md §3): omitted fields mean
 * every column and no navigation; when insert or update is active, required columns are always
 * included. Returns null when the API's table is missing or inactive. Columns whose names are not
 * GraphQL names are left out (README "Names").
 */
export function buildApiTree(def: VersionDefinition, api: TableApiDefinition): RowNode | null {
  const table = def.tables.find((t) => t.name === api.table && t.active);
  if (!table) return null;
  const forced = new Set<string>(
    api.actions.insert || api.actions.update ? requiredColumns(table).map((c) => c.name) : [],
  );
  return buildNode(def, table, api.fields, baseName(api.name), forced);
}
