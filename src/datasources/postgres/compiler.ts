import type { ColumnKind, DateBucket } from '../core/dialect';
import { SqlCompiler } from '../core/sql-compiler';
import { LIST_AS_COLUMN, TYPED_COMPARISONS } from './values';

/**
 * PostgreSQL's SQL syntax for the shared {@link SqlCompiler}: quoting with `"`, `$n` placeholders,
 * `ILIKE … ESCAPE '\'` for case-insensitive literal matching, explicit `NULLS FIRST/LAST` because
 * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY"), and typed operands
 * for columns read as text ({@link TYPED_COMPARISONS}).
 */
export abstract class PostgresCompiler extends SqlCompiler {
  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  protected placeholder(index: number): string {
    return `$${index}`;
  }

  protected likeInsensitive(column: string, pattern: string): string {
    return `${column}::text ILIKE ${pattern} ESCAPE '\\'`;
  }

  /**
   * PostgreSQL sorts NULL as the largest value (PostgreSQL docs, "ORDER BY"), the opposite of the
   * contract's order: nullable columns say `NULLS FIRST`/`LAST`; NOT NULL ones say nothing, so
   * a plain or `DESC` index serves the order.
   */
  protected override orderTerm(column: string, direction: 'ASC' | 'DESC', nullable = true): string {
    if (!nullable) return `${column} ${direction}`;
    return `${column} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`;
  }

  /** One side of a `typed` equality, as {@link TYPED_COMPARISONS} says for its key. */
  protected override typedOperand(sql: string, key: string, side: 'column' | 'value'): string {
    if (key === LIST_AS_COLUMN) return sql;
    const how = TYPED_COMPARISONS.get(key);
    if (!how) return side === 'column' ? `${sql}::text` : sql;
    if (side === 'column') return how.text ? `${sql}::text` : sql;
    return how.text ? `${sql}::${how.cast}::text` : `${sql}::${how.cast}`;
  }

  /**
   * `date_trunc` to the bucket (PostgreSQL docs, "date_trunc"): a `date` cast back to `date`
   * (date_trunc answers a timestamp), a `timestamptz` truncated in UTC (`AT TIME ZONE 'UTC'` both
   * ways; date_trunc alone would use the session's zone).
   */
  protected override dateBucket(column: string, kind: ColumnKind, bucket: DateBucket): string {
    const unit = `'${bucket.toLowerCase()}'`;
    if (kind === 'date') return `CAST(date_trunc(${unit}, ${column}) AS date)`;
    if (kind === 'timestamptz') {
      return `(date_trunc(${unit}, ${column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
    }
    return `date_trunc(${unit}, ${column})`;
  }
}
