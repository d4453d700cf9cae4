import { GRAPHQL_NAME } from '../common/graphql-name';
import { requiredColumns } from '../data-model/model-graph';
import type { ModelTable, TableApiDefinition } from '../platform/version-definition';

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
