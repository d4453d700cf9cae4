import { modelColumn } from '../../test/support/model-column';
import { millisecondSpan, spanCondition } from './query-planner';

/** Timestamps compare at the millisecond they read as (issue 11: a value read finds its row). */
describe('millisecondSpan', () => {
  const instant = modelColumn('placed_at', 'timestamptz', { dbType: 'timestamp with time zone' });
  const local = modelColumn('last_update', 'timestamp', { dbType: 'timestamp without time zone' });

  it('makes a value read with milliseconds stand for that whole millisecond', () => {
    expect(millisecondSpan('postgres', instant, '2022-02-15T09:57:20.123Z')).toEqual({
      from: '2022-02-15T09:57:20.123Z',
      to: '2022-02-15T09:57:20.124Z',
    });
    // Any offset on input; the upper bound in UTC.
    expect(millisecondSpan('postgres', instant, '2022-02-15T11:57:20.999+02:00')?.to).toBe(
      '2022-02-15T09:57:21.000Z',
    );
    expect(millisecondSpan('postgres', local, '2022-02-15T09:57:20')).toEqual({
      from: '2022-02-15T09:57:20',
      to: '2022-02-15T09:57:20.001',
    });
    expect(millisecondSpan('sqlite', local, '2022-12-31 23:59:59.999')?.to).toBe(
      '2023-01-01T00:00:00.000',
    );
  });

  it('compares exactly a value with finer fractions, text that is no date, and other kinds', () => {
    expect(millisecondSpan('postgres', instant, '2022-02-15T09:57:20.123456Z')).toBeNull();
    expect(millisecondSpan('postgres', instant, 'not a date')).toBeNull();
    expect(millisecondSpan('postgres', modelColumn('day', 'date'), '2022-02-15')).toBeNull();
    expect(millisecondSpan('postgres', instant, null)).toBeNull();
  });

  it('leaves alone the columns that hold no microseconds: SQL Server datetime, MySQL up to DATETIME(3)', () => {
    const value = '2022-02-15T09:57:20.123';
    const of = (dbType: string) => modelColumn('at', 'timestamp', { dbType });
    expect(millisecondSpan('mssql', of('datetime'), value)).toBeNull();
    expect(millisecondSpan('mssql', of('smalldatetime'), value)).toBeNull();
    expect(millisecondSpan('mssql', of('datetime2'), value)).not.toBeNull();
    expect(millisecondSpan('mysql', of('datetime'), value)).toBeNull();
    expect(millisecondSpan('mysql', of('datetime(3)'), value)).toBeNull();
    expect(millisecondSpan('mysql', of('datetime(6)'), value)).not.toBeNull();
  });
});

describe('spanCondition', () => {
  const at = (op: string, value: string) => ({ kind: 'compare', column: 't', op, value });

  it('compares with the millisecond as a whole, as two bound values an index serves', () => {
    expect(spanCondition('t', 'eq', 'A', 'B')).toEqual({
      kind: 'and',
      items: [at('gte', 'A'), at('lt', 'B')],
    });
    expect(spanCondition('t', 'neq', 'A', 'B')).toEqual({
      kind: 'or',
      items: [at('lt', 'A'), at('gte', 'B')],
    });
    expect(spanCondition('t', 'gt', 'A', 'B')).toEqual(at('gte', 'B'));
    expect(spanCondition('t', 'gte', 'A', 'B')).toEqual(at('gte', 'A'));
    expect(spanCondition('t', 'lt', 'A', 'B')).toEqual(at('lt', 'A'));
    expect(spanCondition('t', 'lte', 'A', 'B')).toEqual(at('lt', 'B'));
  });
});
