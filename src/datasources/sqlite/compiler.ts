import type { ColumnKind, CompiledQuery, DateBucket, SelectPlan } from '../core/dialect';
import { ParamList, SqlCompiler } from '../core/sql-compiler';
import { CASEFOLD } from './connection';

/**
 * SQLite's SQL syntax for the shared {@link SqlCompiler}: quoting with `"`, `?` placeholders,
 * `tg_casefold` for case-insensitive LIKE beyond ASCII, timestamps compared through `strftime`,
 * `LIMIT -1` for an offset without a limit.
 */
export abstract class SqliteCompiler extends SqlCompiler {
  quote(identifier: string): string {
    return `"${identifier.replace(/"/g, '""')}"`;
  }

  protected placeholder(): string {
    return '?';
  }

  /**
   * SQLite keeps a date and time as text, in whatever form its writer used (`2024-01-10 08:00:00`,
   * `…T08:00:00.5`, `….500`), and text order is not time order across forms: both sides of a
   * comparison are read as `YYYY-MM-DD HH:MM:SS.SSS` by `strftime` (sqlite.org/lang_datefunc.html:
   * `%f` is seconds with three fraction digits; an offset is applied; text that is no time is
   * NULL, which matches nothing). Fractions beyond the millisecond do not count, as on output.
   */
  protected override timestampOperand(sql: string): string {
    return `strftime('%Y-%m-%d %H:%M:%f', ${sql})`;
  }

  protected likeInsensitive(column: string, pattern: string): string {
    return `${CASEFOLD}(${column}) LIKE ${CASEFOLD}(${pattern}) ESCAPE '\\'`;
  }

  protected override paginate(take: number | null, skip: number, params: ParamList): string {
    if (take === null) return skip > 0 ? ` LIMIT -1 OFFSET ${params.add(skip)}` : '';
    return super.paginate(take, skip, params);
  }

  /**
   * The bucket's start as SQLite's own date or datetime text (`strftime`, sqlite.org
   * "lang_datefunc"), the form the service writes: `YYYY-MM-DD` for a date, `YYYY-MM-DD
   * HH:MM:SS` for a datetime. Text that is no date gives NULL, one group of its own.
   */
  protected override dateBucket(column: string, kind: ColumnKind, bucket: DateBucket): string {
    const date = { YEAR: '%Y-01-01', MONTH: '%Y-%m-01', DAY: '%Y-%m-%d', HOUR: '%Y-%m-%d' }[bucket];
    if (kind === 'date') return `strftime('${date}', ${column})`;
    const time = bucket === 'HOUR' ? '%H:00:00' : '00:00:00';
    return `strftime('${date} ${time}', ${column})`;
  }

  /**
   * The plain SELECT: SQLite has no row locks, and the service's write transactions begin with
   * `BEGIN IMMEDIATE` (`sqlite/pool.ts`), which keeps every other writer out until they end
   * (sqlite.org "Transaction"), so what it reads cannot change under them.
   */
  override compileSelectForUpdate(plan: SelectPlan): CompiledQuery {
    return this.compileSelect({ ...plan, take: null, skip: 0, partition: undefined });
  }

  /** Number text as a number (SQLite orders every number before every text, sqlite.org "Datatypes", 4.1). */
  protected override numericOperand(placeholder: string): string {
    return `CAST(${placeholder} AS NUMERIC)`;
  }
}
