import { EventEmitter } from 'node:events';
import type { MssqlRequest } from './pool';
import { streamOn } from './pool';
import { RowReader, type RowSink } from '../core/row-bytes';

/**
 * Issue 22 item 10 on SQL Server, without a server (none runs here): `streamOn` charges each row
 * as tedious emits it and cancels the request at the first row the budget refuses. The request
 * below follows node-mssql's stream mode as `lib/base/request.js` and `lib/tedious/request.js`
 * implement it: `row` per row, `error` for failures (a cancel ends the request with `ECANCEL`),
 * and `query()` resolving with `rowsAffected` once the request is done, failed or not.
 */
class StreamingRequest extends EventEmitter {
  stream = false;
  cancels = 0;
  sent = 0;
  readonly inputs: [string, unknown][] = [];
  private cancelled = false;

  constructor(private readonly rows: Record<string, unknown>[]) {
    super();
  }

  input(name: string, value: unknown): this {
    this.inputs.push([name, value]);
    return this;
  }

  cancel(): void {
    this.cancels++;
    this.cancelled = true;
  }

  async query(): Promise<{ rowsAffected: number[] }> {
    expect(this.stream).toBe(true);
    for (const row of this.rows) {
      // A cancel reaches the server after a few more rows are already on their way.
      await Promise.resolve();
      this.sent++;
      this.emit('row', row);
      if (this.cancelled && this.sent >= this.rows.length - 1) break;
    }
    if (this.cancelled)
      this.emit('error', Object.assign(new Error('Canceled.'), { code: 'ECANCEL' }));
    return { rowsAffected: [this.sent] };
  }
}

const MB = 1024 * 1024;
const page = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, payload: 'x'.repeat(MB) }));

function sink(limit: number): RowSink & { rows: number } {
  let bytes = 0;
  return {
    rows: 0,
    bytesLeft: () => limit - bytes,
    chargeRows(rows, more) {
      this.rows += rows;
      bytes += more;
      if (bytes > limit) throw new Error('over budget');
    },
  };
}

describe('streamOn (SQL Server stream mode)', () => {
  it('cancels the request once at the first refused row and answers the refusal', async () => {
    const request = new StreamingRequest(page(60));
    const budget = sink(3 * MB);
    await expect(
      streamOn(
        request as unknown as MssqlRequest,
        { sql: 'SELECT [id], [payload] FROM [blobs] WHERE [id] > @p1', params: [0] },
        new RowReader(budget),
      ),
    ).rejects.toThrow('over budget');
    expect(request.cancels).toBe(1);
    // The third 1 MB row passes 3 MB: charged, refused, and nothing is charged after it.
    expect(budget.rows).toBe(3);
    expect(request.inputs).toEqual([['p1', 0]]);
  });

  it('returns every row within the budget, and a write its affected count', async () => {
    const request = new StreamingRequest(page(3));
    const budget = sink(10 * MB);
    const read = await streamOn(
      request as unknown as MssqlRequest,
      { sql: 'SELECT [id] FROM [blobs]', params: [] },
      new RowReader(budget),
    );
    expect(read.rows.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(read.affected).toBeUndefined();
    expect(request.cancels).toBe(0);
    const write = await streamOn(
      new StreamingRequest([]) as unknown as MssqlRequest,
      { sql: 'DELETE FROM [blobs] WHERE [id] = @p1', params: [undefined] },
      new RowReader(budget),
    );
    expect(write).toEqual({ rows: [], affected: 0 });
  });

  it('answers the request’s own error when no row was refused', async () => {
    const request = new StreamingRequest([]);
    request.query = async () => {
      request.emit('error', Object.assign(new Error('Invalid object name'), { code: 'EREQUEST' }));
      return { rowsAffected: [] };
    };
    request.stream = true;
    await expect(
      streamOn(
        request as unknown as MssqlRequest,
        { sql: 'SELECT 1', params: [] },
        new RowReader(undefined),
      ),
    ).rejects.toThrow('Invalid object name');
  });
});
