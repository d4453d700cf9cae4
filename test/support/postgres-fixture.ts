import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SERVICE_URLS } from './services';

/** A throwaway PostgreSQL database on the test server. */
export interface PgDatabase {
  name: string;
  url: string;
  /** Runs SQL in the database (setup only; the service under test has its own pool). */
  exec(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

/** Creates a uniquely named database; `drop()` removes it (terminating leftover sessions). */
export async function createPgDatabase(prefix = 'tg_e2e'): Promise<PgDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: SERVICE_URLS.postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(SERVICE_URLS.postgres);
  url.pathname = `/${name}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return {
    name,
    url: url.toString(),
    exec: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
    async drop() {
      await client.end();
      const admin2 = new Client({ connectionString: SERVICE_URLS.postgres });
      await admin2.connect();
      await admin2.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [name],
      );
      await admin2.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin2.end();
    },
  };
}
