import type {
  ColumnKind,
  CompiledQuery,
  DateBucket,
  InsertPlan,
  UpdatePlan,
  UpsertPlan,
} from '../core/dialect';
import { escapeLike, ParamList, SqlCompiler } from '../core/sql-compiler';

/**
 * The LIKE escape character. Not `\`: in a MySQL string literal a backslash is itself an escape
 * unless `NO_BACKSLASH_ESCAPES` is on (MySQL "String Literals"), so `ESCAPE '\\'` names one
 * character in one mode and two (an error) in the other; `'|'` means `|` in both.
 */
const LIKE_ESCAPE = '|';

/**
 * Escapes text for a LIKE pattern whose escape character is `|` (MySQL "String Comparison
 * Functions and Operators", LIKE … ESCAPE): `|`, `%` and `_` get a `|` before them. With an
 * explicit ESCAPE, `\` is an ordinary character, as are `[` and `]`.
 */
export function escapeMysqlLike(text: string): string {
  return escapeLike(text, '%_', LIKE_ESCAPE);
}

/** MySQL's largest row count, for an OFFSET without a LIMIT (MySQL "SELECT Statement", LIMIT). */
const ALL_ROWS = '18446744073709551615';

/**
 * MySQL's and MariaDB's SQL syntax for the shared {@link SqlCompiler}: backtick quoting, `?`
 * placeholders, `LIMIT ? OFFSET ?`, case-insensitive LIKE under `utf8mb4_bin` with escape `|`,
 * spatial columns as WKT, `() VALUES ()` and no `UPDATE … RETURNING`.
 */
export abstract class MysqlCompiler extends SqlCompiler {
  /** Backtick quoting; an embedded backtick is doubled (MySQL "Schema Object Names"). */
  quote(identifier: string): string {
    return '`' + identifier.replace(/`/g, '``') + '`';
  }

  /** Spatial columns (kind `other`) read as WKT text (MySQL "Functions That Format Geometry Values"). */
  protected override selectItem(column: string, kind: ColumnKind | undefined): string {
    return kind === 'other'
      ? `ST_AsText(${this.quote(column)}) AS ${this.quote(column)}`
      : this.quote(column);
  }

  /**
   * Spatial columns written from WKT text (MySQL "Functions That Create Geometry Values from WKT").
   * MariaDB's `ST_GeomFromText` answers NULL for text that is not WKT, which a nullable column
   * stored without a word: the text itself is then written instead, which the column refuses
   * (1416 ER_CANT_CREATE_GEOMETRY_OBJECT, translated to INVALID_VALUE by `translateMysqlError`).
   * The derived table binds the text once; NULL stays NULL.
   */
  protected override writeItem(placeholder: string, kind: ColumnKind | undefined): string {
    return kind === 'other'
      ? `(SELECT COALESCE(ST_GeomFromText(wkt.v), wkt.v) FROM (SELECT ${placeholder} AS v) wkt)`
      : placeholder;
  }

  protected override typedOperand(sql: string, key: string, side: 'column' | 'value'): string {
    return key === 'wkt' && side === 'column' ? `ST_AsText(${sql})` : sql;
  }

  protected placeholder(): string {
    return '?';
  }

  /**
   * Both sides converted to utf8mb4, set to `utf8mb4_bin` and lower-cased, then compared with
   * LIKE under that binary collation: case is ignored through LOWER (Unicode case mapping, not
   * the collation's equivalences), accents and every other difference count (MySQL "Character
   * Sets and Collations": `_bin` compares code points). CONVERT first, so a latin1 or binary
   * column compares too; the column's own collation never takes part. Escape `|`
   * ({@link escapeMysqlLike}).
   */
  protected override readonly likeEscape = LIKE_ESCAPE;

  protected likeInsensitive(column: string, pattern: string): string {
    const folded = (sql: string) => `LOWER(CONVERT(${sql} USING utf8mb4) COLLATE utf8mb4_bin)`;
    return `${folded(column)} LIKE ${folded(pattern)} ESCAPE '${LIKE_ESCAPE}'`;
  }

  /**
   * `LIMIT ? OFFSET ?`; MySQL has no OFFSET without LIMIT, so skip alone reads up to the largest
   * row count (MySQL "SELECT Statement": "use some large number for the second parameter").
   */
  protected override paginate(take: number | null, skip: number, params: ParamList): string {
    if (take === null) return skip > 0 ? ` LIMIT ${ALL_ROWS} OFFSET ${params.add(skip)}` : '';
    return super.paginate(take, skip, params);
  }

  /**
   * `INSERT … VALUES (…)`, with `RETURNING` when the plan asks (MariaDB ≥ 10.5; the resolver
   * passes no columns when {@link capabilities} says otherwise). A row of defaults only is
   * `() VALUES ()`: MySQL has no `DEFAULT VALUES` (MySQL "INSERT Statement").
   */
  override compileInsert(plan: InsertPlan): CompiledQuery {
    if (plan.values.length > 0) return super.compileInsert(plan);
    return {
      sql: `INSERT INTO ${this.tableName(plan.table)} () VALUES ()${this.returning(plan.returning, plan.kinds)}`,
      params: [],
    };
  }

  /** `UPDATE … SET … WHERE`, never RETURNING (neither MySQL nor MariaDB has UPDATE … RETURNING). */
  override compileUpdate(plan: UpdatePlan): CompiledQuery {
    return super.compileUpdate({ ...plan, returning: [] });
  }

  /**
   * `INSERT … VALUES (…), (…) ON DUPLICATE KEY UPDATE c = VALUES(c)` (MySQL "INSERT … ON DUPLICATE
   * KEY UPDATE Statement"; `VALUES()` is deprecated from MySQL 8.0.20 but still works, and is
   * MariaDB's only form). It matches a duplicate on ANY unique key of the table, so the gateway
   * offers it only for a table with one unique key set (`Capabilities.upsertMatchesAnyKey`). It
   * can neither filter the existing row nor return rows: the gateway reads the existing rows
   * under lock first ({@link compileSelectForUpdate}) and sends here only rows to update. With no
   * column to update the statement is a plain INSERT.
   * @throws Error for a `when`, `scope` or `returning` the statement cannot express.
   */
  override compileUpsert(plan: UpsertPlan): CompiledQuery {
    const everyRow = (c: typeof plan.when) => c.kind === 'and' && c.items.length === 0;
    if (!everyRow(plan.when) || !everyRow(plan.scope) || plan.returning.length > 0) {
      throw new Error('MySQL upserts filter and read the existing rows before the statement');
    }
    const params = this.parameters();
    const values = this.valuesLists(plan, params);
    const columns = plan.columns.map((c) => this.quote(c)).join(', ');
    const set = plan.update.map((c) => `${this.quote(c)} = VALUES(${this.quote(c)})`).join(', ');
    const update = set ? ` ON DUPLICATE KEY UPDATE ${set}` : '';
    return params.query(
      `INSERT INTO ${this.tableName(plan.table)} (${columns}) VALUES ${values}${update}`,
    );
  }

  /**
   * The bucket's start through `DATE_FORMAT` and back to the column's type (MySQL "Date and Time
   * Functions"; no `date_trunc`): a `DATE` stays a `DATE`, a `DATETIME`/`TIMESTAMP` becomes a
   * `DATETIME` (a `TIMESTAMP` is formatted in the session's zone, which the pool sets to UTC).
   */
  protected override dateBucket(column: string, kind: ColumnKind, bucket: DateBucket): string {
    const date = { YEAR: '%Y-01-01', MONTH: '%Y-%m-01', DAY: '%Y-%m-%d', HOUR: '%Y-%m-%d' }[bucket];
    if (kind === 'date') return `CAST(DATE_FORMAT(${column}, '${date}') AS DATE)`;
    const time = bucket === 'HOUR' ? '%H:00:00' : '00:00:00';
    return `CAST(DATE_FORMAT(${column}, '${date} ${time}') AS DATETIME)`;
  }

  /** Number text as an exact decimal (MySQL would compare a string with a decimal as doubles, MySQL "Type Conversion in Expression Evaluation"). */
  protected override numericOperand(placeholder: string): string {
    return `CAST(${placeholder} AS DECIMAL(65,30))`;
  }
}
