import type { ModelColumn } from '../core/dialect';
import { formatCommon, jsonText } from '../core/value-format';

/**
 * A value as SQLite binds it: JSON as its text, booleans as 1/0, timestamps in SQLite's own
 * `YYYY-MM-DD HH:MM:SS` form.
 */
export function sqliteBindValue(column: ModelColumn, value: unknown): unknown {
  // better-sqlite3 binds numbers, strings, bigints, buffers and null only.
  if (column.kind === 'json' && value !== null && value !== undefined) return jsonText(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  // SQLite's own datetime text has a space, not a T (sqlite.org/lang_datefunc.html): one form
  // keeps text comparisons in filters right.
  if (column.kind === 'timestamp' && typeof value === 'string') {
    const text = value.replace('T', ' ');
    return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(text) ? `${text}:00` : text;
  }
  return value;
}

/** A value as read: {@link formatCommon}. */
export function formatSqliteValue(column: ModelColumn, raw: unknown): unknown {
  return formatCommon(column, raw);
}
