import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createMysqlDatabase } from './mysql-fixture';
import { createPgDatabase } from './postgres-fixture';
import { loadSalesIntoMysql, loadSalesIntoPostgres, loadSalesIntoSqlite } from './sales-fixture';
import type { RunningApp } from './app-harness';
import { describeWith } from './services';
import { placeSqliteFile } from './sqlite-placement';

/** A throwaway sales database (sales-fixture.ts) on one of the local databases. */
export interface SalesDatabase {
  /** The datasource URL (SQLite: staged, see `placeSqliteFile`). */
  url: string;
  /** The three sales tables as import names. */
  tables: string[];
  /** A table's import name on this database (`public.<table>` on PostgreSQL). */
  qualify(table: string): string;
  /** Runs setup SQL on the database itself (not through the service). */
  exec(sql: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** One database an e2e suite runs on: its `describe` (skipped when the service is absent) and its sales database. */
export interface SalesDialect {
  type: 'postgres' | 'mysql' | 'sqlite';
  describe: jest.Describe;
  create(dataDir: string): Promise<SalesDatabase>;
}

const SALES_TABLES = ['customers', 'orders', 'order_lines'];

/** The sales database on PostgreSQL, MariaDB and SQLite, for suites that run every case on each. */
export const SALES_DIALECTS: SalesDialect[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async create() {
      const db = await createPgDatabase();
      await loadSalesIntoPostgres(db);
      const qualify = (t: string) => `public.${t}`;
      return {
        url: db.url,
        tables: SALES_TABLES.map(qualify),
        qualify,
        exec: async (sql) => void (await db.exec(sql)),
        cleanup: () => db.drop(),
      };
    },
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async create() {
      const db = await createMysqlDatabase();
      await loadSalesIntoMysql(db);
      return {
        url: db.url,
        tables: SALES_TABLES,
        qualify: (t) => t,
        exec: async (sql) => void (await db.exec(sql)),
        cleanup: () => db.drop(),
      };
    },
  },
  {
    type: 'sqlite',
    describe,
    async create(dataDir) {
      const url = loadSalesIntoSqlite(dataDir);
      const staged = join(dataDir, 'datasources', 'sales.db');
      // Staged until registration moves it into the app's own folder.
      const locate = () => {
        if (existsSync(staged)) return staged;
        const root = join(dataDir, 'datasources');
        const app = readdirSync(root).find((d) => existsSync(join(root, d, 'sales.db')));
        return join(root, app!, 'sales.db');
      };
      return {
        url,
        tables: SALES_TABLES,
        qualify: (t) => t,
        exec: async (sql) => {
          const db = new Database(locate());
          db.exec(sql);
          db.close();
        },
        cleanup: async () => undefined,
      };
    },
  },
];

/**
 * Registers a sales database as datasource `sales` of an app through the builder REST API (its
 * SQLite file placed in the app's folder first) and, unless `importTables` is false, imports its
 * tables, expecting `201` from each step.
 * @returns the datasource's id.
 */
export async function registerSalesDatabase(
  run: RunningApp,
  token: string,
  appId: string,
  type: SalesDialect['type'],
  db: Pick<SalesDatabase, 'url' | 'tables'>,
  importTables = true,
): Promise<string> {
  const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
    token,
    body: { name: 'sales', type, url: placeSqliteFile(run.dataDir, appId, db.url) },
  });
  expect(ds.status).toBe(201);
  if (importTables) {
    const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
      token,
      body: { datasourceId: ds.body.id, tables: db.tables },
    });
    expect(imported.status).toBe(201);
  }
  return ds.body.id as string;
}
