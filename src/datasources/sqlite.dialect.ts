import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { DomainError, invalidInput } from '../common/domain-error';
import type {
  PoolOptions,
  Capabilities,
  ColumnKind,
  DatabaseIdentity,
  DatabaseRefusal,
  Dialect,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  SqlPool,
  StatementRunner,
  TableRef,
  WriteContext,
} from './core/dialect';
import { sqliteFileKeys, STORE_FINGERPRINT } from './own-store';
import { SqlitePool } from './sqlite-pool';
import { CASEFOLD } from './sqlite-connection';
import { translateSqliteError } from './sqlite-errors';
import { ParamList, SqlCompiler } from './core/sql-compiler';
import { formatCommon, jsonText } from './core/value-format';

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
 * SQLite adapter (`better-sqlite3` through TypeORM). Integers come back as BigInt (safe integers)
 * so 64-bit values never lose digits; `tg_casefold` gives case-insensitive LIKE beyond ASCII.
 * SQLite sorts NULL as the smallest value, which is the contract's order already.
 * Introspection reads `PRAGMA table_xinfo` and `PRAGMA foreign_key_list` directly.
 */
export class SqliteDialect extends SqlCompiler implements Dialect {
  readonly type = 'sqlite' as const;

  /** Opens a {@link SqlitePool} (worker threads) on the file of a `sqlite:<file>` URL. */
  async open(url: string, options: PoolOptions): Promise<SqlPool> {
    return SqlitePool.open(this.fileOf(url), options);
  }

  /**
   * The database file of a `sqlite:<file>` URL (already confined to the datasource folder).
   * @throws DomainError INVALID_INPUT when it is not a sqlite URL or no file is there.
   */
  fileOf(url: string): string {
    if (!url.startsWith('sqlite:')) throw invalidInput('A sqlite datasource URL is sqlite:<file>');
    const file = resolve(url.slice('sqlite:'.length));
    if (!existsSync(file))
      throw invalidInput('No SQLite database file at that name in the datasource folder');
    return file;
  }

  /** RETURNING needs SQLite 3.35; better-sqlite3 12 bundles a newer one. */
  capabilities(): Capabilities {
    return { insertReturning: true, updateReturning: true };
  }

  /**
   * The file a connection opened (`pragma_database_list`, schema `main`), keyed by its real path
   * and its device and inode (`sqliteFileKeys`: a hard link to the store is the store), and
   * whether it holds every table of `STORE_FINGERPRINT` (`storeCopy` `main`).
   */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
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

  /** TypeORM options for the same file and connection settings (tests that drive TypeORM on it). */
  connectionOptions(url: string): DataSourceOptions {
    const file = this.fileOf(url);
    return {
      type: 'better-sqlite3',
      database: file,
      fileMustExist: true,
      timeout: 5000,
      logging: false,
      prepareDatabase: (db: {
        defaultSafeIntegers(on: boolean): void;
        pragma(source: string): unknown;
        function(name: string, opts: object, fn: (v: unknown) => unknown): void;
      }) => {
        db.defaultSafeIntegers(true);
        // Foreign keys are enforced only when asked for, per connection (sqlite.org/foreignkeys.html §2).
        db.pragma('foreign_keys = ON');
        db.function(CASEFOLD, { deterministic: true }, (v) =>
          v === null ? null : String(v).toLowerCase(),
        );
      },
    };
  }

  /**
   * Tables and views of the main database, `schema: null` (sqlite.org/schematab.html: the
   * schema table's `type` is `table`, `view`, `index` or `trigger`); SQLite's own `sqlite_%`
   * tables are left out.
   */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
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
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
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

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateSqliteError(error, context);
  }

  bindValue(column: ModelColumn, value: unknown): unknown {
    // better-sqlite3 binds numbers, strings, bigints, buffers and null only.
    if (column.kind === 'json' && value !== null && value !== undefined) return jsonText(value);
    if (typeof value === 'boolean') return value ? 1 : 0;
    // SQLite's own datetime text has a space, not a T (sqlite.org/lang_datefunc.html): one form
    // keeps text comparisons in filters right.
    if (column.kind === 'timestamp' && typeof value === 'string') {
      const text = value.replace('T', ' ');
      return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(text) ? `${text}:00` : text;
    }
    return value;
  }

  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatCommon(column, raw);
  }
}

function lengthOf(declared: string): number | null {
  const m = /CHAR\s*\(\s*(\d+)\s*\)/i.exec(declared);
  return m ? Number(m[1]) : null;
}
