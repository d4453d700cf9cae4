import { RequestRefusal } from './compiled-operation';
import {
  mutationDatasource,
  NotRun,
  RequestTransaction,
  ROLLED_BACK,
  rolledBackAnswer,
} from './request-transaction';
import type { CompiledQuery, StatementResult } from '../../datasources/core/dialect';

/** Issue 24 item 5: a mutation request is one transaction on one datasource. */

describe('mutationDatasource', () => {
  const of = (name: string) => ({ addA: 'ds1', addB: 'ds1', addC: 'ds2' })[name];

  it('names the one datasource the mutation fields write', () => {
    expect(mutationDatasource(['addA', 'addB'], of)).toBe('ds1');
    expect(mutationDatasource(['__typename'], of)).toBeNull();
  });

  it('refuses fields over two datasources before any SQL, naming them', () => {
    try {
      mutationDatasource(['addA', 'addC'], of);
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(RequestRefusal);
      const refusal = error as RequestRefusal;
      expect(refusal.status).toBe(400);
      expect(refusal.errors[0].message).toMatch(/addA and addC write to different datasources/);
    }
  });
});

describe('rolledBackAnswer', () => {
  it('nulls every root field and marks those without an error ROLLED_BACK, naming the cause', () => {
    const answer = rolledBackAnswer(
      ['a', 'b', 'c'].map((key) => ({ key, nonNull: false })),
      [
        { message: 'taken', path: ['b'], extensions: { code: 'UNIQUE_VIOLATION' } },
        { message: 'Not run', path: ['c'], extensions: { code: ROLLED_BACK } },
      ],
    );
    expect(answer.data).toEqual({ a: null, b: null, c: null });
    expect(answer.errors.map((e) => [e.path?.[0], e.extensions?.code])).toEqual([
      ['b', 'UNIQUE_VIOLATION'],
      ['c', ROLLED_BACK],
      ['a', ROLLED_BACK],
    ]);
    expect(answer.errors[2].message).toMatch(/^Not written: b failed/);
    // A non-null root field's null propagates to the whole data (GraphQL spec).
    expect(rolledBackAnswer([{ key: 'd', nonNull: true }], answer.errors).data).toBeNull();
  });
});

describe('RequestTransaction', () => {
  /** A connection whose transaction records what happened to it. */
  function recording() {
    const log: string[] = [];
    const conn = {
      transaction: async <T>(
        work: (run: (q: CompiledQuery) => Promise<StatementResult>) => Promise<T>,
      ): Promise<T> => {
        log.push('begin');
        try {
          const out = await work(async (q) => {
            log.push(q.sql);
            return { rows: [], affected: 0 };
          });
          log.push('commit');
          return out;
        } catch (error) {
          log.push('rollback');
          throw error;
        }
      },
    };
    return { log, conn };
  }

  it('opens on the first statement, runs every statement in it, and commits at the end', async () => {
    const { log, conn } = recording();
    const tx = new RequestTransaction();
    await (
      await tx.run(conn)
    )({ sql: 'one', params: [] });
    await (
      await tx.run(conn)
    )({ sql: 'two', params: [] });
    await tx.end(true);
    expect(log).toEqual(['begin', 'one', 'two', 'commit']);
  });

  it('rolls back without the caller seeing the rollback as an error', async () => {
    const { log, conn } = recording();
    const tx = new RequestTransaction();
    await (
      await tx.run(conn)
    )({ sql: 'one', params: [] });
    await expect(tx.end(false)).resolves.toBeUndefined();
    expect(log).toEqual(['begin', 'one', 'rollback']);
  });

  it('does nothing when no statement ran, and refuses later fields once one failed', async () => {
    const tx = new RequestTransaction();
    await expect(tx.end(true)).resolves.toBeUndefined();
    tx.refuseAfterFailure();
    tx.fail('a');
    expect(() => tx.refuseAfterFailure()).toThrow(NotRun);
  });

  it('passes on a failure to begin', async () => {
    const tx = new RequestTransaction();
    const down = { transaction: () => Promise.reject(new Error('server down')) };
    await expect(tx.run(down)).rejects.toThrow('server down');
    await expect(tx.end(false)).resolves.toBeUndefined();
    const again = new RequestTransaction();
    await expect(again.run(down)).rejects.toThrow('server down');
    await expect(again.end(true)).rejects.toThrow('server down');
  });
});
