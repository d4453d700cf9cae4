import { DomainError } from '../../common/domain-error';
import { averageFanOut, rowStatistic, SQLITE_COUNT_CAP } from '../core/dialect';
import type {
  ColumnKind,
  DatabaseIdentity,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  SqlPool,
  StatementRunner,
  TableRef,
  UniqueKey,
} from '../core/dialect';
import { sqliteFileKeys, STORE_FINGERPRINT } from '../own-store';

/** Maps a declared SQLite column type to a kind, following SQLite's affinity rules (sqlite.org/datatype3.html §3.1). */
export function sqliteKind(declared: string): ColumnKind {
  const t = declared.toUpperCase();
  if (t.includes('BIGINT') || t.includes('INT8')) return 'bigint';
  if (t.includes('BOOL')) return 'boolean';
  if (t.includes('INT')) return 'int';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'float';
  if (t.includes('DEC') || t.includes('NUMERIC')) return 'decimal';
  if (t.includes('DATETIME') || t.includes('TIMESTAMP')) return 'timestamp';
  if (t.includes('DATE')) return 'date';
  if (t.includes('TIME')) return 'time';
  if (t.includes('JSON')) return 'json';
  // Only a declared BLOB: an undeclared type has BLOB affinity too but holds anything.
  if (t.includes('BLOB')) return 'binary';
  return 'text';
}

interface PragmaColumn {
  name: string;
  type: string;
  notnull: bigint;
  dflt_value: string | null;
  pk: bigint;
  hidden: bigint;
}

interface PragmaForeignKey {
  id: bigint;
  seq: bigint;
  table: string;
  from: string;
  to: string | null;
}

/**
 * What `ANALYZE` stored for a table (sqlite.org/fileformat2.html#stat1tab): one `sqlite_stat1`
 * row per index (`idx` its name), or one with `idx` NULL for a table without indexes. `stat` is
 * integers separated by spaces: the table's rows, then for each leading column of the index the
 * average rows per distinct value of the columns up to it. Parameter: the table's name.
 */
export const SQLITE_STAT1_SQL = `SELECT idx, stat FROM sqlite_stat1 WHERE tbl = ?`;

/** Whether the database holds `sqlite_stat1` (created by the first `ANALYZE`). */
export const SQLITE_HAS_STAT1_SQL = `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`;

/**
 * The fallback when `sqlite_stat1` says nothing of a table: its rows, counted up to
 * {@link SQLITE_COUNT_CAP}, and the distinct values of one column among those rows (bounded by
 * the same cap, so one import never scans a large table whole). `table`, `column` are quoted
 * identifiers.
 */
export function sqliteCountSql(table: string, column?: string): string {
  return column === undefined
    ? `SELECT count(*) AS n FROM (SELECT 1 FROM ${table} LIMIT ${SQLITE_COUNT_CAP})`
    : `SELECT count(*) AS n, count(DISTINCT c) AS d, count(c) AS nn FROM (SELECT ${column} AS c FROM ${table} LIMIT ${SQLITE_COUNT_CAP})`;
}

/**
 * The statistics of one table from its `sqlite_stat1` rows ({@link SQLITE_STAT1_SQL}): the
 * rows (first integer of any row) and, per column leading an index, the average rows per
 * distinct value (the index's second integer). Empty when there are no rows.
 */
export function sqliteStat1(rows: { stat: unknown; leading?: string | null }[]): {
  rows?: number;
  fanOut: Map<string, number>;
} {
  const fanOut = new Map<string, number>();
  let tableRows: number | undefined;
  for (const r of rows) {
    const parts = String(r.stat ?? '')
      .split(' ')
      .filter((p) => /^\d+$/.test(p))
      .map(Number);
    tableRows ??= rowStatistic(parts[0]);
    const perValue = rowStatistic(parts[1]);
    if (r.leading && perValue !== undefined)
      fanOut.set(r.leading, Math.max(perValue, fanOut.get(r.leading) ?? 0));
  }
  return { ...(tableRows !== undefined && { rows: tableRows }), fanOut };
}

/** A SQLite identifier in double quotes (sqlite.org/lang_keywords.html). */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Statistics of one table for {@link introspectSqlite}: from `sqlite_stat1` where `ANALYZE` left
 * rows for it (the leading column of each index read through `pragma_index_info`), else counted
 * ({@link sqliteCountSql}): the rows, and a foreign key whose column leads no analyzed index gets
 * its non-null rows over its distinct values among the first {@link SQLITE_COUNT_CAP} rows.
 * Views have none.
 */
async function sqliteStatistics(
  pool: SqlPool,
  table: string,
  hasStat1: boolean,
  fkColumns: string[],
): Promise<{ rows?: number; fanOut: Map<string, number> }> {
  let analyzed: { rows?: number; fanOut: Map<string, number> } = { fanOut: new Map() };
  if (hasStat1) {
    const rows: { stat: unknown; leading?: string | null }[] = [];
    for (const r of (await pool.run({ sql: SQLITE_STAT1_SQL, params: [table] })).rows) {
      const leading =
        typeof r.idx === 'string'
          ? (
              await pool.run({
                sql: `SELECT name FROM pragma_index_info(?) WHERE seqno = 0`,
                params: [r.idx],
              })
            ).rows[0]?.name
          : null;
      rows.push({ stat: r.stat, leading: typeof leading === 'string' ? leading : null });
    }
    analyzed = sqliteStat1(rows);
  }
  let tableRows = analyzed.rows;
  if (tableRows === undefined) {
    const counted = (await pool.run({ sql: sqliteCountSql(quoteIdent(table)), params: [] }))
      .rows[0];
    tableRows = rowStatistic(counted?.n);
  }
  const fanOut = new Map<string, number>();
  for (const column of fkColumns) {
    const known = analyzed.fanOut.get(column);
    if (known !== undefined) {
      fanOut.set(column, known);
      continue;
    }
    const r = (
      await pool.run({ sql: sqliteCountSql(quoteIdent(table), quoteIdent(column)), params: [] })
    ).rows[0];
    const n = Number(r?.n ?? 0);
    const value = averageFanOut(n, r?.d, n > 0 ? 1 - Number(r?.nn ?? 0) / n : 0);
    if (value !== undefined) fanOut.set(column, value);
  }
  return { ...(tableRows !== undefined && { rows: tableRows }), fanOut };
}

/**
 * The file a connection opened (`pragma_database_list`, schema `main`), keyed by its real path
 * and its device and inode (`sqliteFileKeys`: a hard link to the store is the store), and
 * whether it holds every table of `STORE_FINGERPRINT` (`storeCopy` `main`).
 */
export async function identifySqlite(run: StatementRunner): Promise<DatabaseIdentity> {
  const placeholders = STORE_FINGERPRINT.map(() => '?').join(', ');
  const { rows } = await run({
    sql:
      "SELECT (SELECT file FROM pragma_database_list WHERE name = 'main') AS file, " +
      `(SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name IN (${placeholders})) AS fingerprint`,
    params: [...STORE_FINGERPRINT],
  });
  const row = rows[0] ?? {};
  const file = typeof row.file === 'string' ? row.file : '';
  return {
    keys: file ? sqliteFileKeys(file) : [],
    storeCopy: Number(row.fingerprint) === STORE_FINGERPRINT.length ? 'main' : null,
  };
}

/**
 * Tables and views of the main database, `schema: null` (sqlite.org/schematab.html: the
 * schema table's `type` is `table`, `view`, `index` or `trigger`); SQLite's own `sqlite_%`
 * tables are left out.
 */
export async function listSqliteTables(pool: SqlPool): Promise<ListedTable[]> {
  const { rows } = await pool.run({
    sql: `SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    params: [],
  });
  return rows.map((r) => ({
    schema: null,
    name: String(r.name),
    kind: r.type === 'view' ? 'view' : 'table',
  }));
}

/**
 * Columns from `pragma_table_xinfo`, foreign keys from `pragma_foreign_key_list`, kind from
 * `sqlite_master.type` (sqlite.org/pragma.html#pragma_table_info: the pragma reads views too;
 * a view's columns take the declared type of what they select, or none, and are never NOT NULL
 * or keys). A view whose tables or columns are gone fails to compile when read
 * ("no such table"): it is left out, like a table that does not exist. Pool errors (timeout,
 * no connection) propagate. SQLite keeps no comments and has no enum types, so tables and
 * columns carry neither. Statistics (`estimatedRows`, a one-column foreign key's `fanOut`) come
 * from `sqlite_stat1` or a bounded count ({@link sqliteStatistics}).
 */
export async function introspectSqlite(
  pool: SqlPool,
  tables: TableRef[],
): Promise<IntrospectedTable[]> {
  const types = new Map(
    (
      await pool.run({
        sql: `SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')`,
        params: [],
      })
    ).rows.map((r) => [String(r.name), String(r.type)]),
  );
  const hasStat1 =
    Number((await pool.run({ sql: SQLITE_HAS_STAT1_SQL, params: [] })).rows[0]?.n ?? 0) > 0;
  const out: IntrospectedTable[] = [];
  for (const t of tables) {
    const view = types.get(t.name) === 'view';
    const read = pool.run({ sql: `SELECT * FROM pragma_table_xinfo(?)`, params: [t.name] });
    // Only the database's own refusal of a broken view is swallowed; a timeout is not.
    const skipBroken = (error: unknown) => {
      if (error instanceof DomainError) throw error;
      return { rows: [] };
    };
    const cols = (view ? await read.catch(skipBroken) : await read)
      .rows as unknown as PragmaColumn[];
    if (cols.length === 0) continue;
    const pk = cols.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk));
    // An INTEGER PRIMARY KEY is the rowid: SQLite generates it (sqlite.org/lang_createtable.html#rowid).
    const rowidAlias =
      pk.length === 1 && pk[0].type.toUpperCase() === 'INTEGER' ? pk[0].name : null;
    const columns: ModelColumn[] = cols
      .filter((c) => Number(c.hidden) !== 1)
      .map((c) => ({
        name: c.name,
        dbType: c.type || 'TEXT',
        kind: sqliteKind(c.type),
        nullable: Number(c.notnull) === 0 && Number(c.pk) === 0,
        hasDefault: c.dflt_value !== null,
        generated: c.name === rowidAlias || Number(c.hidden) >= 2,
        computed: Number(c.hidden) >= 2,
        maxLength: lengthOf(c.type),
        enum: null,
      }));
    const fkRows = (
      await pool.run({ sql: `SELECT * FROM pragma_foreign_key_list(?)`, params: [t.name] })
    ).rows as unknown as PragmaForeignKey[];
    const byId = new Map<number, PragmaForeignKey[]>();
    for (const r of fkRows) byId.set(Number(r.id), [...(byId.get(Number(r.id)) ?? []), r]);
    const single = [...byId.values()].filter((p) => p.length === 1).map((p) => p[0].from);
    const statistics = view
      ? { fanOut: new Map<string, number>() }
      : await sqliteStatistics(pool, t.name, hasStat1, single);
    const foreignKeys = [...byId.values()].map((parts) => {
      parts.sort((a, b) => Number(a.seq) - Number(b.seq));
      const fanOut = parts.length === 1 ? statistics.fanOut.get(parts[0].from) : undefined;
      return {
        columns: parts.map((p) => p.from),
        referencedSchema: null,
        referencedTable: parts[0].table,
        referencedColumns: parts.map((p) => p.to ?? ''),
        ...(fanOut !== undefined && { fanOut }),
      };
    });
    const uniqueKeys = view ? [] : await sqliteUniqueKeys(pool, t.name);
    out.push({
      schema: null,
      dbName: t.name,
      kind: view ? 'view' : 'table',
      ...(statistics.rows !== undefined && { estimatedRows: statistics.rows }),
      ...(uniqueKeys.length > 0 && { uniqueKeys }),
      columns,
      primaryKey: pk.map((c) => c.name),
      foreignKeys,
    });
  }
  // A foreign key naming no column references the parent's primary key.
  for (const table of out) {
    for (const fk of table.foreignKeys) {
      if (fk.referencedColumns.some((c) => c === '')) {
        const parent = out.find((p) => p.dbName === fk.referencedTable);
        if (parent) fk.referencedColumns = [...parent.primaryKey];
      }
    }
  }
  return out;
}

/**
 * The unique indexes of `table` besides its primary key (sqlite.org/pragma.html#pragma_index_list:
 * `unique`, `origin` `u` for a UNIQUE constraint, `c` for CREATE UNIQUE INDEX, `pk` the key;
 * `partial`), each with its key columns in order (`pragma_index_info`, whose `name` is NULL for an
 * expression). A partial or expression index is `partial`: ON CONFLICT cannot name it by columns.
 */
async function sqliteUniqueKeys(pool: SqlPool, table: string): Promise<UniqueKey[]> {
  const { rows } = await pool.run({
    sql: `SELECT l.name AS index_name, l."partial" AS is_partial, i.name AS column_name
            FROM pragma_index_list(?) l JOIN pragma_index_info(l.name) i
            WHERE l."unique" = 1 AND l.origin <> 'pk' ORDER BY l.name, i.seqno`,
    params: [table],
  });
  const keys = new Map<string, UniqueKey>();
  for (const r of rows) {
    const name = String(r.index_name);
    let key = keys.get(name);
    if (!key) keys.set(name, (key = { columns: [] }));
    if (r.column_name === null) key.partial = true;
    else key.columns.push(String(r.column_name));
    if (Number(r.is_partial) === 1) key.partial = true;
  }
  return [...keys.values()];
}

function lengthOf(declared: string): number | null {
  const m = /CHAR\s*\(\s*(\d+)\s*\)/i.exec(declared);
  return m ? Number(m[1]) : null;
}
