import { GRAPHQL_NAME } from '../common/graphql-name';
import { requiredColumns } from '../data-model/model-graph';
import type { ColumnKind } from '../datasources/core/dialect';
import type {
  ModelTable,
  SqlApiDefinition,
  TableApiDefinition,
} from '../platform/version-definition';
import { implicitUserValue } from '../sql-apis/sql-api-rules';

/** `<Base>` of a Table API: its name with the first letter upper-cased (CONTRACT.md §6). */
export function baseNameOf(apiName: string): string {
  return apiName.charAt(0).toUpperCase() + apiName.slice(1);
}

/**
 * The columns of the API's row type, in the table's column order: the included columns (every
 * column when `fields` is null), plus the required ones while insert or update is on (CONTRACT.md
 * §3), leaving out names that are not GraphQL names (README "Names").
 */
export function rowColumnsOf(api: TableApiDefinition, table: ModelTable): string[] {
  const included = new Set(
    api.fields === null
      ? table.columns.map((c) => c.name)
      : Object.entries(api.fields)
          .filter(([, value]) => value === true)
          .map(([name]) => name),
  );
  if (api.actions.insert || api.actions.update)
    for (const column of requiredColumns(table)) included.add(column.name);
  return table.columns
    .map((c) => c.name)
    .filter((name) => included.has(name) && GRAPHQL_NAME.test(name));
}

/**
 * The query the GraphiQL test tab opens with (CONTRACT.md §10): `get<Base>(take: 10)` with the
 * API's columns, or a comment saying where its operations are when it has no select action or
 * its table left the model.
 */
export function starterQuery(api: TableApiDefinition, table: ModelTable | undefined): string {
  const base = baseNameOf(api.name);
  if (!table)
    return `# The table "${api.table}" of this API is no longer in the model.\n# Import it again, then reload this tab.\n`;
  if (!api.actions.select)
    return `# ${api.name} has no select action: its operations (add${base}, update${base}, delete${base})\n# are listed in the documentation explorer.\n`;
  const columns = rowColumnsOf(api, table);
  const selection = (columns.length ? columns : ['__typename']).map((c) => `    ${c}`).join('\n');
  return `{\n  get${base}(take: 10) {\n${selection}\n  }\n}\n`;
}

/** A placeholder value for an SQL API argument of this kind, which the builder replaces. */
function placeholderOf(kind: ColumnKind | null): string {
  if (kind === 'int' || kind === 'float') return '0';
  if (kind === 'boolean') return 'false';
  // Every other kind (and an enum, which takes its stored value quoted) is written as a string.
  return '""';
}

/**
 * The query the GraphiQL test tab opens with for an SQL API (README "SQL APIs"):
 * `<name>(args…, take: 10) { columns }` for a query kind, `mutation { <name>(args…) { affected
 * rows { columns } } }` for a mutation kind; arguments get placeholder values to replace, the
 * implicit `:user_…` parameters none (they are not GraphQL arguments), and columns whose names are
 * not GraphQL names are left out.
 */
export function sqlStarterQuery(api: SqlApiDefinition): string {
  const args = api.arguments
    .filter((a) => implicitUserValue(a.name) === null)
    .map((a) => `${a.name}: ${placeholderOf(a.type)}`);
  const columns = api.columns.map((c) => c.name).filter((name) => GRAPHQL_NAME.test(name));
  const hint = args.length ? '# Replace the placeholder values of the arguments.\n' : '';
  if (api.kind === 'query') {
    const list = [...args, 'take: 10'].join(', ');
    const selection = (columns.length ? columns : ['__typename']).map((c) => `    ${c}`);
    return `${hint}{\n  ${api.name}(${list}) {\n${selection.join('\n')}\n  }\n}\n`;
  }
  const list = args.length ? `(${args.join(', ')})` : '';
  const rows = columns.length
    ? `\n    rows {\n${columns.map((c) => `      ${c}`).join('\n')}\n    }`
    : '';
  return `${hint}mutation {\n  ${api.name}${list} {\n    affected${rows}\n  }\n}\n`;
}
