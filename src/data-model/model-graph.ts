import type { ModelColumn } from '../datasources/core/dialect';
import type { ApiActions, ModelTable } from '../platform/version-definition';

/**
 * A navigation field between two model tables, derived from a single-column foreign key
 * (CONTRACT.md §6): many-to-one on the referencing table, one-to-many on the referenced one.
 */
export interface Navigation {
  /** GraphQL field name on `from`. */
  name: string;
  kind: 'manyToOne' | 'oneToMany';
  /** Model table the field is on. */
  from: string;
  /** Model table the field leads to. */
  to: string;
  /** Column of `from` that holds the key (many-to-one: the foreign key; one-to-many: the referenced key). */
  fromColumn: string;
  /** Column of `to` matched against `fromColumn`. */
  toColumn: string;
  /** The foreign-key column, for `_by_<fk column>` names on a clash. */
  fkColumn: string;
}

/** Whether model table `t` is the database table `schema.name` of datasource `datasourceId`. */
export const sameTable = (
  t: ModelTable,
  datasourceId: string,
  schema: string | null,
  name: string,
): boolean =>
  t.datasourceId === datasourceId && t.dbName === name && (t.schema ?? null) === (schema ?? null);

/** Many-to-one name: the foreign-key column without a trailing `_id`/`Id` (`customer_id` → `customer`). */
export function manyToOneName(fkColumn: string): string {
  const stripped = fkColumn.replace(/(_id|Id)$/, '');
  return stripped.length > 0 ? stripped : fkColumn;
}

/**
 * Every navigation field of `table` among the active tables of the model. Foreign keys of more
 * than one column give no navigation (README: "Relations"). A name that clashes with a column or
 * another navigation gets `_by_<fk column>` appended (CONTRACT.md §6).
 */
export function navigationsOf(tables: ModelTable[], tableName: string): Navigation[] {
  const table = tables.find((t) => t.name === tableName);
  if (!table) return [];
  const active = tables.filter((t) => t.active);
  const navs: Navigation[] = [];
  for (const fk of table.foreignKeys) {
    if (fk.columns.length !== 1) continue;
    const target = active.find((t) =>
      sameTable(t, table.datasourceId, fk.referencedSchema, fk.referencedTable),
    );
    if (!target) continue;
    navs.push({
      name: manyToOneName(fk.columns[0]),
      kind: 'manyToOne',
      from: table.name,
      to: target.name,
      fromColumn: fk.columns[0],
      toColumn: fk.referencedColumns[0],
      fkColumn: fk.columns[0],
    });
  }
  for (const other of active) {
    for (const fk of other.foreignKeys) {
      if (fk.columns.length !== 1) continue;
      if (!sameTable(table, other.datasourceId, fk.referencedSchema, fk.referencedTable)) continue;
      navs.push({
        name: other.name,
        kind: 'oneToMany',
        from: table.name,
        to: other.name,
        fromColumn: fk.referencedColumns[0],
        toColumn: fk.columns[0],
        fkColumn: fk.columns[0],
      });
    }
  }
  const columnNames = new Set(table.columns.map((c) => c.name));
  const counts = new Map<string, number>();
  for (const n of navs) counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
  for (const n of navs) {
    if (columnNames.has(n.name) || (counts.get(n.name) ?? 0) > 1)
      n.name = `${n.name}_by_${n.fkColumn}`;
  }
  return navs;
}

/** Whether an insert must carry the column: not null, no default, not generated (CONTRACT.md §3). */
export function isRequiredOnInsert(column: ModelColumn): boolean {
  return !column.nullable && !column.hasDefault && !column.generated;
}

/**
 * Columns an insert must carry ({@link isRequiredOnInsert}). They are included in a Table API
 * whenever insert or update is active.
 */
export function requiredColumns(table: ModelTable): ModelColumn[] {
  return table.columns.filter(isRequiredOnInsert);
}

/** Whether a column is a primary or foreign key. */
export function isKeyColumn(table: ModelTable, column: string): boolean {
  return (
    table.primaryKey.includes(column) || table.foreignKeys.some((fk) => fk.columns.includes(column))
  );
}

/** Key kinds `ID` carries without losing anything: whole numbers, UUIDs and text. */
const ID_KINDS = new Set(['int', 'bigint', 'uuid', 'text']);

/**
 * Whether a column is typed `ID` in GraphQL (CONTRACT.md §6): a primary or foreign key of a kind
 * `ID` represents (issue "every value it stores": keys of other kinds, e.g. a date in a
 * partitioned table's key, keep their own scalar and operators, so they can be range-filtered).
 */
export function isIdColumn(table: ModelTable, column: string): boolean {
  if (!isKeyColumn(table, column)) return false;
  const kind = table.columns.find((c) => c.name === column)?.kind;
  return kind === undefined || ID_KINDS.has(kind);
}

/**
 * The active actions of a Table API that write (insert, update, delete), in that order: what a
 * read-only model table (a view) refuses (CONTRACT.md §3).
 */
export function writeActions(actions: ApiActions): ('insert' | 'update' | 'delete')[] {
  return (['insert', 'update', 'delete'] as const).filter((a) => actions[a]);
}
