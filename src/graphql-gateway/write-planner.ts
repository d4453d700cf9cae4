import type { ColumnValue, Condition, Dialect, ModelColumn } from '../datasources/dialect';
import type { ModelTable } from '../platform/version-definition';
import type { RowNode } from './api-tree';
import { DatabaseRefusalError } from './graphql-errors';
import { columnValue } from './query-planner';
import { describeRange, integerRange, isUuidText, outsideEnum, outsideRange } from './value-ranges';

/**
 * Columns `add<Base>`/`update<Base>` take as arguments: the row type's columns that can be
 * written (computed columns never are), plus, for `update`, the primary key.
 */
export function writableColumns(node: RowNode, operation: 'insert' | 'update'): ModelColumn[] {
  const key = new Set(node.table.primaryKey);
  return node.table.columns.filter(
    (c) => !c.computed && (node.columns.includes(c) || (operation === 'update' && key.has(c.name))),
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
 * which wins over the database enum: `outsideEnum`).
 * @throws DatabaseRefusalError INVALID_VALUE.
 */
function checkValue(column: ModelColumn, value: unknown, dialect: Dialect): void {
  if (value === null || value === undefined) return;
  const range = integerRange(dialect.type, column);
  if (range && outsideRange(dialect.type, column, value)) {
    throw new DatabaseRefusalError({
      code: 'INVALID_VALUE',
      field: column.name,
      message: `${column.name} cannot hold ${String(value)}: it takes whole numbers ${describeRange(range)}`,
    });
  }
  if (column.kind === 'uuid' && !isUuidText(value)) {
    throw new DatabaseRefusalError({
      code: 'INVALID_VALUE',
      field: column.name,
      message: `${column.name} takes a UUID (8-4-4-4-12 hexadecimal digits)`,
    });
  }
  if (outsideEnum(dialect.type, column, value)) {
    throw new DatabaseRefusalError({
      code: 'INVALID_VALUE',
      field: column.name,
      message: `${column.name} takes only the values of the database enum ${column.dbEnum?.name}`,
    });
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

/** `WHERE` on the primary key given in the arguments (`update`/`delete`). */
export function primaryKeyCondition(
  node: RowNode,
  args: Record<string, unknown>,
  dialect: Dialect,
): Condition {
  const table: ModelTable = node.table;
  return {
    kind: 'and',
    items: table.primaryKey.map((name) => {
      const column = table.columns.find((c) => c.name === name)!;
      return {
        kind: 'compare' as const,
        column: name,
        op: 'eq' as const,
        value: columnValue(node, column, args[name], dialect),
      };
    }),
  };
}
