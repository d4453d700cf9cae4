import { catalogComment } from './core/dialect';
import type {
  PoolOptions,
  Capabilities,
  ColumnKind,
  CompiledQuery,
  Condition,
  DatabaseIdentity,
  DatabaseRefusal,
  Dialect,
  InsertPlan,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  ModelForeignKey,
  SelectPlan,
  SqlPool,
  StatementRunner,
  TableKind,
  TableRef,
  UpdatePlan,
  WriteContext,
} from './core/dialect';
import { identityKey, STORE_FINGERPRINT } from './own-store';
import { translateMssqlError } from './mssql-errors';
import { MssqlConfig, MssqlPool, parseMssqlUrl } from './mssql-pool';
import { ParamList, SqlCompiler } from './core/sql-compiler';
import { formatCommon, jsonText } from './core/value-format';

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
         c.max_length AS [max_length], c.is_nullable AS [is_nullable], c.is_identity AS [is_identity], c.is_computed AS [is_computed],
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
  return {
    name: row.column_name,
    dbType: type,
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
 * Assembles introspected tables from the three catalog queries, in the order of `tables`; a table
 * the catalog does not hold (dropped, or not visible to the login) is left out. A table without a
 * schema is `dbo` (SQL Server docs, "Ownership and user-schema separation": the default schema).
 * Primary key columns come in `sys.index_columns.key_ordinal` order; foreign keys are grouped by
 * `sys.foreign_keys.object_id`, their column pairs in `constraint_column_id` order (docs,
 * "sys.index_columns", "sys.foreign_key_columns"). The kind is the column rows' `table_kind`
 * (a view declares no primary or foreign key, so those lists stay empty for it).
 */
export function mssqlTablesFromCatalog(
  tables: TableRef[],
  columns: MssqlColumnRow[],
  keys: MssqlKeyRow[],
  foreignKeys: MssqlForeignKeyRow[],
): IntrospectedTable[] {
  const id = (schema: string, name: string) => `${schema}\u0000${name}`;
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
    out.push({
      schema,
      dbName: table.name,
      kind: own[0].table_kind === 'view' ? 'view' : 'table',
      ...(comment !== undefined && { comment }),
      columns: own.map(mssqlColumnFromCatalog),
      primaryKey: keys
        .filter((k) => id(k.schema_name, k.table_name) === key)
        .map((k) => k.column_name),
      foreignKeys: [...fks.values()],
    });
  }
  return out;
}

/**
 * SQL Server adapter (`mssql` v12 over tedious; SQL Server 2012+ for OFFSET/FETCH).
 *
 * - Identifiers in brackets, `]` doubled (SQL Server docs, "Database identifiers"); placeholders
 *   `@p1, @p2…` bound by {@link MssqlPool}.
 * - Pages: `ORDER BY … OFFSET @p ROWS [FETCH NEXT @p ROWS ONLY]` (docs, "SELECT - ORDER BY
 *   clause"); the planner's order always ends with the primary key, so pages are stable. FETCH
 *   refuses 0 rows (error 10744), so `take: 0` compiles to a false filter. ORDER BY names are
 *   qualified by the table (`[customer].[id]`): a bare name in ORDER BY would sort by a select-list
 *   alias of the same name first, i.e. by the text of a decimal read as text.
 * - NULL is the smallest value: first under ASC, last under DESC, natively (docs, "ORDER BY").
 * - `contains`/`startsWith`/`endsWith`: `LOWER(CAST(col AS NVARCHAR(MAX))) COLLATE
 *   Latin1_General_100_BIN2 LIKE LOWER(@p) ESCAPE '\'`, so case is ignored and nothing else is,
 *   whatever the column's collation (case- or accent-sensitive or not); `%`, `_`, `[` and `\` are
 *   escaped (docs, "LIKE": `[` opens a character class).
 * - Writes read back with `OUTPUT INSERTED.…` (docs, "OUTPUT clause"), placed before `VALUES`/
 *   `DEFAULT VALUES` and before `WHERE`. A table with an enabled trigger refuses OUTPUT without
 *   INTO (error 334).
 * - Decimal-kind columns (`decimal`, `numeric`, `money`, `smallmoney`) are read as
 *   `CONVERT(NVARCHAR(64), col, 2) AS [col]` in select and OUTPUT lists: tedious returns them as JS
 *   numbers, which lose digits; style 2 keeps money's four decimals (style 0 would round to two) and
 *   does not apply to decimal/numeric (docs, "CAST and CONVERT", money styles).
 * - Values (CONTRACT.md §6): with `useUTC` tedious gives `datetime`/`datetime2`/`smalldatetime` and
 *   `date` as Dates whose UTC fields are the stored value, `datetimeoffset` as the instant; they
 *   are formatted from UTC fields only, so the process time zone never applies. `bigint` comes as
 *   exact text, `bit` as boolean, `uniqueidentifier` lower-cased.
 */
export class MssqlDialect extends SqlCompiler implements Dialect {
  readonly type = 'mssql' as const;
  protected override readonly likeSpecials = '%_[';

  /**
   * Opens a pool to `url` (see {@link parseMssqlUrl} for its shape).
   * @throws DomainError INVALID_INPUT for a malformed URL; the driver's ConnectionError when the
   *   server cannot be reached or refuses the login.
   */
  async open(url: string, options: PoolOptions): Promise<SqlPool> {
    const config = this.connectionConfig(url, options.poolSize);
    // The service's statement deadline is the request timeout; the pool waits as long as allowed.
    return MssqlPool.open(
      {
        ...config,
        requestTimeout: options.statementTimeoutMs,
        pool: { ...config.pool, acquireTimeoutMillis: options.acquireTimeoutMs },
      },
      options.statementTimeoutMs,
      options.verifyConnection,
    );
  }

  /** The pool configuration of `url`; see {@link parseMssqlUrl}. @throws DomainError INVALID_INPUT. */
  connectionConfig(url: string, poolSize = 10): MssqlConfig {
    return parseMssqlUrl(url, poolSize);
  }

  /** OUTPUT exists on every supported version (2005+). */
  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /**
   * The database a connection reached: `DB_NAME()` on the server named by
   * `SERVERPROPERTY('ServerName')` (machine and instance, SQL Server docs "SERVERPROPERTY"), and
   * the first schema holding every table of `STORE_FINGERPRINT` (`sys.tables`). The metadata store
   * is never a SQL Server, so only the copy check can refuse one.
   */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
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
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    const { rows } = await pool.run({ sql: MSSQL_LIST_TABLES_SQL, params: [] });
    return rows.map((r) => ({
      schema: String(r.schema),
      name: String(r.name),
      kind: r.kind === 'view' ? 'view' : 'table',
    }));
  }

  /**
   * Columns (`sys.columns`, types resolved through `sys.types`), primary keys (`sys.indexes`
   * `is_primary_key`) and foreign keys (`sys.foreign_key_columns`) of the given tables and views;
   * a name without a schema is looked up in `dbo`. Names are resolved with `OBJECT_ID(@p)` and
   * kept when `sys.objects.type` is `U` (user table) or `V` (view) (docs, "sys.objects"); a view's
   * columns are in `sys.columns` like a table's (docs, "sys.columns": "views"), and it has no
   * key in `sys.indexes` or `sys.foreign_keys`. Table and column comments are their
   * `MS_Description` extended properties ({@link mssqlColumnsSql}). SQL Server has no enum types.
   */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    const columns: MssqlColumnRow[] = [];
    const keys: MssqlKeyRow[] = [];
    const foreignKeys: MssqlForeignKeyRow[] = [];
    for (let i = 0; i < tables.length; i += INTROSPECTION_CHUNK) {
      const chunk = tables.slice(i, i + INTROSPECTION_CHUNK);
      const params = chunk.map((t) => `${this.quote(t.schema ?? 'dbo')}.${this.quote(t.name)}`);
      const ids = params.map((_, n) => `OBJECT_ID(${this.placeholder(n + 1)})`).join(', ');
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
      columns.push(...(c.rows as unknown as MssqlColumnRow[]));
      keys.push(...(k.rows as unknown as MssqlKeyRow[]));
      foreignKeys.push(...(f.rows as unknown as MssqlForeignKeyRow[]));
    }
    return mssqlTablesFromCatalog(tables, columns, keys, foreignKeys);
  }

  /** `[name]`, with `]` doubled (SQL Server docs, "Database identifiers", delimited identifiers). */
  quote(identifier: string): string {
    return `[${identifier.replace(/]/g, ']]')}]`;
  }

  protected placeholder(index: number): string {
    return `@p${index}`;
  }

  protected likeInsensitive(column: string, pattern: string): string {
    return `LOWER(CAST(${column} AS NVARCHAR(MAX))) COLLATE Latin1_General_100_BIN2 LIKE LOWER(${pattern}) ESCAPE '\\'`;
  }

  /** `OFFSET @p ROWS` and, with a take, `FETCH NEXT @p ROWS ONLY`; nothing for neither. */
  protected override paginate(take: number | null, skip: number, params: ParamList): string {
    if (take === null) return skip > 0 ? ` OFFSET ${params.add(skip)} ROWS` : '';
    return ` OFFSET ${params.add(skip)} ROWS FETCH NEXT ${params.add(take)} ROWS ONLY`;
  }

  /** A decimal-kind column as exact text, named as the column; anything else as is. */
  protected override selectItem(column: string, kind: ColumnKind | undefined): string {
    return this.readItem(this.quote(column), column, kind);
  }

  /** ` OUTPUT INSERTED.[a], …` (decimals as text), or '' when nothing is read back. */
  protected override returning(columns: string[], kinds?: Record<string, ColumnKind>): string {
    if (!columns.length) return '';
    return ` OUTPUT ${columns.map((c) => this.readItem(`INSERTED.${this.quote(c)}`, c, kinds?.[c])).join(', ')}`;
  }

  /**
   * The shared SELECT, with ORDER BY names qualified by the table's exposed name and `take: 0` as a
   * false filter (see the class notes); the partitioned read is the shared one (inside `OVER (…)`
   * names are the table's, never select-list aliases).
   */
  override compileSelect(plan: SelectPlan): CompiledQuery {
    if (plan.partition) return super.compileSelect(plan);
    const params = this.parameters();
    const columns = plan.columns.map((c) => this.selectItem(c, plan.kinds?.[c])).join(', ');
    const none = plan.take === 0;
    const filter: Condition = none
      ? { kind: 'and', items: [this.filterOf(plan), { kind: 'or', items: [] }] }
      : this.filterOf(plan);
    const where = this.whereClause(filter, params);
    const exposed = this.quote(plan.table.name);
    const order = plan.order
      .map((o) =>
        this.orderTerm(`${exposed}.${this.quote(o.column)}`, o.direction, o.nullable ?? true),
      )
      .join(', ');
    const page = none ? '' : this.paginate(plan.take, plan.skip, params);
    return {
      sql: `SELECT ${columns} FROM ${this.tableName(plan.table)}${where} ORDER BY ${order}${page}`,
      params: params.values,
    };
  }

  /** `INSERT INTO t (…) OUTPUT INSERTED.… VALUES (…)`, or `INSERT INTO t OUTPUT … DEFAULT VALUES`. */
  override compileInsert(plan: InsertPlan): CompiledQuery {
    const params = this.parameters();
    const target = this.tableName(plan.table);
    const output = this.returning(plan.returning, plan.kinds);
    if (!plan.values.length)
      return { sql: `INSERT INTO ${target}${output} DEFAULT VALUES`, params: [] };
    const columns = plan.values.map((v) => this.quote(v.column)).join(', ');
    const values = plan.values.map((v) => params.add(v.value)).join(', ');
    return {
      sql: `INSERT INTO ${target} (${columns})${output} VALUES (${values})`,
      params: params.values,
    };
  }

  /** `UPDATE t SET … OUTPUT INSERTED.… WHERE …`; only the given columns change. */
  override compileUpdate(plan: UpdatePlan): CompiledQuery {
    const params = this.parameters();
    const set = plan.set.map((v) => `${this.quote(v.column)} = ${params.add(v.value)}`).join(', ');
    const output = this.returning(plan.returning, plan.kinds);
    const where = this.whereClause(this.filterOf(plan), params);
    return {
      sql: `UPDATE ${this.tableName(plan.table)} SET ${set}${output}${where}`,
      params: params.values,
    };
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateMssqlError(error, context);
  }

  /**
   * Values as `mssql` binds them well: 64-bit integer text becomes a JS bigint (bound as `bigint`,
   * exact); timestamp text gets the ISO `T` (`2024-01-02T03:04:05`, date-only text midnight), the
   * form SQL Server reads the same under every DATEFORMAT and language (docs, "datetime", ISO 8601
   * format). Booleans bind as bit; decimal text stays text (converted by the server to the column's
   * type); everything else as given.
   */
  bindValue(column: ModelColumn, value: unknown): unknown {
    if (column.kind === 'json' && value !== null && value !== undefined) return jsonText(value);
    if (column.kind === 'bigint' && typeof value === 'string' && /^-?\d{1,19}$/.test(value)) {
      const n = BigInt(value);
      if (n >= -(2n ** 63n) && n < 2n ** 63n) return n;
    }
    if (column.kind === 'timestamp' && typeof value === 'string') {
      const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?$/.exec(
        value.trim(),
      );
      if (m) return `${m[1]}T${m[2] ?? '00:00:00'}`;
    }
    return value;
  }

  /**
   * The contract's output form (CONTRACT.md §6 Values) of a tedious value: timestamp Dates as
   * `YYYY-MM-DDTHH:mm:ss[.fff]` from their UTC fields (the stored value under `useUTC`), time Dates
   * as `HH:mm:ss[.fff]`, uuids lower-cased; the rest as every adapter formats it (datetimeoffset
   * `…sssZ`, date `YYYY-MM-DD`, bigint/decimal exact text, bit boolean, binary base64).
   */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    if (raw === null || raw === undefined) return null;
    if (raw instanceof Date && !Number.isNaN(raw.getTime())) {
      if (column.kind === 'timestamp') return utcTimestamp(raw);
      if (column.kind === 'time') return utcTime(raw);
    }
    if (column.kind === 'uuid' && typeof raw === 'string') return raw.toLowerCase();
    return formatCommon(column, raw);
  }

  private readItem(expression: string, column: string, kind: ColumnKind | undefined): string {
    return kind === 'decimal'
      ? `CONVERT(NVARCHAR(64), ${expression}, 2) AS ${this.quote(column)}`
      : expression;
  }
}

/** `YYYY-MM-DDTHH:mm:ss[.fff]` from a Date's UTC fields (`.fff` only when not zero). */
function utcTimestamp(date: Date): string {
  const iso = date.toISOString();
  const ms = date.getUTCMilliseconds();
  // toISOString gives `+YYYYYY-…` only beyond year 9999, which SQL Server cannot store.
  return ms ? iso.slice(0, 23) : iso.slice(0, 19);
}

/** `HH:mm:ss[.fff]` from a Date's UTC fields. */
function utcTime(date: Date): string {
  const iso = date.toISOString();
  return date.getUTCMilliseconds() ? iso.slice(11, 23) : iso.slice(11, 19);
}
