import Redis from 'ioredis';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { SERVICE_URLS, ServiceName } from './services';

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

const probes: Record<Exclude<ServiceName, 'mssql'>, () => Promise<void>> = {
  async postgres() {
    const client = new Client({
      connectionString: SERVICE_URLS.postgres,
      connectionTimeoutMillis: 3000,
    });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
  },
  async mysql() {
    const conn = await mysql.createConnection({ uri: SERVICE_URLS.mysql, connectTimeout: 3000 });
    await conn.query('SELECT 1');
    await conn.end();
  },
  async redis() {
    const redis = new Redis(SERVICE_URLS.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 3000,
    });
    try {
      await redis.connect();
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  },
};

/**
 * Jest global setup: probes the real services once. A missing service makes its suites skip
 * with a loud reason, except under CI=true, where it fails the run (DESIGN.md "Tests").
 * SQL Server is probed only when TEST_MSSQL_URL is set.
 */
export default async function globalSetup(): Promise<void> {
  // The in-process suites run in a zone far from UTC, so a value that leans on the process zone
  // shows; test/e2e/time-zones.e2e-spec.ts compares two zones in separate service processes.
  if (!process.env.TZ) process.env.TZ = 'America/Sao_Paulo';
  const available: string[] = [];
  const missing: string[] = [];
  for (const [name, probe] of Object.entries(probes)) {
    try {
      await within(5000, probe());
      available.push(name);
    } catch (error) {
      missing.push(`${name} (${(error as Error).message})`);
    }
  }
  if (SERVICE_URLS.mssql) available.push('mssql');
  process.env.TG_TEST_SERVICES = available.join(',');
  if (missing.length) {
    const line = `Services not reachable: ${missing.join('; ')}`;
    if (process.env.CI === 'true')
      throw new Error(`${line}. Under CI=true every service is required.`);
    process.stderr.write(
      `\n!!! ${line}\n!!! Their suites are SKIPPED. Start them (see README) to run everything.\n\n`,
    );
  }
}
