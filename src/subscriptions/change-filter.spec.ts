import type { ModelColumn } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import { admits, checkEvaluable, evaluate, filterCondition, Unevaluable } from './change-filter';

const column = (name: string, kind: ModelColumn['kind'], nullable = true) =>
  ({ name, kind, nullable }) as ModelColumn;

const table = {
  name: 'orders',
  primaryKey: ['id'],
  columns: [
    column('id', 'int', false),
    column('city', 'text'),
    column('total', 'decimal'),
    column('big', 'bigint'),
    column('placed_at', 'timestamptz'),
    column('paid', 'boolean'),
    column('doc', 'json'),
  ],
} as unknown as ModelTable;

const row = {
  id: 7,
  city: 'Faro',
  total: '10.50',
  big: '9007199254740993',
  placed_at: '2024-03-01T10:00:00.000Z',
  paid: true,
  doc: { a: 1 },
};

const where = (w: Record<string, unknown>) => filterCondition(table, table.columns, w);

describe('filterCondition and admits (subscriptions, README "Subscriptions")', () => {
  it('compares each kind in its value form', () => {
    expect(admits(where({ id: { eq: '7' } }), table, row)).toBe(true);
    expect(admits(where({ total: { gte: 10.5 } }), table, row)).toBe(true);
    expect(admits(where({ total: { gt: '10.5' } }), table, row)).toBe(false);
    // Beyond 2^53: compared as integers, not as rounded numbers.
    expect(admits(where({ big: { gt: '9007199254740992' } }), table, row)).toBe(true);
    expect(admits(where({ placed_at: { lt: '2024-03-01T10:00:00.001Z' } }), table, row)).toBe(true);
    expect(admits(where({ paid: { eq: false } }), table, row)).toBe(false);
    expect(admits(where({ city: { in: ['Porto', 'Faro'] } }), table, row)).toBe(true);
    expect(admits(where({ city: { startsWith: 'fa' } }), table, row)).toBe(true);
  });

  it('follows SQL with empty fields: eq null matches, other comparisons never do', () => {
    const empty = { ...row, city: null };
    expect(admits(where({ city: { eq: null } }), table, empty)).toBe(true);
    expect(admits(where({ city: { neq: 'Faro' } }), table, empty)).toBe(false);
    expect(admits(where({ city: { nin: ['Porto'] } }), table, empty)).toBe(false);
    expect(evaluate({ kind: 'untrue', item: where({ city: { eq: 'x' } }) }, table, empty)).toBe(
      true,
    );
  });

  it('combines and, or and the empty lists as the contract says', () => {
    expect(admits(where({ and: [] }), table, row)).toBe(true);
    expect(admits(where({ or: [] }), table, row)).toBe(false);
    expect(admits(where({ or: [{ city: { eq: 'Porto' } }, { id: { eq: 7 } }] }), table, row)).toBe(
      true,
    );
  });

  it('refuses what it cannot decide as the database would, when the subscription opens', () => {
    expect(() => where({ doc: { eq: { a: 1 } } })).toThrow(Unevaluable);
    expect(() => where({ customer: { city: { eq: 'Faro' } } })).toThrow(Unevaluable);
    expect(() => where({ id: { eq: 'seven' } })).toThrow(Unevaluable);
    expect(admits(where({ doc: { neq: null } }), table, row)).toBe(true);
  });

  it('denies (throws) on a relation condition, and checkEvaluable finds it before', () => {
    const exists = {
      kind: 'exists',
      table: { schema: null, name: 'customers' },
      on: [],
      scope: { kind: 'and', items: [] },
      where: { kind: 'and', items: [] },
      negated: false,
    } as never;
    expect(() => evaluate(exists, table, row)).toThrow(Unevaluable);
    expect(() => checkEvaluable({ kind: 'or', items: [exists] })).toThrow(Unevaluable);
  });
});
