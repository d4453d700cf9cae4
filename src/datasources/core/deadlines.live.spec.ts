import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { SERVICE_URLS, describeWith } from '../../../test/support/services';
import { DomainError, ErrorCode } from '../../common/domain-error';
import type { PoolOptions, SqlPool } from './dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Issue 7 part 3 at the pool level, on the real databases: every statement has a deadline, an
 * aborted signal cancels the statement on the server, and a pool that gives no connection in time
 * answers DATASOURCE_UNAVAILABLE. Asserts what the server reports, never elapsed time.
 */

const LIMITS: PoolOptions = { poolSize: 2, statementTimeoutMs: 300, acquireTimeoutMs: 200 };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof DomainError ? error.code : `raw:${(error as Error).message}`;
  }
  return 'resolved';
}

/** Polls `check` every 50 ms, at most 100 times, until it is true. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describeWith('postgres')('PostgreSQL pool deadlines', () => {
  let pool: SqlPool;
  let admin: Client;
  const tag = `tg_deadline_${randomBytes(4).toString('hex')}`;
  const running = async () =>
    (
      await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`,
        [`%${tag}%`],
      )
    ).rows[0].n as number;

  beforeAll(async () => {
    admin = new Client({ connectionString: SERVICE_URLS.postgres });
    await admin.connect();
    pool = await new PostgresDialect().open(SERVICE_URLS.postgres, LIMITS);
  });

  afterAll(async () => {
    await pool?.close();
    await admin?.end();
  });

  it('stops a statement at the deadline with TIMEOUT, on the server', async () => {
    expect(await codeOf(pool.run({ sql: `SELECT pg_sleep(5), '${tag}'`, params: [] }))).toBe(
      ErrorCode.Timeout,
    );
    expect(await running()).toBe(0);
  });

  it('cancels a statement on the server when its signal fires', async () => {
    const long = await new PostgresDialect().open(SERVICE_URLS.postgres, {
      ...LIMITS,
      statementTimeoutMs: 60_000,
    });
    try {
      const abort = new AbortController();
      const call = codeOf(
        long.run(
          { sql: `SELECT pg_sleep(30), '${tag}-abort'`, params: [] },
          { signal: abort.signal },
        ),
      );
      expect(await eventually(async () => (await running()) > 0)).toBe(true);
      abort.abort(new Error('client gone'));
      expect(await call).toBe('raw:client gone');
      expect(await eventually(async () => (await running()) === 0)).toBe(true);
    } finally {
      await long.close();
    }
  });

  it('answers DATASOURCE_UNAVAILABLE when the pool stays full past the wait limit', async () => {
    // Its own pool, whose statements run far longer than the wait limit: on a loaded machine the
    // shared pool's 300 ms statements could end before the third caller's 200 ms wait did.
    const full = await new PostgresDialect().open(SERVICE_URLS.postgres, {
      ...LIMITS,
      statementTimeoutMs: 3_000,
    });
    try {
      const busy = [1, 2].map(() =>
        codeOf(full.run({ sql: `SELECT pg_sleep(10), '${tag}-busy'`, params: [] })),
      );
      expect(await eventually(async () => (await running()) === 2)).toBe(true);
      expect(await codeOf(full.run({ sql: 'SELECT 1', params: [] }))).toBe(
        ErrorCode.DatasourceUnavailable,
      );
      expect(await Promise.all(busy)).toEqual([ErrorCode.Timeout, ErrorCode.Timeout]);
      expect(await codeOf(full.run({ sql: 'SELECT 1', params: [] }))).toBe('resolved');
    } finally {
      await full.close();
    }
  });
});

describeWith('mysql')('MariaDB pool deadlines', () => {
  let pool: SqlPool;
  let admin: mysql.Connection;
  const tag = `tg_deadline_${randomBytes(4).toString('hex')}`;
  const running = async () => {
    const [rows] = await admin.query(
      `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Sleep' AND ID <> CONNECTION_ID() AND INFO LIKE ?`,
      [`%${tag}%`],
    );
    return Number((rows as { n: number }[])[0].n);
  };
  const url = () => {
    const u = new URL(SERVICE_URLS.mysql);
    u.pathname = '/mysql';
    return u.toString();
  };

  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: SERVICE_URLS.mysql });
    pool = await new MysqlDialect().open(url(), LIMITS);
  });

  afterAll(async () => {
    await pool?.close();
    await admin?.end();
  });

  it('stops a statement at the deadline with TIMEOUT (max_statement_time)', async () => {
    expect(await codeOf(pool.run({ sql: `SELECT SLEEP(5), '${tag}'`, params: [] }))).toBe(
      ErrorCode.Timeout,
    );
  });

  it('kills a statement on the server when its signal fires', async () => {
    const long = await new MysqlDialect().open(url(), { ...LIMITS, statementTimeoutMs: 60_000 });
    try {
      const abort = new AbortController();
      const call = codeOf(
        long.run({ sql: `SELECT SLEEP(30), '${tag}-abort'`, params: [] }, { signal: abort.signal }),
      );
      expect(await eventually(async () => (await running()) > 0)).toBe(true);
      abort.abort(new Error('client gone'));
      expect(await call).toBe('raw:client gone');
      expect(await eventually(async () => (await running()) === 0)).toBe(true);
    } finally {
      await long.close();
    }
  });
});

describe('SQLite pool deadlines (worker threads)', () => {
  let dir: string;
  let slowFile: string;
  let otherFile: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tg-deadline-'));
    slowFile = join(dir, 'slow.db');
    otherFile = join(dir, 'other.db');
    for (const file of [slowFile, otherFile]) {
      const db = new Database(file);
      db.exec(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a'), ('b')",
      );
      db.close();
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The statement calls back into JavaScript per row (as every case-insensitive match does), which
  // is where a terminated thread stops: better-sqlite3 has no sqlite3_interrupt (see ADR 0005).
  it('cuts a statement that would run for minutes at the deadline while another datasource answers', async () => {
    const dialect = new SqliteDialect();
    // A pool's first statement also starts its worker thread, which on a loaded machine can take
    // longer than 0.3 s: a deadline of 1.5 s still cuts a statement of minutes.
    const limits = { ...LIMITS, statementTimeoutMs: 1_500 };
    const slow = await dialect.open(`sqlite:${slowFile}`, limits);
    const other = await dialect.open(`sqlite:${otherFile}`, limits);
    try {
      const endless = codeOf(
        slow.run({
          sql: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10000000000) SELECT count(*) FROM c WHERE tg_casefold(n) LIKE '%zz%'",
          params: [],
        }),
      );
      // The main thread is free meanwhile: another file's statement answers before the deadline ends the first.
      const { rows } = await other.run({ sql: 'SELECT count(*) AS n FROM t', params: [] });
      expect(Number(rows[0].n)).toBe(2);
      expect(await endless).toBe(ErrorCode.Timeout);
      // The thread that was stopped is replaced: the slow file answers again.
      expect(
        Number((await slow.run({ sql: 'SELECT count(*) AS n FROM t', params: [] })).rows[0].n),
      ).toBe(2);
    } finally {
      await slow.close();
      await other.close();
    }
  });
});
