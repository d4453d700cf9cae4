import type { ModelColumn } from '../datasources/core/dialect';
import { arrayElement, effectiveKind } from '../datasources/core/dialect';
import { databaseEnumKey, databaseEnumOf, nameDatabaseEnums } from '../graphql-gateway/api-tree';
import { scalarOf, SHARED_TYPE_NAMES } from '../graphql-gateway/scalars';
import { BUILT_IN_NAMES } from '../graphql-gateway/schema-builder';
import type { ModelTable, VersionDefinition } from '../platform/version-definition';
import { isIdColumn } from './model-graph';

/**
 * The GraphQL type names a version gives its columns, for the data model page (issue 27 item 3):
 * the same choice `TypeFactory.column()` makes in the schema builder, read from the definition
 * alone. Built once per definition, so the database enums are named once.
 */
export class GraphqlTypeNames {
  private readonly appEnums: Set<string>;
  private readonly dbEnumNames: Map<string, string>;

  constructor(def: VersionDefinition) {
    this.appEnums = new Set(def.enums.map((e) => e.name));
    const reserved = [...BUILT_IN_NAMES, ...SHARED_TYPE_NAMES, ...this.appEnums];
    this.dbEnumNames = new Map(
      [...nameDatabaseEnums(def, reserved)].map(([key, named]) => [key, named.typeName]),
    );
  }

  /**
   * The named type of a column in output and in `add`/`update` arguments, without list or
   * non-null marks other than an array's brackets: `ID` for a key column (`isIdColumn`), the app
   * enum assigned to it while that enum exists, the GraphQL enum of its database enum type
   * (named only for columns of active tables, as the schema holds only those), `[Element]` for a
   * PostgreSQL array column, else the scalar of its kind (`scalarOf`), e.g. `Int`, `DateTime`.
   */
  of(table: ModelTable, column: ModelColumn): string {
    if (isIdColumn(table, column.name)) return 'ID';
    if (column.enum && this.appEnums.has(column.enum)) return column.enum;
    const element = arrayElement(column);
    if (element) return `[${scalarOf(element.kind).name}]`;
    const dbEnum = databaseEnumOf(table, column, this.appEnums);
    const dbEnumName = dbEnum && this.dbEnumNames.get(databaseEnumKey(dbEnum));
    return dbEnumName || scalarOf(effectiveKind(column)).name;
  }
}
