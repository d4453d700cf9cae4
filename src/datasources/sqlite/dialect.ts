import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { invalidInput } from '../../common/domain-error';
import type {
  Capabilities,
  DatabaseIdentity,
  DatabaseRefusal,
  Dialect,
  IntrospectedTable,
  ListedTable,
  ModelColumn,
  PoolOptions,
  SqlPool,
  StatementDescription,
  StatementRunner,
  TableRef,
  WriteContext,
} from '../core/dialect';
import type { ParsedStatement } from '../core/sql-statement';
import { describeSqliteStatement } from './describe';
import { SqliteCompiler } from './compiler';
import { CASEFOLD } from './connection';
import { translateSqliteError } from './errors';
import { identifySqlite, introspectSqlite, listSqliteTables } from './introspection';
import { SqlitePool } from './pool';
import { formatSqliteValue, sqliteBindValue } from './values';

/**
 * SQLite adapter (`better-sqlite3` through TypeORM). Integers come back as BigInt (safe integers)
 * so 64-bit values never lose digits; `tg_casefold` gives case-insensitive LIKE beyond ASCII.
 * SQLite sorts NULL as the smallest value, which is the contract's order already.
 * Introspection reads `PRAGMA table_xinfo` and `PRAGMA foreign_key_list` directly. Assembles the
 * dialect's pieces: `compiler.ts`, `introspection.ts`, `values.ts`, `errors.ts`, `pool.ts`.
 */
export class SqliteDialect extends SqliteCompiler implements Dialect {
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

  /** The file a connection opened: {@link identifySqlite}. */
  async identify(run: StatementRunner): Promise<DatabaseIdentity> {
    return identifySqlite(run);
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

  /** Tables and views of the main database: {@link listSqliteTables}. */
  async listTables(pool: SqlPool): Promise<ListedTable[]> {
    return listSqliteTables(pool);
  }

  /** Columns, keys and kind of tables: {@link introspectSqlite}. */
  async introspect(pool: SqlPool, tables: TableRef[]): Promise<IntrospectedTable[]> {
    return introspectSqlite(pool, tables);
  }

  /** {@link Dialect.describeStatement}: see `describeSqliteStatement` (`describe.ts`). */
  describeStatement(pool: SqlPool, statement: ParsedStatement): Promise<StatementDescription> {
    return describeSqliteStatement(pool, statement);
  }

  translateError(error: unknown, context: WriteContext): DatabaseRefusal | null {
    return translateSqliteError(error, context);
  }

  /** A value as bound: {@link sqliteBindValue}. */
  bindValue(column: ModelColumn, value: unknown): unknown {
    return sqliteBindValue(column, value);
  }

  /** A value as read: {@link formatSqliteValue}. */
  formatValue(column: ModelColumn, raw: unknown): unknown {
    return formatSqliteValue(column, raw);
  }
}
