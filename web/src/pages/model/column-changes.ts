import type { FullModelTable, ModelColumn } from './model-types';

/** What a refresh changed in one model table's columns. */
export interface TableChanges {
  table: string;
  /** True when the table was not in the model before. */
  added: boolean;
  newColumns: string[];
  droppedColumns: string[];
  /** Columns whose database type changed, with the type before and after. */
  typeChanges: { column: string; before: string; after: string }[];
}

/** The type of a column as the database prints it in full. */
export const databaseType = (c: ModelColumn): string => c.declaredType ?? c.dbType;

/**
 * What changed between the model tables before an import (`before`, by model name) and the
 * tables it answered (`after`): tables new to the model, and for the others the columns that
 * appeared, went, or changed database type. Tables without a change are left out.
 */
export function changesOf(
  before: Map<string, FullModelTable>,
  after: FullModelTable[],
): TableChanges[] {
  const changes: TableChanges[] = [];
  for (const table of after) {
    const old = before.get(table.name);
    if (!old) {
      changes.push({
        table: table.name,
        added: true,
        newColumns: [],
        droppedColumns: [],
        typeChanges: [],
      });
      continue;
    }
    const oldColumns = new Map(old.fields.map((c) => [c.name, c]));
    const newColumns = new Map(table.fields.map((c) => [c.name, c]));
    const change: TableChanges = {
      table: table.name,
      added: false,
      newColumns: table.fields.filter((c) => !oldColumns.has(c.name)).map((c) => c.name),
      droppedColumns: old.fields.filter((c) => !newColumns.has(c.name)).map((c) => c.name),
      typeChanges: table.fields.flatMap((c) => {
        const was = oldColumns.get(c.name);
        return was && databaseType(was) !== databaseType(c)
          ? [{ column: c.name, before: databaseType(was), after: databaseType(c) }]
          : [];
      }),
    };
    if (change.newColumns.length || change.droppedColumns.length || change.typeChanges.length)
      changes.push(change);
  }
  return changes;
}
