import { sameTable } from '../data-model/model-graph';
import { arrayElement } from '../datasources/core/dialect';
import type { ColumnValue, Condition, Dialect, ModelColumn } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import type { RowNode } from './api-tree';
import { DatabaseRefusalError } from './graphql-errors';
import { columnValue, comparison } from './query-planner';
import {
  decimalOverflows,
  decimalShape,
  describeRange,
  DURATION_RANGE,
  impossibleDateTime,
  integerRange,
  isUuidText,
  outsideEnum,
  outsideRange,
} from './value-ranges';

/**
 * Columns `add<Base>`/`update<Base>` take as arguments: the row type's columns that can be
 * written (computed columns, which refuse a value, never are: generated columns, PostgreSQL
 * `GENERATED ALWAYS AS IDENTITY`), plus, for `update`, the primary key, which addresses the row
 * whether or not it can be written.
 */
export function writableColumns(node: RowNode, operation: 'insert' | 'update'): ModelColumn[] {
  const key = new Set(node.table.primaryKey);
  return node.table.columns.filter(
    (c) => (operation === 'update' && key.has(c.name)) || (!c.computed && node.columns.includes(c)),
  );
}

/**
 * Refuses a text longer than its column allows before any SQL runs, so the field is named on
 * every database (PostgreSQL does not name it; SQLite does not check lengths at all).
 * @throws DatabaseRefusalError VALUE_TOO_LONG.
 */
function checkLength(column: ModelColumn, value: unknown): void {
  if (column.maxLength === null || typeof value !== 'string') return;
  if ([...value].length > column.maxLength) {
    throw new DatabaseRefusalError({
      code: 'VALUE_TOO_LONG',
      field: column.name,
      message: `${column.name} is too long: at most ${column.maxLength} characters`,
    });
  }
}

/**
 * Refuses a value its column cannot hold, where the model knows the rule, before any SQL runs:
 * a whole number outside the column's integer range, text that is not a UUID for a UUID column
 * (issue "every value it stores": the same refusal, naming the field, on every database), text
 * outside the column's database enum type (reachable only through an app enum assigned to it,
 * which wins over the database enum: `outsideEnum`), a decimal with more whole digits than its
 * `numeric(p,s)` holds once rounded to its scale (`decimalOverflows`; extra decimals are rounded
 * by every database, so they pass), a date or date-time naming a day that does not exist
 * (`impossibleDateTime`: `2024-02-30`), a MySQL/MariaDB `TIME` beyond ±838:59:59 (`839:00:00`).
 * A list for a PostgreSQL array column is checked element by element against its element type
 * (NULL elements are fine: PostgreSQL docs, "Arrays").
 * Rules the model does not know (CHECK constraints, domains, triggers) are the database's: its
 * refusal is translated by the dialect's `translateError` (issue 11, item 2).
 * @throws DatabaseRefusalError INVALID_VALUE, `field` the column's name.
 */
function checkValue(column: ModelColumn, value: unknown, dialect: Dialect): void {
  if (value === null || value === undefined) return;
  const element = arrayElement(column);
  if (!element) return checkItem(column, column, value, dialect, false);
  if (!Array.isArray(value)) return;
  for (const item of value) {
    if (item !== null && item !== undefined) checkItem(column, element, item, dialect, true);
  }
}

/**
 * {@link checkValue} for one value held by `model` (the column itself, or a list element's type),
 * the refusal naming `column`.
 */
function checkItem(
  column: ModelColumn,
  model: ModelColumn,
  value: unknown,
  dialect: Dialect,
  inList: boolean,
): void {
  const refuse = (message: string) => {
    throw new DatabaseRefusalError({ code: 'INVALID_VALUE', field: column.name, message });
  };
  const range = integerRange(dialect.type, model);
  if (range && outsideRange(dialect.type, model, value)) {
    refuse(
      `${column.name} cannot hold ${String(value)}${inList ? ' in its list: its elements are' : ': it takes'} whole numbers ${describeRange(range)}`,
    );
  }
  if (model.kind === 'duration' && outsideRange(dialect.type, model, value)) {
    refuse(`${column.name} cannot hold ${String(value)}: it takes durations ${DURATION_RANGE}`);
  }
  if (model.kind === 'uuid' && !isUuidText(value)) {
    refuse(
      `${column.name} takes ${inList ? 'a list of UUIDs' : 'a UUID'} (8-4-4-4-12 hexadecimal digits)`,
    );
  }
  const shape = decimalShape(dialect.type, model);
  if (shape && decimalOverflows(shape, value)) {
    const whole = shape.precision - shape.scale;
    refuse(
      `${column.name} cannot hold ${String(value)}: it takes numbers below 10^${whole} in absolute value, ${shape.scale} decimal places`,
    );
  }
  if (
    (model.kind === 'date' || model.kind === 'timestamp' || model.kind === 'timestamptz') &&
    impossibleDateTime(value)
  ) {
    refuse(`${column.name} cannot hold ${String(value)}: that day or time does not exist`);
  }
  if (outsideEnum(dialect.type, model, value)) {
    refuse(`${column.name} takes only the values of the database enum ${model.dbEnum?.name}`);
  }
}

/**
 * The column values of a write from its GraphQL arguments: only the arguments sent (an argument
 * sent as null empties the column), each checked and converted for the dialect.
 */
export function planValues(
  node: RowNode,
  columns: ModelColumn[],
  args: Record<string, unknown>,
  dialect: Dialect,
): ColumnValue[] {
  const values: ColumnValue[] = [];
  for (const column of columns) {
    if (!(column.name in args) || args[column.name] === undefined) continue;
    checkLength(column, args[column.name]);
    checkValue(column, args[column.name], dialect);
    values.push({
      column: column.name,
      value: columnValue(node, column, args[column.name], dialect),
    });
  }
  return values;
}

/**
 * Refuses a key value its column cannot hold before any SQL runs, naming the key: what
 * {@link checkValue} refuses, and text that is no whole number for an integer key (an `ID`
 * argument takes any text). Otherwise the database's refusal of the key parameter would be
 * taken for one of the columns written, or name no field (review item 19).
 * @throws DatabaseRefusalError INVALID_VALUE, `field` the key column's name.
 */
function checkKey(column: ModelColumn, value: unknown, dialect: Dialect): void {
  checkValue(column, value, dialect);
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (integerRange(dialect.type, column) && typeof text === 'string' && !WHOLE.test(text)) {
    throw new DatabaseRefusalError({
      code: 'INVALID_VALUE',
      field: column.name,
      message: `${column.name} takes a whole number`,
    });
  }
}

/** A whole number as text, as `outsideRange` reads it. */
const WHOLE = /^\s*-?\d+\s*$/;

/**
 * `WHERE` on the primary key given in the arguments (`update`/`delete`), each key value checked
 * first ({@link checkKey}).
 * @throws DatabaseRefusalError INVALID_VALUE naming the key when its column cannot hold it.
 */
export function primaryKeyCondition(
  node: RowNode,
  args: Record<string, unknown>,
  dialect: Dialect,
): Condition {
  const table: ModelTable = node.table;
  for (const name of table.primaryKey) {
    checkKey(
      table.columns.find((c) => c.name === name)!,
      args[name],
      dialect,
    );
  }
  return {
    kind: 'and',
    // A timestamp key read with milliseconds finds its row as a filter does.
    items: table.primaryKey.map((name) =>
      comparison(
        node,
        table.columns.find((c) => c.name === name)!,
        'eq',
        args[name],
        dialect,
      ),
    ),
  };
}

/** A foreign key of a written table, with the model table it refers to. */
export interface Reference {
  /** The referencing columns, in key order. */
  columns: string[];
  /** The referenced table's columns, position for position with `columns`. */
  referencedColumns: string[];
  /** The referenced model table (whose row rule the write must respect, CONTRACT.md §4). */
  table: ModelTable;
}

/**
 * The foreign keys of `table` whose referenced table is in the model (active or not: a role's
 * rule names a model table either way), so a write can refuse a key that points at a row outside
 * the caller's rule on that table (issue 22 item 8). A key to a table the model does not hold is
 * left to the database: no rule can name that table.
 */
export function referencesOf(tables: readonly ModelTable[], table: ModelTable): Reference[] {
  const references: Reference[] = [];
  for (const fk of table.foreignKeys) {
    const target = tables.find((t) =>
      sameTable(t, table.datasourceId, fk.referencedSchema, fk.referencedTable),
    );
    if (target) {
      references.push({
        columns: fk.columns,
        referencedColumns: fk.referencedColumns,
        table: target,
      });
    }
  }
  return references;
}
