import type { RequestCost } from './operation-cost';

/** Rows read per cost point (GitHub's "÷ 100", PEERS.md §H1). */
export const ROWS_PER_POINT = 100;
/** Rows a count or aggregate scans per cost point: scanning is cheaper per row than returning. */
export const SCANNED_ROWS_PER_POINT = 10_000;
/** Points of each mutation field, on top of the rows it returns (PEERS.md §H4). */
export const POINTS_PER_MUTATION_FIELD = 10;

/**
 * The cost in points of one request (README "Cost budgets", PEERS.md §H4): one formula for
 * GraphQL, MCP tools and SQL APIs, which all run as GraphQL operations. `rows` are the rows read
 * (the estimate before execution, the rows really read after), `scanned` the rows counts and
 * aggregates scan (the estimate both times: no database reports it), `mutationFields` the root
 * fields of a mutation (0 for a query).
 * @returns `max(1, ⌈rows / 100 + scanned / 10,000⌉ + 10 × mutationFields)`, a whole number.
 */
export function costPoints(rows: number, scanned: number, mutationFields: number): number {
  // One rounding for both: a count's one result row and its scan make one point, not two.
  const points =
    Math.ceil(rows / ROWS_PER_POINT + scanned / SCANNED_ROWS_PER_POINT) +
    POINTS_PER_MUTATION_FIELD * mutationFields;
  return Math.max(1, Math.min(points, Number.MAX_SAFE_INTEGER));
}

/** The points charged before execution: {@link costPoints} of the request's estimate. */
export function requestedPoints(cost: RequestCost, mutationFields: number): number {
  return costPoints(cost.rows, cost.scanned, mutationFields);
}
