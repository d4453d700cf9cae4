import { DomainError } from '../../common/domain-error';
import type {
  ColumnKind,
  DatabaseIdentity,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  SqlPool,
  StatementRunner,
  TableRef,
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
 * columns carry neither.
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
    const foreignKeys = [...byId.values()].map((parts) => {
      parts.sort((a, b) => Number(a.seq) - Number(b.seq));
      return {
        columns: parts.map((p) => p.from),
        referencedSchema: null,
        referencedTable: parts[0].table,
        referencedColumns: parts.map((p) => p.to ?? ''),
      };
    });
    out.push({
      schema: null,
      dbName: t.name,
      kind: view ? 'view' : 'table',
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

function lengthOf(declared: string): number | null {
  const m = /CHAR\s*\(\s*(\d+)\s*\)/i.exec(declared);
  return m ? Number(m[1]) : null;
}
