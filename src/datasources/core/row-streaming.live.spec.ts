import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SERVICE_URLS, describeWith } from '../../../test/support/services';
import type { Dialect, PoolOptions, SqlPool } from './dialect';
import { MysqlDialect } from '../mysql/dialect';
import { PostgresDialect } from '../postgres/dialect';
import type { RowSink } from './row-bytes';
import { SqliteDialect } from '../sqlite/dialect';

/**
 * Issue 22 item 10 at the pool level, on the real databases: rows are charged to the statement's
 * sink as they arrive from the driver, the read stops at the row the sink refuses (never reading
 * the rest of the page), the call rejects with the sink's refusal, and the pool's one connection
 * serves the next statement: PostgreSQL keeps it (the statement is cancelled), MariaDB replaces
 * it (destroyed mid-result), SQLite's worker resets the statement.
 */

const MB = 1024 * 1024;
/** One connection: the next statement runs on the connection the stopped read used. */
const LIMITS: PoolOptions = { poolSize: 1, statementTimeoutMs: 20_000, acquireTimeoutMs: 5_000 };

/** A sink that refuses once more than `limit` bytes were charged, and counts what it was charged. */
class CountingSink implements RowSink {
  rows = 0;
  bytes = 0;
  calls = 0;
  constructor(private readonly limit: number) {}
  bytesLeft(): number {
    return Math.max(0, this.limit - this.bytes);
  }
  chargeRows(rows: number, bytes: number): void {
    this.calls++;
    this.rows += rows;
    this.bytes += bytes;
    if (this.bytes > this.limit) throw new Error('over the test budget');
  }
}

interface Case {
  name: string;
  describe: jest.Describe;
  open(): Promise<{ pool: SqlPool; close(): Promise<void> }>;
  /** 60 rows of `id` and 1 MB of `payload`. */
  page: string;
  /** The id of the connection a statement runs on. */
  session: string;
  /** Whether the stopped read keeps its connection. */
  keepsConnection: boolean;
}

const recursive = (payload: string) =>
  `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 60) SELECT g AS id, ${payload} AS payload FROM s`;

const openWith = async (dialect: Dialect, url: string) => {
  const pool = await dialect.open(url, LIMITS);
  return { pool, close: () => pool.close() };
};

const CASES: Case[] = [
  {
    name: 'PostgreSQL',
    describe: describeWith('postgres'),
    open: () => openWith(new PostgresDialect(), SERVICE_URLS.postgres),
    page: `SELECT g AS id, repeat('x', ${MB}) AS payload FROM generate_series(1, 60) g`,
    session: 'SELECT pg_backend_pid() AS id',
    keepsConnection: true,
  },
  {
    name: 'MariaDB',
    describe: describeWith('mysql'),
    open: () => openWith(new MysqlDialect(), SERVICE_URLS.mysql),
    page: recursive(`REPEAT('x', ${MB})`),
    session: 'SELECT CONNECTION_ID() AS id',
    keepsConnection: false,
  },
  {
    name: 'SQLite',
    describe,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'tg-rows-'));
      const file = join(dir, 'rows.db');
      new Database(file).close();
      const pool = await new SqliteDialect().open(`sqlite:${file}`, LIMITS);
      return {
        pool,
        close: async () => {
          await pool.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    page: recursive(`replace(hex(zeroblob(${MB / 2})), '0', 'x')`),
    session: 'SELECT 1 AS id',
    keepsConnection: true,
  },
];

for (const c of CASES) {
  c.describe(`${c.name} pool: rows charged as they arrive`, () => {
    let pool: SqlPool;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ pool, close } = await c.open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('stops a read at the row the sink refuses and serves the next statement', async () => {
      const session = async () => (await pool.run({ sql: c.session, params: [] })).rows[0].id;
      const before = await session();
      const sink = new CountingSink(3 * MB);
      await expect(pool.run({ sql: c.page, params: [] }, { rows: sink })).rejects.toThrow(
        'over the test budget',
      );
      // Each row is 1 MB and its column names: the third passes 3 MB, and nothing is read after it.
      expect(sink.bytes).toBeGreaterThan(3 * MB);
      expect(sink.bytes).toBeLessThan(4 * MB);
      expect(sink.rows).toBeLessThanOrEqual(3);
      const after = await session();
      if (c.keepsConnection) expect(after).toEqual(before);
      else expect(after).not.toEqual(before);
      const small = await pool.run(
        { sql: c.page.replace('60', '2'), params: [] },
        {
          rows: new CountingSink(3 * MB),
        },
      );
      expect(small.rows).toHaveLength(2);
    }, 60_000);

    it('charges every row of a page within the sink, and returns them all', async () => {
      const sink = new CountingSink(100 * MB);
      const result = await pool.run({ sql: c.page.replace('60', '5'), params: [] }, { rows: sink });
      expect(result.rows).toHaveLength(5);
      expect(sink.rows).toBe(5);
      expect(sink.bytes).toBeGreaterThan(5 * MB);
    }, 60_000);
  });
}
