import type { TableColumn, TableForeignKey } from 'typeorm';
import type { ColumnKind, ModelColumn, ModelForeignKey } from './dialect';
import { formatDate, formatExactNumber, formatInstant, formatLocalTimestamp } from './value-format';

/** Model columns from TypeORM's introspected `TableColumn`s; `kindOf` maps the database's type name. */
export function columnsFromTypeorm(columns: TableColumn[], kindOf: (dbType: string) => ColumnKind): ModelColumn[] {
  return columns.map((c) => ({
    name: c.name,
    dbType: c.type,
    kind: kindOf(c.type),
    nullable: c.isNullable,
    hasDefault: c.default !== undefined && c.default !== null,
    generated: c.isGenerated || Boolean(c.asExpression) || Boolean(c.generatedType),
    computed: Boolean(c.asExpression) || Boolean(c.generatedType),
    maxLength: c.length && /^\d+$/.test(c.length) ? Number(c.length) : null,
    enum: null,
  }));
}

/**
 * Model foreign keys from TypeORM's `TableForeignKey`s. TypeORM prefixes the referenced table with
 * its schema when it is not the connection's default; the prefix is split off here.
 */
export function foreignKeysFromTypeorm(fks: TableForeignKey[], defaultSchema: string | null): ModelForeignKey[] {
  return fks.map((fk) => {
    let table = fk.referencedTableName;
    let schema = fk.referencedSchema ?? defaultSchema;
    const dot = table.lastIndexOf('.');
    if (dot > 0) {
      schema = table.slice(0, dot);
      table = table.slice(dot + 1);
    }
    return {
      columns: [...fk.columnNames],
      referencedSchema: schema,
      referencedTable: table,
      referencedColumns: [...fk.referencedColumnNames],
    };
  });
}

/**
 * Formatting shared by the adapters once the driver's value is in hand (CONTRACT.md §6 Values):
 * dates and times from text, 64-bit integers and decimals as exact text, booleans from 0/1.
 */
export function formatCommon(column: ModelColumn, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (column.kind) {
    case 'timestamp':
      return typeof raw === 'string' ? formatLocalTimestamp(raw) : String(raw);
    case 'timestamptz':
      return typeof raw === 'string' || raw instanceof Date ? formatInstant(raw) : String(raw);
    case 'date':
      return typeof raw === 'string' || raw instanceof Date ? formatDate(raw) : String(raw);
    case 'bigint':
    case 'decimal':
      return formatExactNumber(raw);
    case 'int':
      // A 64-bit value beyond 2^53 (an SQLite INTEGER rowid) stays exact text: as ID it is
      // shown whole, as Int GraphQL refuses it loudly instead of rounding it.
      if (typeof raw === 'bigint') return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw.toString();
      return typeof raw === 'number' ? raw : Number(raw);
    case 'float':
      return typeof raw === 'number' ? raw : Number(raw);
    case 'boolean':
      return raw === true || raw === 1 || raw === 1n || raw === '1' || raw === 't' || raw === 'true';
    case 'json':
      return typeof raw === 'string' ? raw : JSON.stringify(raw);
    default:
      if (Buffer.isBuffer(raw)) return raw.toString('base64');
      if (typeof raw === 'object') return JSON.stringify(raw);
      return String(raw);
  }
}
