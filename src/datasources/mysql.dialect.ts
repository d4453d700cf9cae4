import { catalogComment } from './core/dialect';
import type {
  PoolOptions,
  Capabilities,
  ColumnKind,
  CompiledQuery,
  DatabaseIdentity,
  DatabaseRefusal,
  Dialect,
  InsertPlan,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  ModelForeignKey,
  SqlPool,
  StatementRunner,
  TableRef,
  UpdatePlan,
  WriteContext,
} from './core/dialect';
import { identityKey, STORE_FINGERPRINT } from './own-store';
import { translateMysqlError } from './mysql-errors';
import { MysqlDecimal, MysqlPool } from './mysql-pool';
import { escapeLike, ParamList, SqlCompiler } from './core/sql-compiler';
import { formatCommon, formatInstant, jsonText } from './core/value-format';

/**
 * Maps a MySQL/MariaDB column to a kind, from `information_schema.COLUMNS`' `DATA_TYPE` (`int`)
 * and `COLUMN_TYPE` (`int(10) unsigned`, `tinyint(1)`), following the MySQL "Data Types" chapter:
 * - `tinyint(1)` (what `BOOL`/`BOOLEAN` create: MySQL "Numeric Data Type Syntax") and `bit(1)`
 *   → boolean; a wider `bit(n)` → bigint (up to 64 bits).
 * - `tinyint`, `smallint`, `mediumint`, signed `int`, `year` → int; `int unsigned` (up to
 *   2^32−1, beyond GraphQL's 32-bit Int) and `bigint` → bigint (exact text).
 * - `decimal`/`numeric`/`fixed` → decimal; `float`, `double`, `real` → float.
 * - `date` → date; `datetime` → timestamp (no zone); `timestamp` → timestamptz (stored as UTC,
 *   MySQL "The DATE, DATETIME, and TIMESTAMP Types"); `time` → duration (-838:59:59 to
 *   838:59:59, MySQL "The TIME Type"; mysql2 reads it as `[-]HH[H]:MM:SS[.ffffff]`).
 * - `json` → json (MySQL). MariaDB's JSON is a LONGTEXT alias with an automatic
 *   `CHECK (json_valid(col))` (MariaDB "JSON Data Type"): `introspect` finds that check
 *   ({@link mariadbJsonColumns}) and makes such a column json; by its type alone it is text;
 *   `uuid` (MariaDB ≥ 10.7) → uuid; `binary`, `varbinary` and the blobs → binary; the spatial
 *   types → other, read and written as their WKT text (`ST_AsText`/`ST_GeomFromText`, MySQL
 *   "Spatial Data Types"), since the driver hands them as objects that cannot be bound back;
 *   everything else (char, text, enum, set, `inet6`) → text.
 */
export function mysqlKind(dataType: string, columnType: string): ColumnKind {
  const t = dataType.toLowerCase();
  const full = columnType.toLowerCase();
  const unsigned = /\bunsigned\b/.test(full);
  switch (t) {
    case 'tinyint':
      return /^tinyint\(1\)/.test(full) ? 'boolean' : 'int';
    case 'bool':
    case 'boolean':
      return 'boolean';
    case 'bit':
      return /^bit(\(1\))?$/.test(full.trim()) ? 'boolean' : 'bigint';
    case 'smallint':
    case 'mediumint':
    case 'year':
      return 'int';
    case 'int':
    case 'integer':
      return unsigned ? 'bigint' : 'int';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
    case 'fixed':
      return 'decimal';
    case 'float':
    case 'double':
    case 'double precision':
    case 'real':
      return 'float';
    case 'date':
      return 'date';
    case 'datetime':
      return 'timestamp';
    case 'timestamp':
      return 'timestamptz';
    case 'time':
      // A duration, not a time of day: -838:59:59 to 838:59:59 (MySQL "The TIME Type").
      return 'duration';
    case 'json':
      return 'json';
    case 'uuid':
      return 'uuid';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'binary';
    case 'geometry':
    case 'point':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
    case 'geometrycollection':
    case 'geomcollection':
      return 'other';
    default:
      return 'text';
  }
}

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

/**
 * Compares a server version text with `major.minor`. MariaDB's handshake may prefix its version
 * with `5.5.5-` (for old replication clients); `VERSION()` does not, both are read.
 */
function versionAtLeast(version: string, major: number, minor: number): boolean {
  const m = /(\d+)\.(\d+)/.exec(version.replace(/^5\.5\.5-/, ''));
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

/** MySQL's largest row count, for an OFFSET without a LIMIT (MySQL "SELECT Statement", LIMIT). */
const ALL_ROWS = '18446744073709551615';

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  column_type: string;
  is_nullable: string;
  column_default: string | null;
  extra: string | null;
  column_comment: string | null;
  /** Set by introspection: a MariaDB LONGTEXT held to valid JSON by a CHECK (its `JSON` type). */
  json?: boolean;
}

interface KeyRow {
  table_name: string;
  constraint_name: string;
  column_name: string;
  referenced_table_schema: string | null;
  referenced_table_name: string | null;
  referenced_column_name: string | null;
}

/** Tables per information_schema query, so an `IN (…)` list stays small. */
const INTROSPECT_BATCH = 500;

/**
 * The column query of {@link MysqlDialect.introspect} for one schema (`?` first) and `count`
 * table names (MySQL "The INFORMATION_SCHEMA COLUMNS Table"): `DATA_TYPE` and `COLUMN_TYPE` give
 * the kind, the full type and an ENUM's values; `COLUMN_COMMENT` the comment (`''` for none).
 */
export function mysqlColumnsSql(count: number): string {
  return (
    'SELECT TABLE_NAME AS `table_name`, COLUMN_NAME AS `column_name`, DATA_TYPE AS `data_type`, ' +
    'COLUMN_TYPE AS `column_type`, IS_NULLABLE AS `is_nullable`, COLUMN_DEFAULT AS `column_default`, EXTRA AS `extra`, ' +
    'COLUMN_COMMENT AS `column_comment` ' +
    `FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${placeholders(count)}) ORDER BY TABLE_NAME, ORDINAL_POSITION`
  );
}

/**
 * The table query of {@link MysqlDialect.introspect} for one schema (`?` first) and `count` table
 * names (MySQL "The INFORMATION_SCHEMA TABLES Table"): `TABLE_TYPE` `VIEW` is a view;
 * `TABLE_COMMENT` is the table's comment (`''` for none, the word `VIEW` for every view).
 */
export function mysqlTablesSql(count: number): string {
  return (
    'SELECT TABLE_NAME AS `table_name`, TABLE_TYPE AS `table_type`, TABLE_COMMENT AS `table_comment` ' +
    `FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${placeholders(count)})`
  );
}

/**
 * The CHECK constraint query of {@link MysqlDialect.introspect} for one schema (`?` first) and
 * `count` table names: MariaDB's `information_schema.CHECK_CONSTRAINTS` (MariaDB ≥ 10.2.22, with
 * `TABLE_NAME`; MySQL 8's table has no `TABLE_NAME`, and its JSON is a type of its own, so the
 * query failing there is harmless and ignored).
 */
export function mariadbChecksSql(count: number): string {
  return (
    'SELECT TABLE_NAME AS `table_name`, CONSTRAINT_NAME AS `constraint_name`, CHECK_CLAUSE AS `check_clause` ' +
    `FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME IN (${placeholders(count)})`
  );
}

/**
 * The columns a CHECK constraint holds to valid JSON: a clause that is exactly `json_valid(`col`)`
 * (what MariaDB writes for a `JSON` column, MariaDB "JSON Data Type", and for a hand-written
 * `CHECK (json_valid(col))`), as `{table, column}` pairs. Any other clause (`json_valid(a) or a is
 * null`, a function of several columns) is not such a guarantee and is left out.
 */
export function mariadbJsonColumns(
  rows: { table_name: unknown; check_clause: unknown }[],
): { table: string; column: string }[] {
  const out: { table: string; column: string }[] = [];
  for (const r of rows) {
    const m = /^\s*json_valid\s*\(\s*`((?:[^`]|``)+)`\s*\)\s*$/i.exec(String(r.check_clause ?? ''));
    if (m) out.push({ table: String(r.table_name), column: m[1].replace(/``/g, '`') });
  }
  return out;
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** MySQL string-literal escapes (MySQL "String Literals", Table 11.1 "Special Character Escape Sequences"). */
const ESCAPES: Record<string, string> = {
  '0': '\0',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\x1a',
};

/**
 * The values of an `ENUM` from its `COLUMN_TYPE` (`enum('a','it''s','c\\d')`), in definition
 * order, or null when the text is not an ENUM's. Each value is a quoted literal as the server
 * prints it (MySQL "The ENUM Type"; `SHOW CREATE TABLE` uses the same text): a quote inside a
 * value is doubled (`''`), and a backslash and the control characters are written as MySQL string
 * escapes (`\\`, `\n`, `\0`, …; MariaDB and MySQL both), which are read back here; a comma or
 * parenthesis inside the quotes is part of the value.
 */
export function mysqlEnumValues(columnType: string): string[] | null {
  const m = /^\s*enum\s*\(([\s\S]*)\)\s*$/i.exec(columnType);
  if (!m) return null;
  const body = m[1];
  const values: string[] = [];
  let i = 0;
  while (i < body.length) {
    while (i < body.length && /[\s,]/.test(body[i])) i++;
    if (i >= body.length) break;
    if (body[i] !== "'") return null;
    i++;
    let value = '';
    for (;;) {
      if (i >= body.length) return null;
      const ch = body[i];
      if (ch === '\\' && i + 1 < body.length) {
        const next = body[i + 1];
        value += ESCAPES[next] ?? next;
        i += 2;
      } else if (ch === "'" && body[i + 1] === "'") {
        value += "'";
        i += 2;
      } else if (ch === "'") {
        i++;
        break;
      } else {
        value += ch;
        i++;
      }
    }
    values.push(value);
  }
  return values;
}

/**
 * Who a MySQL/MariaDB connection reached (see {@link MysqlDialect.identify}); the `?`s are the
 * table names of `STORE_FINGERPRINT`, counted in the connection's database.
 */
export const MYSQL_IDENTITY_SQL =
  'SELECT DATABASE() AS `database`, VERSION() AS `version`, @@hostname AS `hostname`, ' +
  '@@port AS `port`, @@datadir AS `datadir`, @@server_id AS `server_id`, ' +
  '(SELECT COUNT(DISTINCT TABLE_NAME) FROM information_schema.TABLES ' +
  `WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${STORE_FINGERPRINT.map(() => '?').join(', ')})) AS \`fingerprint\``;

/**
 * MySQL and MariaDB adapter (`mysql2`, see {@link MysqlPool}). Backtick quoting (MySQL "Schema
 * Object Names"), `?` placeholders, `LIMIT ? OFFSET ?`. NULL is the smallest value in MySQL's
 * ORDER BY (MySQL "Sorting Rows": NULLs first under ASC, last under DESC), which is the
 * contract's order already. Case-insensitive literal matching lower-cases both sides under
 * `utf8mb4_bin`, so neither the column's collation (`_bin`, `_ci`, accent-insensitive `_ai_ci`)
 * nor its character set changes the result: `E` matches `e`, `e` never matches `é`.
 *
 * A datasource URL names one database (`mysql://user:pass@host:3306/shop`); its tables are
 * listed with that database as their schema, and every statement qualifies tables with it.
 * Needs window functions for batched one-to-many reads: MySQL ≥ 8.0, MariaDB ≥ 10.2.
 */
export class MysqlDialect extends SqlCompiler implements Dialect {
  readonly type = 'mysql' as const;

  /** See {@link MysqlPool.open}. @throws DomainError INVALID_INPUT for a URL that is not a mysql URL. */
  async open(url: string, options: { poolSize: number } & Partial<PoolOptions>): Promise<SqlPool> {
    return MysqlPool.open(url, options);
  }

  /**
   * `insertReturning` on MariaDB ≥ 10.5 (MariaDB "INSERT...RETURNING", added in 10.5.0); MySQL
   * has no RETURNING, so `add<Base>` answers `true` there (CONTRACT.md §6). `updateReturning`
   * is false everywhere: neither has `UPDATE … RETURNING` (MariaDB has only INSERT/REPLACE/DELETE
   * … RETURNING), so the row is read back by its key. An unknown version is treated as MySQL.
   */
  capabilities(serverVersion: string | null): Capabilities {
    const mariadb = serverVersion !== null && /mariadb/i.test(serverVersion);
    return {
      insertReturning: mariadb && versionAtLeast(serverVersion ?? '', 10, 5),
      updateReturning: false,
    };
  }

  /**
   * The database a connection reached ({@link MYSQL_IDENTITY_SQL}): the URL's database (the one
   * schema a MySQL datasource reads) on a server keyed by `@@server_uuid` (MySQL ≥ 5.6; MariaDB
   * has no such variable, so it is read only when `VERSION()` does not say MariaDB) and by
   * `@@hostname`, `@@port`, `@@datadir` and `@@server_id` together, which MySQL and MariaDB both
   * have and which tell two servers apart even on one machine. `storeCopy` is the database when it
   * holds every table of `STORE_FINGERPRINT`.
   */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
    const { rows } = await run({ sql: MYSQL_IDENTITY_SQL, params: [...STORE_FINGERPRINT] });
    const row = rows[0] ?? {};
    const database = String(row.database ?? '');
    const keys = [
      identityKey(
        'mysql',
        'server',
        String(row.hostname),
        String(row.port),
        String(row.datadir),
        String(row.server_id),
        database,
      ),
    ];
    if (!/mariadb/i.test(String(row.version))) {
      const uuid = (await run({ sql: 'SELECT @@server_uuid AS `uuid`', params: [] })).rows[0]?.uuid;
      if (typeof uuid === 'string' && uuid) keys.push(identityKey('mysql', 'uuid', uuid, database));
    }
    const copy = Number(row.fingerprint) === STORE_FINGERPRINT.length;
    return { keys, storeCopy: copy ? database : null };
  }

  /**
   * Tables and views of the URL's database, schema = the database's name (MySQL "The
   * INFORMATION_SCHEMA TABLES Table": `TABLE_TYPE` is `BASE TABLE`, `VIEW` or `SYSTEM VIEW`;
   * MariaDB adds `SYSTEM VERSIONED` for system-versioned tables and `SEQUENCE`). `BASE TABLE` and
   * `SYSTEM VERSIONED` are tables, `VIEW` a view; sequences are left out. A partitioned table is
   * one row already: MySQL partitions are not tables of their own.
   */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    const { rows } = await pool.run({
      sql:
        'SELECT TABLE_SCHEMA AS `schema`, TABLE_NAME AS `name`, TABLE_TYPE AS `type` FROM information_schema.TABLES ' +
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED', 'VIEW') ORDER BY TABLE_NAME",
      params: [],
    });
    return rows.map((r) => ({
      schema: String(r.schema),
      name: String(r.name),
      kind: r.type === 'VIEW' ? 'view' : 'table',
    }));
  }

  /**
   * Columns, primary keys and foreign keys from `information_schema` (COLUMNS, KEY_COLUMN_USAGE),
   * in the order the tables were asked for; a table that does not exist is left out. A table with
   * a null schema is looked up in the URL's database.
   * - nullable: `IS_NULLABLE`; maxLength: the `n` of `char(n)`/`varchar(n)`.
   * - generated: `EXTRA` holds `auto_increment` or `VIRTUAL`/`STORED`/`PERSISTENT GENERATED`;
   *   computed: the latter only. MySQL 8's `DEFAULT_GENERATED` (an expression default such as
   *   `CURRENT_TIMESTAMP`) is a default, not a generated column.
   * - hasDefault: `COLUMN_DEFAULT` is not NULL. MariaDB ≥ 10.2.7 reports a nullable column with no
   *   default as the text `NULL` and quotes string defaults (MariaDB "Information Schema COLUMNS
   *   Table"), so bare `NULL` on a nullable column is no default.
   * - primaryKey: the `PRIMARY` constraint's columns in key order (MySQL always names it so).
   * - kind: `information_schema.TABLES.TABLE_TYPE` `VIEW` is a view. A view's columns are in
   *   COLUMNS like a table's, with the nullability of what they select; a view whose tables are
   *   gone has no rows there (MySQL warns, error 1356), so it is left out.
   */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    const database = String(
      (await pool.run({ sql: 'SELECT DATABASE() AS `db`', params: [] })).rows[0]?.db ?? '',
    );
    const bySchema = new Map<string, string[]>();
    for (const t of tables) {
      const schema = t.schema ?? database;
      bySchema.set(schema, [...(bySchema.get(schema) ?? []), t.name]);
    }
    const columns = new Map<string, ColumnRow[]>();
    const keys = new Map<string, KeyRow[]>();
    const views = new Set<string>();
    const comments = new Map<string, string>();
    const id = (schema: string, table: string) => `${schema}\u0000${table}`;
    for (const [schema, names] of bySchema) {
      for (let i = 0; i < names.length; i += INTROSPECT_BATCH) {
        const batch = names.slice(i, i + INTROSPECT_BATCH);
        const list = batch.map(() => '?').join(', ');
        const cols = await pool.run({
          sql: mysqlColumnsSql(batch.length),
          params: [schema, ...batch],
        });
        for (const r of cols.rows as unknown as ColumnRow[]) {
          const k = id(schema, String(r.table_name));
          columns.set(k, [...(columns.get(k) ?? []), { ...r, table_name: String(r.table_name) }]);
        }
        // MariaDB's JSON: a LONGTEXT with a json_valid CHECK (mariadbJsonColumns).
        const longTexts = (cols.rows as unknown as ColumnRow[]).some(
          (r) => String(r.data_type).toLowerCase() === 'longtext',
        );
        if (longTexts) {
          const checks = await pool
            .run({ sql: mariadbChecksSql(batch.length), params: [schema, ...batch] })
            .then((r) => r.rows as { table_name: unknown; check_clause: unknown }[])
            .catch(() => []);
          for (const j of mariadbJsonColumns(checks)) {
            const row = columns.get(id(schema, j.table))?.find((c) => c.column_name === j.column);
            if (row && String(row.data_type).toLowerCase() === 'longtext') row.json = true;
          }
        }
        const keyRows = await pool.run({
          sql:
            'SELECT TABLE_NAME AS `table_name`, CONSTRAINT_NAME AS `constraint_name`, COLUMN_NAME AS `column_name`, ' +
            'REFERENCED_TABLE_SCHEMA AS `referenced_table_schema`, REFERENCED_TABLE_NAME AS `referenced_table_name`, ' +
            'REFERENCED_COLUMN_NAME AS `referenced_column_name` FROM information_schema.KEY_COLUMN_USAGE ' +
            `WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${list}) AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) ` +
            'ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION',
          params: [schema, ...batch],
        });
        for (const r of keyRows.rows as unknown as KeyRow[]) {
          const k = id(schema, String(r.table_name));
          keys.set(k, [...(keys.get(k) ?? []), r]);
        }
        const tableRows = await pool.run({
          sql: mysqlTablesSql(batch.length),
          params: [schema, ...batch],
        });
        for (const r of tableRows.rows) {
          const k = id(schema, String(r.table_name));
          const view = r.table_type === 'VIEW';
          if (view) views.add(k);
          // A view's TABLE_COMMENT is the word `VIEW` (MySQL "The INFORMATION_SCHEMA TABLES
          // Table"), not a comment: views take none.
          const comment = view ? undefined : catalogComment(r.table_comment);
          if (comment !== undefined) comments.set(k, comment);
        }
      }
    }
    const out: IntrospectedTable[] = [];
    for (const t of tables) {
      const schema = t.schema ?? database;
      const cols = columns.get(id(schema, t.name));
      if (!cols) continue;
      const tableKeys = keys.get(id(schema, t.name)) ?? [];
      const comment = comments.get(id(schema, t.name));
      out.push({
        schema,
        dbName: t.name,
        kind: views.has(id(schema, t.name)) ? 'view' : 'table',
        ...(comment !== undefined && { comment }),
        columns: cols.map(modelColumn),
        primaryKey: tableKeys
          .filter((k) => k.constraint_name === 'PRIMARY')
          .map((k) => String(k.column_name)),
        foreignKeys: foreignKeys(tableKeys),
      });
    }
    return out;
  }

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

  /**
   * Spatial columns (kind `other`, the only ones here) compare their WKT as read, `eq`/`neq`
   * included (README "Values"): `ST_AsText(col) = ?`. Text that is not the column's WKT finds
   * nothing; no index serves it.
   */
  comparedAs(column: ModelColumn): string | null {
    return column.kind === 'other' ? 'wkt' : null;
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

  /** See {@link translateMysqlError}. */
  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateMysqlError(error, context);
  }

  /**
   * A value as the pool binds it (see `toMysqlParameter` in mysql-pool.ts):
   * - booleans → 1/0 (`tinyint(1)`/`bit(1)` hold numbers);
   * - int/bigint: integer text → BigInt, bound as a 64-bit integer (exact beyond 2^53);
   * - decimal: a number or numeric text → {@link MysqlDecimal}, bound as DECIMAL (exact);
   * - timestamptz (TIMESTAMP): text with an offset or `Z` → the UTC instant as
   *   `YYYY-MM-DD HH:MM:SS.fff` (sessions run in UTC), a Date likewise;
   * - timestamp (DATETIME): `T` → space, the form MySQL prints and compares as text;
   * - json: any value → its JSON text (a string too: `"abc"`).
   * - float (FLOAT, single precision): the number rounded to single precision as storing it would
   *   ({@link singlePrecision}), so a filter compares what the column holds: MariaDB compares a
   *   FLOAT column as the double it widens to (`0.10000000149011612`), which `0.1`, the value a
   *   read shows, does not equal (`eq` found nothing, `gt` found the row).
   */
  bindValue(column: ModelColumn, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    if (column.kind === 'json') return jsonText(value);
    if (typeof value === 'boolean') return value ? 1 : 0;
    switch (column.kind) {
      case 'int':
      case 'bigint':
        return typeof value === 'string' && /^-?\d+$/.test(value.trim())
          ? BigInt(value.trim())
          : value;
      case 'decimal':
        if (typeof value === 'number' && Number.isFinite(value))
          return new MysqlDecimal(String(value));
        if (typeof value === 'bigint') return new MysqlDecimal(value.toString());
        return typeof value === 'string' &&
          /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)
          ? new MysqlDecimal(value.trim())
          : value;
      case 'timestamptz':
        if (value instanceof Date) return utcText(formatInstant(value));
        if (
          typeof value === 'string' &&
          /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value.trim()) &&
          /[ T]\d{2}:\d{2}/.test(value)
        ) {
          return utcText(formatInstant(value.trim().replace(/z$/, 'Z')));
        }
        return typeof value === 'string' ? value.replace('T', ' ') : value;
      case 'timestamp':
        return typeof value === 'string' ? value.replace('T', ' ') : value;
      case 'float':
        return /^float\b/i.test(column.dbType) ? singlePrecision(value) : value;
      default:
        return value;
    }
  }

  /**
   * The contract's form of a driver value (CONTRACT.md §6 Values). The pool reads dates as text,
   * so: DATETIME `YYYY-MM-DDTHH:mm:ss[.fff]` as stored; TIMESTAMP (read in the UTC session)
   * `YYYY-MM-DDTHH:mm:ss.sssZ`; DATE `YYYY-MM-DD`; an all-zero date (`0000-00-00`, which MySQL
   * stores for invalid dates outside strict mode) → null. Booleans: `tinyint(1)` is true when
   * not 0, `bit(1)` arrives as a one-byte Buffer; a wider `bit(n)` as its integer text.
   * FLOAT (single precision) is shown with the fewest digits that round-trip to the stored value
   * (`1.1`, not `1.100000023841858`); BIGINT and DECIMAL stay exact text.
   */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    if (raw === null || raw === undefined) return null;
    switch (column.kind) {
      case 'timestamp':
      case 'timestamptz':
      case 'date':
        if (typeof raw === 'string' && /^0000-00-00/.test(raw)) return null;
        return formatCommon(column, raw);
      case 'boolean':
        if (Buffer.isBuffer(raw)) return raw.some((b) => b !== 0);
        if (typeof raw === 'number') return raw !== 0;
        if (typeof raw === 'bigint') return raw !== 0n;
        return formatCommon(column, raw);
      case 'bigint':
      case 'int':
        if (Buffer.isBuffer(raw)) return bitsToText(raw, column.kind);
        return formatCommon(column, raw);
      case 'float':
        if (typeof raw === 'number' && /^float\b/i.test(column.dbType)) return shortestFloat32(raw);
        return formatCommon(column, raw);
      default:
        return formatCommon(column, raw);
    }
  }
}

/** `2024-01-02T03:04:05.678Z` → `2024-01-02 03:04:05.678` (the text of a UTC instant for a UTC session). */
function utcText(iso: string): string {
  const m = /^(\d{4,}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** A BIT(n) value (big-endian bytes) as an integer: a number for kind int, exact text for bigint. */
function bitsToText(raw: Buffer, kind: 'int' | 'bigint'): string | number {
  let n = 0n;
  for (const byte of raw) n = (n << 8n) | BigInt(byte);
  return kind === 'int' ? Number(n) : n.toString();
}

/**
 * A number (or numeric text) rounded to the nearest single-precision float, as a double that is
 * that float exactly: what a FLOAT column stores for it. Bound so, it compares equal to the
 * column's value widened to DOUBLE. A number beyond single precision's range is left as it is
 * (no FLOAT holds it: it compares as beyond every stored value); anything else too.
 */
export function singlePrecision(value: unknown): unknown {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(n)) return value;
  const single = Math.fround(n);
  return Number.isFinite(single) ? single : value;
}

/** The shortest decimal that rounds to the same single-precision float as `value`. */
function shortestFloat32(value: number): number {
  if (!Number.isFinite(value)) return value;
  const target = Math.fround(value);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === target) return candidate;
  }
  return value;
}

function modelColumn(r: ColumnRow): ModelColumn {
  const extra = String(r.extra ?? '').toLowerCase();
  const computed =
    /\b(virtual|stored|persistent) generated\b/.test(extra) ||
    /^(virtual|persistent|stored)$/.test(extra.trim());
  const autoIncrement = extra.includes('auto_increment');
  const nullable = String(r.is_nullable).toUpperCase() === 'YES';
  const dflt =
    r.column_default === null || r.column_default === undefined ? null : String(r.column_default);
  const hasDefault =
    !computed && !autoIncrement && dflt !== null && !(nullable && dflt.toUpperCase() === 'NULL');
  const columnType = String(r.column_type);
  const length = /^(?:var)?char\((\d+)\)/i.exec(columnType);
  const values = String(r.data_type).toLowerCase() === 'enum' ? mysqlEnumValues(columnType) : null;
  const comment = catalogComment(r.column_comment);
  return {
    name: String(r.column_name),
    dbType: columnType,
    kind: r.json ? 'json' : mysqlKind(String(r.data_type), columnType),
    nullable,
    hasDefault,
    generated: autoIncrement || computed,
    computed,
    maxLength: length ? Number(length[1]) : null,
    enum: null,
    // MySQL ENUMs are anonymous: named after their place.
    ...(values && { dbEnum: { name: `${r.table_name}.${String(r.column_name)}`, values } }),
    ...(comment !== undefined && { comment }),
  };
}

function foreignKeys(rows: KeyRow[]): ModelForeignKey[] {
  const byName = new Map<string, KeyRow[]>();
  for (const r of rows) {
    if (r.constraint_name === 'PRIMARY' || !r.referenced_table_name) continue;
    byName.set(r.constraint_name, [...(byName.get(r.constraint_name) ?? []), r]);
  }
  return [...byName.values()].map((parts) => ({
    columns: parts.map((p) => String(p.column_name)),
    referencedSchema:
      parts[0].referenced_table_schema === null ? null : String(parts[0].referenced_table_schema),
    referencedTable: String(parts[0].referenced_table_name),
    referencedColumns: parts.map((p) => String(p.referenced_column_name)),
  }));
}
