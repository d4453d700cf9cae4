import { costPoints, requestedPoints } from './request-points';

describe('costPoints (README "Cost budgets")', () => {
  it('charges one point for a request that reads nothing or little', () => {
    expect(costPoints(0, 0, 0)).toBe(1);
    expect(costPoints(1, 0, 0)).toBe(1);
    expect(costPoints(100, 0, 0)).toBe(1);
  });

  it('charges a point per started hundred rows (a scanned row a hundredth of one) and 10 per mutation field', () => {
    expect(costPoints(101, 0, 0)).toBe(2);
    expect(costPoints(100_000, 0, 0)).toBe(1_000);
    expect(costPoints(0, 10_001, 0)).toBe(2);
    expect(costPoints(50, 0, 2)).toBe(21);
    // A count: its one result row and a small scan round up once.
    expect(costPoints(1, 20, 0)).toBe(1);
    expect(costPoints(50, 5_000, 0)).toBe(1);
  });

  it('stays a safe whole number for absurd estimates', () => {
    const points = costPoints(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 5);
    expect(Number.isSafeInteger(points)).toBe(true);
    expect(points).toBeGreaterThan(90_000_000_000_000);
  });

  it('charges the estimate of a request before execution', () => {
    expect(requestedPoints({ rows: 250, statements: 3, scanned: 20_000 }, 0)).toBe(5);
  });
});
