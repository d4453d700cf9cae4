import { ARRAY_ELEMENT_KINDS, averageFanOut, catalogComment, rowStatistic } from '../core/dialect';
import type {
  ColumnKind,
  DatabaseEnum,
  DatabaseIdentity,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  SqlPool,
  StatementRunner,
  TableRef,
} from '../core/dialect';
import { identityKey, STORE_FINGERPRINT } from '../own-store';

/** Column names from the JSON text of an array (`["id","region"]`); an empty foreign side is []. */
/**
 * The unique indexes of the tables asked for (`$1` schemas, `$2` names) besides the primary key,
 * a UNIQUE constraint's included (PostgreSQL docs, "pg_index"): each one's key columns in order
 * (`indnkeyatts`, not the INCLUDE columns), and `partial` for a partial or expression index or a
 * deferrable constraint (`NOT indimmediate`), which ON CONFLICT cannot take as its arbiter.
 * Invalid indexes (a failed `CREATE INDEX CONCURRENTLY`) are left out.
 */
export const POSTGRES_UNIQUE_KEYS_SQL = `SELECT ns.nspname AS table_schema, cl.relname AS table_name,
    (ix.indpred IS NOT NULL OR ix.indexprs IS NOT NULL OR NOT ix.indimmediate) AS partial,
    array_to_json(ARRAY(SELECT a.attname FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(n, i)
          JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.n
          WHERE k.i <= ix.indnkeyatts ORDER BY k.i)::text[])::text AS columns
  FROM pg_index ix
  JOIN pg_class cl ON cl.oid = ix.indrelid
  JOIN pg_namespace ns ON ns.oid = cl.relnamespace
  JOIN pg_class ic ON ic.oid = ix.indexrelid
  WHERE ix.indisunique AND NOT ix.indisprimary AND ix.indisvalid
    AND ns.nspname = ANY($1) AND cl.relname = ANY($2)
  ORDER BY ic.relname`;

/**
 * The first key column of every valid, whole-table index of the tables asked for (`pg_index`:
 * `indkey[0]`, an expression index's 0 matching no column; partial indexes left out, as they
 * may not cover a row): a foreign key whose column leads one can be read per parent from it
 * (`ModelForeignKey.indexed`, ADR 0015).
 */
export const POSTGRES_INDEX_LEADS_SQL = `SELECT ns.nspname::text AS table_schema, cl.relname::text AS table_name,
    a.attname::text AS column_name
  FROM pg_index ix
  JOIN pg_class cl ON cl.oid = ix.indrelid
  JOIN pg_namespace ns ON ns.oid = cl.relnamespace
  JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = ix.indkey[0]
  WHERE ix.indisvalid AND ix.indpred IS NULL
    AND ns.nspname = ANY($1) AND cl.relname = ANY($2)`;

function columnNames(json: unknown): string[] {
  return typeof json === 'string' ? ((JSON.parse(json) as string[] | null) ?? []) : [];
}

/**
 * The element of a PostgreSQL array column, when the column reads as a GraphQL list (README
 * "Values"): `data_type` is `ARRAY` (information_schema.columns: an array, or a domain over one),
 * the element type (`pg_type.typname` of `typelem`, from `pg_catalog`) has a kind in
 * {@link ARRAY_ELEMENT_KINDS}, and the column declares at most one dimension (`pg_attribute.
 * attndims`: 0 for views and `CREATE TABLE AS`, 1 for `int[]`, 2 for `int[][]`; PostgreSQL docs,
 * "pg_attribute"). Anything else (`json[]`, `bytea[]`, arrays of enums, domains or ranges,
 * `int[][]`) is null: the column keeps its text form (kind `other`).
 */
export function postgresArrayElement(
  dataType: string,
  elementType: unknown,
  dimensions: unknown,
): { elementKind: ColumnKind; elementType: string } | null {
  if (dataType !== 'ARRAY' || typeof elementType !== 'string') return null;
  if (Number(dimensions ?? 0) > 1) return null;
  const elementKind = postgresKind(elementType);
  return ARRAY_ELEMENT_KINDS.has(elementKind) ? { elementKind, elementType } : null;
}

/** PostgreSQL's text types (PostgreSQL docs, "Character Types"; `citext` and `name` compare as text). */
const TEXT_TYPES = new Set(['text', 'varchar', 'char', 'bpchar', 'name', 'citext']);

/** Maps a PostgreSQL type name (information_schema spelling) to a column kind. */
export function postgresKind(dbType: string): ColumnKind {
  const t = dbType.toLowerCase();
  if (t === 'smallint' || t === 'integer' || t === 'int' || t === 'int2' || t === 'int4')
    return 'int';
  if (t === 'bigint' || t === 'int8') return 'bigint';
  // money prints with a currency symbol (`$12.50`): it stays text.
  if (t === 'numeric' || t === 'decimal') return 'decimal';
  if (t === 'real' || t === 'double precision' || t === 'float4' || t === 'float8') return 'float';
  if (t === 'boolean' || t === 'bool') return 'boolean';
  if (t === 'date') return 'date';
  if (t.startsWith('timestamp with time zone') || t === 'timestamptz') return 'timestamptz';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t.startsWith('time')) return 'time';
  if (t === 'json' || t === 'jsonb') return 'json';
  if (t === 'uuid') return 'uuid';
  if (t === 'bytea') return 'binary';
  // Text types, and enum or domain types (USER-DEFINED), whose text compares as text.
  if (TEXT_TYPES.has(t) || t.startsWith('character') || t === 'user-defined') return 'text';
  return 'other';
}

/**
 * A condition true when the relation aliased `alias` is not a partition: not a child, in
 * `pg_inherits`, of a partitioned table (relkind `p`). On PostgreSQL ≥ 10 this is exactly
 * `NOT relispartition` (PostgreSQL docs, "pg_class": "True if table or index is a partition");
 * read through `pg_inherits` so the same SQL also runs on servers before 10, which have no
 * partitions, and so a child of plain (legacy) inheritance, a table of its own, stays listed.
 */
export function notAPartition(alias: string): string {
  return `NOT EXISTS (SELECT 1 FROM pg_inherits inh JOIN pg_class parent ON parent.oid = inh.inhparent
       WHERE inh.inhrelid = ${alias}.oid AND parent.relkind = 'p')`;
}

/**
 * The listing of {@link PostgresDialect.listTables}: `pg_class` relations of kind `r`, `p`, `v`,
 * `m`, outside the system schemas, not temporary, not partitions, visible to the login under the
 * privilege test `information_schema.tables` applies (PostgreSQL docs, "tables" view: owner role,
 * or any table or column privilege). Columns `schema`, `name`, `kind` (`table` | `view`).
 */
export const POSTGRES_LIST_TABLES_SQL = `SELECT ns.nspname AS schema, cl.relname AS name,
    CASE WHEN cl.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS kind
  FROM pg_class cl JOIN pg_namespace ns ON ns.oid = cl.relnamespace
  WHERE cl.relkind IN ('r', 'p', 'v', 'm') AND cl.relpersistence <> 't'
    AND ns.nspname NOT IN ('pg_catalog', 'information_schema') AND ${notAPartition('cl')}
    AND (pg_has_role(cl.relowner, 'USAGE')
      OR has_table_privilege(cl.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
      OR has_any_column_privilege(cl.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))
  ORDER BY ns.nspname, cl.relname`;

/**
 * Columns of materialized views (relkind `m`) from `pg_attribute`, in the shape and spelling of
 * `information_schema.columns`, whose own definition (PostgreSQL source,
 * `information_schema.sql`) the `data_type` and `character_maximum_length` expressions copy: a
 * domain reads as its base type, arrays as `ARRAY`, types outside `pg_catalog` as `USER-DEFINED`.
 * A materialized view has no defaults, identity or generated columns. Parameters `$1` schemas,
 * `$2` names.
 */
export const POSTGRES_MATVIEW_COLUMNS_SQL = `SELECT ns.nspname::text, cl.relname::text, a.attname::text,
                (CASE WHEN ty.typtype = 'd' THEN
                   CASE WHEN bt.typelem <> 0 AND bt.typlen = -1 THEN 'ARRAY'
                        WHEN nbt.nspname = 'pg_catalog' THEN format_type(ty.typbasetype, NULL)
                        ELSE 'USER-DEFINED' END
                 ELSE
                   CASE WHEN ty.typelem <> 0 AND ty.typlen = -1 THEN 'ARRAY'
                        WHEN nty.nspname = 'pg_catalog' THEN format_type(a.atttypid, NULL)
                        ELSE 'USER-DEFINED' END
                 END)::text,
                (CASE WHEN a.attnotnull OR (ty.typtype = 'd' AND ty.typnotnull) THEN 'NO' ELSE 'YES' END)::text,
                NULL::text, 'NO'::text, 'NEVER'::text, NULL::text,
                information_schema._pg_char_max_length(information_schema._pg_truetypid(a.*, ty.*),
                  information_schema._pg_truetypmod(a.*, ty.*))::int,
                a.attnum::int
              FROM pg_attribute a
              JOIN pg_class cl ON cl.oid = a.attrelid
              JOIN pg_namespace ns ON ns.oid = cl.relnamespace
              JOIN pg_type ty ON ty.oid = a.atttypid
              JOIN pg_namespace nty ON nty.oid = ty.typnamespace
              LEFT JOIN (pg_type bt JOIN pg_namespace nbt ON nbt.oid = bt.typnamespace)
                ON ty.typtype = 'd' AND ty.typbasetype = bt.oid
              WHERE cl.relkind = 'm' AND a.attnum > 0 AND NOT a.attisdropped
                AND ns.nspname = ANY($1) AND cl.relname = ANY($2)`;

/**
 * The kind and comment of each relation asked for (PostgreSQL docs, "pg_class": `relkind`;
 * "System Information Functions": `obj_description(oid, 'pg_class')` reads `COMMENT ON TABLE`,
 * `COMMENT ON VIEW` and `COMMENT ON MATERIALIZED VIEW`). Parameters `$1` schemas, `$2` names.
 */
export const POSTGRES_RELATIONS_SQL = `SELECT ns.nspname AS table_schema, cl.relname AS table_name, cl.relkind::text AS relkind,
                obj_description(cl.oid, 'pg_class') AS comment
              FROM pg_class cl JOIN pg_namespace ns ON ns.oid = cl.relnamespace
              WHERE ns.nspname = ANY($1) AND cl.relname = ANY($2) AND cl.relkind IN ('r', 'p', 'v', 'm', 'f')`;

/**
 * What `information_schema.columns` does not say of a column, from `pg_attribute` (PostgreSQL
 * docs, "System Catalogs" and "System Information Functions"), for tables, views and
 * materialized views alike:
 * - `declared_type`: `format_type(atttypid, atttypmod)`, the type in full as `psql` prints it
 *   (`character varying(200)`, `numeric(12,2)`, `mood`, `inv.mood` outside the search path);
 * - `comment`: `col_description()`, i.e. `COMMENT ON COLUMN`;
 * - `enum_name`, `enum_values`: for a column of an enum type (`pg_type.typtype = 'e'`), or of a
 *   domain whose base type is one, the type's name and its labels in `pg_enum.enumsortorder`
 *   (the order PostgreSQL sorts them in) as JSON text; `[]` for an enum without labels. Arrays
 *   of an enum are not enums (they stay text form);
 * - `element_type`, `array_dims`: for a column of an array type (`typelem <> 0 AND typlen = -1`,
 *   information_schema's own test), or of a domain directly over one, the element type's
 *   `typname` when it lives in `pg_catalog` (else null), and the declared dimensions
 *   (`attndims`), for {@link postgresArrayElement}.
 * Parameters `$1` schemas, `$2` names.
 */
export const POSTGRES_COLUMN_DETAILS_SQL = `SELECT ns.nspname AS table_schema, cl.relname AS table_name, a.attname AS column_name,
                format_type(a.atttypid, a.atttypmod) AS declared_type,
                col_description(cl.oid, a.attnum) AS comment,
                et.typname AS enum_name,
                CASE WHEN et.oid IS NOT NULL THEN COALESCE((SELECT array_to_json(array_agg(e.enumlabel ORDER BY e.enumsortorder))
                  FROM pg_enum e WHERE e.enumtypid = et.oid)::text, '[]') END AS enum_values,
                CASE WHEN eln.nspname = 'pg_catalog' THEN el.typname::text END AS element_type,
                a.attndims::int AS array_dims
              FROM pg_attribute a
              JOIN pg_class cl ON cl.oid = a.attrelid
              JOIN pg_namespace ns ON ns.oid = cl.relnamespace
              JOIN pg_type ty ON ty.oid = a.atttypid
              LEFT JOIN pg_type et ON et.typtype = 'e'
                AND et.oid = (CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE ty.oid END)
              LEFT JOIN pg_type at ON at.typelem <> 0 AND at.typlen = -1
                AND at.oid = (CASE WHEN ty.typtype = 'd' THEN ty.typbasetype ELSE ty.oid END)
              LEFT JOIN (pg_type el JOIN pg_namespace eln ON eln.oid = el.typnamespace) ON el.oid = at.typelem
              WHERE a.attnum > 0 AND NOT a.attisdropped AND cl.relkind IN ('r', 'p', 'v', 'm', 'f')
                AND ns.nspname = ANY($1) AND cl.relname = ANY($2)`;

/**
 * The rows the planner's statistics expect in each table, partitioned table and materialized
 * view asked for: `pg_class.reltuples`, set by `VACUUM`, `ANALYZE` and `CREATE INDEX`, -1 (≥ 14)
 * or 0 (before 14) when never measured (PostgreSQL docs, "pg_class"; {@link rowStatistic} reads
 * both as unknown). Views have none. Parameters `$1` schemas, `$2` names.
 */
export const POSTGRES_ROW_ESTIMATES_SQL = `SELECT ns.nspname::text AS table_schema, cl.relname::text AS table_name, cl.reltuples::float8 AS reltuples
              FROM pg_class cl JOIN pg_namespace ns ON ns.oid = cl.relnamespace
              WHERE ns.nspname = ANY($1) AND cl.relname = ANY($2) AND cl.relkind IN ('r', 'p', 'm')`;

/**
 * Per column of the tables asked for, what `ANALYZE` found (PostgreSQL docs, "pg_stats"):
 * `null_frac`, the share of NULLs, and `n_distinct`, the distinct non-null values (above 0) or
 * their number as a negative share of the rows (below 0: -1 is unique). `pg_stats` shows only
 * columns the login may read. A table with inheritance children has two rows per column, its
 * own first (`inherited` false); a partitioned table only the inherited one. Parameters `$1`
 * schemas, `$2` names.
 */
export const POSTGRES_COLUMN_STATISTICS_SQL = `SELECT schemaname::text AS table_schema, tablename::text AS table_name, attname::text AS column_name,
                null_frac::float8 AS null_frac, n_distinct::float8 AS n_distinct
              FROM pg_stats WHERE schemaname = ANY($1) AND tablename = ANY($2)
              ORDER BY inherited`;

/**
 * The average fan-out of a foreign-key column from its {@link POSTGRES_COLUMN_STATISTICS_SQL}
 * row and its table's `reltuples`: distinct values are `n_distinct`, or `-n_distinct ×
 * reltuples` when negative ({@link averageFanOut}); undefined when either is unknown.
 */
export function postgresFanOut(
  reltuples: unknown,
  stats: Record<string, unknown> | undefined,
): number | undefined {
  if (!stats) return undefined;
  const rows = Number(reltuples);
  const nDistinct = Number(stats.n_distinct);
  const distinct = nDistinct < 0 ? -nDistinct * rows : nDistinct;
  return averageFanOut(rows, distinct, Number(stats.null_frac ?? 0));
}

/** The enum type of a {@link POSTGRES_COLUMN_DETAILS_SQL} row, or undefined when it has none. */
function enumOf(row: Record<string, unknown> | undefined): DatabaseEnum | undefined {
  if (!row || row.enum_name === null || row.enum_name === undefined) return undefined;
  const values =
    typeof row.enum_values === 'string' ? (JSON.parse(row.enum_values) as unknown) : [];
  return {
    name: String(row.enum_name),
    values: Array.isArray(values) ? values.map(String) : [],
  };
}

/**
 * Who a connection reached (see {@link PostgresDialect.identify}); every value as text, so the
 * pool's type parsers and the metadata store's default ones read it alike, and the start time in
 * UTC, so sessions in different time zones (the pool's is UTC) print it alike. `$1` is the table
 * names of `STORE_FINGERPRINT`, `$2` their number: the first schema (by name) holding all of them,
 * among tables, partitioned tables, views, materialized views and foreign tables.
 */
export const POSTGRES_IDENTITY_SQL = `SELECT current_database()::text AS database,
  to_char(pg_postmaster_start_time() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS started,
  COALESCE(has_function_privilege(to_regprocedure('pg_catalog.pg_control_system()'), 'EXECUTE'), false)::text AS control_readable,
  (SELECT n.nspname::text FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relname = ANY ($1::text[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    GROUP BY n.nspname HAVING count(DISTINCT c.relname) = $2::int
    ORDER BY n.nspname LIMIT 1) AS store_copy`;

/** The cluster's identifier, set by `initdb` (PostgreSQL docs, "System Information Functions"). */
export const POSTGRES_SYSTEM_IDENTIFIER_SQL =
  'SELECT system_identifier::text AS system_identifier FROM pg_catalog.pg_control_system()';

/**
 * The database a connection reached ({@link POSTGRES_IDENTITY_SQL}), with two keys: the
 * cluster's `system_identifier` (`pg_control_system()`, PostgreSQL ≥ 9.6; the same on a physical
 * replica, which holds the same data) with `current_database()`, when the login may call
 * `pg_control_system()` (PUBLIC may by default; a second statement, as a refused function fails
 * the whole statement that names it); and the server's `pg_postmaster_start_time()` with
 * `current_database()`, which every login may read. A schema holding every table of
 * `STORE_FINGERPRINT` is read from `pg_class`, whatever the login's privileges on it.
 */
export async function identifyPostgres(run: StatementRunner): Promise<DatabaseIdentity> {
  const { rows } = await run({
    sql: POSTGRES_IDENTITY_SQL,
    params: [[...STORE_FINGERPRINT], STORE_FINGERPRINT.length],
  });
  const row = rows[0] ?? {};
  const database = String(row.database);
  const keys = [identityKey('postgres', 'started', String(row.started), database)];
  if (row.control_readable === 'true') {
    const system = await run({ sql: POSTGRES_SYSTEM_IDENTIFIER_SQL, params: [] });
    const id = system.rows[0]?.system_identifier;
    if (typeof id === 'string' && id) keys.push(identityKey('postgres', 'system', id, database));
  }
  return { keys, storeCopy: typeof row.store_copy === 'string' ? row.store_copy : null };
}

/**
 * Tables, partitioned tables, views and materialized views of every schema but `pg_catalog` and
 * `information_schema`, read from `pg_class` (PostgreSQL docs, "pg_class": `relkind` `r` table,
 * `p` partitioned table, `v` view, `m` materialized view). Materialized views are not in
 * `information_schema.tables`, hence the catalog. Left out:
 * - partitions ({@link notAPartition}): their parent is the table, and holds their rows;
 * - temporary relations (`relpersistence = 't'`), which belong to another session;
 * - relations the login has no privilege on, as `information_schema.tables` leaves them out.
 */
export async function listPostgresTables(pool: SqlPool): Promise<ListedTable[]> {
  const { rows } = await pool.run({ sql: POSTGRES_LIST_TABLES_SQL, params: [] });
  return rows.map((r) => ({
    schema: String(r.schema),
    name: String(r.name),
    kind: r.kind === 'view' ? 'view' : 'table',
  }));
}

/**
 * Reads columns, primary keys, foreign keys and kind from `information_schema` and `pg_catalog`
 * (PostgreSQL docs, "The Information Schema" and "System Catalogs"). Not TypeORM's getTables:
 * for generated columns it reads a `typeorm_metadata` table that user databases do not have.
 * - Columns of tables, partitioned tables and views: `information_schema.columns`. Materialized
 *   views are not there ("columns" holds relkinds r, v, f, p only), so theirs come from
 *   `pg_attribute`, typed as `information_schema.columns.data_type` would type them
 *   ({@link POSTGRES_MATVIEW_COLUMNS_SQL}).
 * - Kind: `pg_class.relkind` `v` or `m` is a view, anything else a table; the table's
 *   comment from `obj_description()` ({@link POSTGRES_RELATIONS_SQL}).
 * - The full type (`declaredType`), the column comment and an enum type's name and labels
 *   (`dbEnum`) from `pg_attribute` ({@link POSTGRES_COLUMN_DETAILS_SQL}). An enum column's
 *   `data_type` is `USER-DEFINED`, so its kind stays text.
 * - Arrays: kind `array` with `elementKind` and `elementType` when {@link postgresArrayElement}
 *   finds a one-dimensional array of a supported element type, else `other` (text form).
 * - Keys: `pg_constraint`. A partitioned table declares its own primary and foreign keys on the
 *   parent (PostgreSQL ≥ 11). A foreign key referencing a partitioned table also gets one
 *   internal copy per partition (PostgreSQL ≥ 12, `conparentid` set); copies whose referenced
 *   table is a partition are left out, so only the key to the parent remains.
 * - Statistics: the table's `estimatedRows` ({@link POSTGRES_ROW_ESTIMATES_SQL}) and each
 *   one-column foreign key's `fanOut` ({@link POSTGRES_COLUMN_STATISTICS_SQL},
 *   {@link postgresFanOut}), absent while the table was never analyzed.
 */
export async function introspectPostgres(
  pool: SqlPool,
  tables: TableRef[],
): Promise<IntrospectedTable[]> {
  if (tables.length === 0) return [];
  const wanted = (schema: unknown, name: unknown) =>
    tables.some((t) => (t.schema ?? 'public') === schema && t.name === name);
  const schemas = [...new Set(tables.map((t) => t.schema ?? 'public'))];
  const names = [...new Set(tables.map((t) => t.name))];
  const params = [schemas, names];
  const columns = (
    await pool.run({
      sql: `SELECT table_schema::text AS table_schema, table_name::text AS table_name, column_name::text AS column_name,
              data_type::text AS data_type, is_nullable::text AS is_nullable, column_default::text AS column_default,
              is_identity::text AS is_identity, is_generated::text AS is_generated,
              identity_generation::text AS identity_generation,
              character_maximum_length::int AS character_maximum_length, ordinal_position::int AS ordinal_position
            FROM information_schema.columns
            WHERE table_schema = ANY($1) AND table_name = ANY($2)
            UNION ALL
            ${POSTGRES_MATVIEW_COLUMNS_SQL}
            ORDER BY table_schema, table_name, ordinal_position`,
      params,
    })
  ).rows.filter((r) => wanted(r.table_schema, r.table_name));
  const relkinds = (await pool.run({ sql: POSTGRES_RELATIONS_SQL, params })).rows;
  const keys = (
    await pool.run({
      sql: `SELECT ns.nspname AS table_schema, cl.relname AS table_name, con.contype, con.conname,
              fns.nspname AS ref_schema, fcl.relname AS ref_table,
              array_to_json(ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i)::text[])::text AS columns,
              array_to_json(ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)::text[])::text AS ref_columns
            FROM pg_constraint con
            JOIN pg_class cl ON cl.oid = con.conrelid
            JOIN pg_namespace ns ON ns.oid = cl.relnamespace
            LEFT JOIN pg_class fcl ON fcl.oid = con.confrelid
            LEFT JOIN pg_namespace fns ON fns.oid = fcl.relnamespace
            WHERE con.contype IN ('p', 'f') AND ns.nspname = ANY($1) AND cl.relname = ANY($2)
              AND (con.contype = 'p' OR ${notAPartition('fcl')})
            ORDER BY con.conname`,
      params,
    })
  ).rows.filter((r) => wanted(r.table_schema, r.table_name));
  const details = (await pool.run({ sql: POSTGRES_COLUMN_DETAILS_SQL, params })).rows.filter((r) =>
    wanted(r.table_schema, r.table_name),
  );
  const estimates = (await pool.run({ sql: POSTGRES_ROW_ESTIMATES_SQL, params })).rows;
  const statistics = (await pool.run({ sql: POSTGRES_COLUMN_STATISTICS_SQL, params })).rows;
  const uniques = (await pool.run({ sql: POSTGRES_UNIQUE_KEYS_SQL, params })).rows.filter((r) =>
    wanted(r.table_schema, r.table_name),
  );
  const leads = (await pool.run({ sql: POSTGRES_INDEX_LEADS_SQL, params })).rows;
  return tables
    .map((t): IntrospectedTable | null => {
      const schema = t.schema ?? 'public';
      const mine = (r: Record<string, unknown>) =>
        r.table_schema === schema && r.table_name === t.name;
      const own = columns.filter(mine);
      if (own.length === 0) return null;
      const constraints = keys.filter(mine);
      const primary = constraints.find((k) => k.contype === 'p');
      const uniqueKeys = uniques.filter(mine).map((u) => ({
        columns: columnNames(u.columns),
        ...(u.partial === true && { partial: true as const }),
      }));
      const relation = relkinds.find(mine);
      const relkind = relation?.relkind;
      const comment = catalogComment(relation?.comment);
      const detailsOf = details.filter(mine);
      const reltuples = estimates.find(mine)?.reltuples;
      const estimatedRows = rowStatistic(reltuples);
      const statsOf = statistics.filter(mine);
      return {
        schema,
        dbName: t.name,
        kind: relkind === 'v' || relkind === 'm' ? 'view' : 'table',
        ...(comment !== undefined && { comment }),
        ...(estimatedRows !== undefined && { estimatedRows }),
        ...(uniqueKeys.length > 0 && { uniqueKeys }),
        columns: own.map((c): ModelColumn => {
          const serial =
            typeof c.column_default === 'string' && c.column_default.startsWith('nextval(');
          // GENERATED ALWAYS AS IDENTITY refuses a value in INSERT and UPDATE alike (PostgreSQL
          // docs, CREATE TABLE: only with OVERRIDING SYSTEM VALUE), like a generated column.
          const identityAlways = c.is_identity === 'YES' && c.identity_generation === 'ALWAYS';
          const computed = c.is_generated === 'ALWAYS' || identityAlways;
          const detail = detailsOf.find((d) => d.column_name === c.column_name);
          const dbEnum = enumOf(detail);
          const columnComment = catalogComment(detail?.comment);
          const element = postgresArrayElement(
            String(c.data_type),
            detail?.element_type,
            detail?.array_dims,
          );
          return {
            name: String(c.column_name),
            dbType: String(c.data_type),
            kind: element ? 'array' : postgresKind(String(c.data_type)),
            ...element,
            nullable: c.is_nullable === 'YES',
            hasDefault: c.column_default !== null && !serial && !computed,
            generated: serial || c.is_identity === 'YES' || computed,
            computed,
            maxLength:
              c.character_maximum_length === null ? null : Number(c.character_maximum_length),
            enum: null,
            ...(typeof detail?.declared_type === 'string' && {
              declaredType: detail.declared_type,
            }),
            ...(dbEnum && { dbEnum }),
            ...(columnComment !== undefined && { comment: columnComment }),
          };
        }),
        // Arrays come as JSON text: the pool keeps every array type as PostgreSQL's text form.
        primaryKey: primary ? columnNames(primary.columns) : [],
        foreignKeys: constraints
          .filter((k) => k.contype === 'f')
          .map((k) => {
            const fkColumns = columnNames(k.columns);
            const fanOut =
              fkColumns.length === 1
                ? postgresFanOut(
                    reltuples,
                    statsOf.find((r) => r.column_name === fkColumns[0]),
                  )
                : undefined;
            const indexed =
              fkColumns.length === 1 &&
              leads.some((r) => mine(r) && r.column_name === fkColumns[0]);
            return {
              columns: fkColumns,
              referencedSchema: String(k.ref_schema),
              referencedTable: String(k.ref_table),
              referencedColumns: columnNames(k.ref_columns),
              ...(fanOut !== undefined && { fanOut }),
              ...(indexed && { indexed: true }),
            };
          }),
      };
    })
    .filter((t): t is IntrospectedTable => t !== null);
}
