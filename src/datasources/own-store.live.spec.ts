import Database from 'better-sqlite3';
import { linkSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createMysqlDatabase, MysqlDatabase } from '../../test/support/mysql-fixture';
import { createPgDatabase, PgDatabase } from '../../test/support/postgres-fixture';
import { describeWith } from '../../test/support/services';
import { ErrorCode } from '../common/domain-error';
import type {
  ConnectionCheck,
  DatabaseIdentity,
  Dialect,
  PoolOptions,
  SqlPool,
} from './core/dialect';
import { MysqlDialect } from './mysql/dialect';
import { sameDatabase, sqliteFileKeys, StoreGuardError } from './own-store';
import { PostgresDialect } from './postgres/dialect';
import { SqliteDialect } from './sqlite/dialect';

/**
 * Issue 22 item 1 at the adapter level, on the real databases: `identify()` tells the same
 * database apart from another whatever address reached it, finds a copy of the service's store,
 * and every new pooled connection passes `verifyConnection` before its first statement.
 */

const LIMITS: PoolOptions = { poolSize: 3, statementTimeoutMs: 2_000, acquireTimeoutMs: 2_000 };

/** The identity of the database `url` names, read over a pool of one connection. */
async function identityOf(dialect: Dialect, url: string): Promise<DatabaseIdentity> {
  const pool = await dialect.open(url, { ...LIMITS, poolSize: 1 });
  try {
    return await dialect.identify((query) => pool.run(query));
  } finally {
    await pool.close();
  }
}

/** `url` with its host replaced (another name of the same server). */
function withHost(url: string, host: string): string {
  const parsed = new URL(url);
  parsed.hostname = host;
  return parsed.toString();
}

/** A check that counts the connections it saw, refusing from the `refuseFrom`-th on. */
function countingCheck(refuseFrom = Infinity): ConnectionCheck & { seen: number } {
  const check = Object.assign(
    async () => {
      check.seen++;
      if (check.seen >= refuseFrom)
        throw new StoreGuardError(ErrorCode.InvalidInput, 'refused by the test');
    },
    { seen: 0 },
  );
  return check;
}

/** Runs `n` statements at once, each holding its connection a moment, so the pool opens `n`. */
function atOnce(pool: SqlPool, n: number, sql: string) {
  return Promise.allSettled(Array.from({ length: n }, () => pool.run({ sql, params: [] })));
}

describeWith('postgres')('PostgreSQL identity and per-connection checks', () => {
  const dialect = new PostgresDialect();
  let a: PgDatabase;
  let b: PgDatabase;

  beforeAll(async () => {
    a = await createPgDatabase('tg_identity');
    b = await createPgDatabase('tg_identity');
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
  });

  it('the same database through another host name is the same; another database is not', async () => {
    const direct = await identityOf(dialect, a.url);
    expect(direct.keys.length).toBe(2); // the system identifier is readable here, and the start time
    expect(sameDatabase(direct, await identityOf(dialect, withHost(a.url, 'localhost')))).toBe(
      true,
    );
    expect(sameDatabase(direct, await identityOf(dialect, b.url))).toBe(false);
    expect(direct.storeCopy).toBeNull();
  });

  it('reads the same keys over a session in another time zone (as the metadata store reads them)', async () => {
    const client = new Client({ connectionString: a.url });
    await client.connect();
    try {
      await client.query("SET TimeZone = 'Asia/Kolkata'");
      const viaClient = await dialect.identify(async ({ sql, params }) => ({
        rows: (await client.query(sql, params)).rows as Record<string, unknown>[],
        affected: undefined,
      }));
      expect(viaClient.keys).toEqual((await identityOf(dialect, a.url)).keys);
    } finally {
      await client.end();
    }
  });

  it("finds a copy of the service's tables in any schema", async () => {
    await b.exec(
      'CREATE SCHEMA backup; CREATE TABLE backup.account (id int); ' +
        'CREATE TABLE backup.api_key (id int); CREATE VIEW backup.app_version AS SELECT 1 AS id',
    );
    expect((await identityOf(dialect, b.url)).storeCopy).toBe('backup');
  });

  it('checks every new connection once, before its first statement', async () => {
    const check = countingCheck();
    const pool = await dialect.open(a.url, { ...LIMITS, verifyConnection: check });
    try {
      expect(check.seen).toBe(1);
      const results = await atOnce(pool, 3, 'SELECT pg_sleep(0.3)');
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect(check.seen).toBe(3);
      await atOnce(pool, 3, 'SELECT 1');
      expect(check.seen).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it('a refused connection fails the statement that needed it with the refusal', async () => {
    const check = countingCheck(2);
    const pool = await dialect.open(a.url, { ...LIMITS, verifyConnection: check });
    try {
      const results = await atOnce(pool, 2, 'SELECT pg_sleep(0.3)');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreGuardError);
    } finally {
      await pool.close();
    }
  });

  it('a refusal of the first connection fails open()', async () => {
    await expect(
      dialect.open(a.url, { ...LIMITS, verifyConnection: countingCheck(1) }),
    ).rejects.toBeInstanceOf(StoreGuardError);
  });
});

describeWith('mysql')('MySQL/MariaDB identity and per-connection checks', () => {
  const dialect = new MysqlDialect();
  let a: MysqlDatabase;
  let b: MysqlDatabase;

  beforeAll(async () => {
    a = await createMysqlDatabase('tg_identity');
    b = await createMysqlDatabase('tg_identity');
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
  });

  it('the same schema through another host name is the same; another schema is not', async () => {
    const direct = await identityOf(dialect, a.url);
    expect(direct.keys.length).toBeGreaterThan(0);
    expect(sameDatabase(direct, await identityOf(dialect, withHost(a.url, 'localhost')))).toBe(
      true,
    );
    expect(sameDatabase(direct, await identityOf(dialect, b.url))).toBe(false);
    expect(direct.storeCopy).toBeNull();
  });

  it("finds a copy of the service's tables in the datasource's database", async () => {
    await b.exec(
      'CREATE TABLE account (id int); CREATE TABLE api_key (id int); CREATE TABLE app_version (id int)',
    );
    expect((await identityOf(dialect, b.url)).storeCopy).toBe(b.name);
  });

  it('checks every new connection once, and a refusal fails the statement that needed it', async () => {
    const check = countingCheck();
    const pool = await dialect.open(a.url, { ...LIMITS, verifyConnection: check });
    try {
      expect(check.seen).toBe(1);
      await atOnce(pool, 3, 'SELECT SLEEP(0.3)');
      expect(check.seen).toBe(3);
      await atOnce(pool, 3, 'SELECT 1');
      expect(check.seen).toBe(3);
    } finally {
      await pool.close();
    }
    const refusing = await dialect.open(a.url, { ...LIMITS, verifyConnection: countingCheck(2) });
    try {
      const refused = (await atOnce(refusing, 2, 'SELECT SLEEP(0.3)')).filter(
        (r) => r.status === 'rejected',
      );
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreGuardError);
    } finally {
      await refusing.close();
    }
  });
});

describe('SQLite identity', () => {
  const dialect = new SqliteDialect();
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tg-identity-'));
    const db = new Database(join(dir, 'store.db'));
    db.exec('CREATE TABLE account (id); CREATE TABLE api_key (id); CREATE TABLE app_version (id)');
    db.close();
    new Database(join(dir, 'plain.db')).exec('CREATE TABLE account (id)');
    linkSync(join(dir, 'store.db'), join(dir, 'hard.db'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a hard link to a file is that file; the copy check reads its tables', async () => {
    const store = { keys: sqliteFileKeys(join(dir, 'store.db')), storeCopy: null };
    const hard = await identityOf(dialect, `sqlite:${join(dir, 'hard.db')}`);
    expect(sameDatabase(store, hard)).toBe(true);
    expect(hard.storeCopy).toBe('main');
    const plain = await identityOf(dialect, `sqlite:${join(dir, 'plain.db')}`);
    expect(sameDatabase(store, plain)).toBe(false);
    expect(plain.storeCopy).toBeNull();
  });
});
