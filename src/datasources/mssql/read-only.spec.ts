import { EventEmitter } from 'node:events';
import { MssqlPool, parseMssqlUrl } from './pool';

/**
 * `MssqlPool.readOnly` (issue 26) without a SQL Server (none runs in the suite): the `mssql`
 * driver is replaced by a recorder of what the pool asks of it, so the test proves the pool's
 * own steps: one transaction, every statement on it, and a rollback, never a commit, whatever
 * the work does. What SQL Server answers is covered by the golden describe tests.
 */

const mockLog: string[] = [];

jest.mock('mssql', () => {
  class Request extends EventEmitter {
    stream = false;
    input(name: string, value: unknown): this {
      mockLog.push(`input ${name}=${String(value)}`);
      return this;
    }
    cancel(): void {
      mockLog.push('cancel');
    }
    query(sql: string): Promise<{ rowsAffected: number[] }> {
      mockLog.push(`query ${sql}`);
      if (sql.includes('nope')) {
        this.emit(
          'error',
          Object.assign(new Error("Invalid object name 'nope'."), { number: 208, class: 16 }),
        );
      } else {
        this.emit('row', { x: 1 });
      }
      return Promise.resolve({ rowsAffected: [1] });
    }
  }
  class Transaction {
    begin(): Promise<void> {
      mockLog.push('begin');
      return Promise.resolve();
    }
    request(): Request {
      return new Request();
    }
    commit(): Promise<void> {
      mockLog.push('commit');
      return Promise.resolve();
    }
    rollback(): Promise<void> {
      mockLog.push('rollback');
      return Promise.resolve();
    }
  }
  class ConnectionPool {
    on(): this {
      return this;
    }
    connect(): Promise<void> {
      return Promise.resolve();
    }
    request(): Request {
      return new Request();
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  }
  return { ConnectionPool, Transaction };
});

describe('MssqlPool.readOnly: one transaction, always rolled back', () => {
  let pool: MssqlPool;

  beforeAll(async () => {
    pool = await MssqlPool.open(parseMssqlUrl('mssql://sa:pw@127.0.0.1:1433/shop'), 1_000);
  });
  beforeEach(() => mockLog.splice(0));

  it('runs the statements on the transaction and rolls back a read that succeeded', async () => {
    const rows = await pool.readOnly(async (run) => {
      const first = await run({ sql: 'SELECT @p1 AS x', params: [7] });
      await run({ sql: 'SELECT 2 AS y', params: [] });
      return first.rows;
    });
    expect(rows).toEqual([{ x: 1 }]);
    expect(mockLog).toEqual([
      'begin',
      'input p1=7',
      'query SELECT @p1 AS x',
      'query SELECT 2 AS y',
      'rollback',
    ]);
  });

  it('rolls back when a statement fails, and the failure reaches the caller', async () => {
    await expect(
      pool.readOnly((run) => run({ sql: 'SELECT * FROM nope', params: [] })),
    ).rejects.toThrow("Invalid object name 'nope'.");
    expect(mockLog).toEqual(['begin', 'query SELECT * FROM nope', 'rollback']);
  });

  it('rolls back when the work itself throws, running nothing after', async () => {
    await expect(pool.readOnly(() => Promise.reject(new Error('work refused')))).rejects.toThrow(
      'work refused',
    );
    expect(mockLog).toEqual(['begin', 'rollback']);
  });

  it('refuses a statement whose signal already fired, and still rolls back', async () => {
    const abort = new AbortController();
    abort.abort(new Error('caller left'));
    await expect(
      pool.readOnly((run) => run({ sql: 'SELECT 1', params: [] }, { signal: abort.signal })),
    ).rejects.toThrow('caller left');
    expect(mockLog).toEqual(['begin', 'rollback']);
  });
});
