import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import runTask, { openConnections, SQLITE_CONNECTIONS_PER_THREAD } from './worker';

/**
 * A SQLite worker thread keeps at most SQLITE_CONNECTIONS_PER_THREAD connections open (issue 22,
 * found by bench:attack class 22.4): thousands of apps' files no longer stay open for ever. Runs
 * the worker's task in this thread over real files.
 */
describe('SQLite worker connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-sqlite-worker-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('closes the least recently used connection beyond the bound and opens it again on its next statement', () => {
    const files = Array.from({ length: SQLITE_CONNECTIONS_PER_THREAD + 6 }, (_, i) => {
      const file = join(dir, `app-${i}.db`);
      const db = new Database(file);
      db.exec(
        `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'file ${i}')`,
      );
      db.close();
      return file;
    });
    const read = (file: string) =>
      runTask({ file, sql: 'SELECT v FROM t WHERE id = ?', params: [1], busyTimeoutMs: 1000 });
    for (const [i, file] of files.entries()) {
      expect(read(file)).toMatchObject({ rows: [{ v: `file ${i}` }] });
      expect(openConnections()).toBeLessThanOrEqual(SQLITE_CONNECTIONS_PER_THREAD);
    }
    expect(openConnections()).toBe(SQLITE_CONNECTIONS_PER_THREAD);
    // The first file's connection was closed; its next statement opens it again.
    expect(read(files[0])).toMatchObject({ rows: [{ v: 'file 0' }] });
    expect(openConnections()).toBe(SQLITE_CONNECTIONS_PER_THREAD);
  });
});
