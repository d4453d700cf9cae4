import { averageFanOut, catalogComment, rowStatistic } from '../core/dialect';
import type {
  ColumnKind,
  DatabaseIdentity,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  ModelForeignKey,
  SqlPool,
  StatementRunner,
  TableRef,
  UniqueKey,
} from '../core/dialect';
import { identityKey, STORE_FINGERPRINT } from '../own-store';

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
 * `TABLE_COMMENT` is the table's comment (`''` for none, the word `VIEW` for every view);
 * `TABLE_ROWS` the rows the storage engine estimates (InnoDB: an estimate from sampled pages,
 * NULL for views; MySQL 8 caches it for `information_schema_stats_expiry` seconds, so `ANALYZE
 * TABLE` refreshes it), read by {@link rowStatistic}.
 */
export function mysqlTablesSql(count: number): string {
  return (
    'SELECT TABLE_NAME AS `table_name`, TABLE_TYPE AS `table_type`, TABLE_COMMENT AS `table_comment`, TABLE_ROWS AS `table_rows` ' +
    `FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${placeholders(count)})`
  );
}

/**
 * The index statistics query of {@link MysqlDialect.introspect} for one schema (`?` first) and
 * `count` table names (MySQL "The INFORMATION_SCHEMA STATISTICS Table"): per column that leads an
 * index (`SEQ_IN_INDEX = 1`), the largest `CARDINALITY`, the engine's estimate of its distinct
 * values. InnoDB indexes every foreign-key column (MySQL "FOREIGN KEY Constraints"), so each
 * one-column foreign key has a row; {@link averageFanOut} divides the table's `TABLE_ROWS` by it.
 */
export function mysqlIndexCardinalitySql(count: number): string {
  return (
    'SELECT TABLE_NAME AS `table_name`, COLUMN_NAME AS `column_name`, MAX(CARDINALITY) AS `cardinality` ' +
    `FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${placeholders(count)}) AND SEQ_IN_INDEX = 1 ` +
    'GROUP BY TABLE_NAME, COLUMN_NAME'
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
 * The database a connection reached ({@link MYSQL_IDENTITY_SQL}): the URL's database (the one
 * schema a MySQL datasource reads) on a server keyed by `@@server_uuid` (MySQL ≥ 5.6; MariaDB
 * has no such variable, so it is read only when `VERSION()` does not say MariaDB) and by
 * `@@hostname`, `@@port`, `@@datadir` and `@@server_id` together, which MySQL and MariaDB both
 * have and which tell two servers apart even on one machine. `storeCopy` is the database when it
 * holds every table of `STORE_FINGERPRINT`.
 */
export async function identifyMysql(run: StatementRunner): Promise<DatabaseIdentity> {
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
export async function listMysqlTables(pool: SqlPool): Promise<ListedTable[]> {
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
 * - statistics: `estimatedRows` from `TABLE_ROWS` ({@link mysqlTablesSql}) and a one-column
 *   foreign key's `fanOut` from its index's cardinality ({@link mysqlIndexCardinalitySql}).
 */
export async function introspectMysql(
  pool: SqlPool,
  tables: TableRef[],
): Promise<IntrospectedTable[]> {
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
  const estimates = new Map<string, number>();
  const cardinalities = new Map<string, unknown>();
  const uniques = new Map<string, UniqueKey[]>();
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
        const rows = view ? undefined : rowStatistic(r.table_rows);
        if (rows !== undefined) estimates.set(k, rows);
      }
      const uniqueRows = await pool.run({
        sql: mysqlUniqueKeysSql(batch.length),
        params: [schema, ...batch],
      });
      for (const [k, keys] of mysqlUniqueKeys(uniqueRows.rows, (t) => id(schema, t))) {
        uniques.set(k, keys);
      }
      const indexRows = await pool.run({
        sql: mysqlIndexCardinalitySql(batch.length),
        params: [schema, ...batch],
      });
      for (const r of indexRows.rows) {
        cardinalities.set(
          `${id(schema, String(r.table_name))}\u0000${String(r.column_name)}`,
          r.cardinality,
        );
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
    const estimatedRows = estimates.get(id(schema, t.name));
    const uniqueKeys = uniques.get(id(schema, t.name));
    out.push({
      schema,
      dbName: t.name,
      kind: views.has(id(schema, t.name)) ? 'view' : 'table',
      ...(comment !== undefined && { comment }),
      ...(estimatedRows !== undefined && { estimatedRows }),
      ...(uniqueKeys && { uniqueKeys }),
      columns: cols.map(modelColumn),
      primaryKey: tableKeys
        .filter((k) => k.constraint_name === 'PRIMARY')
        .map((k) => String(k.column_name)),
      foreignKeys: foreignKeys(tableKeys).map((fk) => {
        const fanOut =
          fk.columns.length === 1
            ? averageFanOut(
                estimatedRows,
                cardinalities.get(`${id(schema, t.name)}\u0000${fk.columns[0]}`),
              )
            : undefined;
        return fanOut === undefined ? fk : { ...fk, fanOut };
      }),
    });
  }
  return out;
}

/**
 * The unique indexes besides `PRIMARY` of `count` tables of one schema (`?` the schema, then the
 * names), one row per index part in order (MySQL "The INFORMATION_SCHEMA STATISTICS Table":
 * `NON_UNIQUE = 0`; `SUB_PART` a prefix length; `COLUMN_NAME` NULL for a functional part).
 */
export function mysqlUniqueKeysSql(count: number): string {
  const list = Array.from({ length: count }, () => '?').join(', ');
  return (
    'SELECT TABLE_NAME AS `table_name`, INDEX_NAME AS `index_name`, COLUMN_NAME AS `column_name`, ' +
    'SUB_PART AS `sub_part` FROM information_schema.STATISTICS ' +
    `WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${list}) AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY' ` +
    'ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX'
  );
}

/**
 * The rows of {@link mysqlUniqueKeysSql} as unique keys per table (`key` names the table), in
 * index-name order: an index with a prefix or functional part is `partial` (never an upsert
 * target, but ON DUPLICATE KEY still matches it, so it counts against one unique key set).
 */
export function mysqlUniqueKeys(
  rows: Record<string, unknown>[],
  key: (table: string) => string,
): Map<string, UniqueKey[]> {
  const indexes = new Map<string, { table: string; columns: string[]; partial: boolean }>();
  for (const r of rows) {
    const table = String(r.table_name);
    const name = `${table}\u0000${String(r.index_name)}`;
    let index = indexes.get(name);
    if (!index) indexes.set(name, (index = { table, columns: [], partial: false }));
    if (r.column_name === null || r.column_name === undefined) index.partial = true;
    else index.columns.push(String(r.column_name));
    if (r.sub_part !== null && r.sub_part !== undefined) index.partial = true;
  }
  const out = new Map<string, UniqueKey[]>();
  for (const { table, columns, partial } of indexes.values()) {
    const k = key(table);
    out.set(k, [...(out.get(k) ?? []), { columns, ...(partial && { partial: true as const }) }]);
  }
  return out;
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
