import { catalogComment, rowStatistic } from '../core/dialect';
import type {
  ColumnKind,
  DatabaseIdentity,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  ModelForeignKey,
  SqlPool,
  StatementRunner,
  TableKind,
  TableRef,
  UniqueKey,
} from '../core/dialect';
import { identityKey, STORE_FINGERPRINT } from '../own-store';
import { mssqlPlaceholder, mssqlQuote } from './compiler';

/**
 * Maps a SQL Server type name (`sys.types` spelling, any case, an optional `(…)` suffix ignored)
 * to a column kind (SQL Server docs, "Data types (Transact-SQL)"):
 * - `tinyint`, `smallint`, `int` → int; `bigint` → bigint;
 * - `decimal`, `numeric`, `money`, `smallmoney` → decimal (exact; read as text, see
 *   {@link MssqlDialect}); `real`, `float` → float; `bit` → boolean;
 * - `date` → date; `datetime`, `datetime2`, `smalldatetime` → timestamp (no offset);
 *   `datetimeoffset` → timestamptz; `time` → time;
 * - `uniqueidentifier` → uuid; `json` (SQL Server 2025) → json;
 * - `binary`, `varbinary` → binary;
 * - `xml`, `image`, `hierarchyid`, `geometry`, `geography`, `sql_variant` → other (their text
 *   form, compared only with null);
 * - everything else → text, including `timestamp`, which on SQL Server is `rowversion` (a binary
 *   row version, not a date).
 */
export function mssqlKind(dataType: string): ColumnKind {
  const t = dataType
    .toLowerCase()
    .replace(/\s*\(.*$/, '')
    .trim();
  switch (t) {
    case 'tinyint':
    case 'smallint':
    case 'int':
      return 'int';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
    case 'money':
    case 'smallmoney':
      return 'decimal';
    case 'real':
    case 'float':
      return 'float';
    case 'bit':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
    case 'datetime2':
    case 'smalldatetime':
      return 'timestamp';
    case 'datetimeoffset':
      return 'timestamptz';
    case 'time':
      return 'time';
    case 'uniqueidentifier':
      return 'uuid';
    case 'json':
      return 'json';
    case 'binary':
    case 'varbinary':
      return 'binary';
    // No equality or order on these (SQL Server docs for each type): compared only with null.
    case 'xml':
    case 'image':
    case 'hierarchyid':
    case 'geometry':
    case 'geography':
    case 'sql_variant':
      return 'other';
    default:
      return 'text';
  }
}

/**
 * The listing of {@link MssqlDialect.listTables}: user tables from `sys.tables` (not
 * `is_ms_shipped`, not SSMS's `sysdiagrams`) and user views from `sys.views` (not
 * `is_ms_shipped`), every schema. Columns `schema`, `name`, `kind` (`table` | `view`).
 */
export const MSSQL_LIST_TABLES_SQL = `SELECT s.name AS [schema], t.name AS [name], 'table' AS [kind] FROM sys.tables t
       JOIN sys.schemas s ON s.schema_id = t.schema_id
       WHERE t.is_ms_shipped = 0 AND NOT EXISTS (SELECT 1 FROM sys.extended_properties p
         WHERE p.major_id = t.object_id AND p.minor_id = 0 AND p.class = 1 AND p.name = N'microsoft_database_tools_support')
       UNION ALL
       SELECT s.name AS [schema], v.name AS [name], 'view' AS [kind] FROM sys.views v
       JOIN sys.schemas s ON s.schema_id = v.schema_id
       WHERE v.is_ms_shipped = 0
       ORDER BY [schema], [name]`;

/**
 * The `MS_Description` extended property of an object (`minor` 0) or of its column `minor`
 * (SQL Server docs, "sys.extended_properties": class 1 is an object or column; the property SSMS
 * and `sp_addextendedproperty` use for descriptions), as text: `value` is a `sql_variant` of at
 * most 7,500 bytes, so `nvarchar(4000)` holds it.
 */
function msDescription(minor: string): string {
  return `(SELECT CAST(p.value AS nvarchar(4000)) FROM sys.extended_properties p
           WHERE p.class = 1 AND p.major_id = o.object_id AND p.minor_id = ${minor} AND p.name = N'MS_Description')`;
}

/**
 * The column query of {@link MssqlDialect.introspect}: `sys.columns` of the objects in `ids`
 * (`OBJECT_ID(@p1), …`) that are user tables or views, with their type (an alias type resolved
 * to its system type), identity, computed and default flags, temporal period kind, and the
 * `MS_Description` of the column and of its table ({@link MssqlColumnRow}).
 */
export function mssqlColumnsSql(ids: string): string {
  return `SELECT s.name AS [schema_name], o.name AS [table_name],
         CASE WHEN o.type = 'V' THEN 'view' ELSE 'table' END AS [table_kind], c.name AS [column_name],
         CASE WHEN ty.is_user_defined = 1 AND ty.is_assembly_type = 0 THEN TYPE_NAME(ty.system_type_id) ELSE ty.name END AS [type_name],
         c.max_length AS [max_length], c.precision AS [precision], c.scale AS [scale], c.is_nullable AS [is_nullable], c.is_identity AS [is_identity], c.is_computed AS [is_computed],
         CAST(CASE WHEN c.default_object_id <> 0 THEN 1 ELSE 0 END AS bit) AS [has_default],
         COLUMNPROPERTY(c.object_id, c.name, 'GeneratedAlwaysType') AS [generated_always_type],
         ${msDescription('c.column_id')} AS [column_comment],
         ${msDescription('0')} AS [table_comment]
         FROM sys.columns c
         JOIN sys.objects o ON o.object_id = c.object_id AND o.type IN ('U', 'V')
         JOIN sys.schemas s ON s.schema_id = o.schema_id
         JOIN sys.types ty ON ty.user_type_id = c.user_type_id
         WHERE c.object_id IN (${ids})
         ORDER BY s.name, o.name, c.column_id`;
}

/** Tables per introspection query: one bound parameter each, well under SQL Server's 2,100. */
const INTROSPECTION_CHUNK = 500;

/** Text types whose `sys.columns.max_length` is a byte count of 2-byte characters. */
const UNICODE_TEXT = new Set(['nchar', 'nvarchar']);

const BYTE_TEXT = new Set(['char', 'varchar']);

/**
 * One row of the column catalog query of {@link MssqlDialect.introspect} (`sys.columns` joined to
 * its table, schema and type).
 */
export interface MssqlColumnRow {
  schema_name: string;
  table_name: string;
  /** `view` for a view (`sys.objects.type` `V`), else `table` (`U`). */
  table_kind: TableKind;
  column_name: string;
  /** The system type name; an alias type is resolved to its base type. */
  type_name: string;
  /** Bytes; -1 for `(max)` (SQL Server docs, "sys.columns"). */
  max_length: number;
  /** `sys.columns.precision`: digits of a decimal/numeric (absent in rows of older tests). */
  precision?: number;
  /** `sys.columns.scale`: decimals of a decimal/numeric, fractional-second digits of datetime2/time/datetimeoffset. */
  scale?: number;
  is_nullable: boolean;
  is_identity: boolean;
  is_computed: boolean;
  has_default: boolean;
  /** `COLUMNPROPERTY(…, 'GeneratedAlwaysType')`: 0, or 1/2 for temporal period columns; null before 2016. */
  generated_always_type: number | null;
  /** The column's `MS_Description` extended property, or null (absent in rows of older tests). */
  column_comment?: string | null;
  /** The table's or view's `MS_Description` extended property, or null; the same on each of its rows. */
  table_comment?: string | null;
}

/** One row of the primary key query: a key column, in key order. */
export interface MssqlKeyRow {
  schema_name: string;
  table_name: string;
  column_name: string;
}

/** One row of the foreign key query: one column pair of a foreign key, in key order. */
export interface MssqlForeignKeyRow {
  fk_id: number;
  schema_name: string;
  table_name: string;
  column_name: string;
  ref_schema: string;
  ref_table: string;
  ref_column: string;
}

/**
 * A model column from its catalog row (SQL Server docs, "sys.columns", "sys.types"):
 * - `maxLength` in characters for `char`/`varchar` (bytes = characters outside UTF-8 collations)
 *   and `nchar`/`nvarchar` (`max_length` / 2, as INFORMATION_SCHEMA's CHARACTER_MAXIMUM_LENGTH);
 *   null for `(max)` (-1), other text types and non-text types;
 * - `generated`: identity, computed, `rowversion`/`timestamp` and temporal period columns;
 *   `computed` for all of those but identity, since none can be written by INSERT or UPDATE.
 */
export function mssqlColumnFromCatalog(row: MssqlColumnRow): ModelColumn {
  const type = row.type_name.toLowerCase();
  const rowVersion = type === 'timestamp' || type === 'rowversion';
  const periodColumn = (row.generated_always_type ?? 0) > 0;
  const computed = Boolean(row.is_computed) || rowVersion || periodColumn;
  let maxLength: number | null = null;
  if (row.max_length > 0 && UNICODE_TEXT.has(type)) maxLength = Math.floor(row.max_length / 2);
  else if (row.max_length > 0 && BYTE_TEXT.has(type)) maxLength = row.max_length;
  const comment = catalogComment(row.column_comment);
  const declaredType = mssqlDeclaredType(row);
  return {
    name: row.column_name,
    dbType: type,
    ...(declaredType !== undefined && { declaredType }),
    kind: mssqlKind(type),
    nullable: Boolean(row.is_nullable),
    hasDefault: Boolean(row.has_default),
    generated: Boolean(row.is_identity) || computed,
    computed,
    maxLength,
    enum: null,
    ...(comment !== undefined && { comment }),
  };
}

/**
 * A column's type in full, as `CREATE TABLE` spells it (SQL Server docs, "sys.columns": lengths
 * in bytes, -1 for `max`; precision and scale): `nvarchar(50)` (`max_length` / 2), `varchar(max)`,
 * `varbinary(16)`, `decimal(10,2)`, `datetime2(3)`, `time(7)`, `datetimeoffset(0)`. Undefined
 * for a type without a size (`int`, `money`, `xml`: its `dbType` is the whole type) and when the
 * row lacks what the type needs (rows of older tests). Kept as `ModelColumn.declaredType`: the table variable of a write's `OUTPUT …
 * INTO` declares its columns with it, and a column's description names it.
 */
export function mssqlDeclaredType(row: MssqlColumnRow): string | undefined {
  const type = row.type_name.toLowerCase();
  const length = (bytes: number) => (row.max_length === -1 ? 'max' : String(bytes));
  switch (type) {
    case 'nchar':
    case 'nvarchar':
      return `${type}(${length(Math.floor(row.max_length / 2))})`;
    case 'char':
    case 'varchar':
    case 'binary':
    case 'varbinary':
      return `${type}(${length(row.max_length)})`;
    case 'decimal':
    case 'numeric':
      if (row.precision === undefined || row.scale === undefined) return undefined;
      return `${type}(${row.precision},${row.scale})`;
    case 'datetime2':
    case 'time':
    case 'datetimeoffset':
      return row.scale === undefined ? undefined : `${type}(${row.scale})`;
    default:
      return undefined;
  }
}

/**
 * Assembles introspected tables from the three catalog queries, in the order of `tables`; a table
 * the catalog does not hold (dropped, or not visible to the login) is left out. A table without a
 * schema is `dbo` (SQL Server docs, "Ownership and user-schema separation": the default schema).
 * Primary key columns come in `sys.index_columns.key_ordinal` order; foreign keys are grouped by
 * `sys.foreign_keys.object_id`, their column pairs in `constraint_column_id` order (docs,
 * "sys.index_columns", "sys.foreign_key_columns"). The kind is the column rows' `table_kind`
 * (a view declares no primary or foreign key, so those lists stay empty for it). A table's
 * `estimatedRows` is its {@link mssqlRowEstimatesSql} row's count ({@link rowStatistic}), its
 * `uniqueKeys` those of {@link mssqlUniqueKeys} (a view has none).
 */
export function mssqlTablesFromCatalog(
  tables: TableRef[],
  columns: MssqlColumnRow[],
  keys: MssqlKeyRow[],
  foreignKeys: MssqlForeignKeyRow[],
  estimates: MssqlRowEstimateRow[] = [],
  uniqueRows: MssqlUniqueKeyRow[] = [],
): IntrospectedTable[] {
  const id = (schema: string, name: string) => `${schema}\u0000${name}`;
  const uniques = mssqlUniqueKeys(uniqueRows, id);
  const out: IntrospectedTable[] = [];
  for (const table of tables) {
    const schema = table.schema ?? 'dbo';
    const key = id(schema, table.name);
    const own = columns.filter((c) => id(c.schema_name, c.table_name) === key);
    if (own.length === 0) continue;
    const fks = new Map<number, ModelForeignKey>();
    for (const r of foreignKeys) {
      if (id(r.schema_name, r.table_name) !== key) continue;
      let fk = fks.get(r.fk_id);
      if (!fk) {
        fk = {
          columns: [],
          referencedSchema: r.ref_schema,
          referencedTable: r.ref_table,
          referencedColumns: [],
        };
        fks.set(r.fk_id, fk);
      }
      fk.columns.push(r.column_name);
      fk.referencedColumns.push(r.ref_column);
    }
    const comment = catalogComment(own[0].table_comment);
    const estimatedRows =
      own[0].table_kind === 'view'
        ? undefined
        : rowStatistic(estimates.find((e) => id(e.schema_name, e.table_name) === key)?.row_count);
    out.push({
      schema,
      dbName: table.name,
      kind: own[0].table_kind === 'view' ? 'view' : 'table',
      ...(comment !== undefined && { comment }),
      ...(estimatedRows !== undefined && { estimatedRows }),
      columns: own.map(mssqlColumnFromCatalog),
      primaryKey: keys
        .filter((k) => id(k.schema_name, k.table_name) === key)
        .map((k) => k.column_name),
      foreignKeys: [...fks.values()],
      ...(own[0].table_kind !== 'view' && { uniqueKeys: uniques.get(key) ?? [] }),
    });
  }
  return out;
}

/** A row of {@link mssqlUniqueKeysSql}: one key column of a unique index, in key order. */
export interface MssqlUniqueKeyRow {
  schema_name: string;
  table_name: string;
  index_id: number;
  column_name: string;
  /** The column is computed (`sys.columns.is_computed`): never sent by a caller. */
  is_computed: boolean | number;
  /** A filtered index (`sys.indexes.has_filter`, `CREATE UNIQUE INDEX … WHERE …`). */
  has_filter: boolean | number;
}

/**
 * The unique keys besides the primary key of the tables asked for (`ids`: a list of
 * `OBJECT_ID(@pN)`): the key columns (`sys.index_columns.key_ordinal` order, included columns
 * left out) of every index that is unique (`sys.indexes.is_unique`, which a UNIQUE constraint's
 * index also is, `is_unique_constraint`), not the primary key, not disabled, not hypothetical
 * (SQL Server docs, "sys.indexes", "sys.index_columns"), in `index_id` order.
 */
export function mssqlUniqueKeysSql(ids: string): string {
  return `SELECT s.name AS [schema_name], t.name AS [table_name], i.index_id AS [index_id], c.name AS [column_name],
       c.is_computed AS [is_computed], i.has_filter AS [has_filter]
       FROM sys.indexes i
       JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0
       JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
       JOIN sys.tables t ON t.object_id = i.object_id
       JOIN sys.schemas s ON s.schema_id = t.schema_id
       WHERE i.is_unique = 1 AND i.is_primary_key = 0 AND i.is_disabled = 0 AND i.is_hypothetical = 0
         AND i.object_id IN (${ids})
       ORDER BY s.name, t.name, i.index_id, ic.key_ordinal`;
}

/**
 * The rows of {@link mssqlUniqueKeysSql} as unique keys per table (`key` names the table), in
 * index order: a filtered index, or one with a computed column, is `partial` (never an upsert
 * target: MERGE's ON would match rows outside the filter, and a computed value is never sent).
 */
export function mssqlUniqueKeys(
  rows: readonly MssqlUniqueKeyRow[],
  key: (schema: string, table: string) => string,
): Map<string, UniqueKey[]> {
  const indexes = new Map<string, { table: string; columns: string[]; partial: boolean }>();
  for (const r of rows) {
    const table = key(r.schema_name, r.table_name);
    const name = `${table}\u0000${r.index_id}`;
    let index = indexes.get(name);
    if (!index) indexes.set(name, (index = { table, columns: [], partial: false }));
    index.columns.push(r.column_name);
    if (Boolean(r.is_computed) || Boolean(r.has_filter)) index.partial = true;
  }
  const out = new Map<string, UniqueKey[]>();
  for (const { table, columns, partial } of indexes.values()) {
    out.set(table, [
      ...(out.get(table) ?? []),
      { columns, ...(partial && { partial: true as const }) },
    ]);
  }
  return out;
}

/** A row of {@link mssqlRowEstimatesSql}. */
export interface MssqlRowEstimateRow {
  schema_name: string;
  table_name: string;
  row_count: unknown;
}

/**
 * The rows of each table asked for (`ids`: a list of `OBJECT_ID(@pN)`), summed over its
 * partitions of the heap or clustered index (`index_id` 0 or 1): `sys.partitions.rows`, "the
 * approximate number of rows in this partition" (SQL Server docs, "sys.partitions"), which any
 * login that sees the table may read, where `sys.dm_db_partition_stats` needs VIEW DATABASE
 * STATE. SQL Server's column statistics (`DBCC SHOW_STATISTICS`) are not read: its foreign keys
 * carry no `fanOut`.
 */
export function mssqlRowEstimatesSql(ids: string): string {
  return `SELECT s.name AS [schema_name], t.name AS [table_name], SUM(p.rows) AS [row_count]
       FROM sys.partitions p
       JOIN sys.tables t ON t.object_id = p.object_id
       JOIN sys.schemas s ON s.schema_id = t.schema_id
       WHERE p.index_id IN (0, 1) AND p.object_id IN (${ids})
       GROUP BY s.name, t.name`;
}

/**
 * The database a connection reached: `DB_NAME()` on the server named by
 * `SERVERPROPERTY('ServerName')` (machine and instance, SQL Server docs "SERVERPROPERTY"), and
 * the first schema holding every table of `STORE_FINGERPRINT` (`sys.tables`). The metadata store
 * is never a SQL Server, so only the copy check can refuse one.
 */
export async function identifyMssql(run: StatementRunner): Promise<DatabaseIdentity> {
  const names = STORE_FINGERPRINT.map((_, i) => `@p${i + 1}`).join(', ');
  const { rows } = await run({
    sql:
      "SELECT DB_NAME() AS [database], CONVERT(NVARCHAR(256), SERVERPROPERTY('ServerName')) AS [server], " +
      '(SELECT TOP 1 s.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id ' +
      `WHERE t.name IN (${names}) GROUP BY s.name ` +
      `HAVING COUNT(DISTINCT t.name) = ${STORE_FINGERPRINT.length} ORDER BY s.name) AS [store_copy]`,
    params: [...STORE_FINGERPRINT],
  });
  const row = rows[0] ?? {};
  return {
    keys: [identityKey('mssql', 'server', String(row.server), String(row.database))],
    storeCopy: typeof row.store_copy === 'string' ? row.store_copy : null,
  };
}

/**
 * User tables and views of the connection's database, every schema (docs, "sys.tables" and
 * "sys.views": `is_ms_shipped` leaves system objects out; SSMS's `sysdiagrams` is marked by the
 * `microsoft_database_tools_support` extended property). See {@link MSSQL_LIST_TABLES_SQL}.
 */
export async function listMssqlTables(pool: SqlPool): Promise<ListedTable[]> {
  const { rows } = await pool.run({ sql: MSSQL_LIST_TABLES_SQL, params: [] });
  return rows.map((r) => ({
    schema: String(r.schema),
    name: String(r.name),
    kind: r.kind === 'view' ? 'view' : 'table',
  }));
}

/**
 * Columns (`sys.columns`, types resolved through `sys.types`), primary keys (`sys.indexes`
 * `is_primary_key`), unique keys ({@link mssqlUniqueKeysSql}) and foreign keys
 * (`sys.foreign_key_columns`) of the given tables and views;
 * a name without a schema is looked up in `dbo`. Names are resolved with `OBJECT_ID(@p)` and
 * kept when `sys.objects.type` is `U` (user table) or `V` (view) (docs, "sys.objects"); a view's
 * columns are in `sys.columns` like a table's (docs, "sys.columns": "views"), and it has no
 * key in `sys.indexes` or `sys.foreign_keys`. Table and column comments are their
 * `MS_Description` extended properties ({@link mssqlColumnsSql}). SQL Server has no enum types.
 */
export async function introspectMssql(
  pool: SqlPool,
  tables: TableRef[],
): Promise<IntrospectedTable[]> {
  const columns: MssqlColumnRow[] = [];
  const keys: MssqlKeyRow[] = [];
  const foreignKeys: MssqlForeignKeyRow[] = [];
  const estimates: MssqlRowEstimateRow[] = [];
  const uniqueRows: MssqlUniqueKeyRow[] = [];
  for (let i = 0; i < tables.length; i += INTROSPECTION_CHUNK) {
    const chunk = tables.slice(i, i + INTROSPECTION_CHUNK);
    const params = chunk.map((t) => `${mssqlQuote(t.schema ?? 'dbo')}.${mssqlQuote(t.name)}`);
    const ids = params.map((_, n) => `OBJECT_ID(${mssqlPlaceholder(n + 1)})`).join(', ');
    const c = await pool.run({ sql: mssqlColumnsSql(ids), params });
    const k = await pool.run({
      sql: `SELECT s.name AS [schema_name], t.name AS [table_name], c.name AS [column_name]
       FROM sys.indexes i
       JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
       JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
       JOIN sys.tables t ON t.object_id = i.object_id
       JOIN sys.schemas s ON s.schema_id = t.schema_id
       WHERE i.is_primary_key = 1 AND i.object_id IN (${ids})
       ORDER BY s.name, t.name, ic.key_ordinal`,
      params,
    });
    const f = await pool.run({
      sql: `SELECT fk.object_id AS [fk_id], ps.name AS [schema_name], pt.name AS [table_name], pc.name AS [column_name],
       rs.name AS [ref_schema], rt.name AS [ref_table], rc.name AS [ref_column]
       FROM sys.foreign_keys fk
       JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id
       JOIN sys.tables pt ON pt.object_id = fk.parent_object_id
       JOIN sys.schemas ps ON ps.schema_id = pt.schema_id
       JOIN sys.columns pc ON pc.object_id = fkc.parent_object_id AND pc.column_id = fkc.parent_column_id
       JOIN sys.tables rt ON rt.object_id = fk.referenced_object_id
       JOIN sys.schemas rs ON rs.schema_id = rt.schema_id
       JOIN sys.columns rc ON rc.object_id = fkc.referenced_object_id AND rc.column_id = fkc.referenced_column_id
       WHERE fk.parent_object_id IN (${ids})
       ORDER BY ps.name, pt.name, fk.name, fkc.constraint_column_id`,
      params,
    });
    const e = await pool.run({ sql: mssqlRowEstimatesSql(ids), params });
    const u = await pool.run({ sql: mssqlUniqueKeysSql(ids), params });
    uniqueRows.push(...(u.rows as unknown as MssqlUniqueKeyRow[]));
    estimates.push(...(e.rows as unknown as MssqlRowEstimateRow[]));
    columns.push(...(c.rows as unknown as MssqlColumnRow[]));
    keys.push(...(k.rows as unknown as MssqlKeyRow[]));
    foreignKeys.push(...(f.rows as unknown as MssqlForeignKeyRow[]));
  }
  return mssqlTablesFromCatalog(tables, columns, keys, foreignKeys, estimates, uniqueRows);
}
