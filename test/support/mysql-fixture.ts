import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { SERVICE_URLS } from './services';

/** A throwaway database on the test MariaDB/MySQL server. */
export interface MysqlDatabase {
  name: string;
  url: string;
  /** Runs SQL in the database (setup only; the service under test has its own pool). */
  exec(sql: string, params?: unknown[]): Promise<unknown>;
  drop(): Promise<void>;
}

/** Creates a uniquely named database (utf8mb4); `drop()` removes it. */
export async function createMysqlDatabase(prefix = 'tg_e2e'): Promise<MysqlDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: SERVICE_URLS.mysql });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.end();
  const url = new URL(SERVICE_URLS.mysql);
  url.pathname = `/${name}`;
  const conn = await mysql.createConnection({
    uri: url.toString(),
    multipleStatements: true,
    timezone: 'Z',
  });
  await conn.query("SET time_zone = '+00:00'");
  return {
    name,
    url: url.toString(),
    exec: async (sql, params) => (await conn.query(sql, params))[0],
    async drop() {
      await conn.end();
      const admin2 = await mysql.createConnection({ uri: SERVICE_URLS.mysql });
      await admin2.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin2.end();
    },
  };
}
